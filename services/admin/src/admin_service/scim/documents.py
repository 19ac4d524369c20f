"""SCIM documents ↔ stored people and groups (docs/scim.md "Attribute mapping").

Reading: a row, its memberships and profile values become the canonical document (core
attributes at the top, profile values under the extension URN); ``meta.version`` is a
weak ETag of the document's content, so it changes with every change a SCIM client can
see (profile values and memberships included, whichever API made them).

Writing: a whole document (the body of POST or PUT, or the current document after a
PATCH) becomes the values to store, checked with the admin API's rules; a refusal is a
:class:`ScimError` naming the SCIM attribute. Attributes the provider does not store
(``name``, ``phoneNumbers``, other extensions...) are ignored; an unknown attribute of
the profile extension is refused (a typo would otherwise drop data silently).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from admin_service.controllers.named_entries import Name
from admin_service.controllers.users import DisplayName, Username
from admin_service.repos.scim_resources import GroupRow, MemberRef, UserRow
from admin_service.repos.users import check_email
from admin_service.scim.rfc7643_schema import SCHEMA_GROUP, SCHEMA_PROFILE_EXTENSION, SCHEMA_USER
from admin_service.scim.rfc7644_errors import ScimError
from idp_common.errors import InvalidArgument
from idp_common.profile_fields.schema import ProfileFieldRead
from idp_common.profile_fields.values import from_text, to_text

MAX_EXTERNAL_ID = 1000
_TRUE: Final = {"true": True, "false": False}


def version_of(document: Mapping[str, Any]) -> str:
    """A weak ETag of the document without ``meta`` (RFC 7644 §3.14)."""
    content = {k: v for k, v in document.items() if k != "meta"}
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode())
    return f'W/"{digest.hexdigest()[:32]}"'


def _stamp(document: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    document["meta"] = {**meta, "version": version_of(document)}
    return document


def _time(value: Any) -> str:
    return str(value.isoformat().replace("+00:00", "Z"))


def fields_of(
    row_groups: Sequence[MemberRef], fields: Sequence[ProfileFieldRead]
) -> list[ProfileFieldRead]:
    """The profile fields that apply to a person: global ones and those of their groups."""
    mine = {g.id for g in row_groups}
    return [f for f in fields if f.group_id is None or f.group_id in mine]


def user_document(
    row: UserRow,
    groups: Sequence[MemberRef],
    fields: Sequence[ProfileFieldRead],
    values: Mapping[uuid.UUID, str],
    base: str,
) -> dict[str, Any]:
    doc: dict[str, Any] = {"schemas": [SCHEMA_USER], "id": str(row.id)}
    if row.external_id is not None:
        doc["externalId"] = row.external_id
    doc["userName"] = row.username or row.email
    if row.display_name:
        doc["displayName"] = row.display_name
    doc["active"] = not row.disabled
    doc["emails"] = [{"value": row.email, "type": "work", "primary": True}]
    if groups:
        doc["groups"] = [
            {"value": str(g.id), "$ref": f"{base}/Groups/{g.id}", "display": g.display}
            for g in groups
        ]
    profile = {
        f.key: from_text(f.data_type, values[f.id])
        for f in fields_of(groups, fields)
        if f.id in values
    }
    if profile:
        doc["schemas"].append(SCHEMA_PROFILE_EXTENSION)
        doc[SCHEMA_PROFILE_EXTENSION] = profile
    return _stamp(
        doc,
        {
            "resourceType": "User",
            "created": _time(row.created_at),
            "lastModified": _time(row.updated_at),
            "location": f"{base}/Users/{row.id}",
        },
    )


def group_document(row: GroupRow, members: Sequence[MemberRef], base: str) -> dict[str, Any]:
    doc: dict[str, Any] = {"schemas": [SCHEMA_GROUP], "id": str(row.id)}
    if row.external_id is not None:
        doc["externalId"] = row.external_id
    doc["displayName"] = row.name
    if members:
        doc["members"] = [
            {
                "value": str(m.id),
                "$ref": f"{base}/Users/{m.id}",
                "type": "User",
                "display": m.display,
            }
            for m in members
        ]
    return _stamp(
        doc,
        {
            "resourceType": "Group",
            "created": _time(row.created_at),
            "lastModified": _time(row.updated_at),
            "location": f"{base}/Groups/{row.id}",
        },
    )


# --- documents in -------------------------------------------------------------------------


def invalid(attribute: str, message: str) -> ScimError:
    return ScimError(400, f"{attribute}: {message}", "invalidValue")


def member(document: Mapping[str, Any], name: str) -> Any:
    """A top-level member by name, any case (SCIM attribute names are case-insensitive)."""
    lowered = name.lower()
    return next((v for k, v in document.items() if k.lower() == lowered), None)


def _text(document: Mapping[str, Any], name: str) -> str | None:
    value = member(document, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid(name, "must be a string")
    return value


def _checked(value: str, kind: Any, attribute: str, message: str) -> str:
    try:
        checked: str = msgspec.convert(value, kind)
    except msgspec.ValidationError:
        raise invalid(attribute, message) from None
    return checked


def boolean(value: Any, attribute: str) -> bool:
    """A boolean, also as the strings some clients send (``"False"``: Entra ID)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TRUE:
        return _TRUE[value.lower()]
    raise invalid(attribute, "must be true or false")


class UserValues(msgspec.Struct, kw_only=True):
    """What a user document asks to store; ``active``/``profile`` None: keep as stored."""

    email: str
    username: str | None
    display_name: str
    external_id: str | None
    active: bool | None
    profile: dict[str, Any] | None


