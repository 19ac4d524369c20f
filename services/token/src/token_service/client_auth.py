"""Authenticating the client of a token, introspection, revocation, PAR or device
authorization request.

RFC 6749 §2.3 and §3.2.1 with the methods of docs/design.md §2 (parsing and the constant-time
comparison are pure: :mod:`token_service.protocol.rfc6749_client_auth`), and the JWT
assertions of RFC 7523 §2.2 / OIDC Core §9 (the rules are pure:
:mod:`token_service.protocol.rfc7523_client_assertion`; docs/oauth/client-authentication.md).

- A client registered with ``client_secret_basic`` or ``client_secret_post`` presents its
  secret by either method; a public client (``none``) only its ``client_id``.
- A client registered with ``private_key_jwt`` or ``client_secret_jwt`` presents a client
  assertion and nothing else: its secret is refused. ``private_key_jwt`` keys come from
  its ``jwks`` or ``jwks_uri`` (:mod:`token_service.client_keys`); ``client_secret_jwt``
  signs with the secret, kept sealed (``client_secrets.sealed``) since its creation or
  last rotation: a client switched to the method without a rotation since cannot
  authenticate until rotated. Each assertion's ``jti`` is spent once in Redis
  (:mod:`token_service.state.assertion_replay`); Redis down is 503.

A client an administrator disabled fails as one that does not exist (its record is None,
``TokenContext.get_client``): the same answer and audit row, whatever it presents.

Failures are ``invalid_client`` (401, with ``WWW-Authenticate: Basic`` when Basic was
tried) and are audited as ``token.client_auth_failed`` with the ``client_id`` and method,
never the secret nor the assertion. Identical failures (same client, address and reason)
are written once a minute, the next row carrying ``detail.repeated``
(``token_service.repeated_failures``; docs/security.md, attack 11).
"""

from __future__ import annotations

import logging
from typing import Final

from joserfc.jwk import KeySet

from idp_common.crypto.secretbox import SecretboxError, client_secret_context, open_sealed
from idp_common.protocol.constants import (
    CLIENT_AUTH_NONE,
    CLIENT_AUTH_PRIVATE_KEY_JWT,
    CLIENT_AUTH_SECRET_JWT,
)
from idp_common.protocol.rfc6749_errors import InvalidClient
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.clients import ClientRecord
from token_service.client_keys import ClientKeysUnavailable
from token_service.context import GrantDeps
from token_service.protocol.rfc6749_client_auth import (
    ClientCredentials,
    parse_client_credentials,
    secret_matches,
)
from token_service.protocol.rfc7523_client_assertion import (
    DEFAULT_LEEWAY_SECONDS,
    UnverifiedAssertion,
    check_assertion_request,
    method_of_alg,
    read_assertion,
    secret_key,
    verify_assertion,
)
from token_service.protocol.rfc8414_metadata import TOKEN_PATH
from token_service.state.assertion_replay import spend_jti

log = logging.getLogger("idp.client_auth")
AUDIT_CLIENT_AUTH_FAILED: Final = "token.client_auth_failed"
#: Methods whose clients authenticate with a client assertion only.
ASSERTION_METHODS: Final = frozenset({CLIENT_AUTH_PRIVATE_KEY_JWT, CLIENT_AUTH_SECRET_JWT})


def _check(credentials: ClientCredentials, client: ClientRecord | None) -> str | None:
    """The reason authentication fails, or None."""
    method = client.token_endpoint_auth_method if client is not None else None
    if method in ASSERTION_METHODS:
        return f"this client authenticates with a client assertion ({method})"
    if credentials.method == CLIENT_AUTH_NONE:
        if client is None:
            return "unknown client"
        return "client secret required" if client.is_confidential else None
    matches = secret_matches(credentials.secret or "", client.secret_digest if client else None)
    if client is None or not client.is_confidential or not matches:
        return "client authentication failed"
    return None


async def authenticate_client(
    deps: GrantDeps,
    *,
    authorization: str | None,
    client_id: str | None,
    client_secret: str | None,
    confidential_only: bool = False,
    client_assertion: str | None = None,
    client_assertion_type: str | None = None,
    endpoint_url: str | None = None,
) -> ClientRecord:
    """The authenticated client; raises ``InvalidClient`` (or ``InvalidRequest``).

    ``authorization`` is the request's ``Authorization`` header; ``client_id``,
    ``client_secret``, ``client_assertion`` and ``client_assertion_type`` its form fields
    (None when absent). ``confidential_only``: a public client is refused.
    ``endpoint_url``: the absolute URL of the endpoint called, built on the issuer
    (``issuer_base(issuer) + PATH``), accepted as an assertion's ``aud`` beside the issuer
    and the token endpoint's URL (default: the token endpoint). A request with
    ``client_assertion`` or ``client_assertion_type`` authenticates by the assertion only.
    """
    if client_assertion is not None or client_assertion_type is not None:
        token = check_assertion_request(
            authorization=authorization,
            client_secret=client_secret,
            client_assertion=client_assertion,
            client_assertion_type=client_assertion_type,
        )
        return await _authenticate_assertion(deps, token, client_id, endpoint_url)
    credentials = parse_client_credentials(authorization, client_id, client_secret)
    client = await deps.ctx.get_client(credentials.client_id)
    reason = _check(credentials, client)
    if reason is None and confidential_only and client is not None and not client.is_confidential:
        reason = "this endpoint is for confidential clients"
    if reason is not None or client is None:
        await _audit_failure(
            deps, credentials.client_id, credentials.method, reason or "unknown client"
        )
        raise InvalidClient(reason, basic=credentials.used_basic)
    return client


