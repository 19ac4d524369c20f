"""Refresh tokens: opaque, stored as a digest, rotated on every use (DESIGN.md §2).

Contract:

- ``issue_refresh_token`` inserts a row and returns the token (``token_urlsafe(32)``,
  shown once); only its SHA-256 digest is stored. Lifetime 30 days.
- ``rotate_refresh_token`` spends the presented token atomically: ``UPDATE … SET
  spent_at = now WHERE token_digest = … AND spent_at IS NULL AND revoked_at IS NULL AND
  expires_at > now AND client_pk = … RETURNING``. Of two concurrent rotations of one
  token exactly one gets the row (the other waits for the row lock, then finds it spent).
  When no row comes back the row is looked up: found spent → reuse (spec part 3): the
  whole family is revoked and audited, the caller's ``before_reuse_commit`` runs (the
  token service lists the grant's access tokens as revoked in Redis there), then all of
  it is **committed** and ``RefreshTokenReused`` (an ``InvalidGrant``) is raised (so the
  caller's rollback cannot undo the revocation). If ``before_reuse_commit`` fails nothing
  is committed, and the next presentation of the token is a reuse again (issue #19,
  attack 5: the family and its access tokens are revoked together or not at all).
  Unknown, revoked, expired or another client's token → ``InvalidGrant``, nothing changes.
- ``revoke_*`` set ``revoked_at`` on rows not yet revoked and return how many; a revoked
  row is kept until the cleanup job removes it after expiry (spec part 3).

Token values are never logged or audited; audit records name the family and a digest
prefix.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import msgspec
from sqlalchemy import ColumnElement, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import REFRESH_TOKEN_TTL_SECONDS
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.storage.db.models import RefreshToken
from idp_common.storage.repos.audit import AuditEntry, write_audit

__all__ = [
    "AUDIT_REFRESH_REUSED",
    "RefreshTokenRecord",
    "RefreshTokenReused",
    "digest_prefix",
    "get_refresh_token",
    "issue_refresh_token",
    "revoke_by_grant_id",
    "revoke_by_session_sid",
    "revoke_family",
    "revoke_token",
    "rotate_refresh_token",
]

log = logging.getLogger("idp.refresh_tokens")
AUDIT_REFRESH_REUSED = "token.refresh_reused"


class RefreshTokenReused(InvalidGrant):
    """A spent token was presented again; its family is revoked (already committed).

    Carries ``grant_id`` so that the caller can also revoke the grant's access tokens.
    """

    def __init__(self, family_id: uuid.UUID, grant_id: uuid.UUID | None) -> None:
        super().__init__("refresh token was already used; its family is revoked")
        self.family_id = family_id
        self.grant_id = grant_id


class RefreshTokenRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: uuid.UUID
    family_id: uuid.UUID
    grant_id: uuid.UUID | None
    parent_id: uuid.UUID | None
    client_pk: uuid.UUID
    user_id: uuid.UUID | None
    scope: str
    session_sid: str | None
    auth_time: datetime | None
    acr: str | None
    amr: list[str]
    issued_at: datetime
    expires_at: datetime
    spent_at: datetime | None
    revoked_at: datetime | None

    def is_active(self, now: datetime) -> bool:
        return self.spent_at is None and self.revoked_at is None and self.expires_at > now


def _record(row: RefreshToken) -> RefreshTokenRecord:
    return RefreshTokenRecord(
        id=row.id,
        family_id=row.family_id,
        grant_id=row.grant_id,
        parent_id=row.parent_id,
        client_pk=row.client_pk,
        user_id=row.user_id,
        scope=row.scope,
        session_sid=row.session_sid,
        auth_time=row.auth_time,
        acr=row.acr,
        amr=list(row.amr),
        issued_at=row.issued_at,
        expires_at=row.expires_at,
        spent_at=row.spent_at,
        revoked_at=row.revoked_at,
    )


def digest_prefix(token: str) -> str:
    """First 12 hex digits of the token's digest: safe to log, enough to correlate."""
    return digest(token).hex()[:12]


