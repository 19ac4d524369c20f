"""The hot statements of the token and authorize endpoints, one round trip each
(docs/decisions.md "Token endpoint performance").

Each runs on a connection of asyncpg's own pool (``idp_common.storage.db.hot_pool``) and does all
its work at once with CTEs and ``RETURNING``. The two that spend something run inside
:func:`hot_transaction` (``BEGIN`` and ``COMMIT``: two more round trips), because the
grant writes the new access token's ``jti`` to Redis before it commits: a Redis failure
rolls the spend back and the client's retry works (issue #19, attack 5; see
``token_service.issuance``). A transaction also holds the spent row's lock until then, so
a concurrent use of the same refresh token waits for the outcome instead of finding it
spent by a request that may still fail.

- ``spend_refresh_token``: spend the presented refresh token, insert its successor and
  read the person, only when the rotation is sure to succeed (active token of this
  client, requested scope within the original, person able to sign in). Otherwise it
  changes nothing and returns None; the grant then takes the general path
  (``idp_common.storage.repos.refresh_tokens.rotate_refresh_token``), which finds out why
  (unknown, reuse, expired, scope, disabled person) exactly as before.
- ``consume_code``: burn an authorization code and read its person; None when the
  code is unknown or already used (the grant's replay path decides which).
- ``insert_refresh_token``: the first refresh token of a code's grant, in the code's
  transaction.
- ``authorize_view``: the person, their effective scopes and their consent to a client.

The last two take the pool and open the connection themselves, for the authorize
controller (controllers reach storage only through functions like these).

The row layouts match ``idp_common.storage.repos`` records; person columns come from
:data:`token_service.queries.PERSON_COLUMNS`.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Final

from idp_common.protocol.constants import (
    REFRESH_TOKEN_TTL_SECONDS,
)
from idp_common.protocol.oidc_core_claims import digest
from idp_common.storage.db.engine import DriverConnection
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.repos.codes import CodeGrant
from idp_common.storage.repos.refresh_tokens import RefreshTokenRecord
from token_service.queries import PERSON_COLUMNS, Person, person_from_row

_REFRESH_COLUMNS: Final = (
    "id, family_id, grant_id, parent_id, client_pk, user_id, scope, session_sid, "
    "auth_time, acr, amr, issued_at, expires_at, spent_at, revoked_at"
)
_REFRESH_WIDTH: Final = 15

_SPEND_REFRESH: Final = f"""
WITH spent AS (
    UPDATE refresh_tokens AS t SET spent_at = $3
    WHERE t.token_digest = $1 AND t.client_pk = $2
      AND t.spent_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > $3
      AND string_to_array(t.scope, ' ') @> $4::text[]
      AND (t.user_id IS NULL OR EXISTS (
          SELECT 1 FROM users AS p WHERE p.id = t.user_id AND NOT p.disabled))
    RETURNING {_REFRESH_COLUMNS}
), child AS (
    INSERT INTO refresh_tokens (token_digest, family_id, grant_id, parent_id, client_pk,
        user_id, scope, session_sid, auth_time, acr, amr, issued_at, expires_at)
    SELECT $5, s.family_id, s.grant_id, s.id, s.client_pk, s.user_id, s.scope,
        s.session_sid, s.auth_time, s.acr, s.amr, $3, $6
    FROM spent AS s
)
SELECT s.*, {PERSON_COLUMNS}
FROM spent AS s LEFT JOIN users AS u ON u.id = s.user_id
"""  # noqa: S608 - fixed text, values are parameters

_CODE_COLUMNS: Final = (
    "grant_id, client_pk, user_id, redirect_uri, scope, nonce, code_challenge, "
    "code_challenge_method, session_sid, auth_time, acr, amr, expires_at"
)
_CODE_WIDTH: Final = 13

_CONSUME_CODE: Final = f"""
WITH used AS (
    UPDATE authorization_codes AS c SET consumed_at = $2
    WHERE c.code_digest = $1 AND c.consumed_at IS NULL
    RETURNING {_CODE_COLUMNS}
)
SELECT used.*, {PERSON_COLUMNS}
FROM used LEFT JOIN users AS u ON u.id = used.user_id
"""  # noqa: S608 - fixed text, values are parameters

_INSERT_REFRESH: Final = """
INSERT INTO refresh_tokens (token_digest, family_id, grant_id, parent_id, client_pk,
    user_id, scope, session_sid, auth_time, acr, amr, issued_at, expires_at)
VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10, $11, $12)
"""

_AUTHORIZE_VIEW: Final = f"""
SELECT {PERSON_COLUMNS},
    (SELECT k.scopes FROM consents AS k WHERE k.user_id = u.id AND k.client_pk = $2)
FROM users AS u WHERE u.id = $1
"""  # noqa: S608 - fixed text, values are parameters


@asynccontextmanager
async def hot_transaction(pool: HotPool) -> AsyncIterator[DriverConnection]:
    """A pooled connection inside a transaction: committed when the block ends, rolled
    back when it raises. Plain ``BEGIN``/``COMMIT`` statements: asyncpg's transaction
    object costs about 40 µs more CPU per use for nothing these statements need."""
    async with pool.connection() as conn:
        await conn.execute("BEGIN")
        try:
            yield conn
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")


async def spend_refresh_token(
    conn: DriverConnection,
    *,
    token: str,
    client_pk: uuid.UUID,
    requested: list[str],
    successor: str,
    now: datetime,
) -> tuple[RefreshTokenRecord, Person | None] | None:
    """Rotate ``token`` into ``successor`` when nothing can refuse it; see the module."""
    row = await conn.fetchrow(
        _SPEND_REFRESH,
        digest(token),
        client_pk,
        now,
        requested,
        digest(successor),
        now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS),
    )
    if row is None:
        return None
    names = RefreshTokenRecord.__struct_fields__
    values = dict(zip(names, row[:_REFRESH_WIDTH], strict=True))
    values["amr"] = list(values["amr"] or ())
    return RefreshTokenRecord(**values), person_from_row(row, _REFRESH_WIDTH)


async def consume_code(
    conn: DriverConnection, code: str, now: datetime
) -> tuple[CodeGrant, Person | None] | None:
    """Burn ``code`` and return it with its person; None if unknown or already used."""
    row = await conn.fetchrow(_CONSUME_CODE, digest(code), now)
    if row is None:
        return None
    values = dict(zip(CodeGrant.__struct_fields__, row[:_CODE_WIDTH], strict=True))
    values["amr"] = list(values["amr"] or ())
    return CodeGrant(**values), person_from_row(row, _CODE_WIDTH)


async def insert_refresh_token(
    conn: DriverConnection, code: CodeGrant, *, scope: str, now: datetime
) -> str:
    """A new refresh token (a new family) for the grant of ``code``; returns its value,
    shown once (only its digest is stored, as ``repos.refresh_tokens`` does)."""
    token = secrets.token_urlsafe(32)
    await conn.execute(
        _INSERT_REFRESH,
        digest(token),
        uuid.uuid4(),
        code.grant_id,
        code.client_pk,
        code.user_id,
        scope,
        code.session_sid,
        code.auth_time,
        code.acr,
        list(code.amr),
        now,
        now + timedelta(seconds=REFRESH_TOKEN_TTL_SECONDS),
    )
    return token


async def authorize_view(
    pool: HotPool, user_id: uuid.UUID, client_pk: uuid.UUID
) -> tuple[Person, set[str]] | None:
    """(the person, the scopes they consented to for ``client_pk``); None if absent."""
    async with pool.connection() as conn:
        row = await conn.fetchrow(_AUTHORIZE_VIEW, user_id, client_pk)
    person = None if row is None else person_from_row(row)
    if row is None or person is None:
        return None
    return person, set(row[-1] or ())
