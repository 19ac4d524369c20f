"""The photos a person published, which face sign-in refuses (docs/security.md, attack 2;
docs/face-signin.md "What a still image proves").

A profile photo is public (``/media/avatars/…``, the ``picture`` claim). Face sign-in
compares a still image with the enrolled face, so without this anyone could sign in with
the person's own published photo. Each photo the self-service API publishes is
fingerprinted (:func:`fingerprint_photo`, in a model process) and remembered with the
person (``photo_fingerprints``). A current photo without a fingerprint (published
before this existed, or while the face stack was off or failing) is fingerprinted from the
photo store when it is next needed: at face enrolment, and at face sign-in, which refuses
to go on (503) rather than compare a face with an unchecked public photo
(:func:`current_photo_fingerprint`). :func:`published_photos` opens them for the sign-in,
which refuses an image with the same decoded pixels or a face closer than
:data:`~idp_common.face.template.PHOTO_COPY_DISTANCE` to a published one.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.avatars.images import MAX_PIXELS as PHOTO_MAX_PIXELS
from idp_common.avatars.store import AvatarStore, StoreUnavailable, read_photo
from idp_common.crypto.secretbox import SecretboxError
from idp_common.face import FaceEngine, FaceRejected, FaceUnavailable
from idp_common.face.template import open_template, seal_template
from idp_common.storage.repos.face import list_photo_fingerprints, record_photo_fingerprint

__all__ = [
    "Fingerprint",
    "PhotoUnchecked",
    "current_photo_fingerprint",
    "fingerprint_photo",
    "published_photos",
    "remember_photo",
]

log = logging.getLogger("idp.face.photos")


class PhotoUnchecked(Exception):
    """The person's current photo has no fingerprint and none could be made now (the
    photo store or the face model processes are unavailable)."""


@dataclass(frozen=True)
class Fingerprint:
    """What is remembered of one published photo, before sealing."""

    pixel_digest: bytes
    embedding: bytes | None


async def fingerprint_photo(engine: FaceEngine, image: bytes) -> Fingerprint | None:
    """The fingerprint of a published photo, or None when the face stack cannot make
    one here (not installed, no key, its processes down, an unreadable image): logged,
    and the photo is then fingerprinted at the next face enrolment."""
    if not engine.available:
        return None
    try:
        digest, embedding = await engine.fingerprint(image, max_pixels=PHOTO_MAX_PIXELS)
    except (FaceUnavailable, FaceRejected) as exc:
        log.warning("a published photo was not fingerprinted (%s)", type(exc).__name__)
        return None
    return Fingerprint(digest, embedding)


async def remember_photo(
    db: AsyncSession,
    user_id: uuid.UUID,
    fingerprint: Fingerprint,
    *,
    key: bytes,
    picture: str | None,
) -> None:
    """Store ``fingerprint`` for ``user_id`` (its embedding sealed like a face template),
    in the caller's transaction."""
    sealed = None
    if fingerprint.embedding is not None:
        sealed = seal_template(fingerprint.embedding, key=key, user_id=user_id)
    await record_photo_fingerprint(db, user_id, fingerprint.pixel_digest, sealed, picture=picture)


async def published_photos(
    db: AsyncSession, user_id: uuid.UUID, *, key: bytes
) -> tuple[list[tuple[bytes, bytes | None]], set[str]]:
    """(pixel digest and embedding of each photo ``user_id`` published, the names of the
    stored photos among them). An embedding that does not open is left out; its pixel
    digest still counts."""
    photos: list[tuple[bytes, bytes | None]] = []
    names: set[str] = set()
    for row in await list_photo_fingerprints(db, user_id):
        embedding = None
        if row.sealed_embedding is not None:
            try:
                embedding = open_template(row.sealed_embedding, key=key, user_id=user_id)
            except (SecretboxError, ValueError):
                log.error("a photo fingerprint of %s does not open", user_id)
        photos.append((row.pixel_digest, embedding))
        if row.picture:
            names.add(row.picture)
    return photos, names


async def current_photo_fingerprint(
    store: AvatarStore | None, engine: FaceEngine, picture: str
) -> Fingerprint | None:
    """The fingerprint of the stored photo ``picture`` (None: no such object any more).
    :class:`PhotoUnchecked` when the store or the model processes cannot make it now."""
    if store is None:
        raise PhotoUnchecked("no photo store to read the photo from")
    try:
        data = await read_photo(store, picture)
    except StoreUnavailable as exc:
        raise PhotoUnchecked("the photo store cannot be read") from exc
    if data is None:
        return None
    fingerprint = await fingerprint_photo(engine, data)
    if fingerprint is None:
        raise PhotoUnchecked("the photo could not be fingerprinted")
    return fingerprint
