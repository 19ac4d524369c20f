"""Authenticating the client of a token, introspection or revocation request.

RFC 6749 §2.3 and §3.2.1 with the methods of DESIGN.md §2 (parsing and the constant-time
comparison are pure: :mod:`idp_common.protocol.rfc6749_client_auth`). A confidential
client must present its secret (Basic or post); a public client presents only its
``client_id`` (``none``). Failures are ``invalid_client`` (401, with
``WWW-Authenticate: Basic`` when Basic was tried) and are audited as
``token.client_auth_failed`` with the ``client_id`` and method, never the secret.
Identical failures (same client, address and reason) are written once a minute, the next
row carrying ``detail.repeated`` (``token_service.repeated_failures``; issue #19, attack
11).
"""

from __future__ import annotations

import logging
from typing import Final

from idp_common.protocol.constants import CLIENT_AUTH_NONE
from idp_common.protocol.rfc6749_client_auth import (
    ClientCredentials,
    parse_client_credentials,
    secret_matches,
)
from idp_common.protocol.rfc6749_errors import InvalidClient
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.storage.repos.clients import ClientRecord
from token_service.context import GrantDeps

log = logging.getLogger("idp.client_auth")
AUDIT_CLIENT_AUTH_FAILED: Final = "token.client_auth_failed"


def _check(credentials: ClientCredentials, client: ClientRecord | None) -> str | None:
    """The reason authentication fails, or None."""
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
) -> ClientRecord:
    """The authenticated client; raises ``InvalidClient`` (or ``InvalidRequest``)."""
    credentials = parse_client_credentials(authorization, client_id, client_secret)
    client = await deps.ctx.get_client(credentials.client_id)
    reason = _check(credentials, client)
    if reason is None and confidential_only and client is not None and not client.is_confidential:
        reason = "this endpoint is for confidential clients"
    if reason is not None or client is None:
        await _audit_failure(deps, credentials, reason or "unknown client")
        raise InvalidClient(reason, basic=credentials.used_basic)
    return client


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


async def _audit_failure(deps: GrantDeps, credentials: ClientCredentials, reason: str) -> None:
    left_out = await _left_out(deps, credentials.client_id, reason)
    if left_out is None:
        return
    detail: dict[str, object] = {"method": credentials.method, "reason": reason}
    if left_out:
        detail["repeated"] = left_out
    entry = AuditEntry(
        action=AUDIT_CLIENT_AUTH_FAILED,
        status_code=401,
        ip=deps.ip,
        actor=credentials.client_id[:100],
        target_type="client",
        target=credentials.client_id[:100],
        detail=detail,
    )
    await record_refusal(deps.ctx.resources.sessions, entry)