def _email_of(document: Mapping[str, Any]) -> str | None:
    emails = member(document, "emails")
    if emails is None or emails == []:
        return None
    if not isinstance(emails, list) or not all(isinstance(e, dict) for e in emails):
        raise invalid("emails", "must be a list of objects with a value")
    chosen = next((e for e in emails if member(e, "primary") in (True, "true", "True")), emails[0])
    value = member(chosen, "value")
    if not isinstance(value, str):
        raise invalid("emails", "the address (value) must be a string")
    try:
        check_email(value)
    except InvalidArgument as exc:
        raise invalid("emails", exc.detail.removeprefix("email ")) from None
    return value.strip()


def _display_name(document: Mapping[str, Any]) -> str:
    """``displayName``, else the name parts (``name`` itself is not stored)."""
    shown = _text(document, "displayName")
    if shown is None:
        name = member(document, "name")
        if isinstance(name, dict):
            formatted = member(name, "formatted")
            parts = [member(name, "givenName"), member(name, "familyName")]
            shown = (
                formatted
                if isinstance(formatted, str)
                else " ".join(p for p in parts if isinstance(p, str) and p)
            )
    return _checked((shown or "").strip(), DisplayName, "displayName", "at most 200 characters")


def user_values(
    document: Mapping[str, Any], *, current_email: str | None, profile_required: bool
) -> UserValues:
    """The values of a whole user document. ``current_email``: the stored address (kept
    when the document has none); ``profile_required``: a missing extension means "no
    values" (a PATCH result) rather than "keep them" (a PUT without the extension)."""
    user_name = _text(document, "userName")
    if not user_name or not user_name.strip():
        raise invalid("userName", "is required")
    user_name = user_name.strip()
    email = _email_of(document)
    if email is None:
        if current_email is not None:
            email = current_email
        elif "@" in user_name:
            try:
                check_email(user_name)
            except InvalidArgument:
                raise invalid("emails", "an email address is required") from None
            email = user_name
        else:
            raise invalid("emails", "an email address is required")
    username: str | None = None
    if user_name.lower() != email.lower():
        username = _checked(user_name, Username, "userName", "1 to 100 characters without spaces")
    external_id = _text(document, "externalId")
    if external_id is not None and len(external_id) > MAX_EXTERNAL_ID:
        raise invalid("externalId", f"at most {MAX_EXTERNAL_ID} characters")
    active = member(document, "active")
    extension = member(document, SCHEMA_PROFILE_EXTENSION)
    if extension is not None and not isinstance(extension, dict):
        raise invalid(SCHEMA_PROFILE_EXTENSION, "must be an object")
    if extension is None and profile_required:
        extension = {}
    return UserValues(
        email=email,
        username=username,
        display_name=_display_name(document),
        external_id=external_id,
        active=None if active is None else boolean(active, "active"),
        profile=extension,
    )


def profile_changes(
    wanted: Mapping[str, Any],
    current: Mapping[str, Any],
    applying: Sequence[ProfileFieldRead],
    every: Sequence[ProfileFieldRead],
) -> list[tuple[ProfileFieldRead, str | None]]:
    """The values to write (text) or delete (None) so the person's values become
    ``wanted`` (``{key: value}`` of the extension), checked as the admin API checks them
    (validators, enumerations; the value of a ``required`` field cannot be removed, but a
    person may be created without it, as through ``POST /admin/users``). Keys compare
    case-insensitively."""
    by_key = {f.key.lower(): f for f in applying}
    known = {f.key.lower() for f in every}
    wanted_by = {k.lower(): (k, v) for k, v in wanted.items()}
    changes: list[tuple[ProfileFieldRead, str | None]] = []
    for lowered, (key, _) in wanted_by.items():
        if lowered not in by_key:
            reason = (
                "applies only to members of its group"
                if lowered in known
                else "is not a profile field"
            )
            raise invalid(f"{SCHEMA_PROFILE_EXTENSION}:{key}", reason)
    for field in applying:
        attribute = f"{SCHEMA_PROFILE_EXTENSION}:{field.key}"
        new = wanted_by.get(field.key.lower(), (field.key, None))[1]
        old = current.get(field.key)
        if new is None:
            if field.required and old is not None:  # as the admin API: kept once set
                raise invalid(attribute, "is required and cannot be removed")
            if old is not None:
                changes.append((field, None))
            continue
        try:
            text = to_text(field, new)
        except ValueError as exc:
            raise invalid(attribute, str(exc)) from None
        if old is None or from_text(field.data_type, text) != old:
            changes.append((field, text))
    return changes


class GroupValues(msgspec.Struct, kw_only=True):
    name: str
    external_id: str | None
    members: list[uuid.UUID]


def group_values(document: Mapping[str, Any]) -> GroupValues:
    name = _text(document, "displayName")
    if name is None:
        raise invalid("displayName", "is required")
    name = _checked(name.strip(), Name, "displayName", "1 to 200 characters, not blank")
    external_id = _text(document, "externalId")
    if external_id is not None and len(external_id) > MAX_EXTERNAL_ID:
        raise invalid("externalId", f"at most {MAX_EXTERNAL_ID} characters")
    raw = member(document, "members") or []
    if not isinstance(raw, list):
        raise invalid("members", "must be a list")
    members: list[uuid.UUID] = []
    for i, entry in enumerate(raw):
        value = member(entry, "value") if isinstance(entry, dict) else None
        kind = member(entry, "type") if isinstance(entry, dict) else None
        if kind is not None and str(kind).lower() != "user":
            raise invalid(f"members[{i}].type", "only users can be members")
        try:
            members.append(uuid.UUID(str(value)))
        except ValueError:
            raise invalid(f"members[{i}].value", "is not the id of a user") from None
    return GroupValues(name=name, external_id=external_id, members=list(dict.fromkeys(members)))
