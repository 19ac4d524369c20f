"""``/admin/profile-fields``: administrator-defined profile fields (spec part 2 "Profile
field", part 4 "Admin: profile fields"; DESIGN.md "Profile fields").

The rules live in :mod:`idp_common.profile_fields` (the self-service API reuses them);
this module maps them to HTTP and audits each write (``profile_field.create|update|delete``).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, delete, get, patch, post
from litestar.params import JSONBody, Parameter

from idp_common.errors import NotFound
from idp_common.profile_fields import rules, store
from idp_common.profile_fields.presets import PRESETS
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
from idp_common.storage.repos.paging import DEFAULT_LIMIT, MAX_LIMIT
from idp_common.web.audit_trail import audit
from idp_common.web.caller import resources_of
from idp_common.web.guard import requires

READ = f"Needs `{SCOPE_IDP_PROFILE_FIELDS_READ}`."
WRITE = f"Needs `{SCOPE_IDP_PROFILE_FIELDS_WRITE}`."
TARGET_TYPE = "profile_field"


class ProfileFieldsController(Controller):
    path = "/admin/profile-fields"
    tags = ["profile-fields"]

    @get(
        operation_id="listProfileFields",
        summary="List profile fields (by displayOrder, then key)",
        description=READ,
        **requires(SCOPE_IDP_PROFILE_FIELDS_READ),
    )
    async def list_fields(
        self,
        request: Request[Any, Any, Any],
        limit: Annotated[int, Parameter(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
        cursor: str | None = None,
    ) -> ProfileFieldPage:
        async with resources_of(request).sessions() as session:
            return await store.list_fields(session, limit=limit, cursor=cursor)

    @post(
        operation_id="createProfileField",
        summary="Define a profile field",
        description=f"{WRITE} Omitted properties take the defaults of DESIGN.md; "
        "`displayOrder` defaults to after the last field.",
        **requires(SCOPE_IDP_PROFILE_FIELDS_WRITE),
    )
    async def create_field(
        self, request: Request[Any, Any, Any], data: JSONBody[ProfileFieldCreate]
    ) -> ProfileFieldRead:
        async with resources_of(request).sessions.begin() as session:
            field = await store.create_field(session, data)
            audit(
                request,
                session,
                action="profile_field.create",
                target_type=TARGET_TYPE,
                target=str(field.id),
                status_code=201,
                detail={"key": field.key},
            )
        return field

    @get(
        "/presets",
        operation_id="listProfileFieldPresets",
        summary="Templates for the creation body (nothing is created)",
        description=READ,
        **requires(SCOPE_IDP_PROFILE_FIELDS_READ),
    )
    async def presets(self) -> list[ProfileFieldCreate]:
        return list(PRESETS)

    @get(
        "/{field_id:str}",
        operation_id="getProfileField",
        summary="Read a profile field",
        description=READ,
        **requires(SCOPE_IDP_PROFILE_FIELDS_READ),
    )
    async def get_field(self, request: Request[Any, Any, Any], field_id: str) -> ProfileFieldRead:
        async with resources_of(request).sessions() as session:
            field = await store.get_field(session, field_id)
        if field is None:
            raise NotFound("no such profile field", code="profile_field.not_found")
        return field

    @patch(
        "/{field_id:str}",
        operation_id="updateProfileField",
        summary="Update a profile field",
        description=f"{WRITE} `key`, `dataType`, `unique` and `groupId` cannot change.",
        **requires(SCOPE_IDP_PROFILE_FIELDS_WRITE),
    )
    async def update_field(
        self, request: Request[Any, Any, Any], field_id: str, data: JSONBody[ProfileFieldUpdate]
    ) -> ProfileFieldRead:
        async with resources_of(request).sessions.begin() as session:
            field = await store.update_field(session, field_id, data)
            changed = rules.given_members(data)
            audit(
                request,
                session,
                action="profile_field.update",
                target_type=TARGET_TYPE,
                target=str(field.id),
                detail={"key": field.key, "changed": changed},
            )
        return field

    @delete(
        "/{field_id:str}",
        operation_id="deleteProfileField",
        summary="Delete a profile field and every value of it",
        description=WRITE,
        **requires(SCOPE_IDP_PROFILE_FIELDS_WRITE),
    )
    async def delete_field(self, request: Request[Any, Any, Any], field_id: str) -> None:
        async with resources_of(request).sessions.begin() as session:
            field = await store.delete_field(session, field_id)
            audit(
                request,
                session,
                action="profile_field.delete",
                target_type=TARGET_TYPE,
                target=str(field.id),
                status_code=204,
                detail={"key": field.key},
            )


ROUTES = [ProfileFieldsController]