def accepted_audiences(deps: GrantDeps, endpoint_url: str | None) -> frozenset[str]:
    """RFC 7523 §3 item 3 with RFC 7523bis: the issuer, the token endpoint, the endpoint."""
    settings = deps.ctx.settings
    token_url = settings.issuer_base + TOKEN_PATH
    return frozenset({settings.issuer, settings.issuer_base, token_url, endpoint_url or token_url})


async def _authenticate_assertion(
    deps: GrantDeps, token: str, client_id: str | None, endpoint_url: str | None
) -> ClientRecord:
    assertion = read_assertion(token, client_id)
    method = method_of_alg(assertion.alg)
    client = await deps.ctx.get_client(assertion.client_id)
    try:
        if client is None:
            raise InvalidClient("unknown client")
        verified = verify_assertion(
            token,
            assertion,
            method=client.token_endpoint_auth_method,
            keys=await _client_keys(deps, client, assertion),
            audiences=accepted_audiences(deps, endpoint_url),
            now=deps.now,
            # FAPI 2.0 SP §5.3.2.1: only the issuer, as a string (audience injection).
            only_audience=deps.ctx.settings.issuer if client.is_fapi2 else None,
        )
        ttl = verified.usable_until + DEFAULT_LEEWAY_SECONDS - deps.now
        prefix = deps.ctx.settings.redis_prefix
        redis = deps.ctx.resources.redis
        if not await spend_jti(redis, prefix, client.client_id, verified.jti, ttl):
            raise InvalidClient("client assertion already used (jti)")
    except InvalidClient as exc:
        await _audit_failure(deps, assertion.client_id, method, exc.description or "invalid")
        raise
    return client


async def _client_keys(
    deps: GrantDeps, client: ClientRecord, assertion: UnverifiedAssertion
) -> KeySet:
    """The keys the assertion is checked with, by the client's registered method."""
    method = client.token_endpoint_auth_method
    if method == CLIENT_AUTH_SECRET_JWT:
        return secret_key(_open_secret(deps, client))
    if method != CLIENT_AUTH_PRIVATE_KEY_JWT:
        raise InvalidClient(f"this client is registered for {method}, not a client assertion")
    settings = deps.ctx.settings
    try:
        return await deps.ctx.client_keys.key_set(
            client, kid=assertion.kid, allow_private=settings.client_jwks_allow_private
        )
    except ClientKeysUnavailable as exc:
        raise InvalidClient(exc.reason) from None


def _open_secret(deps: GrantDeps, client: ClientRecord) -> str:
    """The plain secret of a ``client_secret_jwt`` client, from its sealed copy."""
    if client.sealed_secret is None:
        raise InvalidClient(
            "no secret usable for client_secret_jwt: the client's secret must be rotated "
            "after choosing the method (POST /admin/clients/{client_id}/rotate-secret)"
        )
    key = deps.ctx.settings.secrets_key_bytes
    if key is None:
        raise InvalidClient("client_secret_jwt needs SVC_SECRETS_KEY on this deployment")
    context = client_secret_context(client.pk)
    try:
        return open_sealed(client.sealed_secret, key=key, context=context).decode("utf-8")
    except (SecretboxError, UnicodeDecodeError):
        log.error("client %s: its sealed secret does not open", client.client_id[:100])
        raise InvalidClient("the client's secret cannot be read: rotate it") from None


async def _left_out(deps: GrantDeps, client_id: str, reason: str) -> int | None:
    """None when this failure repeats one written within the window (it is counted);
    else how many identical ones were left out before it. Redis down: write the row."""
    try:
        return await deps.ctx.repeated_failures.should_write(
            AUDIT_CLIENT_AUTH_FAILED, client_id, deps.ip, reason
        )
    except Exception as exc:
        log.warning("audit coalescing unavailable (%s)", type(exc).__name__)
        return 0


async def _audit_failure(deps: GrantDeps, client_id: str, method: str, reason: str) -> None:
    left_out = await _left_out(deps, client_id, reason)
    if left_out is None:
        return
    detail: dict[str, object] = {"method": method, "reason": reason}
    if left_out:
        detail["repeated"] = left_out
    entry = AuditEntry(
        action=AUDIT_CLIENT_AUTH_FAILED,
        status_code=401,
        ip=deps.ip,
        actor=client_id[:100],
        target_type="client",
        target=client_id[:100],
        detail=detail,
    )
    await record_refusal(deps.ctx.resources.sessions, entry)
