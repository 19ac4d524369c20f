"""The provider metadata document (contract §4 "Discovery").

Served at ``/.well-known/openid-configuration`` (OpenID Connect Discovery 1.0 §3) and, as
the same document, at ``/.well-known/oauth-authorization-server`` (RFC 8414 §2, §3).

Every URL is derived from the configured issuer (``SVC_ISSUER``), never from a request's
Host header (docs/design.md §2): a forged Host must not change where clients send credentials.
The ``issuer`` member is the configured value unchanged, because OIDC Discovery §4.3 and
RFC 8414 §3.3 require it to be identical to the ``iss`` of every token. Endpoint URLs are
built on the issuer with one trailing ``/`` removed.

Signing algorithms: ``id_token_signing_alg_values_supported`` and
``userinfo_signing_alg_values_supported`` (OIDC Discovery §3) list exactly the algorithms
the provider holds a current key for, in the order RS256, PS256, ES256, EdDSA: a client
may register for any of them. Client assertions (RFC 7523, OIDC Core §9) are
accepted at the token, introspection and revocation endpoints: their
``*_endpoint_auth_signing_alg_values_supported`` list RS256, PS256, ES256 (``private_key_jwt``)
and HS256 (``client_secret_jwt``). The revocation endpoint also lists ``none``:
a public client, such as a browser application, revokes its own tokens with its
``client_id`` alone (RFC 7009 §2.1); introspection stays for confidential clients. Nothing
else is listed that is not implemented: no request objects, no signed introspection
answers.

Languages (docs/languages.md): ``ui_locales_supported`` lists the languages the
sign-in page, the console and the mails are written in (``ui_locales`` picks one).
``claims_locales_supported`` is left out on purpose: claim values are released as they
were stored, in no particular language, and no claim is offered in several languages
(OIDC Core §5.2 ``name#de``), so no language can be said to be supported for them.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

from idp_common.protocol import constants as c
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES
from idp_common.protocol.rfc8628_device import DEVICE_AUTHORIZATION_PATH
from idp_common.protocol.rfc9126_par import PAR_PATH
from idp_common.protocol.rfc9449_dpop import DPOP_ALGORITHMS
from token_service.protocol.rfc7523_client_assertion import PRIVATE_KEY_JWT_ALGS, SECRET_JWT_ALGS

__all__ = [
    "AUTHORIZATION_PATH",
    "END_SESSION_PATH",
    "INTROSPECTION_PATH",
    "JWKS_PATH",
    "OAUTH_METADATA_PATH",
    "OPENID_CONFIGURATION_PATH",
    "REVOCATION_PATH",
    "TOKEN_PATH",
    "USERINFO_PATH",
    "issuer_base",
    "provider_metadata",
]

AUTHORIZATION_PATH = "/oauth2/authorize"
TOKEN_PATH = "/oauth2/token"  # noqa: S105 - a path, not a secret
USERINFO_PATH = "/oauth2/userinfo"
END_SESSION_PATH = "/oauth2/logout"
INTROSPECTION_PATH = "/oauth2/introspect"
REVOCATION_PATH = "/oauth2/revoke"
JWKS_PATH = "/.well-known/jwks.json"
OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration"
OAUTH_METADATA_PATH = "/.well-known/oauth-authorization-server"

#: OIDC Core §2, §3.1.3.6, §5.1; BCL §2.4 (``sid``). Claims the provider can release.
CLAIMS_SUPPORTED = (
    "sub",
    "iss",
    "aud",
    "exp",
    "iat",
    "auth_time",
    "nonce",
    "acr",
    "amr",
    "sid",
    "at_hash",
    *c.RELEASED_PROFILE_CLAIMS,
)


#: The ``alg`` values a client assertion may use (``private_key_jwt``, ``client_secret_jwt``).
ASSERTION_ALGS = (*PRIVATE_KEY_JWT_ALGS, *SECRET_JWT_ALGS)


def issuer_base(issuer: str) -> str:
    """The issuer with one trailing ``/`` removed; endpoint paths are appended to it.

    Raises ValueError unless the issuer is an absolute ``https`` (or ``http``, for local
    development) URL without query or fragment (RFC 8414 §2 ``issuer``).
    """
    parts = urlsplit(issuer)
    if parts.scheme not in {"https", "http"} or not parts.netloc:
        raise ValueError(f"issuer must be an absolute https URL, got {issuer!r}")
    if parts.query or parts.fragment or "?" in issuer or "#" in issuer:
        raise ValueError(f"issuer must not have a query or fragment, got {issuer!r}")
    return issuer.removesuffix("/")


def provider_metadata(
    issuer: str, signing_algs: Collection[str] = (c.SIGNING_ALGORITHM,)
) -> dict[str, Any]:
    """The OpenID Provider / RFC 8414 metadata document for ``issuer``, whose keys sign
    with ``signing_algs`` (those held). A new dict per call."""
    base = issuer_base(issuer)
    algs = [alg for alg in c.SIGNING_ALGORITHMS if alg in signing_algs]
    return {
        "issuer": issuer,
        "authorization_endpoint": base + AUTHORIZATION_PATH,
        "token_endpoint": base + TOKEN_PATH,
        "userinfo_endpoint": base + USERINFO_PATH,
        "jwks_uri": base + JWKS_PATH,
        "end_session_endpoint": base + END_SESSION_PATH,
        "introspection_endpoint": base + INTROSPECTION_PATH,
        "revocation_endpoint": base + REVOCATION_PATH,
        # RFC 9126 §5: pushing is optional at the server; a client may be set to require it.
        "pushed_authorization_request_endpoint": base + PAR_PATH,
        "require_pushed_authorization_requests": False,
        # RFC 8628 §4: the device authorization endpoint.
        "device_authorization_endpoint": base + DEVICE_AUTHORIZATION_PATH,
        "response_types_supported": [c.RESPONSE_TYPE_CODE],
        "response_modes_supported": [c.RESPONSE_MODE_QUERY],
        "grant_types_supported": list(c.GRANT_TYPES),
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": algs,
        "userinfo_signing_alg_values_supported": list(algs),
        "token_endpoint_auth_methods_supported": list(c.TOKEN_ENDPOINT_AUTH_METHODS),
        # RFC 7523 §2.2, OIDC Core §9: client assertions at all three.
        "token_endpoint_auth_signing_alg_values_supported": list(ASSERTION_ALGS),
        "introspection_endpoint_auth_methods_supported": list(c.CONFIDENTIAL_CLIENT_AUTH_METHODS),
        "introspection_endpoint_auth_signing_alg_values_supported": list(ASSERTION_ALGS),
        # RFC 7009 §2.1: a public client revokes with its client_id alone ("none").
        "revocation_endpoint_auth_methods_supported": list(c.TOKEN_ENDPOINT_AUTH_METHODS),
        "revocation_endpoint_auth_signing_alg_values_supported": list(ASSERTION_ALGS),
        "code_challenge_methods_supported": [c.CODE_CHALLENGE_METHOD_S256],
        "dpop_signing_alg_values_supported": list(DPOP_ALGORITHMS),  # RFC 9449 §5.1
        "scopes_supported": list(c.OIDC_SCOPES),
        "claims_supported": list(CLAIMS_SUPPORTED),
        "prompt_values_supported": list(c.PROMPT_VALUES),
        "acr_values_supported": list(c.ACR_VALUES),
        "ui_locales_supported": list(SUPPORTED_LOCALES),  # OIDC Discovery §3
        "authorization_response_iss_parameter_supported": True,
        "backchannel_logout_supported": True,
        "backchannel_logout_session_supported": True,
        "frontchannel_logout_supported": False,
        "request_parameter_supported": False,
        "request_uri_parameter_supported": False,
        "claims_parameter_supported": False,
    }
