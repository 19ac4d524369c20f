"""What an access token stands on, as PostgreSQL holds it (docs/security.md "Tokens end when
what they stand for ends"): its person (exists, not disabled, when their credentials last
changed) and its client (exists, not disabled, the scopes it holds now).

The token-standing check (:mod:`idp_common.web.token_standing`) asks these once per worker
and keeps the answers until a change stamp moves, so each is one indexed read on an asyncpg
connection of the hot pool, outside any transaction. Reads only: the tables' owners write.
"""

from __future__ import annotations

import uuid

import msgspec

from idp_common.storage.db.engine import DriverConnection

__all__ = ["ClientStanding", "PersonStanding", "client_standing", "person_standing"]

#: Plain SQL for the hot pool (asyncpg).
_PERSON_STANDING = (
    "SELECT NOT disabled, extract(epoch FROM credentials_changed_at)::float8 "
    "FROM users WHERE id = $1"
)


class PersonStanding(msgspec.Struct, frozen=True):
    """What a person's access tokens stand on: the person is ``active`` (exists, not
    disabled); ``credentials_changed_at`` in epoch seconds (None: never changed)."""

    active: bool
    credentials_changed_at: float | None


async def person_standing(conn: DriverConnection, user_id: uuid.UUID) -> PersonStanding:
    """One primary-key read on an asyncpg connection of the hot pool, outside any
    transaction; an absent person is not active."""
    row = await conn.fetchrow(_PERSON_STANDING, user_id)
    if row is None:
        return PersonStanding(active=False, credentials_changed_at=None)
    return PersonStanding(active=bool(row[0]), credentials_changed_at=row[1])


class ClientStanding(msgspec.Struct, frozen=True):
    """What the tokens issued to a client stand on: whether an administrator switched it
    off, and the scopes it may hold now."""

    disabled: bool
    scopes: frozenset[str]


_CLIENT_STANDING = (
    "SELECT c.disabled, ARRAY(SELECT s.value FROM client_scopes cs "
    "JOIN scopes s ON s.id = cs.scope_id WHERE cs.client_pk = c.id) "
    "FROM clients c WHERE c.client_id = $1"
)


async def client_standing(conn: DriverConnection, client_id: str) -> ClientStanding | None:
    """One indexed read on an asyncpg connection of the hot pool; None when no client has
    this ``client_id`` (deleted, or never; an id with NUL names none)."""
    if "\x00" in client_id:
        return None
    row = await conn.fetchrow(_CLIENT_STANDING, client_id)
    if row is None:
        return None
    return ClientStanding(disabled=bool(row[0]), scopes=frozenset(row[1]))
