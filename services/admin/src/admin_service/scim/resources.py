"""The SCIM operations on people and groups, shared by their routes and ``/Bulk``.

Each write is one transaction (nothing is written when any part is refused) that reuses
the admin API's write paths and checks, and leaves the admin API's audit rows
(``user.create``, ``user.update``, ``user.set_profile``, ``user.delete``,
``group.create``, ``group.update``, ``group.add_members``, ``group.remove_member``,
``group.delete``; detail ``via: scim``), so what follows from them (webhook events)
follows from SCIM writes too:

- changing the email, deactivating (``active: false``) or activating again (``active:
  true``) is a credential change as in ``PATCH /admin/users/{id}``
  (:func:`admin_service.authority.check_credential_change`: a machine client cannot
  disable, re-enable or re-address an administrator); deactivating ends the person's
  sessions with the back-channel fan-out (reason ``user_disabled``) and tells the bearer
  guards after the commit;
- adding members gives the group's roles' scopes and taking them out (removed, left out
  of a PUT, the group deleted) takes those scopes away: only a caller holding them may
  (:func:`admin_service.authority.check_may_give`, ``check_may_take``);
- a person or group whose memberships, profile values or attributes change gets a new
  ``updated_at`` (``meta.lastModified``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from admin_service.authority import (
    caller_holds,
    check_credential_change,
    check_may_give,
    check_may_take,
    check_recent_secret,
)
from admin_service.repos import groups as group_repo
from admin_service.repos import scim_resources as rows
from admin_service.repos.users import check_email
from admin_service.routes import Write, reading, writing
from admin_service.scim import documents as docs
from admin_service.scim.http import Req, base_url, check_if_match
from admin_service.scim.rfc7643_schema import SCHEMA_PROFILE_EXTENSION, ResourceSchema
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_patch import apply_patch, parse_patch_request
from admin_service.scim.schemas import GROUP_RESOURCE_SCHEMA, user_resource_schema
from admin_service.user_sessions import end_sessions_of, tell_guards
from idp_common.errors import Conflict
from idp_common.profile_fields import store as profile
from idp_common.profile_fields.schema import ProfileFieldRead
from idp_common.storage.repos import users as user_repo
from idp_common.storage.repos.paging import MAX_LIMIT
from idp_common.storage.repos.users import IdentifierTaken

#: Turns the current document into the wanted one (PUT: the body; PATCH: the operations).
Change = Callable[[dict[str, Any], ResourceSchema], dict[str, Any]]
VIA = "scim"


def _unknown_extension_key(key: str, schema: ResourceSchema) -> str | None:
    """``key`` (a PATCH path or a key of its value) when it names an attribute of the
    profile extension that does not exist."""
    prefix = SCHEMA_PROFILE_EXTENSION.lower() + ":"
    if not key.lower().startswith(prefix):
        return None
    name = key[len(prefix) :].split("[", 1)[0].split(".", 1)[0]
    extension = schema.schema_of(SCHEMA_PROFILE_EXTENSION)
    return None if extension is None or extension.attribute(name) is not None else key


def patch_change(body: object) -> Change:
    """The operations of a PATCH body as a :data:`Change`. Attributes the provider does not
    store (``name.givenName``...) are skipped, as in a PUT; an unknown attribute of the
    profile extension is refused (``invalidPath``), as in a PUT."""
    operations = parse_patch_request(body)

    def change(current: dict[str, Any], schema: ResourceSchema) -> dict[str, Any]:
        for operation in operations:
            keys = [operation.path] if operation.path is not None else []
            if isinstance(operation.value, dict):
                keys += list(operation.value)
                inner = docs.member(operation.value, SCHEMA_PROFILE_EXTENSION)
                if isinstance(inner, dict):
                    keys += [f"{SCHEMA_PROFILE_EXTENSION}:{k}" for k in inner]
            for key in keys:
                if isinstance(key, str) and (bad := _unknown_extension_key(key, schema)):
                    raise ScimError(400, f"unknown attribute '{bad}'", "invalidPath")
        return apply_patch(current, operations, schema, ignore_unknown=True)

    return change


def user_not_found() -> ScimError:
    return ScimError(404, "no user with this id")


def group_not_found() -> ScimError:
    return ScimError(404, "no group with this id")


async def all_fields(session: AsyncSession) -> list[ProfileFieldRead]:
    """Every profile field definition, in display order."""
    fields: list[ProfileFieldRead] = []
    cursor: str | None = None
    while True:
        page = await profile.list_fields(session, limit=MAX_LIMIT, cursor=cursor)
        fields.extend(page.items)
        cursor = page.next_cursor
        if cursor is None:
            return fields


async def user_schema(session: AsyncSession) -> tuple[ResourceSchema, list[ProfileFieldRead]]:
    fields = await all_fields(session)
    return user_resource_schema(fields), fields


async def user_documents(
    request: Req,
    session: AsyncSession,
    found: Sequence[rows.UserRow],
    fields: Sequence[ProfileFieldRead],
) -> list[dict[str, Any]]:
    ids = [r.id for r in found]
    groups = await rows.groups_of_users(session, ids)
    values = await rows.values_of_users(session, ids)
    base = base_url(request)
    return [docs.user_document(r, groups[r.id], fields, values[r.id], base) for r in found]


async def group_documents(
    request: Req, session: AsyncSession, found: Sequence[rows.GroupRow]
) -> list[dict[str, Any]]:
    members = await rows.members_of_groups(session, [g.id for g in found])
    base = base_url(request)
    return [docs.group_document(g, members[g.id], base) for g in found]


def _taken(taken: IdentifierTaken) -> ScimError:
    attribute = "userName" if taken.field == "username" else "emails"
    return ScimError(409, f"{attribute}: another user already has this {taken.field}", "uniqueness")


# --- users ---------------------------------------------------------------------------------


async def read_user(request: Req, user_id: str) -> dict[str, Any]:
    async with reading(request) as session:
        found = await rows.get_user(session, user_id)
        if found is None:
            raise user_not_found()
        _, fields = await user_schema(session)
        (document,) = await user_documents(request, session, [found], fields)
    return document


async def create_user(request: Req, body: dict[str, Any]) -> dict[str, Any]:
    async with writing(request) as write:
        _, fields = await user_schema(write.session)
        wanted = docs.user_values(body, current_email=None, profile_required=False)
        applying = [f for f in fields if f.group_id is None]  # a new person has no group
        changes = docs.profile_changes(wanted.profile or {}, {}, applying, fields)
        check_email(wanted.email)
        try:
            account = await user_repo.create_user(
                write.session,
                email=wanted.email,
                username=wanted.username,
                display_name=wanted.display_name,
                password_hash=None,
                external_id=wanted.external_id,
            )
        except IdentifierTaken as taken:
            raise _taken(taken) from taken
        if wanted.active is False:
            await user_repo.update_user(write.session, account.id, {"disabled": True})
        await profile.set_values(write.session, account.id, changes)
        keys = sorted(f.key for f, _ in changes)
        inactive = {"disabled": True} if wanted.active is False else {}
        write.audit(
            "user.create", account.id, status_code=201, via=VIA, profileKeys=keys, **inactive
        )
        found = await rows.get_user(write.session, account.id)
        assert found is not None  # inserted in this transaction
        (document,) = await user_documents(request, write.session, [found], fields)
    return document


async def change_user(
    request: Req, user_id: str, change: Change, *, patch: bool, if_match: str | None
) -> dict[str, Any]:
    """PUT (``patch`` False: a missing extension keeps the values) or PATCH."""
    disabled = False
    async with writing(request) as write:
        session = write.session
        found = await rows.get_user(session, user_id, lock=True)
        if found is None:
            raise user_not_found()
        schema, fields = await user_schema(session)
        (current,) = await user_documents(request, session, [found], fields)
        check_if_match(if_match, current["meta"]["version"])
        wanted_doc = change(current, schema)
        wanted = docs.user_values(wanted_doc, current_email=found.email, profile_required=patch)
        groups = (await rows.groups_of_users(session, [found.id]))[found.id]
        applying = docs.fields_of(groups, fields)
        profile_now = current.get(SCHEMA_PROFILE_EXTENSION, {})
        changes = (
            []
            if wanted.profile is None
            else docs.profile_changes(wanted.profile, profile_now, applying, fields)
        )
        core: dict[str, Any] = {}
        for name, before, after in (
            ("email", found.email, wanted.email),
            ("username", found.username, wanted.username),
            ("display_name", found.display_name, wanted.display_name),
            ("external_id", found.external_id, wanted.external_id),
        ):
            if before != after:
                core[name] = after
        if wanted.active is not None and wanted.active == found.disabled:
            core["disabled"] = not wanted.active
        disabled = core.get("disabled") is True
        if "email" in core or "disabled" in core:  # re-enabling hands the account back
            await check_recent_secret(request)
            await check_credential_change(request, session, found.id)
        if not core and not changes:
            return current
        try:
            await user_repo.update_user(session, found.id, core)  # {} moves updated_at only
        except IdentifierTaken as taken:
            raise _taken(taken) from taken
        if core:
            ended = 0
            if disabled:
                ended = await end_sessions_of(request, session, found.id, "user_disabled")
            # as the admin API writes it: the flag tells user.disabled from user.enabled
            flag = {"disabled": core["disabled"]} if "disabled" in core else {}
            write.audit(
                "user.update", found.id, fields=sorted(core), sessionsEnded=ended, via=VIA, **flag
            )
        if changes:
            await profile.set_values(session, found.id, changes)
            write.audit(
                "user.set_profile", found.id, keys=sorted(f.key for f, _ in changes), via=VIA
            )
        updated = await rows.get_user(session, found.id)
        assert updated is not None  # locked in this transaction
        (document,) = await user_documents(request, session, [updated], fields)
    if disabled:
        await tell_guards(request)
    return document


async def delete_user(request: Req, user_id: str, *, if_match: str | None) -> None:
    async with writing(request) as write:
        found = await rows.get_user(write.session, user_id, lock=True)
        if found is None:
            raise user_not_found()
        if if_match is not None:
            _, fields = await user_schema(write.session)
            (current,) = await user_documents(request, write.session, [found], fields)
            check_if_match(if_match, current["meta"]["version"])
        await check_recent_secret(request)
        await check_credential_change(request, write.session, found.id)
        ended = await end_sessions_of(request, write.session, found.id, "user_deleted")
        await user_repo.delete_user(write.session, found.id)
        write.audit("user.delete", found.id, status_code=204, sessionsEnded=ended, via=VIA)
    await tell_guards(request)


# --- groups --------------------------------------------------------------------------------


async def read_group(request: Req, group_id: str) -> dict[str, Any]:
    async with reading(request) as session:
        found = await rows.get_group(session, group_id)
        if found is None:
            raise group_not_found()
        (document,) = await group_documents(request, session, [found])
    return document


async def _check_members(session: AsyncSession, members: Sequence[uuid.UUID]) -> None:
    known = await rows.existing_users(session, members)
    unknown = [i for i, m in enumerate(members) if m not in known]
    if unknown:
        raise docs.invalid(f"members[{unknown[0]}].value", "no user with this id")


async def _set_members(
    request: Req,
    write: Write,
    group_id: uuid.UUID,
    before: set[uuid.UUID],
    wanted: Sequence[uuid.UUID],
) -> bool:
    """Make ``wanted`` the members (adds checked as ``POST .../members``); whether any
    membership changed. The people whose groups changed get a new ``updated_at``."""
    session = write.session
    added = [m for m in wanted if m not in before]
    removed = [m for m in before if m not in set(wanted)]
    held = await caller_holds(request, session) if added or removed else frozenset()
    if added:
        await _check_members(session, added)
        await check_recent_secret(request)
        _, really = await group_repo.add_members(session, str(group_id), [str(m) for m in added])
        given = await group_repo.group_scope_values(session, group_id)
        await check_may_give(request, held, given, target=str(group_id))
        write.audit("group.add_members", group_id, added=[str(u) for u in really], via=VIA)
    if removed:
        await check_may_take(request, session, held, group_id)
    for person in removed:
        await group_repo.remove_member(session, str(group_id), str(person))
        write.audit("group.remove_member", group_id, status_code=204, user=str(person), via=VIA)
    for person in (*added, *removed):
        await user_repo.update_user(session, person, {})
    return bool(added or removed)


def _name_taken() -> ScimError:
    return ScimError(409, "displayName: a group with this name already exists", "uniqueness")


async def create_group(request: Req, body: dict[str, Any]) -> dict[str, Any]:
    wanted = docs.group_values(body)
    async with writing(request) as write:
        try:
            created = await group_repo.create_group(write.session, name=wanted.name, description="")
        except Conflict as exc:
            raise _name_taken() from exc
        write.audit("group.create", created.id, status_code=201, via=VIA)
        if wanted.external_id is not None:
            await group_repo.set_external_id(write.session, created.id, wanted.external_id)
        await _set_members(request, write, created.id, set(), wanted.members)
        found = await rows.get_group(write.session, created.id)
        assert found is not None  # inserted in this transaction
        (document,) = await group_documents(request, write.session, [found])
    return document


async def change_group(
    request: Req, group_id: str, change: Change, *, if_match: str | None
) -> dict[str, Any]:
    async with writing(request) as write:
        session = write.session
        found = await rows.get_group(session, group_id, lock=True)
        if found is None:
            raise group_not_found()
        (current,) = await group_documents(request, session, [found])
        check_if_match(if_match, current["meta"]["version"])
        wanted = docs.group_values(change(current, GROUP_RESOURCE_SCHEMA))
        changed: list[str] = []
        if wanted.name != found.name:
            try:
                await group_repo.update_group(
                    session, str(found.id), name=wanted.name, description=None
                )
            except Conflict as exc:
                raise _name_taken() from exc
            changed.append("name")
        if wanted.external_id != found.external_id:
            await group_repo.set_external_id(session, found.id, wanted.external_id)
            changed.append("externalId")
        if changed:
            write.audit("group.update", found.id, fields=changed, via=VIA)
        before = {uuid.UUID(m["value"]) for m in current.get("members", [])}
        if await _set_members(request, write, found.id, before, wanted.members):
            row = await group_repo.GROUPS.row(session, str(found.id), lock=True)
            await group_repo.GROUPS.touch(session, row)
        elif not changed:
            return current
        after = await rows.get_group(session, found.id)
        assert after is not None  # locked in this transaction
        (document,) = await group_documents(request, session, [after])
    return document


async def delete_group(request: Req, group_id: str, *, if_match: str | None) -> None:
    async with writing(request) as write:
        found = await rows.get_group(write.session, group_id, lock=True)
        if found is None:
            raise group_not_found()
        (current,) = await group_documents(request, write.session, [found])
        check_if_match(if_match, current["meta"]["version"])
        if current.get("members"):  # its members lose the scopes of its roles
            held = await caller_holds(request, write.session)
            await check_may_take(request, write.session, held, found.id)
        deleted = await group_repo.delete_group(write.session, str(found.id))
        for m in current.get("members", []):
            await user_repo.update_user(write.session, uuid.UUID(m["value"]), {})
        write.audit("group.delete", deleted, status_code=204, via=VIA)
