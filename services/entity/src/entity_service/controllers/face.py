"""``/entity/face``: the caller's face for face sign-in (docs/design.md "Sign-in").

- ``PUT``: an image (the body, or the ``file`` field of a multipart form, as the photo
  takes it, at most ``SVC_AVATAR_MAX_BYTES``) showing exactly one face, large and sharp
  enough. The face's embedding (128 numbers) is sealed with ``SVC_SECRETS_KEY``, bound to
  the person, and stored; the image is never kept. A 422 names ``file`` and says why
  (``face.no_face``, ``face.several_faces``, ``face.too_small``, ``face.too_blurry``,
  ``face.unreadable_image``). Enrolling again replaces the template. Audited
  ``face.enroll``.
- ``GET``: enrolled or not, and when.
- ``DELETE``: removes the template; 204 also when there was none. Audited ``face.delete``.

Writes need ``idp:account:write`` and a sign-in within 300 s that included the password or
a one-time code (RFC 9470; a face alone does not unlock them), as the other credentials
do. Without the face stack or the secrets key every route answers 503.

Enrolling also fingerprints the person's current photo when it was published without one
(the face stack was off then), so that face sign-in refuses it
(:mod:`idp_common.usecases.published_photos`).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Final

import msgspec
from litestar import Controller, Request, Response, delete, get, put

from entity_service.controllers.media import avatar_store
from entity_service.controllers.photo import PhotoUpload
from entity_service.own import READ, WRITE, audit_own, operation, read_image, remove_own
from entity_service.person import person_id, person_key
from idp_common.face import FaceEngine
from idp_common.face.template import seal_template
from idp_common.operations.credential_notice import notice_of, notice_task
from idp_common.storage.repos.face import delete_face_template, get_face_template, put_face_template
from idp_common.storage.repos.users import get_user
from idp_common.usecases.published_photos import (
    PhotoUnchecked,
    current_photo_fingerprint,
    published_photos,
    remember_photo,
)
from idp_common.web.caller import resources_of
from idp_common.web.face import embed_image, face_engine_of, require_face, unavailable
from idp_common.web.guard import current_caller

AnyRequest = Request[Any, Any, Any]
FACE_UNAVAILABLE: Final = "503 `face.unavailable` when the deployment has no face stack."


class FaceRead(msgspec.Struct, frozen=True, rename="camel"):
    enrolled: bool
    enrolled_at: datetime | None = None
    updated_at: datetime | None = None


def _secrets_key(request: AnyRequest) -> bytes:
    key = resources_of(request).settings.secrets_key_bytes
    if key is None:
        raise unavailable()
    return key


async def _fingerprint_current_photo(
    request: AnyRequest, engine: FaceEngine, person: uuid.UUID, key: bytes
) -> None:
    """Remember the person's current photo when it has no fingerprint yet (best effort:
    the face sign-in fingerprints it otherwise, or refuses to go on)."""
    resources = resources_of(request)
    async with resources.sessions() as session:
        account = await get_user(session, person)
        picture = None if account is None else account.picture
        _, remembered = await published_photos(session, person, key=key)
    if picture is None or picture in remembered:
        return
    try:
        fingerprint = await current_photo_fingerprint(avatar_store(request), engine, picture)
    except PhotoUnchecked:
        return  # the enrolment stands
    if fingerprint is not None:
        async with resources.sessions.begin() as session:
            await remember_photo(session, person, fingerprint, key=key, picture=picture)


class FaceController(Controller):
    path = "/entity/face"
    tags = ["credentials"]

    @get(
        **operation(
            "getOwnFace",
            "Whether you enrolled a face, and when",
            READ,
            "503 when the deployment has no face stack.",
        ),
    )
    async def read(self, request: AnyRequest) -> FaceRead:
        require_face(face_engine_of(request))
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            row = await get_face_template(session, person)
        if row is None:
            return FaceRead(enrolled=False)
        return FaceRead(enrolled=True, enrolled_at=row.created_at, updated_at=row.updated_at)

    @put(
        request_max_body_size=None,  # the handler reads the body against the setting
        operation_class=PhotoUpload,
        **operation(
            "enrollOwnFace",
            "Enrol your face for face sign-in (replaces an earlier one)",
            WRITE,
            f"{FACE_UNAVAILABLE} The image as the body or as the `file` field of a "
            "multipart form. It must show exactly one face, large and sharp enough: otherwise a "
            "422 naming `file` says why. Only the face's embedding is kept, encrypted.",
            step_up=True,
        ),
    )
    async def enroll(self, request: AnyRequest) -> Response[FaceRead]:
        engine = face_engine_of(request)
        require_face(engine)
        key = _secrets_key(request)
        person = person_key(current_caller(request).subject)  # a machine client: 404 first
        resources = resources_of(request)
        upload = await read_image(request)
        embedding = await embed_image(engine, upload.data, field=upload.field)
        await _fingerprint_current_photo(request, engine, person, key)
        async with resources.sessions.begin() as session:
            person = await person_id(session, str(person), lock=True)
            sealed = seal_template(embedding, key=key, user_id=person)
            row = await put_face_template(session, person, sealed)
            replaced = row.created_at != row.updated_at
            audit_own(request, session, person, "face.enroll", replaced=replaced)
        answer = FaceRead(enrolled=True, enrolled_at=row.created_at, updated_at=row.updated_at)
        notice = notice_of(request, person, "face", "changed" if replaced else "added")
        return Response(answer, background=notice_task(resources, notice))

    @delete(
        status_code=204,
        **operation(
            "deleteOwnFace",
            "Remove your face template",
            WRITE,
            f"{FACE_UNAVAILABLE} 204, also when there was none.",
            step_up=True,
        ),
    )
    async def remove(self, request: AnyRequest) -> Response[None]:
        require_face(face_engine_of(request))
        return await remove_own(request, delete_face_template, ("face",), "face.delete", "hadFace")


ROUTES = [FaceController]
