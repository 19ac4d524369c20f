"""Remembered consent per person and client (a "connection", DESIGN.md "Sign-in")."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import Consent


async def get_consented_scopes(
    session: AsyncSession, user_id: uuid.UUID, client_pk: uuid.UUID
) -> set[str]:
    scopes = await session.scalar(
        select(Consent.scopes).where(Consent.user_id == user_id, Consent.client_pk == client_pk)
    )
    return set(scopes or ())


async def grant_consent(
    session: AsyncSession, user_id: uuid.UUID, client_pk: uuid.UUID, scopes: list[str]
) -> None:
    """Remember these scopes as approved, added to any approved before."""
    current = await get_consented_scopes(session, user_id, client_pk)
    merged = sorted(current | set(scopes))
    await session.execute(
        insert(Consent)
        .values(user_id=user_id, client_pk=client_pk, scopes=merged)
        .on_conflict_do_update(
            index_elements=[Consent.user_id, Consent.client_pk],
            set_={"scopes": merged, "updated_at": func.now()},
        )
    )
