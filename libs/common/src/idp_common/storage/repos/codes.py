"""Authorization codes (RFC 6749 §4.1.2): 60 s, single use, stored as a digest.

``consume_authorization_code`` is atomic: ``UPDATE … SET consumed_at WHERE consumed_at IS
NULL RETURNING``; of two concurrent exchanges exactly one gets the row. A code found
already consumed is a replay: the caller revokes everything under its ``grant_id``.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime, timedelta

import msgspec
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import AUTHORIZATION_CODE_TTL_SECONDS
from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.models import AuthorizationCode


class CodeGrant(msgspec.Struct, frozen=True, kw_only=True):
    grant_id: uuid.UUID
    client_pk: uuid.UUID
    user_id: uuid.UUID
    redirect_uri: str
    scope: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    session_sid: str | None
    auth_time: datetime
    acr: str | None
    amr: list[str]
    expires_at: datetime


_INSERT_CODE = """
INSERT INTO authorization_codes (code_digest, grant_id, client_pk, user_id, redirect_uri,
    scope, nonce, code_challenge, code_challenge_method, session_sid, auth_time, acr, amr,
    expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
"""


async def create_authorization_code(
    pool: HotPool,
    *,
    now: datetime,
    client_pk: uuid.UUID,
    user_id: uuid.UUID,
    redirect_uri: str,
    scope: str,
    nonce: str | None,
    code_challenge: str | None,
    code_challenge_method: str | None,
    session_sid: str | None,
    auth_time: datetime,
    acr: str | None,
    amr: list[str],
) -> str:
    """Store a new code's digest with a new grant id; return the code (shown once, to the
    client). One statement on a pooled driver connection: it commits by itself, so the
    authorization endpoint pays one round trip (``idp_common.storage.db.hot_pool``)."""
    code = secrets.token_urlsafe(32)
    async with pool.connection() as conn:
        await conn.execute(
            _INSERT_CODE,
            digest(code),
            uuid.uuid4(),
            client_pk,
            user_id,
            redirect_uri,
            scope,
            nonce,
            code_challenge,
            code_challenge_method,
            session_sid,
            auth_time,
            acr,
            amr,
            now + timedelta(seconds=AUTHORIZATION_CODE_TTL_SECONDS),
        )
    return code


async def consume_authorization_code(
    session: AsyncSession, code: str
) -> tuple[CodeGrant | None, uuid.UUID | None]:
    """(grant, None) on first use; (None, grant_id) on replay; (None, None) if unknown.

    Expiry is the caller's check (``grant.expires_at``), so an expired code is still
    consumed and cannot be tried again.
    """
    key = digest(code)
    row = (
        await session.execute(
            update(AuthorizationCode)
            .where(AuthorizationCode.code_digest == key, AuthorizationCode.consumed_at.is_(None))
            .values(consumed_at=datetime.now().astimezone())
            .returning(AuthorizationCode)
        )
    ).scalar_one_or_none()
    if row is not None:
        return CodeGrant(
            grant_id=row.grant_id,
            client_pk=row.client_pk,
            user_id=row.user_id,
            redirect_uri=row.redirect_uri,
            scope=row.scope,
            nonce=row.nonce,
            code_challenge=row.code_challenge,
            code_challenge_method=row.code_challenge_method,
            session_sid=row.session_sid,
            auth_time=row.auth_time,
            acr=row.acr,
            amr=list(row.amr),
            expires_at=row.expires_at,
        ), None
    replayed = await session.scalar(
        select(AuthorizationCode.grant_id).where(AuthorizationCode.code_digest == key)
    )
    return None, replayed
