"""People as the token service reads them (read only): what a token says about a person,
and which API each scope belongs to (docs/style.md §1: code moves into
``idp_common.storage.repos`` when a second service needs it).

- :class:`Person`: the person's built-in facts, the values of profile fields mapped to a
  claim (contract §2 "Profile field" rule 2) and their effective scopes
  (``idp_common.storage.repos.users.effective_scopes``), read by one select list
  (:data:`PERSON_COLUMNS`). :data:`PERSON` hands it to the code and refresh-token
  repositories, which join it to their spend, so a grant reads the person in the round
  trip that spends its code or refresh token.
- ``load_person``: that select alone (userinfo's cache).
- ``authorize_view``: the person, their effective scopes and their consent to a client
  (the consent's subquery from its owner, ``storage.repos.consents``), one statement.
- ``scope_audiences``: ``aud`` and access-token algorithm of the APIs owning the given
  scopes, one query.

The person reads are plain SQL run on asyncpg's own pool
(``idp_common.storage.db.hot_pool``): asyncpg prepares each once per connection, and each
is one round trip.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any, Final, NamedTuple

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from idp_common.storage.db.engine import DriverConnection
from idp_common.storage.db.hot_pool import HotPool
from idp_common.storage.db.models import Api, Scope
from idp_common.storage.repos.consents import CONSENTED_SCOPES_SQL
from idp_common.storage.repos.users import UserRecord


class MappedClaim(msgspec.Struct, frozen=True):
    """A profile value released as ``name`` to clients granted ``scope``."""

    name: str
    scope: str
    data_type: str
    value: str


class UserClaims(msgspec.Struct, frozen=True, kw_only=True):
    user: UserRecord
    mapped: tuple[MappedClaim, ...] = ()


class Person(msgspec.Struct, frozen=True, kw_only=True):
    """What issuance needs about a person: claims and effective scopes (self-service
    scopes included)."""

    claims: UserClaims
    scopes: frozenset[str]


#: Select-list of a person joined as ``u`` (``LEFT JOIN users AS u``): the built-in facts
#: (``UserRecord``'s fields), the mapped claims and the effective scopes, read back by
#: :func:`person_from_row`. Effective scopes: direct grants, the roles' scopes and the
#: scopes of the roles of the person's groups (as ``effective_scopes``).
PERSON_COLUMNS: Final = (
    ", ".join(f"u.{name}" for name in UserRecord.__struct_fields__)  # noqa: S608 - fixed text
    + """,
    ARRAY(
        SELECT ARRAY[f.claim_name, f.claim_scope, f.data_type, v.value]
        FROM profile_values AS v JOIN profile_fields AS f ON f.id = v.field_id
        WHERE v.user_id = u.id AND f.claim_name IS NOT NULL AND f.claim_scope IS NOT NULL
            AND (f.group_id IS NULL OR EXISTS (
                SELECT 1 FROM group_members AS fm
                WHERE fm.group_id = f.group_id AND fm.user_id = u.id))
    ) AS mapped,
    ARRAY(
        SELECT sc.value FROM scopes AS sc WHERE sc.id IN (
            SELECT us.scope_id FROM user_scopes AS us WHERE us.user_id = u.id
            UNION
            SELECT rs.scope_id FROM role_scopes AS rs
                JOIN user_roles AS ur ON ur.role_id = rs.role_id
            WHERE ur.user_id = u.id
            UNION
            SELECT rs.scope_id FROM role_scopes AS rs
                JOIN group_roles AS gr ON gr.role_id = rs.role_id
                JOIN group_members AS gm ON gm.group_id = gr.group_id
            WHERE gm.user_id = u.id
        )
    ) AS held"""
)

_LOAD_PERSON: Final = f"SELECT {PERSON_COLUMNS} FROM users AS u WHERE u.id = $1"  # noqa: S608
_AUTHORIZE_VIEW: Final = f"""
SELECT {PERSON_COLUMNS}, extract(epoch FROM u.credentials_changed_at)::float8,
    {CONSENTED_SCOPES_SQL.format(user="u.id", client="$2")}
FROM users AS u WHERE u.id = $1
"""  # noqa: S608 - fixed text, values are parameters
_SELF_SERVICE: Final = frozenset(SELF_SERVICE_SCOPES)
_FACTS: Final = len(UserRecord.__struct_fields__)


def person_from_row(row: Sequence[Any], start: int = 0) -> Person | None:
    """The :class:`Person` in the columns of :data:`PERSON_COLUMNS` from ``row[start]``;
    None when absent."""
    if row[start] is None:
        return None
    facts = row[start : start + _FACTS]
    user = UserRecord(**dict(zip(UserRecord.__struct_fields__, facts, strict=True)))
    mapped, held = row[start + _FACTS], row[start + _FACTS + 1]
    found = tuple(
        MappedClaim(name, scope, kind, value)
        for name, scope, kind, value in mapped or ()
        if name and scope
    )
    claims = UserClaims(user=user, mapped=found)
    return Person(claims=claims, scopes=frozenset(held or ()) | _SELF_SERVICE)


async def load_person(conn: DriverConnection, user_id: uuid.UUID) -> Person | None:
    """The person, their mapped profile values and effective scopes; None if absent."""
    row = await conn.fetchrow(_LOAD_PERSON, user_id)
    return None if row is None else person_from_row(row)


class _PersonRead:
    """:data:`PERSON_COLUMNS` as a read joined to a spend (``storage.db.hot_pool.JoinedRead``)."""

    columns: Final = PERSON_COLUMNS

    @staticmethod
    def parse(row: Sequence[Any], start: int) -> Person | None:
        return person_from_row(row, start)


PERSON: Final = _PersonRead()


class AuthorizeView(NamedTuple):
    """What ``/oauth2/authorize`` needs about the signed-in person: them, the scopes they
    consented to for the client, and when their credentials last changed (epoch seconds,
    None: never): a sign-in from before it does not meet a ``max_age``."""

    person: Person
    consented: set[str]
    credentials_changed_at: float | None


async def authorize_view(
    pool: HotPool, user_id: uuid.UUID, client_pk: uuid.UUID
) -> AuthorizeView | None:
    """The person's :class:`AuthorizeView` for ``client_pk``; None if absent."""
    async with pool.connection() as conn:
        row = await conn.fetchrow(_AUTHORIZE_VIEW, user_id, client_pk)
    person = None if row is None else person_from_row(row)
    if row is None or person is None:
        return None
    return AuthorizeView(person, set(row[-1] or ()), row[-2])


async def scope_audiences(session: AsyncSession, values: Collection[str]) -> list[tuple[str, str]]:
    """(audience, access-token signing algorithm) of the APIs that own ``values``, sorted
    by audience; OIDC scopes own none."""
    if not values:
        return []
    rows = await session.execute(
        select(Api.audience, Api.access_token_signing_alg)
        .join(Scope, Scope.api_id == Api.id)
        .where(Scope.value.in_(list(values)))
        .distinct()
    )
    return sorted((audience, alg) for audience, alg in rows)
