"""``/entity/profile`` and ``/entity/profile/schema``: the caller's own profile (contract §4
"Entity (self-service)"; part 2 "Profile field" and "Built-in person facts").

GET answers the built-in facts and ``fields``, the values of every readable field that
applies to the caller. PATCH takes ``{key: value | null}``: exactly the ``userWritable``
fields that apply to the caller, plus the built-in ``displayName`` and ``username``; any
other key is a 422 naming it and nothing changes. Audited ``profile.update`` with the keys
sent, never the values. The rules live in :mod:`entity_service.repos.profile`.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, patch
from litestar.params import JSONBody

from entity_service.own import READ, WRITE, audit_own, operation
from entity_service.person import person_id
from entity_service.repos import profile as store
from entity_service.repos.profile import ProfileRead, ProfileSchema
from idp_common.web.caller import resources_of
from idp_common.web.guard import current_caller


class ProfileController(Controller):
    path = "/entity/profile"
    tags = ["profile"]

    @get(
        **operation(
            "getOwnProfile",
            "Read your profile",
            READ,
            "The built-in facts (`picture` is the public photo URL or null) and `fields`: every "
            "readable profile field that applies to you (global fields and those of your groups),"
            " null where no value is stored.",
        ),
    )
    async def read_profile(self, request: Request[Any, Any, Any]) -> ProfileRead:
        resources = resources_of(request)
        async with resources.sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            fields = await store.fields_of(session, person)
            return await store.read_profile(session, person, fields, resources.settings.issuer_base)

    @patch(
        **operation(
            "updateOwnProfile",
            "Change your profile",
            WRITE,
            "Body `{key: value | null}` keyed by field key: exactly the `userWritable` fields "
            "that apply to you, plus the built-in `displayName` (string) and `username` (string, "
            "or null to remove it; unique). Any other key is a 422 naming it and nothing changes;"
            " null removes a value (not of a `required` field); a value held by someone else in a"
            " `unique` field is a 409. Answers the profile as GET does.",
        ),
    )
    async def update_profile(
        self, request: Request[Any, Any, Any], data: JSONBody[dict[str, Any]]
    ) -> ProfileRead:
        resources = resources_of(request)
        async with resources.sessions.begin() as session:
            person = await person_id(session, current_caller(request).subject, lock=True)
            fields = await store.fields_of(session, person)
            await store.apply_edit(session, person, store.plan_edit(fields, data))
            if data:
                audit_own(request, session, person, "profile.update", keys=sorted(data))
            return await store.read_profile(session, person, fields, resources.settings.issuer_base)

    @get(
        "/schema",
        **operation(
            "getOwnProfileSchema",
            "The profile fields that apply to you",
            READ,
            "Global fields and those of your groups that you can read, in `displayOrder`; "
            "`userWritable` says which ones PATCH `/entity/profile` accepts.",
        ),
    )
    async def read_schema(self, request: Request[Any, Any, Any]) -> ProfileSchema:
        async with resources_of(request).sessions() as session:
            person = await person_id(session, current_caller(request).subject)
            return store.schema_of(await store.fields_of(session, person))


ROUTES = [ProfileController]
