"""The spec's strings, in one place (docs/style.md §5). Each group says where it comes from."""

# Names such as TOKEN_TYPE_* and *_SECRET_* are protocol vocabulary, not credentials.
# ruff: noqa: S105

from __future__ import annotations

from typing import Final

# --- Grant types: RFC 6749 §4.1, §4.4, §6; docs/design.md §2 "Tokens and clients" -------------
GRANT_TYPE_AUTHORIZATION_CODE: Final = "authorization_code"
GRANT_TYPE_REFRESH_TOKEN: Final = "refresh_token"
GRANT_TYPE_CLIENT_CREDENTIALS: Final = "client_credentials"
#: RFC 8628 §3.4 and RFC 8693 §2.1.
GRANT_TYPE_DEVICE_CODE: Final = "urn:ietf:params:oauth:grant-type:device_code"
GRANT_TYPE_TOKEN_EXCHANGE: Final = "urn:ietf:params:oauth:grant-type:token-exchange"
GRANT_TYPES: Final = (
    GRANT_TYPE_AUTHORIZATION_CODE,
    GRANT_TYPE_REFRESH_TOKEN,
    GRANT_TYPE_CLIENT_CREDENTIALS,
    GRANT_TYPE_DEVICE_CODE,
    GRANT_TYPE_TOKEN_EXCHANGE,
)
#: RFC 8693 §3 token type identifiers: the only one exchanged here.
TOKEN_TYPE_URN_ACCESS_TOKEN: Final = "urn:ietf:params:oauth:token-type:access_token"

# --- Authorization request: RFC 6749 §3.1.1, OIDC Core §3.1.2.1, RFC 7636 §4.3 ------------
RESPONSE_TYPE_CODE: Final = "code"
RESPONSE_MODE_QUERY: Final = "query"
CODE_CHALLENGE_METHOD_S256: Final = "S256"

PROMPT_NONE: Final = "none"
PROMPT_LOGIN: Final = "login"
PROMPT_CONSENT: Final = "consent"
PROMPT_SELECT_ACCOUNT: Final = "select_account"
PROMPT_VALUES: Final = (PROMPT_NONE, PROMPT_LOGIN, PROMPT_CONSENT, PROMPT_SELECT_ACCOUNT)

# --- Client authentication: RFC 6749 §2.3.1, OIDC Core §9 ----------------------------------
CLIENT_AUTH_SECRET_BASIC: Final = "client_secret_basic"
CLIENT_AUTH_SECRET_POST: Final = "client_secret_post"
CLIENT_AUTH_NONE: Final = "none"
#: RFC 7523 §2.2 with OIDC Core §9: a JWT signed with the client's secret
#: (HS256) or with its private key (RS256, PS256, ES256; public key in ``jwks``/``jwks_uri``).
CLIENT_AUTH_SECRET_JWT: Final = "client_secret_jwt"
CLIENT_AUTH_PRIVATE_KEY_JWT: Final = "private_key_jwt"
TOKEN_ENDPOINT_AUTH_METHODS: Final = (
    CLIENT_AUTH_SECRET_BASIC,
    CLIENT_AUTH_SECRET_POST,
    CLIENT_AUTH_SECRET_JWT,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
    CLIENT_AUTH_NONE,
)
#: RFC 7523 §2.2 ``client_assertion_type``.
CLIENT_ASSERTION_TYPE_JWT_BEARER: Final = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: Client profiles: ``fapi2`` turns on the FAPI 2.0 Security Profile's rules.
SECURITY_PROFILE_FAPI2: Final = "fapi2"
SECURITY_PROFILES: Final = (SECURITY_PROFILE_FAPI2,)
#: Introspection and revocation authenticate a confidential client (docs/design.md §2), by a
#: secret or a client assertion.
CONFIDENTIAL_CLIENT_AUTH_METHODS: Final = (
    CLIENT_AUTH_SECRET_BASIC,
    CLIENT_AUTH_SECRET_POST,
    CLIENT_AUTH_SECRET_JWT,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
)

CLIENT_TYPE_CONFIDENTIAL: Final = "confidential"
CLIENT_TYPE_PUBLIC: Final = "public"

