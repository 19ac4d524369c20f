"""Authorization codes (``authorization_codes``), their one owner (RFC 6749 §4.1.2): 60 s,
single use, stored as a SHA-256 digest.

Contract:

- :func:`create_authorization_code`: one ``INSERT`` that commits by itself (the
  authorization endpoint pays one round trip); a new ``grant_id`` per code.
- **Used at most once.** :func:`exchange_authorization_code` burns the code with one
  atomic ``UPDATE … SET consumed_at WHERE consumed_at IS NULL RETURNING`` that also reads
  the caller's joined row (the person); of concurrent exchanges of one code exactly one
  gets it. The burn commits by itself, whatever the caller decides (``decide``: a refused
  code cannot be tried again); for an accepted code the grant's first refresh token is
  stored next when ``decide`` asks for one, then ``on_accept`` runs (the token service
  tracks the new access token in Redis there). When either fails, one compensating
  statement deletes the grant's refresh token and un-burns the code, so the client's retry
  works (docs/security.md, attack 5). Two round trips instead of a transaction's four.
  Expiry is the caller's check, so an expired code is burnt too.
- **A replay revokes the grant.** A code found already used revokes every refresh token of
  its grant, writes the caller's audit row and runs ``on_replay`` (Redis) in one
  transaction, committed before :class:`CodeReplayed` is raised. Unknown → ``InvalidGrant``.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Generic, Protocol, TypeVar

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import AUTHORIZATION_CODE_TTL_SECONDS
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.storage.db.engine import Db, statements
from idp_common.storage.db.expiry import EARLIEST, Swept, delete_expired_batch
from idp_common.storage.db.hot_pool import Database, HotPool, JoinedRead
from idp_common.storage.repos.audit import AuditEntry, write_audit
from idp_common.storage.repos.refresh_tokens import (
    issue_refresh_token,
    revoke_by_grant_id,
    take_back_first_refresh_token,
)

P = TypeVar("P")
D = TypeVar("D", bound="CodeDecision")


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
    dpop_jkt: str | None = None  # RFC 9449 §10: the DPoP key the exchange must prove


class CodeDecision(Protocol):
    """What the caller decided about a burnt code."""

    @property
    def refused(self) -> bool: ...

    @property
    def refresh_scope(self) -> str | None:
        """The scope of the grant's first refresh token; None: no refresh token."""


@dataclass(frozen=True)
class Exchanged(Generic[P, D]):
    """A burnt code, its person, the caller's decision and the refresh token issued."""

    code: CodeGrant
    person: P | None
    decision: D
    refresh_token: str | None


class CodeReplayed(InvalidGrant):
    """The code was used before; its grant's refresh tokens are revoked (committed)."""

    def __init__(self, grant_id: uuid.UUID) -> None:
        super().__init__("the authorization code was already used")
        self.grant_id = grant_id


_FIELDS: Final = CodeGrant.__struct_fields__
_WIDTH: Final = len(_FIELDS)
_INSERT: Final = f"""
INSERT INTO authorization_codes (code_digest, {", ".join(_FIELDS)})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
"""  # noqa: S608 - fixed text, values are parameters
#: Un-burn a code (``$1`` its digest, ``$2`` the burn's time) whose exchange was taken back.
_UNBURN: Final = """
UPDATE authorization_codes SET consumed_at = NULL WHERE code_digest = $1 AND consumed_at = $2
"""
_CONSUME: Final = f"""
WITH used AS (
    UPDATE authorization_codes AS c SET consumed_at = $2
    WHERE c.code_digest = $1 AND c.consumed_at IS NULL
    RETURNING {", ".join(f"c.{name}" for name in _FIELDS)}
)
SELECT used.*, {{0}} FROM used LEFT JOIN users AS u ON u.id = used.user_id
"""  # noqa: S608 - fixed text, values are parameters


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
    lifetime_seconds: int = AUTHORIZATION_CODE_TTL_SECONDS,
    dpop_jkt: str | None = None,
) -> str:
    """Store a new code's digest with a new grant id, good for ``lifetime_seconds`` (60,
    or less for a FAPI 2.0 client); return the code (shown once, to the client).
    ``dpop_jkt``: the DPoP key its exchange must prove (RFC 9449 §10)."""
    code = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=lifetime_seconds)
    async with pool.connection() as conn:
        await conn.execute(
            _INSERT,
            *(digest(code), uuid.uuid4(), client_pk, user_id, redirect_uri, scope, nonce),
            *(code_challenge, code_challenge_method, session_sid, auth_time, acr, amr, expires),
            dpop_jkt,
        )
    return code


