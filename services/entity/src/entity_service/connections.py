"""Withdrawing a connection (contract §4 "Entity (self-service)"; docs/design.md "Sign-in"): the
person's consent to a client is deleted and every refresh token of that client for the
person is revoked, with the audit row ``connection.withdraw``, in the caller's transaction.

A connection is a remembered consent, or a client holding an active refresh token of the
person without one (a first-party client marked ``skipConsent`` never asks). Nothing else
ends: browser sessions and access tokens already issued (minutes long) stay; the next
authorization asks for consent again.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Final

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.errors import NotFound
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.client_lookups import connected_client_pk
from idp_common.storage.repos.consents import withdraw_consent
from idp_common.storage.repos.refresh_tokens import revoke_person_tokens

AUDIT_WITHDRAWN: Final = "connection.withdraw"
_MAX_CLIENT_ID_LENGTH: Final = 255


class Withdrawn(msgspec.Struct, frozen=True, kw_only=True):
    client_id: str
    had_consent: bool
    tokens_revoked: int


async def withdraw_connection(
    session: AsyncSession, user_id: uuid.UUID, client_id: str, *, actor: str, ip: str | None
) -> Withdrawn:
    """Withdraw the person's connection to ``client_id`` and audit it (``actor`` asked,
    from ``ip``); 404 (nothing changed) when the client is unknown or not connected."""
    client_pk = None
    if len(client_id) <= _MAX_CLIENT_ID_LENGTH:
        client_pk = await connected_client_pk(session, user_id, client_id)
    if client_pk is None:
        raise NotFound("no connection to this client_id", code="entity.connection_not_found")
    had_consent = await withdraw_consent(session, user_id, client_pk)
    now = datetime.now(UTC)
    revoked = await revoke_person_tokens(session, user_id, now, client_pk=client_pk)
    done = Withdrawn(client_id=client_id, had_consent=had_consent, tokens_revoked=revoked)
    write_audit(
        session,
        AuditEntry(
            action=AUDIT_WITHDRAWN,
            status_code=204,
            ip=ip,
            actor=actor,
            target_type="client",
            target=client_id,
            detail={"hadConsent": had_consent, "tokensRevoked": revoked},
        ),
    )
    return done