async def issue_refresh_token(
    session: AsyncSession,
    *,
    family_id: uuid.UUID,
    grant_id: uuid.UUID | None,
    parent_id: uuid.UUID | None,
    client_pk: uuid.UUID,
    user_id: uuid.UUID | None,
    scope: str,
    session_sid: str | None,
    auth_time: datetime | None,
    acr: str | None,
    amr: list[str],
    now: datetime,
) -> str:
    """Insert a new refresh token of ``family_id``; return its value (shown once)."""
    token = secrets.token_urlsafe(32)
    await session.execute(
        insert(RefreshToken).values(
            token_digest=digest(token),
            family_id=family_id,
            grant_id=grant_id,
            parent_id=parent_id,
            client_pk=client_pk,
            user_id=user_id,
            scope=scope,
            session_sid=session_sid,
            auth_time=auth_time,
            acr=acr,
            amr=amr,
            issued_at=now,
            expires_at=now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS),
        )
    )
    return token


async def get_refresh_token(session: AsyncSession, token: str) -> RefreshTokenRecord | None:
    """The row of ``token`` whatever its state, or None."""
    row = await session.scalar(
        select(RefreshToken).where(RefreshToken.token_digest == digest(token))
    )
    return None if row is None else _record(row)


async def rotate_refresh_token(
    session: AsyncSession,
    token: str,
    client_pk: uuid.UUID,
    now: datetime,
    *,
    ip: str | None = None,
    before_reuse_commit: Callable[[RefreshTokenReused], Awaitable[None]] | None = None,
) -> RefreshTokenRecord:
    """Spend ``token`` and return its row (now spent); see the module contract."""
    key = digest(token)
    row = (
        await session.execute(
            update(RefreshToken)
            .where(
                RefreshToken.token_digest == key,
                RefreshToken.spent_at.is_(None),
                RefreshToken.revoked_at.is_(None),
                RefreshToken.expires_at > now,
                RefreshToken.client_pk == client_pk,
            )
            .values(spent_at=now)
            .returning(RefreshToken)
        )
    ).scalar_one_or_none()
    if row is not None:
        return _record(row)
    found = await get_refresh_token(session, token)
    if found is None or found.client_pk != client_pk:
        raise InvalidGrant("refresh token is invalid")
    if found.spent_at is not None and found.revoked_at is None:
        revoked = await revoke_family(session, found.family_id, now)
        write_audit(
            session,
            AuditEntry(
                action=AUDIT_REFRESH_REUSED,
                status_code=400,
                ip=ip,
                actor=str(found.user_id) if found.user_id else None,
                target_type="refresh_token_family",
                target=str(found.family_id),
                detail={
                    "digest_prefix": key.hex()[:12],
                    "grant_id": str(found.grant_id) if found.grant_id else None,
                    "revoked": revoked,
                },
            ),
        )
        reused = RefreshTokenReused(found.family_id, found.grant_id)
        if before_reuse_commit is not None:
            await before_reuse_commit(reused)
        await session.commit()
        log.warning("refresh token reuse: family %s revoked (%d rows)", found.family_id, revoked)
        raise reused
    raise InvalidGrant("refresh token is expired or revoked")


async def _revoke_where(
    session: AsyncSession, now: datetime, *conditions: ColumnElement[bool]
) -> int:
    result = await session.execute(
        update(RefreshToken)
        .where(RefreshToken.revoked_at.is_(None), *conditions)
        .values(revoked_at=now)
        .returning(RefreshToken.id)
    )
    return len(result.all())


async def revoke_family(session: AsyncSession, family_id: uuid.UUID, now: datetime) -> int:
    """Revoke every token of one rotation family."""
    return await _revoke_where(session, now, RefreshToken.family_id == family_id)


async def revoke_by_grant_id(session: AsyncSession, grant_id: uuid.UUID, now: datetime) -> int:
    """Revoke every refresh token issued under one authorization grant (code replay)."""
    return await _revoke_where(session, now, RefreshToken.grant_id == grant_id)


async def revoke_by_session_sid(session: AsyncSession, sid: str, now: datetime) -> int:
    """Revoke every refresh token tied to a browser session (logout, spec part 3)."""
    return await _revoke_where(session, now, RefreshToken.session_sid == sid)


async def revoke_token(
    session: AsyncSession, token: str, client_pk: uuid.UUID, now: datetime
) -> RefreshTokenRecord | None:
    """RFC 7009: revoke the family of ``token`` when it belongs to ``client_pk``.

    Returns the token's row (before revocation) or None when unknown or another
    client's; nothing changes then.
    """
    found = await get_refresh_token(session, token)
    if found is None or found.client_pk != client_pk:
        return None
    await revoke_family(session, found.family_id, now)
    return found
