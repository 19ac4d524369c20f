"""Refresh tokens (``refresh_tokens``), their one owner: opaque, stored as a SHA-256 digest,
rotated on every use (docs/design.md §2; docs/decisions.md "Token endpoint performance").

- **Active** = not spent, not revoked, not expired: :func:`active_sql`, the one definition.
- **Spent at most once.** :func:`rotate_refresh_token` spends with one atomic ``UPDATE …
  WHERE <active> … RETURNING`` that also inserts the successor (same family, parent the
  spent row). Of concurrent spends of one token exactly one wins; the others wait for the
  row lock, then find it spent (a reuse). That statement commits by itself (one round
  trip); then the caller's ``accept`` runs (the token service lists the new access
  token in Redis there), and when it raises, one compensating statement deletes the
  successor and un-spends the token, so nothing has changed when the error reaches the
  client. A concurrent presentation of the same token in between is a reuse
  and revokes the family, which the compensation leaves revoked.
- **Reuse revokes the family**, audits ``token.refresh_reused`` and runs ``on_reuse`` (the
  grant's access tokens go on the Redis revocation list) in one transaction, committed
  before :class:`RefreshTokenReused` is raised; if ``on_reuse`` fails nothing commits and
  the next presentation is a reuse again (docs/security.md, attack 5).
- Unknown, another client's, revoked or expired → ``InvalidGrant``; nothing changes.
- **Bound to a DPoP key** (``jkt``, RFC 9449 §5): a public client's token issued with a
  DPoP proof keeps the key's thumbprint, and so does each successor; the caller's
  ``accept`` refuses a rotation without a proof of that key (then it is taken back).

``revoke_*`` set ``revoked_at`` on rows not yet revoked, in the caller's transaction. All
SQL is asyncpg text, run on a hot-pool connection or in an ORM session's transaction
(``storage.db.engine.statements``). Token values are never logged or audited.
"""

from __future__ import annotations

import enum
import logging
import secrets
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

import msgspec
from sqlalchemy import ColumnElement, exists, text

from idp_common.protocol.constants import REFRESH_TOKEN_TTL_SECONDS
from idp_common.protocol.oidc_core_claims import digest
from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.storage.db.engine import Db, statements
from idp_common.storage.db.expiry import EARLIEST, Swept, delete_expired_batch
from idp_common.storage.db.hot_pool import Database, JoinedRead
from idp_common.storage.db.models import Client, RefreshToken
from idp_common.storage.repos.audit import AuditEntry, write_audit

log = logging.getLogger("idp.refresh_tokens")
AUDIT_REFRESH_REUSED: Final = "token.refresh_reused"
P = TypeVar("P")
T = TypeVar("T")


def active_sql(table: str, now: str) -> str:
    """What "active" means: ``table``'s row not spent, revoked or expired at ``now``."""
    return f"{table}.spent_at IS NULL AND {table}.revoked_at IS NULL AND {table}.expires_at > {now}"


class RefreshTokenReused(InvalidGrant):
    """A spent token was presented again; its family is revoked (already committed)."""

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
    jkt: str | None = None  # RFC 9449 §5: the DPoP key a public client's token is bound to


_FIELDS: Final = RefreshTokenRecord.__struct_fields__
_COLUMNS: Final = ", ".join(_FIELDS)
_WIDTH: Final = len(_FIELDS)

#: Spend when nothing can refuse the rotation: this client's active token, requested
#: scope ($4) within the original, person able to sign in.
_SPEND: Final = f"""
WITH spent AS (
    UPDATE refresh_tokens AS t SET spent_at = $3
    WHERE t.token_digest = $1 AND t.client_pk = $2 AND {active_sql("t", "$3")}
      AND string_to_array(t.scope, ' ') @> $4::text[]
      AND (t.user_id IS NULL OR EXISTS (
          SELECT 1 FROM users AS p WHERE p.id = t.user_id AND NOT p.disabled))
    RETURNING t.*
), child AS (
    INSERT INTO refresh_tokens (token_digest, family_id, grant_id, parent_id, client_pk,
        user_id, scope, session_sid, auth_time, acr, amr, issued_at, expires_at, jkt)
    SELECT $5, s.family_id, s.grant_id, s.id, s.client_pk, s.user_id, s.scope,
        s.session_sid, s.auth_time, s.acr, s.amr, $3, $6, s.jkt
    FROM spent AS s
)
SELECT {{0}}, {{1}} FROM spent AS s LEFT JOIN users AS u ON u.id = s.user_id
"""  # noqa: S608 - fixed text, values are parameters
#: Take back a rotation (``$1`` the spent digest, ``$2`` the successor's, ``$3`` the
#: spend's time): the successor goes, its parent is active again unless revoked meanwhile.
_UNDO: Final = """
WITH child AS (DELETE FROM refresh_tokens WHERE token_digest = $2 RETURNING parent_id)
UPDATE refresh_tokens SET spent_at = NULL
WHERE token_digest = $1 AND spent_at = $3 AND id IN (SELECT parent_id FROM child)
"""
_FIND: Final = f"""
SELECT {{0}}, {active_sql("s", "$2")}, {{1}}
FROM refresh_tokens AS s LEFT JOIN users AS u ON u.id = s.user_id
WHERE s.token_digest = $1 FOR UPDATE OF s
"""  # noqa: S608 - fixed text, values are parameters