# --- Tokens: RFC 6749 §7.1, RFC 6750, RFC 7009 §2.1, RFC 9068, OIDC BCL §2.4 ---------------
TOKEN_TYPE_BEARER: Final = "Bearer"
#: RFC 9449 §5: a sender-constrained access token.
TOKEN_TYPE_DPOP: Final = "DPoP"
TOKEN_TYPE_HINT_ACCESS_TOKEN: Final = "access_token"
TOKEN_TYPE_HINT_REFRESH_TOKEN: Final = "refresh_token"
JWT_TYP_ACCESS_TOKEN: Final = "at+jwt"
JWT_TYP_LOGOUT_TOKEN: Final = "logout+jwt"
JWT_TYP_ID_TOKEN: Final = "JWT"
#: RFC 7518 §3.1, RFC 8037 §3.1: the JWS algorithms the provider signs with.
#: RS256 is the default everywhere (contract §5) and the provider's own API's; the others
#: are chosen per API (access tokens) and per client (ID tokens, userinfo, logout tokens).
ALG_RS256: Final = "RS256"
ALG_PS256: Final = "PS256"
ALG_ES256: Final = "ES256"
ALG_EDDSA: Final = "EdDSA"
SIGNING_ALGORITHM: Final = ALG_RS256
SIGNING_ALGORITHMS: Final = (ALG_RS256, ALG_PS256, ALG_ES256, ALG_EDDSA)
#: Spec part 8: access token lifetime ten minutes.
ACCESS_TOKEN_TTL_SECONDS: Final = 600
#: docs/design.md §2: authorization code 60 s; refresh token 30 days; logout token exp +2 min.
AUTHORIZATION_CODE_TTL_SECONDS: Final = 60
REFRESH_TOKEN_TTL_SECONDS: Final = 30 * 24 * 3600
LOGOUT_TOKEN_TTL_SECONDS: Final = 120
#: Spec part 8: discovery and JWKS ``Cache-Control: public, max-age=300``.
DISCOVERY_MAX_AGE_SECONDS: Final = 300

# --- Standard OIDC scopes: OIDC Core §5.4, §11 (exist without seeding, docs/design.md §2) ------
SCOPE_OPENID: Final = "openid"
SCOPE_PROFILE: Final = "profile"
SCOPE_EMAIL: Final = "email"
SCOPE_OFFLINE_ACCESS: Final = "offline_access"
OIDC_SCOPES: Final = (SCOPE_OPENID, SCOPE_PROFILE, SCOPE_EMAIL, SCOPE_OFFLINE_ACCESS)
OIDC_SCOPE_DESCRIPTIONS: Final[dict[str, str]] = {
    SCOPE_OPENID: "Sign you in and know who you are",
    SCOPE_PROFILE: "See your name, username and photo",
    SCOPE_EMAIL: "See your email address",
    SCOPE_OFFLINE_ACCESS: "Keep access while you are not signed in",
}

# --- The provider's own API: docs/design.md §2 "The provider's own API and its permissions" ----
IDP_API_NAME: Final = "idp"
#: The audience of the provider's own API is ``{SVC_ISSUER}/api``.
IDP_API_AUDIENCE_SUFFIX: Final = "/api"

SCOPE_IDP_APIS_READ: Final = "idp:apis:read"
SCOPE_IDP_APIS_WRITE: Final = "idp:apis:write"
SCOPE_IDP_CLIENTS_READ: Final = "idp:clients:read"
SCOPE_IDP_CLIENTS_WRITE: Final = "idp:clients:write"
SCOPE_IDP_GROUPS_READ: Final = "idp:groups:read"
SCOPE_IDP_GROUPS_WRITE: Final = "idp:groups:write"
SCOPE_IDP_ROLES_READ: Final = "idp:roles:read"
SCOPE_IDP_ROLES_WRITE: Final = "idp:roles:write"
SCOPE_IDP_USERS_READ: Final = "idp:users:read"
SCOPE_IDP_USERS_WRITE: Final = "idp:users:write"
SCOPE_IDP_PROFILE_FIELDS_READ: Final = "idp:profile-fields:read"
SCOPE_IDP_PROFILE_FIELDS_WRITE: Final = "idp:profile-fields:write"
SCOPE_IDP_AUDIT_READ: Final = "idp:audit:read"
#: SCIM 2.0 provisioning at ``/scim/v2/*`` (docs/scim.md).
SCOPE_IDP_SCIM_READ: Final = "idp:scim:read"
SCOPE_IDP_SCIM_WRITE: Final = "idp:scim:write"
#: Webhook endpoints and their delivery log (docs/webhooks.md).
SCOPE_IDP_WEBHOOKS_READ: Final = "idp:webhooks:read"
SCOPE_IDP_WEBHOOKS_WRITE: Final = "idp:webhooks:write"
#: The provider's and the clients' brand (docs/branding.md).
SCOPE_IDP_BRANDING_READ: Final = "idp:branding:read"
SCOPE_IDP_BRANDING_WRITE: Final = "idp:branding:write"

