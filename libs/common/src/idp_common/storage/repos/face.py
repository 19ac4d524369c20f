"""``face_templates``: one sealed face embedding per person (docs/design.md "Sign-in", face);
``photo_fingerprints``: the photos a person published, which face sign-in refuses.

The rows hold only sealed embeddings (:mod:`idp_common.face.template`) and pixel
digests; the images they came from are never stored here.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import FaceTemplate, PhotoFingerprint


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


#: Fingerprints kept per person (the most recent photos): enough for every photo a
#: person plausibly published, bounded whatever they upload.
PHOTO_FINGERPRINTS_KEPT = 20


async def record_photo_fingerprint(
    db: AsyncSession,
    user_id: uuid.UUID,
    pixel_digest: bytes,
    sealed_embedding: bytes | None,
    *,
    picture: str | None,
) -> None:
    """Remember a photo ``user_id`` published (the same pixels again: refreshed, its
    embedding kept when this one has none); only the newest
    :data:`PHOTO_FINGERPRINTS_KEPT` are kept.

    One person's uploads take turns (a transaction-scoped advisory lock on the person):
    the trim below sees only its own snapshot, so two overlapping uploads would each keep
    "the newest 20" without the other's row and leave 21."""
    await db.execute(
        select(
            func.pg_advisory_xact_lock(func.hashtextextended(f"photo_fingerprints:{user_id}", 0))
        )
    )
    values = insert(PhotoFingerprint).values(
        user_id=user_id,
        pixel_digest=pixel_digest,
        embedding_encrypted=sealed_embedding,
        picture=picture,
    )
    await db.execute(
        values.on_conflict_do_update(
            index_elements=[PhotoFingerprint.user_id, PhotoFingerprint.pixel_digest],
            set_={
                "created_at": func.now(),
                "picture": values.excluded.picture,
                "embedding_encrypted": func.coalesce(
                    values.excluded.embedding_encrypted, PhotoFingerprint.embedding_encrypted
                ),
            },
        )
    )
    newest = (
        select(PhotoFingerprint.pixel_digest)
        .where(PhotoFingerprint.user_id == user_id)
        .order_by(PhotoFingerprint.created_at.desc())
        .limit(PHOTO_FINGERPRINTS_KEPT)
    )
    await db.execute(
        delete(PhotoFingerprint).where(
            PhotoFingerprint.user_id == user_id, PhotoFingerprint.pixel_digest.not_in(newest)
        )
    )


class PhotoFingerprintRow(msgspec.Struct, frozen=True, kw_only=True):
    pixel_digest: bytes
    sealed_embedding: bytes | None
    picture: str | None


async def list_photo_fingerprints(
    db: AsyncSession, user_id: uuid.UUID
) -> list[PhotoFingerprintRow]:
    """Every photo ``user_id`` published that is remembered (newest first)."""
    rows = await db.execute(
        select(
            PhotoFingerprint.pixel_digest,
            PhotoFingerprint.embedding_encrypted,
            PhotoFingerprint.picture,
        )
        .where(PhotoFingerprint.user_id == user_id)
        .order_by(PhotoFingerprint.created_at.desc())
    )
    return [
        PhotoFingerprintRow(
            pixel_digest=bytes(digest),
            sealed_embedding=None if sealed is None else bytes(sealed),
            picture=picture,
        )
        for digest, sealed, picture in rows
    ]