def _statement(template: str, person: JoinedRead[Any]) -> str:
    return template.format(", ".join(f"s.{name}" for name in _FIELDS), person.columns)


def record_of(row: Any) -> RefreshTokenRecord:
    values = dict(zip(_FIELDS, row[:_WIDTH], strict=True))
    values["amr"] = list(values["amr"] or ())
    return RefreshTokenRecord(**values)


class Standing(enum.Enum):  # where a presented token stands, for the client presenting it
    UNKNOWN = "unknown"  # no such token, or another client's
    ACTIVE = "active"
    SPENT = "spent"  # presented again: a reuse
    ENDED = "ended"  # revoked or expired


def standing(found: RefreshTokenRecord | None, active: bool, client_pk: uuid.UUID) -> Standing:
    """Pure: the standing of ``found`` (its row; ``active`` as :func:`active_sql` said)."""
    if found is None or found.client_pk != client_pk:
        return Standing.UNKNOWN
    if active:
        return Standing.ACTIVE
    if found.spent_at is not None and found.revoked_at is None:
        return Standing.SPENT
    return Standing.ENDED


async def rotate_refresh_token(
    db: Database,
    token: str,
    *,
    client_pk: uuid.UUID,
    requested: list[str],
    now: datetime,
    person: JoinedRead[P],
    accept: Callable[[RefreshTokenRecord, P | None], Awaitable[T]],
    on_reuse: Callable[[RefreshTokenReused], Awaitable[None]],
    ip: str | None = None,
) -> tuple[T, str]:
    """Spend ``token``, issue its successor; return ``accept``'s answer (run before the
    commit; it refuses by raising) and the successor (shown once). One round trip when
    nothing refuses; else the row is locked and read to find out why."""
    successor = secrets.token_urlsafe(32)
    args = (digest(token), client_pk, now, requested, digest(successor))
    expires = now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS)
    async with db.hot.connection() as conn:
        row = await conn.fetchrow(_statement(_SPEND, person), *args, expires)
    if row is not None:
        try:
            return await accept(record_of(row), person.parse(row, _WIDTH)), successor
        except BaseException:
            await _undo_rotation(db, args[0], args[4], now)
            raise
    async with db.hot.transaction() as conn:
        row = await conn.fetchrow(_statement(_FIND, person), args[0], now)
        found = None if row is None else record_of(row)
        where = standing(found, row is not None and row[_WIDTH], client_pk)
        if found is not None and where is Standing.ACTIVE:
            # a refusal raises here; else the state changed in between: spend it now
            answer = await accept(found, person.parse(row, _WIDTH + 1))
            if await conn.fetchrow(_statement(_SPEND, person), *args, expires) is not None:
                return answer, successor
    if found is None or where is Standing.UNKNOWN:
        raise InvalidGrant("refresh token is invalid")
    if where is not Standing.SPENT:
        raise InvalidGrant("refresh token is expired or revoked")
    # contract §3: a reuse revokes the family, audits, runs on_reuse, commits, then raises
    reused = RefreshTokenReused(found.family_id, found.grant_id)
    async with db.sessions() as session:
        revoked = await revoke_family(session, found.family_id, now)
        grant = str(found.grant_id) if found.grant_id else None
        detail = {"digest_prefix": args[0].hex()[:12], "grant_id": grant, "revoked": revoked}
        entry = AuditEntry(
            action=AUDIT_REFRESH_REUSED,
            status_code=400,
            ip=ip,
            actor=str(found.user_id) if found.user_id else None,
            target_type="refresh_token_family",
            target=str(found.family_id),
            detail=detail,
        )
        write_audit(session, entry)
        await on_reuse(reused)
        await session.commit()
    log.warning("refresh token reuse: family %s revoked (%d rows)", found.family_id, revoked)
    raise reused


async def _undo_rotation(db: Database, spent: bytes, successor: bytes, now: datetime) -> None:
    """Take back a committed rotation its caller refused: delete the successor, and
    un-spend its parent if the spend was this one (a reuse in between revoked both)."""
    async with db.hot.connection() as conn:
        await conn.execute(_UNDO, spent, successor, now)


#: An exchange taken back (``$1`` its grant): the grant's refresh tokens go unless revoked;
#: true when none was revoked (no replay of the code revoked the grant meanwhile).
_TAKE_BACK_FIRST: Final = """
WITH gone AS (DELETE FROM refresh_tokens WHERE grant_id = $1 AND revoked_at IS NULL)
SELECT NOT EXISTS (SELECT 1 FROM refresh_tokens WHERE grant_id = $1 AND revoked_at IS NOT NULL)
"""


