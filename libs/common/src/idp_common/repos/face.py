"""``face_templates``: one sealed face embedding per person (DESIGN.md "Sign-in", face).

The row holds only the sealed embedding (:mod:`idp_common.face.template`); the image it
came from is never stored.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.db.models import FaceTemplate


class FaceTemplateRow(msgspec.Struct, frozen=True, kw_only=True):
    sealed: bytes
    created_at: datetime
    updated_at: datetime


async def get_face_template(db: AsyncSession, user_id: uuid.UUID) -> FaceTemplateRow | None:
    row = (
        await db.execute(
            select(
                FaceTemplate.template_encrypted, FaceTemplate.created_at, FaceTemplate.updated_at
            ).where(FaceTemplate.user_id == user_id)
        )
    ).first()
    if row is None:
        return None
    return FaceTemplateRow(sealed=row[0], created_at=row[1], updated_at=row[2])


async def put_face_template(db: AsyncSession, user_id: uuid.UUID, sealed: bytes) -> FaceTemplateRow:
    """Enrol or replace (one statement: two enrolments at once leave one row)."""
    statement = (
        insert(FaceTemplate)
        .values(user_id=user_id, template_encrypted=sealed)
        .on_conflict_do_update(
            index_elements=[FaceTemplate.user_id],
            set_={"template_encrypted": sealed, "updated_at": func.now()},
        )
        .returning(FaceTemplate.created_at, FaceTemplate.updated_at)
    )
    created_at, updated_at = (await db.execute(statement)).one()
    return FaceTemplateRow(sealed=sealed, created_at=created_at, updated_at=updated_at)


async def delete_face_template(db: AsyncSession, user_id: uuid.UUID) -> bool:
    result = await db.execute(delete(FaceTemplate).where(FaceTemplate.user_id == user_id))
    return bool(getattr(result, "rowcount", 0))