async def withdraw_unused_codes(db: AsyncSession, sids: list[str]) -> int:
    """Delete the codes issued in these browser sessions that were not exchanged yet (a
    session ended); count them. An exchange in flight holds its code's row: this waits
    for it, and then finds the code used (its refresh token is the caller's to revoke
    next) or gone. Used codes stay: a replay must still find them."""
    sql = (
        "DELETE FROM authorization_codes"
        " WHERE session_sid = ANY($1::text[]) AND consumed_at IS NULL RETURNING grant_id"
    )
    return len(await statements(db).fetch(sql, sids))


async def delete_expired_codes(
    db: Db, cutoff: datetime, *, limit: int, after: datetime = EARLIEST
) -> Swept:
    """The cleanup job: one batch, at most ``limit`` codes that expired before ``cutoff``
    (``storage.db.expiry``: oldest first from ``after``, locked rows skipped)."""
    return await delete_expired_batch(db, "authorization_codes", cutoff, limit=limit, after=after)


def code_of(row: Any) -> CodeGrant:
    values = dict(zip(_FIELDS, row[:_WIDTH], strict=True))
    values["amr"] = list(values["amr"] or ())
    return CodeGrant(**values)


async def _first_refresh_token(
    pool: HotPool, grant: CodeGrant, scope: str | None, now: datetime, jkt: str | None
) -> str | None:
    if scope is None:
        return None
    async with pool.connection() as conn:
        return await issue_refresh_token(
            conn,
            family_id=uuid.uuid4(),
            grant_id=grant.grant_id,
            parent_id=None,
            client_pk=grant.client_pk,
            user_id=grant.user_id,
            scope=scope,
            session_sid=grant.session_sid,
            auth_time=grant.auth_time,
            acr=grant.acr,
            amr=grant.amr,
            now=now,
            jkt=jkt,
        )


async def _take_back(pool: HotPool, code: str, burnt_at: datetime, grant_id: uuid.UUID) -> None:
    """An accepted exchange that could not finish: its refresh token goes and the code is
    usable again, unless a replay in between revoked the grant (then both stay as the
    replay left them). A rare path: one transaction, two statements."""
    async with pool.transaction() as conn:
        if await take_back_first_refresh_token(conn, grant_id):
            await conn.execute(_UNBURN, digest(code), burnt_at)


async def exchange_authorization_code(
    db: Database,
    code: str,
    *,
    now: datetime,
    person: JoinedRead[P],
    decide: Callable[[CodeGrant, P | None], D],
    on_accept: Callable[[Exchanged[P, D]], Awaitable[None]],
    on_replay: Callable[[uuid.UUID, int], Awaitable[AuditEntry]],
    refresh_jkt: str | None = None,
) -> Exchanged[P, D]:
    """Burn ``code``; see the module. ``on_replay`` gets the grant id and the number of
    refresh tokens revoked, and returns the audit row to write. ``refresh_jkt``: the DPoP
    key the first refresh token is bound to (RFC 9449 §5; None: not bound)."""
    async with db.hot.connection() as conn:
        row = await conn.fetchrow(_CONSUME.format(person.columns), digest(code), now)
    if row is not None:
        grant = code_of(row)
        try:  # anything but a refusal after the burn takes it back
            holder = person.parse(row, _WIDTH)
            decision = decide(grant, holder)
            if decision.refused:
                return Exchanged(grant, holder, decision, None)
            refresh = await _first_refresh_token(
                db.hot, grant, decision.refresh_scope, now, refresh_jkt
            )
            done = Exchanged(grant, holder, decision, refresh)
            await on_accept(done)
        except BaseException:
            await _take_back(db.hot, code, now, grant.grant_id)
            raise
        return done
    async with db.sessions() as session:
        found = await statements(session).fetchrow(
            "SELECT grant_id FROM authorization_codes WHERE code_digest = $1", digest(code)
        )
        if found is None:
            raise InvalidGrant("the authorization code is invalid")
        revoked = await revoke_by_grant_id(session, found[0], now)
        write_audit(session, await on_replay(found[0], revoked))
        await session.commit()
    raise CodeReplayed(found[0])
