"""``/admin/profile-fields``: administrator-defined profile fields (contract §2 "Profile
field", part 4 "Admin: profile fields"; docs/design.md "Profile fields").

The rules live in :mod:`idp_common.profile_fields` (the self-service API reuses them);
this module maps them to HTTP and audits each write (``profile_field.create|update|delete``).
"""

from __future__ import annotations

from litestar import Router, delete, get, patch, post
from litestar.params import JSONBody

from admin_service.profile_presets import PRESETS
from admin_service.routes import Limit, Req, operation, reading, writing
from idp_common.errors import NotFound
from idp_common.profile_fields import rules, store
from idp_common.profile_fields.schema import (
    ProfileFieldCreate,
    ProfileFieldPage,
    ProfileFieldRead,
    ProfileFieldUpdate,
)
from idp_common.protocol.constants import (
    SCOPE_IDP_PROFILE_FIELDS_READ,
    SCOPE_IDP_PROFILE_FIELDS_WRITE,
)
from idp_common.storage.repos.paging import DEFAULT_LIMIT

READ, WRITE = SCOPE_IDP_PROFILE_FIELDS_READ, SCOPE_IDP_PROFILE_FIELDS_WRITE
_FIELD = "/{field_id:str}"


@get(**operation("listProfileFields", "List profile fields (by displayOrder, then key)", READ))
async def list_fields(
    request: Req, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> ProfileFieldPage:
    async with reading(request) as session:
        return await store.list_fields(session, limit=limit, cursor=cursor)


@post(
    **operation(
        "createProfileField",
        "Define a profile field",
        WRITE,
        "Omitted properties take the defaults of docs/design.md; `displayOrder` defaults to after "
        "the last field.",
    )
)
async def create_field(request: Req, data: JSONBody[ProfileFieldCreate]) -> ProfileFieldRead:
    async with writing(request) as write:
        field = await store.create_field(write.session, data)
        write.audit("profile_field.create", field.id, status_code=201, key=field.key)
    return field


@get(
    "/presets",
    **operation(
        "listProfileFieldPresets", "Templates for the creation body (nothing is created)", READ
    ),
)
async def presets() -> list[ProfileFieldCreate]:
    return list(PRESETS)


@get(_FIELD, **operation("getProfileField", "Read a profile field", READ))
async def get_field(request: Req, field_id: str) -> ProfileFieldRead:
    async with reading(request) as session:
        field = await store.get_field(session, field_id)
    if field is None:
        raise NotFound("no such profile field", code="profile_field.not_found")
    return field


@patch(
    _FIELD,
    **operation(
        "updateProfileField",
        "Update a profile field",
        WRITE,
        "`key`, `dataType`, `unique` and `groupId` cannot change.",
    ),
)
async def update_field(
    request: Req, field_id: str, data: JSONBody[ProfileFieldUpdate]
) -> ProfileFieldRead:
    async with writing(request) as write:
        field = await store.update_field(write.session, field_id, data)
        changed = rules.given_members(data)
        write.audit("profile_field.update", field.id, key=field.key, changed=changed)
    return field


@delete(
    _FIELD, **operation("deleteProfileField", "Delete a profile field and every value of it", WRITE)
)
async def delete_field(request: Req, field_id: str) -> None:
    async with writing(request) as write:
        field = await store.delete_field(write.session, field_id)
        write.audit("profile_field.delete", field.id, status_code=204, key=field.key)


_HANDLERS = [list_fields, create_field, presets, get_field, update_field, delete_field]
ROUTES = [Router(path="/admin/profile-fields", route_handlers=_HANDLERS, tags=["profile-fields"])]
