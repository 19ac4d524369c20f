"""Remembered consent per person and client (``consents``), its one owner (a "connection",
docs/design.md "Sign-in").

Contract: a consent only grows by :func:`grant_consent` (one atomic upsert that merges the
new scopes into those approved before, so two concurrent approvals both count) and ends by
:func:`withdraw_consent` (deletes the row; the connections use case revokes the client's
refresh tokens in the same transaction). Reads see committed rows only. Every statement
runs in the caller's transaction (``storage.db.engine.statements``).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Final

from sqlalchemy import ColumnElement, exists

from idp_common.storage.db.engine import Db, statements
from idp_common.storage.db.models import Client, Consent

#: The scopes ``{user}`` consented to for ``{client}`` (SQL expressions), as a subquery:
#: for a read that joins it (the authorize endpoint's one statement).
CONSENTED_SCOPES_SQL: Final = (
    "(SELECT k.scopes FROM consents AS k WHERE k.user_id = {user} AND k.client_pk = {client})"
)


async def get_consented_scopes(db: Db, user_id: uuid.UUID, client_pk: uuid.UUID) -> set[str]:
    row = await statements(db).fetchrow(
        "SELECT " + CONSENTED_SCOPES_SQL.format(user="$1", client="$2"), user_id, client_pk
    )
    return set(row[0] or ()) if row is not None else set()


async def grant_consent(
    db: Db, user_id: uuid.UUID, client_pk: uuid.UUID, scopes: list[str]
) -> None:
    """Remember these scopes as approved, added to any approved before."""
    await statements(db).execute(
        "INSERT INTO consents (user_id, client_pk, scopes) VALUES ($1, $2, $3::text[])"
        " ON CONFLICT (user_id, client_pk) DO UPDATE SET updated_at = now(), scopes = ARRAY("
        "SELECT DISTINCT v FROM unnest(consents.scopes || EXCLUDED.scopes) AS v ORDER BY v)",
        user_id,
        client_pk,
        sorted(set(scopes)),
    )


async def withdraw_consent(db: Db, user_id: uuid.UUID, client_pk: uuid.UUID) -> bool:
    """Delete the person's consent to the client; True when there was one."""
    row = await statements(db).fetchrow(
        "DELETE FROM consents WHERE user_id = $1 AND client_pk = $2 RETURNING client_pk",
        user_id,
        client_pk,
    )
    return row is not None


def consented_by(user_id: uuid.UUID) -> ColumnElement[bool]:
    """The client (``Client``) has a consent of the person."""
    return exists().where(Consent.user_id == user_id, Consent.client_pk == Client.id)


async def consents_of(
    db: Db, user_id: uuid.UUID, client_pks: list[uuid.UUID]
) -> dict[uuid.UUID, tuple[datetime, list[str]]]:
    """Per client: when the person first consented, and the scopes (sorted)."""
    rows = await statements(db).fetch(
        "SELECT client_pk, created_at, scopes FROM consents"
        " WHERE user_id = $1 AND client_pk = ANY($2::uuid[])",
        user_id,
        client_pks,
    )
    return {pk: (created, sorted(scopes)) for pk, created, scopes in rows}
