"""``PUT`` and ``DELETE /entity/profile/photo``: the caller's photo (contract §2 "Built-in
person facts": photo; part 4 "Entity (self-service)"; docs/design.md "Wire contracts").

PUT takes the image as the body (``image/png``, ``image/jpeg``, ``image/webp``) or as the
``file`` field of a ``multipart/form-data`` form, at most ``SVC_AVATAR_MAX_BYTES`` (413
past it, 415 for another body type). The image is decoded and must be the type it was
sent as; it is re-encoded without any metadata (:mod:`idp_common.avatars.images`), off
the event loop, then stored under a new random name. The person's row then takes the new
name (audited ``profile.photo.set``) and the previous object is deleted once that has
committed. Answers ``{picture}``, the public URL. DELETE clears the photo (audited
``profile.photo.delete``) and deletes the object; 204, also when there was none.

Every photo published is also fingerprinted (its decoded pixels' digest and, when it shows
one face, that face's embedding, in a face model process) and remembered with the person,
so that face sign-in refuses it (:mod:`idp_common.usecases.published_photos`; docs/security.md,
attack 2).
Without the face stack nothing is fingerprinted here; face enrolment does it later.

Both answer 503 (and change nothing) when no store is configured or it cannot be reached.
An object whose row change failed is deleted again; one the store failed to delete after
the commit is only logged (its name is no longer served to anyone who did not have it).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Controller, Request, delete, put
from litestar.openapi.spec import OpenAPIMediaType, Operation, RequestBody, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType

from entity_service.controllers.media import avatar_store, no_store, store_down
from entity_service.own import WRITE, audit_own, operation, read_image
from entity_service.person import person_key, the_person
from idp_common.avatars.images import FORMATS, CleanPhoto, ImageRejected, clean_photo
from idp_common.avatars.names import new_name, public_url
from idp_common.avatars.store import AvatarStore, StoreUnavailable
from idp_common.avatars.upload import FILE_FIELD, FORM, Upload
from idp_common.errors import FieldError, InvalidArgument
from idp_common.storage.repos.users import update_user
from idp_common.usecases.published_photos import Fingerprint, fingerprint_photo, remember_photo
from idp_common.web.caller import resources_of
from idp_common.web.face import face_engine_of
from idp_common.web.guard import current_caller

log = logging.getLogger("idp.entity.photo")
_BINARY = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY)


class PhotoRead(msgspec.Struct, frozen=True):
    picture: str  # the public URL, also released as the `picture` claim


@dataclass
class PhotoUpload(Operation):
    """The request body the handler reads itself (a raw image or a form), for OpenAPI."""

    def __post_init__(self) -> None:
        form = Schema(
            type=OpenAPIType.OBJECT, properties={FILE_FIELD: _BINARY}, required=[FILE_FIELD]
        )
        content = {media: OpenAPIMediaType(schema=_BINARY) for media in FORMATS}
        content[FORM] = OpenAPIMediaType(schema=form)
        self.request_body = RequestBody(content=content, required=True)


def _configured(request: Request[Any, Any, Any]) -> AvatarStore:
    store = avatar_store(request)
    if store is None:
        raise no_store()
    return store


async def _delete_quietly(store: AvatarStore, name: str) -> None:
    try:
        await store.delete(name)
    except StoreUnavailable:
        log.warning("photo object %s left in the store", name)


async def _cleaned(upload: Upload) -> CleanPhoto:
    """The upload decoded and re-encoded in a worker thread; 422 naming ``body``/``file``."""
    try:
        return await asyncio.to_thread(clean_photo, upload.data, upload.content_type)
    except ImageRejected as exc:
        raise InvalidArgument(
            f"{upload.field} {exc}", errors=[FieldError(upload.field, str(exc))]
        ) from None


async def _take_picture(
    request: Request[Any, Any, Any],
    store: AvatarStore,
    name: str,
    photo: CleanPhoto,
    fingerprint: Fingerprint | None,
) -> None:
    """The stored object ``name`` becomes the caller's photo (remembered by its
    ``fingerprint`` when there is one); the one it replaces goes."""
    resources = resources_of(request)
    key = resources.settings.secrets_key_bytes
    try:
        async with resources.sessions.begin() as session:
            person = await the_person(session, current_caller(request).subject, lock=True)
            await update_user(session, person.id, {"picture": name})
            if fingerprint is not None and key is not None:
                await remember_photo(session, person.id, fingerprint, key=key, picture=name)
            audit_own(
                request,
                session,
                person.id,
                "profile.photo.set",
                contentType=photo.content_type,
                bytes=len(photo.data),
            )
    except Exception:
        await _delete_quietly(store, name)
        raise
    if person.picture and person.picture != name:
        await _delete_quietly(store, person.picture)


class PhotoController(Controller):
    path = "/entity/profile/photo"
    tags = ["profile"]

    @put(
        request_max_body_size=None,  # the handler reads the body against the setting
        operation_class=PhotoUpload,
        **operation(
            "setOwnPhoto",
            "Set your photo",
            WRITE,
            f"The image as the body "
            f"({', '.join(FORMATS)}) or as the `{FILE_FIELD}` field of a {FORM} form, at most "
            "`SVC_AVATAR_MAX_BYTES` (413 past it). It must decode as the type it is sent as; it "
            "is stored without metadata. Answers the public `picture` URL. 503 when no photo "
            "store is configured.",
        ),
    )
    async def set_photo(self, request: Request[Any, Any, Any]) -> PhotoRead:
        store = _configured(request)
        person_key(current_caller(request).subject)  # a machine client: 404 before reading
        settings = resources_of(request).settings
        upload = await read_image(request)
        photo = await _cleaned(upload)
        fingerprint = await fingerprint_photo(face_engine_of(request), photo.data)
        name = new_name(photo.extension)
        try:
            await store.put(name, photo.data, photo.content_type)
        except StoreUnavailable:
            raise store_down() from None
        await _take_picture(request, store, name, photo, fingerprint)
        return PhotoRead(picture=public_url(settings.issuer_base, name))

    @delete(
        **operation(
            "deleteOwnPhoto",
            "Remove your photo",
            WRITE,
            "204, also when there was no photo. 503 when no photo store is configured.",
        ),
    )
    async def delete_photo(self, request: Request[Any, Any, Any]) -> None:
        store = _configured(request)
        async with resources_of(request).sessions.begin() as session:
            person = await the_person(session, current_caller(request).subject, lock=True)
            if person.picture is not None:
                await update_user(session, person.id, {"picture": None})
            had = person.picture is not None
            audit_own(
                request, session, person.id, "profile.photo.delete", status_code=204, hadPhoto=had
            )
        if person.picture:
            await _delete_quietly(store, person.picture)


ROUTES = [PhotoController]