SCOPE_IDP_ACCOUNT_READ: Final = "idp:account:read"
SCOPE_IDP_ACCOUNT_WRITE: Final = "idp:account:write"
SCOPE_IDP_SESSIONS_READ: Final = "idp:sessions:read"
SCOPE_IDP_SESSIONS_WRITE: Final = "idp:sessions:write"
SCOPE_IDP_CONNECTIONS_READ: Final = "idp:connections:read"
SCOPE_IDP_CONNECTIONS_WRITE: Final = "idp:connections:write"

#: Held by the seeded ``administrator`` role.
ADMIN_SCOPES: Final = (
    SCOPE_IDP_APIS_READ,
    SCOPE_IDP_APIS_WRITE,
    SCOPE_IDP_CLIENTS_READ,
    SCOPE_IDP_CLIENTS_WRITE,
    SCOPE_IDP_GROUPS_READ,
    SCOPE_IDP_GROUPS_WRITE,
    SCOPE_IDP_ROLES_READ,
    SCOPE_IDP_ROLES_WRITE,
    SCOPE_IDP_USERS_READ,
    SCOPE_IDP_USERS_WRITE,
    SCOPE_IDP_PROFILE_FIELDS_READ,
    SCOPE_IDP_PROFILE_FIELDS_WRITE,
    SCOPE_IDP_AUDIT_READ,
    SCOPE_IDP_SCIM_READ,
    SCOPE_IDP_SCIM_WRITE,
    SCOPE_IDP_WEBHOOKS_READ,
    SCOPE_IDP_WEBHOOKS_WRITE,
    SCOPE_IDP_BRANDING_READ,
    SCOPE_IDP_BRANDING_WRITE,
)
#: Held by every user.
SELF_SERVICE_SCOPES: Final = (
    SCOPE_IDP_ACCOUNT_READ,
    SCOPE_IDP_ACCOUNT_WRITE,
    SCOPE_IDP_SESSIONS_READ,
    SCOPE_IDP_SESSIONS_WRITE,
    SCOPE_IDP_CONNECTIONS_READ,
    SCOPE_IDP_CONNECTIONS_WRITE,
)
#: Consent-screen and catalogue descriptions of every ``idp:*`` scope.
IDP_SCOPE_DESCRIPTIONS: Final[dict[str, str]] = {
    SCOPE_IDP_APIS_READ: "View APIs and their scopes",
    SCOPE_IDP_APIS_WRITE: "Create, change and delete APIs and their scopes",
    SCOPE_IDP_CLIENTS_READ: "View applications (OAuth clients)",
    SCOPE_IDP_CLIENTS_WRITE: "Create, change and delete applications and rotate their secrets",
    SCOPE_IDP_GROUPS_READ: "View groups and their members",
    SCOPE_IDP_GROUPS_WRITE: "Create, change and delete groups and their members",
    SCOPE_IDP_ROLES_READ: "View roles and their permissions",
    SCOPE_IDP_ROLES_WRITE: "Create, change and delete roles and their permissions",
    SCOPE_IDP_USERS_READ: "View user accounts",
    SCOPE_IDP_USERS_WRITE: "Create, change and delete user accounts and end their sessions",
    SCOPE_IDP_PROFILE_FIELDS_READ: "View profile field definitions",
    SCOPE_IDP_PROFILE_FIELDS_WRITE: "Create, change and delete profile field definitions",
    SCOPE_IDP_AUDIT_READ: "Read the audit log",
    SCOPE_IDP_SCIM_READ: "Read users and groups through SCIM provisioning",
    SCOPE_IDP_SCIM_WRITE: "Create, change, deactivate and delete users and groups through SCIM",
    SCOPE_IDP_WEBHOOKS_READ: "View webhook endpoints and their delivery log",
    SCOPE_IDP_WEBHOOKS_WRITE: "Create, change and delete webhook endpoints; resend deliveries",
    SCOPE_IDP_BRANDING_READ: "View the brand of the sign-in pages and mails",
    SCOPE_IDP_BRANDING_WRITE: "Change the brand of the sign-in pages and mails",
    SCOPE_IDP_ACCOUNT_READ: "View your profile, photo and sign-in methods",
    SCOPE_IDP_ACCOUNT_WRITE: "Change your profile, photo, password and sign-in methods",
    SCOPE_IDP_SESSIONS_READ: "View your active sessions",
    SCOPE_IDP_SESSIONS_WRITE: "End your sessions",
    SCOPE_IDP_CONNECTIONS_READ: "View the applications that have access to your account",
    SCOPE_IDP_CONNECTIONS_WRITE: "Remove an application's access to your account",
}


def idp_api_audience(issuer: str) -> str:
    """``{issuer}/api``: the audience of the provider's own API (one trailing ``/`` dropped)."""
    return issuer.removesuffix("/") + IDP_API_AUDIENCE_SUFFIX


