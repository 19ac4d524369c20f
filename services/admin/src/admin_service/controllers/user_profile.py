"""``/admin/users/{user_id}/profile``: a person's profile values (contract §4 "Admin:
users"; part 2 "Profile field" rules 6 and 10).

GET answers ``{key: value}`` for every field that applies to the person (global fields
and those of the person's groups; null where no value is stored). PATCH takes
``{key: value | null}``: null deletes the value (refused for a ``required`` field); it is
not restricted by ``userWritable``; all or nothing, in one transaction; a value of a
``unique`` field held by another person is a 409. Audited ``user.set_profile`` with the
keys changed, never the values.
"""

from __future__ import annotations

import uuid
from typing import Any

from litestar import Controller, get, patch
from litestar.params import JSONBody

from admin_service.routes import Req, operation, reading, writing
from idp_common.errors import FieldError, InvalidArgument, NotFound
from idp_common.profile_fields import store
from idp_common.profile_fields.schema import ProfileFieldRead
from idp_common.profile_fields.values import to_text
from idp_common.protocol.constants import SCOPE_IDP_USERS_READ as READ
from idp_common.protocol.constants import SCOPE_IDP_USERS_WRITE as WRITE
from idp_common.storage.repos.users import get_user

Changes = list[tuple[ProfileFieldRead, str | None]]


async def _person(session: Any, user_id: str) -> uuid.UUID:
    person = await get_user(session, user_id)
    if person is None:
        raise NotFound("no such user", code="user.not_found")
    return person.id


def _changes(fields: list[ProfileFieldRead], body: dict[str, Any]) -> Changes:
    """Each ``key: value`` as the text to store (None: delete); 422 naming every bad key."""
    by_key = {f.key: f for f in fields}
    changes: Changes = []
    errors: list[FieldError] = []
    for key, raw in body.items():
        field = by_key.get(key)
        if field is None:
            errors.append(FieldError(key, "is not a profile field that applies to this user"))
        elif raw is None:
            if field.required:
                errors.append(FieldError(key, "is required and cannot be removed"))
            changes.append((field, None))
        else:
            try:
                changes.append((field, to_text(field, raw)))
            except ValueError as exc:
                errors.append(FieldError(key, str(exc)))
    if errors:
        names = ", ".join(e.field for e in errors)
        raise InvalidArgument(f"invalid profile values: {names}", errors=errors)
    return changes


class UserProfileController(Controller):
    path = "/admin/users/{user_id:str}/profile"
    tags = ["users"]

    @get(
        **operation(
            "getUserProfile",
            "Read a person's profile values",
            READ,
            "Every field that applies to the person, null where no value is stored.",
        )
    )
    async def read_profile(self, request: Req, user_id: str) -> dict[str, Any]:
        async with reading(request) as session:
            person = await _person(session, user_id)
            fields = await store.fields_of_user(session, person)
            return await store.read_values(session, person, fields)

    @patch(
        **operation(
            "setUserProfile",
            "Set or remove a person's profile values",
            WRITE,
            "Body `{key: value | null}`; null removes the value. Not restricted by "
            "`userWritable`. All or nothing.",
        )
    )
    async def set_profile(
        self, request: Req, user_id: str, data: JSONBody[dict[str, Any]]
    ) -> dict[str, Any]:
        async with writing(request) as write:
            person = await _person(write.session, user_id)
            fields = await store.fields_of_user(write.session, person)
            await store.set_values(write.session, person, _changes(fields, data))
            write.audit("user.set_profile", person, keys=sorted(data))
            return await store.read_values(write.session, person, fields)


ROUTES = [UserProfileController]