async def take_back_first_refresh_token(db: Db, grant_id: uuid.UUID) -> bool:
    """Delete the first refresh token of an exchange taken back (``storage.repos.codes``),
    in the caller's transaction; False when a replay revoked the grant meanwhile (then
    nothing is deleted that the revocation marked)."""
    row = await statements(db).fetchrow(_TAKE_BACK_FIRST, grant_id)
    return bool(row[0])


async def issue_refresh_token(
    db: Db,
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
    jkt: str | None = None,
) -> str:
    """Insert a new refresh token of ``family_id`` in the caller's transaction; return its
    value (shown once: only its digest is stored). Lifetime 30 days; ``jkt``: the DPoP
    key it is bound to (RFC 9449 §5)."""
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS)
    await statements(db).execute(
        "INSERT INTO refresh_tokens (token_digest, family_id, grant_id, parent_id, client_pk,"
        " user_id, scope, session_sid, auth_time, acr, amr, issued_at, expires_at, jkt)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        *(digest(token), family_id, grant_id, parent_id, client_pk, user_id, scope),
        *(session_sid, auth_time, acr, list(amr), now, expires, jkt),
    )
    return token


async def find_refresh_token(
    db: Db, token: str, client_pk: uuid.UUID, now: datetime
) -> tuple[RefreshTokenRecord, bool] | None:
    """(the row of ``token``, whether it is active) when it is ``client_pk``'s, else None."""
    row = await statements(db).fetchrow(
        f"SELECT {_COLUMNS}, {active_sql('t', '$3')} FROM refresh_tokens AS t"  # noqa: S608
        " WHERE t.token_digest = $1 AND t.client_pk = $2",
        *(digest(token), client_pk, now),
    )
    return None if row is None else (record_of(row), bool(row[_WIDTH]))


async def _revoke(db: Db, where: str, *args: Any) -> int:
    """Revoke the rows matching ``where`` (``$1`` is the moment) not revoked yet; count them."""
    sql = f"UPDATE refresh_tokens SET revoked_at = $1 WHERE revoked_at IS NULL AND {where}"  # noqa: S608
    return len(await statements(db).fetch(sql + " RETURNING id", *args))


async def revoke_family(db: Db, family_id: uuid.UUID, now: datetime) -> int:
    """Revoke every token of one rotation family."""
    return await _revoke(db, "family_id = $2", now, family_id)


async def revoke_by_grant_id(db: Db, grant_id: uuid.UUID, now: datetime) -> int:
    """Revoke every refresh token issued under one authorization grant (code replay)."""
    return await _revoke(db, "grant_id = $2", now, grant_id)


async def revoke_by_sessions(db: Db, sids: list[str], now: datetime) -> int:
    """Revoke every refresh token issued in these browser sessions (contract §3)."""
    return await _revoke(db, "session_sid = ANY($2::text[])", now, sids)


async def delete_expired_refresh_tokens(
    db: Db, cutoff: datetime, *, limit: int, after: datetime = EARLIEST
) -> Swept:
    """The cleanup job: one batch, at most ``limit`` rows that expired before ``cutoff``
    (``storage.db.expiry``: oldest first from ``after``, locked rows skipped). Spent and
    revoked rows go too once expired; a revoked row not yet expired stays."""
    return await delete_expired_batch(db, "refresh_tokens", cutoff, limit=limit, after=after)


async def revoke_person_tokens(
    db: Db, user_id: uuid.UUID, now: datetime, *, client_pk: uuid.UUID | None = None
) -> int:
    """Revoke every refresh token of a person (``client_pk``'s only, when given)."""
    if client_pk is None:
        return await _revoke(db, "user_id = $2", now, user_id)
    return await _revoke(db, "user_id = $2 AND client_pk = $3", now, user_id, client_pk)


async def revoke_token(
    db: Db, token: str, client_pk: uuid.UUID, now: datetime
) -> RefreshTokenRecord | None:
    """RFC 7009: revoke the family of ``token`` when it is ``client_pk``'s; return its row
    (before revocation), or None when unknown or another client's (nothing changes)."""
    row, _ = await find_refresh_token(db, token, client_pk, now) or (None, False)
    if row is not None:
        await revoke_family(db, row.family_id, now)
    return row


def held_by(user_id: uuid.UUID) -> ColumnElement[bool]:
    """The client (``Client``) holds an active refresh token of the person."""
    held = (RefreshToken.user_id == user_id) & (RefreshToken.client_pk == Client.id)
    return exists().where(text(active_sql("refresh_tokens", "now()")), held)


async def holdings(
    db: Db, user_id: uuid.UUID, client_pks: list[uuid.UUID]
) -> dict[uuid.UUID, tuple[datetime, set[str]]]:
    """Per client: the oldest active token's issue and the scopes they carry."""
    rows = await statements(db).fetch(
        "SELECT t.client_pk, min(t.issued_at), array_agg(t.scope) FROM refresh_tokens AS t"  # noqa: S608
        f" WHERE t.user_id = $1 AND t.client_pk = ANY($2::uuid[]) AND {active_sql('t', 'now()')}"
        " GROUP BY t.client_pk",
        *(user_id, client_pks),
    )
    return {pk: (first, {v for s in scopes for v in s.split()}) for pk, first, scopes in rows}