# --- Authentication methods and strength: RFC 8176 §2, docs/design.md §2 ------------------------
AMR_PASSWORD: Final = "pwd"
AMR_OTP: Final = "otp"
AMR_FACE: Final = "face"
AMR_MFA: Final = "mfa"
#: RFC 8176 §2 for a passkey (docs/passkeys.md): ``hwk`` a device-bound key,
#: ``swk`` a synced one (backup eligible: the key leaves the device), ``user`` when the
#: authenticator verified the person (its PIN or biometric: WebAuthn does not say which).
AMR_HARDWARE_KEY: Final = "hwk"
AMR_SOFTWARE_KEY: Final = "swk"
AMR_USER_VERIFIED: Final = "user"
AMR_VALUES: Final = (
    AMR_PASSWORD,
    AMR_OTP,
    AMR_FACE,
    AMR_MFA,
    AMR_HARDWARE_KEY,
    AMR_SOFTWARE_KEY,
    AMR_USER_VERIFIED,
)
#: A face alone: a still image proves less than a secret (docs/face-signin.md), so it has
#: its own, weakest level (docs/security.md).
ACR_FACE: Final = "urn:idp:acr:face"
ACR_ONE_FACTOR: Final = "urn:idp:acr:1fa"
ACR_TWO_FACTOR: Final = "urn:idp:acr:2fa"
#: Phishing-resistant: a passkey, bound to this origin, was part of the
#: sign-in: alone with user verification, or after the password.
ACR_PHISHING_RESISTANT: Final = "urn:idp:acr:phr"
#: Weakest first: a session at one level meets a request for any level before it
#: (:func:`idp_common.protocol.oidc_authorize.session_meets_acr`).
ACR_VALUES: Final = (ACR_FACE, ACR_ONE_FACTOR, ACR_TWO_FACTOR, ACR_PHISHING_RESISTANT)
#: Methods that prove knowledge or possession of a secret; a recent sign-in must include
#: one of them before credentials change (docs/security.md "Step-up"). A passkey's key
#: is such a secret, never leaving its authenticator.
AMR_SECRETS: Final = frozenset({AMR_PASSWORD, AMR_OTP, AMR_HARDWARE_KEY, AMR_SOFTWARE_KEY})

# --- Browser session: contract §5 "Browser session" ---------------------------------------
SESSION_COOKIE_NAME: Final = "svc_session"

# --- Back-channel logout: OIDC Back-Channel Logout 1.0 §2.4, contract §6 -----------------
BACKCHANNEL_LOGOUT_EVENT: Final = "http://schemas.openid.net/event/backchannel-logout"
#: Spec part 6: the audit ``action`` of a delivery attempt.
AUDIT_ACTION_BACKCHANNEL_LOGOUT: Final = "POST backchannel_logout"
#: Spec part 8: delivery timeout.
BACKCHANNEL_LOGOUT_TIMEOUT_SECONDS: Final = 5.0

# --- Rate limits: contract §8 -----------------------------------------------------------
# The defaults of SVC_TOKEN_PER_IP and SVC_RESET_PER_IP; the windows and every other
# per-address limit are in idp_common.state.address_limits.
TOKEN_PER_IP_LIMIT: Final = 120
RESET_PER_IP_LIMIT: Final = 10

# --- Recent sign-in: RFC 9470 §3, contract §5, docs/design.md §2 -------------------------------
ERROR_INSUFFICIENT_USER_AUTHENTICATION: Final = "insufficient_user_authentication"
RECENT_SIGN_IN_MAX_AGE_SECONDS: Final = 300

# --- Claims: RFC 7519 §4.1, OIDC Core §2, §5.1, BCL §2.4; docs/design.md §2 "Profile fields" ---
#: Claims the provider itself releases about a person (OIDC Core §5.1).
RELEASED_PROFILE_CLAIMS: Final = (
    "email",
    "email_verified",
    "preferred_username",
    "name",
    "picture",
    "updated_at",
)
#: Claim names a profile field may not use (compared case-insensitively).
RESERVED_CLAIM_NAMES: Final = frozenset(
    {
        "iss",
        "sub",
        "aud",
        "exp",
        "nbf",
        "iat",
        "jti",
        "auth_time",
        "nonce",
        "acr",
        "amr",
        "azp",
        "sid",
        "at_hash",
        "c_hash",
        "s_hash",
        "events",
        "scope",
        "client_id",
        "cnf",
        "act",
        "may_act",
        "typ",
        "_claim_names",
        "_claim_sources",
        *RELEASED_PROFILE_CLAIMS,
    }
)
