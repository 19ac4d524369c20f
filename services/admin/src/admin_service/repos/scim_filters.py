"""SCIM filters (RFC 7644 §3.4.2.2) and ``sortBy`` (§3.4.2.3) as SQL over ``users`` and
``groups``: the one place where a parsed filter (:mod:`admin_service.scim.rfc7644_filter`)
becomes a WHERE clause, so that filtering and paging run in PostgreSQL.

Attribute mapping (the contract of docs/scim.md):

- User: ``id`` (a value that is not a UUID matches nothing), ``externalId`` (caseExact),
  ``userName`` = ``username``, or ``email`` for a person without one (case-insensitive;
  written so the ``lower(...)`` indexes serve ``eq`` and ``sw``), ``displayName``,
  ``active`` = NOT ``disabled``, ``emails``/``emails.value``/``emails[type eq "work"]`` =
  ``email`` (the one address, shown as type ``work``, primary), ``groups``/``groups.value``
  (the group ids) and ``groups.display`` (their names) through ``group_members``,
  ``meta.created``/``meta.lastModified`` = ``created_at``/``updated_at`` (``meta.location``
  and ``meta.version`` cannot be filtered: ``invalidFilter``), and each profile
  field of the extension (``urn:…:idp:2.0:User:key``, or the bare key when no core
  attribute has that name) through ``profile_values``: ``integer`` fields compare as
  numbers (only a value that is an integer's text is cast, so a stray value cannot fail the
  query), ``boolean`` fields as ``true``/``false``, the others as text compared exactly:
  the published extension marks them ``caseExact`` (their ``unique`` rule compares exact
  text too), and RFC 7644 §3.4.2.2 makes ``caseExact`` decide. A ``date`` field's
  ``YYYY-MM-DD`` text orders as the date.
- Group: ``id``, ``displayName`` (``name``, case-insensitive), ``externalId``,
  ``members``/``members.value`` (user ids), ``members.display`` (their display names),
  ``members[...]``, ``meta.*``.

Semantics follow the in-memory :func:`~admin_service.scim.rfc7644_filter.matches`: an
absent value (NULL, or empty text) never matches ``eq``, ``co``, ``gt``…; ``ne`` and
``not (…)`` are the negation of their operand with NULL read as false (so a person without
``externalId`` matches ``externalId ne "x"`` and ``not (externalId eq "x")``); ``pr`` is
"not NULL and not empty"; ``x eq null`` is "x is absent". ``co``/``sw``/``ew`` escape the
LIKE wildcards ``%``, ``_`` and ``\\`` of the value. A date that is not ISO 8601, a value of
the wrong type, an operator the type refuses or an unknown attribute is ScimError 400
``invalidFilter`` naming it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol

from sqlalchemy import (
    Boolean,
    Numeric,
    Text,
    and_,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    not_,
    or_,
    select,
)
from sqlalchemy.sql.elements import ColumnElement

from admin_service.scim.rfc7643_schema import SCHEMA_GROUP, SCHEMA_PROFILE_EXTENSION, SCHEMA_USER
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_filter import (
    And,
    AttrPath,
    Compare,
    CompValue,
    Filter,
    Not,
    Or,
    Present,
    ValuePath,
    format_path,
    parse_datetime,
)
from idp_common.storage.db.models import Group, GroupMember, ProfileValue, User
from idp_common.storage.repos.paging import storable_moment

__all__ = ["FieldDefinition", "group_filter", "group_sort_key", "user_filter", "user_sort_key"]


class FieldDefinition(Protocol):
    """What a filter needs of a profile field (``ProfileFieldRead`` and ``FieldRow`` fit)."""

    @property
    def id(self) -> uuid.UUID: ...

    @property
    def key(self) -> str: ...

    @property
    def data_type(self) -> str: ...


Kind = Literal["text", "exact", "uuid", "boolean", "flag", "datetime", "integer"]
_INTEGER_TEXT: Final = r"^\s*-?[0-9]{1,30}\s*$"
_ORDERING: Final = frozenset({"gt", "ge", "lt", "le"})
_SUBSTRING: Final = frozenset({"co", "sw", "ew"})


def _invalid(detail: str) -> ScimError:
    return ScimError(400, detail, "invalidFilter")


def _like(value: str, op: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return {"co": f"%{escaped}%", "sw": f"{escaped}%", "ew": f"%{escaped}"}[op]


def _ordered(left: Any, op: str, right: Any) -> ColumnElement[bool]:
    result: ColumnElement[bool]
    if op == "eq":
        result = left == right
    elif op == "gt":
        result = left > right
    elif op == "ge":
        result = left >= right
    elif op == "lt":
        result = left < right
    else:
        result = left <= right
    return result


def _definite(clause: ColumnElement[bool]) -> ColumnElement[bool]:
    """``clause`` with NULL read as false, so that NOT of it is the complement."""
    return func.coalesce(clause, false())


class _Column:
    """One value per row: a column (or expression) of a kind."""

    def __init__(self, name: str, column: ColumnElement[Any], kind: Kind) -> None:
        self.name = name
        self.column = column
        self.kind = kind

    def present(self) -> ColumnElement[bool]:
        if self.kind in ("text", "exact", "flag"):
            return and_(self.column.is_not(None), self.column != "")
        return self.column.is_not(None)

    def check(self, op: str, value: CompValue) -> None:
        kind = self.kind
        shown = {"text": "string", "exact": "string", "uuid": "string", "flag": "boolean"}
        if kind in ("boolean", "flag") and op != "eq":
            raise _invalid(f"'{op}' cannot compare '{self.name}' (boolean)")
        if op in _SUBSTRING and kind not in ("text", "exact", "uuid"):
            raise _invalid(f"'{op}' cannot compare '{self.name}' ({kind})")
        if kind in ("boolean", "flag"):
            ok = isinstance(value, bool)
        elif kind == "integer":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise _invalid(f"'{self.name}' is {shown.get(kind, kind)}: {value!r} is not one")

    def compare(self, op: str, value: CompValue) -> ColumnElement[bool]:
        """``op`` is eq, co, sw, ew, gt, ge, lt or le here; ``value`` is not None."""
        self.check(op, value)
        return _BY_KIND[self.kind](self, op, value)

    def _text(self, op: str, value: CompValue) -> ColumnElement[bool]:
        if op in _SUBSTRING:
            pattern = func.lower(literal(_like(str(value), op), Text))
            return func.lower(self.column).like(pattern, escape="\\")
        return _ordered(func.lower(self.column), op, func.lower(literal(str(value), Text)))

    def _exact(self, op: str, value: CompValue) -> ColumnElement[bool]:
        if op in _SUBSTRING:
            return self.column.like(_like(str(value), op), escape="\\")
        return _ordered(self.column, op, str(value))

    def _boolean(self, _: str, value: CompValue) -> ColumnElement[bool]:
        return self.column == literal(bool(value), Boolean)

    def _flag(self, _: str, value: CompValue) -> ColumnElement[bool]:
        return func.lower(self.column) == ("true" if value else "false")

    def _datetime(self, op: str, value: CompValue) -> ColumnElement[bool]:
        moment = parse_datetime(str(value))
        if moment is None:
            raise _invalid(f"'{self.name}': {value!r} is not an ISO 8601 dateTime")
        if not storable_moment(moment):  # the driver sends it in UTC
            raise _invalid(f"'{self.name}': {value!r} is past the years 1 to 9999 in UTC")
        return _ordered(self.column, op, moment)

    def _integer(self, op: str, value: CompValue) -> ColumnElement[bool]:
        return _ordered(self.column, op, cast(literal(str(value), Text), Numeric))

    def _uuid(self, op: str, raw: CompValue) -> ColumnElement[bool]:
        value = str(raw)
        if op == "eq":
            try:
                return self.column == uuid.UUID(value)
            except ValueError:
                return false()  # not a UUID: no resource has that id
        text = cast(self.column, Text)
        if op in _SUBSTRING:
            return text.like(_like(value.lower(), op), escape="\\")
        return _ordered(text, op, value.lower())


_BY_KIND: Final[dict[str, Callable[[_Column, str, CompValue], ColumnElement[bool]]]] = {
    "text": _Column._text,
    "exact": _Column._exact,
    "uuid": _Column._uuid,
    "boolean": _Column._boolean,
    "flag": _Column._flag,
    "datetime": _Column._datetime,
    "integer": _Column._integer,
}


class _UserName:
    """``username``, or ``email`` for a person without one (case-insensitive): two
    predicates joined, so each can use its ``lower(...)`` index."""

    name = "userName"

    def __init__(self) -> None:
        self.username = _Column("userName", User.username.expression, "text")
        self.email = _Column("userName", User.email.expression, "text")

    def present(self) -> ColumnElement[bool]:
        return or_(self.username.present(), and_(User.username.is_(None), self.email.present()))

    def compare(self, op: str, value: CompValue) -> ColumnElement[bool]:
        return or_(
            self.username.compare(op, value),
            and_(User.username.is_(None), self.email.compare(op, value)),
        )


class _Exists:
    """Many values per row (memberships, a profile value row): EXISTS over a correlated
    subquery (``frame``) with the predicate on one of its columns."""

    def __init__(
        self, inner: _Column, frame: Callable[[ColumnElement[bool]], ColumnElement[bool]]
    ) -> None:
        self.name = inner.name
        self.inner = inner
        self.frame = frame

    def present(self) -> ColumnElement[bool]:
        return self.frame(self.inner.present())

    def compare(self, op: str, value: CompValue) -> ColumnElement[bool]:
        return self.frame(self.inner.compare(op, value))


class _Unfilterable:
    """An attribute the documents show but the tables cannot compare (a URL built from the
    request, the ETag)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def present(self) -> ColumnElement[bool]:
        raise _invalid(f"'{self.name}' cannot be used in a filter")

    def compare(self, op: str, value: CompValue) -> ColumnElement[bool]:
        raise _invalid(f"'{self.name}' cannot be used in a filter")


_Operand = _Column | _UserName | _Exists | _Unfilterable
_Scope = Callable[[AttrPath], _Operand]


def _leaf(operand: _Operand, f: Compare) -> ColumnElement[bool]:
    if f.value is None:
        if f.op not in ("eq", "ne"):
            raise _invalid(f"'{f.op}' cannot compare with null")
        present = operand.present()
        return present if f.op == "ne" else not_(_definite(present))
    if f.op == "ne":
        return not_(_definite(operand.compare("eq", f.value)))
    return operand.compare(f.op, f.value)


class _Translator:
    def __init__(
        self,
        scope: _Scope,
        value_paths: Mapping[str, Callable[[Filter], ColumnElement[bool]]],
    ) -> None:
        self.scope = scope
        self.value_paths = value_paths

    def clause(self, f: Filter) -> ColumnElement[bool]:
        if isinstance(f, And | Or):
            # Chains of one operator become one flat AND/OR (no deep expression tree).
            parts = list(_chain(f, type(f)))
            clauses = [self.clause(p) for p in parts]
            return and_(*clauses) if isinstance(f, And) else or_(*clauses)
        if isinstance(f, Not):
            return not_(_definite(self.clause(f.inner)))
        if isinstance(f, Present):
            return self.scope(f.path).present()
        if isinstance(f, ValuePath):
            if f.path.sub_attribute is None:
                build = self.value_paths.get(_plain_name(f.path))
                if build is not None:
                    return build(f.filter)
            raise _invalid(f"'{format_path(f.path)}' has no values to filter with '[ ]'")
        return _leaf(self.scope(f.path), f)


def _chain(f: Filter, kind: type[And] | type[Or]) -> list[Filter]:
    parts: list[Filter] = []
    stack: list[Filter] = [f]
    while stack:
        item = stack.pop()
        if isinstance(item, kind):
            stack.extend((item.right, item.left))
        else:
            parts.append(item)
    return parts


def _plain_name(path: AttrPath) -> str:
    """``path``'s attribute lower-cased, when its URN (if any) is a core one; else ``""``."""
    if path.urn is not None and path.urn.lower() not in (SCHEMA_USER.lower(), SCHEMA_GROUP.lower()):
        return ""
    return path.attribute.lower()


def _unknown(path: AttrPath) -> ScimError:
    return _invalid(f"unknown attribute '{format_path(path)}'")


def _element_scope(columns: Mapping[str, _Column], parent: str) -> _Scope:
    def scope(path: AttrPath) -> _Operand:
        found = columns.get(path.attribute.lower())
        if found is None or path.urn is not None or path.sub_attribute is not None:
            raise _invalid(f"unknown attribute '{parent}.{format_path(path)}'")
        return found

    return scope


# --- users ------------------------------------------------------------------------------


def _memberships(clause: ColumnElement[bool]) -> ColumnElement[bool]:
    return exists(
        select(1)
        .select_from(GroupMember)
        .join(Group, Group.id == GroupMember.group_id)
        .where(GroupMember.user_id == User.id, clause)
    )


_GROUP_OF_USER: Final = {
    "value": _Column("groups.value", GroupMember.group_id.expression, "uuid"),
    "display": _Column("groups.display", Group.name.expression, "text"),
    "type": _Column("groups.type", literal("direct", Text), "exact"),
}
_EMAIL: Final = {
    "value": _Column("emails.value", User.email.expression, "text"),
    "type": _Column("emails.type", literal("work", Text), "text"),
    "primary": _Column("emails.primary", literal(True, Boolean), "boolean"),
    "display": _Column("emails.display", literal(None, Text), "text"),
}


_UNFILTERABLE: Final[dict[tuple[str, str | None], _Operand]] = {
    ("meta", "location"): _Unfilterable("meta.location"),
    ("meta", "version"): _Unfilterable("meta.version"),
}


def _user_core() -> dict[tuple[str, str | None], _Operand]:
    return {
        ("id", None): _Column("id", User.id.expression, "uuid"),
        ("externalid", None): _Column("externalId", User.external_id.expression, "exact"),
        ("username", None): _UserName(),
        ("displayname", None): _Column("displayName", User.display_name.expression, "text"),
        ("active", None): _Column("active", not_(User.disabled), "boolean"),
        ("emails", None): _EMAIL["value"],
        **{("emails", k): v for k, v in _EMAIL.items()},
        ("groups", None): _Exists(_GROUP_OF_USER["value"], _memberships),
        **{("groups", k): _Exists(v, _memberships) for k, v in _GROUP_OF_USER.items()},
        ("meta", "created"): _Column("meta.created", User.created_at.expression, "datetime"),
        ("meta", "lastmodified"): _Column(
            "meta.lastModified", User.updated_at.expression, "datetime"
        ),
        ("meta", "resourcetype"): _Column("meta.resourceType", literal("User", Text), "exact"),
        **_UNFILTERABLE,
        ("groups", "$ref"): _Unfilterable("groups.$ref"),
    }


def _field_kind(field: FieldDefinition) -> Kind:
    if field.data_type == "integer":
        return "integer"
    if field.data_type == "boolean":
        return "flag"
    return "exact"


def _field_column(field: FieldDefinition) -> _Column:
    kind = _field_kind(field)
    value: ColumnElement[Any] = ProfileValue.value.expression
    if kind == "integer":
        # Cast only a value that is an integer's text: a WHERE on the other rows could be
        # evaluated first, and one bad cast would fail the whole query.
        value = case(
            (ProfileValue.value.op("~")(_INTEGER_TEXT), cast(ProfileValue.value, Numeric)),
            else_=None,
        )
    return _Column(field.key, value, kind)


def _find_field(name: str, fields: Sequence[FieldDefinition]) -> FieldDefinition | None:
    """The field whose key is ``name`` (case-insensitive; the exact spelling wins a tie)."""
    same = [f for f in fields if f.key.lower() == name.lower()]
    if len(same) > 1:
        same = [f for f in same if f.key == name]
    return same[0] if len(same) == 1 else None


def _field_operand(field: FieldDefinition) -> _Exists:
    def frame(clause: ColumnElement[bool]) -> ColumnElement[bool]:
        return exists(
            select(1).where(
                ProfileValue.user_id == User.id, ProfileValue.field_id == field.id, clause
            )
        )

    return _Exists(_field_column(field), frame)


def _user_scope(fields: Sequence[FieldDefinition]) -> _Scope:
    core = _user_core()

    def scope(path: AttrPath) -> _Operand:
        urn = None if path.urn is None else path.urn.lower()
        sub = None if path.sub_attribute is None else path.sub_attribute.lower()
        if urn in (None, SCHEMA_USER.lower()):
            found = core.get((path.attribute.lower(), sub))
            if found is not None:
                return found
        if urn in (None, SCHEMA_PROFILE_EXTENSION.lower()) and sub is None:
            field = _find_field(path.attribute, fields)
            if field is not None:
                return _field_operand(field)
        raise _unknown(path)

    return scope


def user_filter(f: Filter, fields: Sequence[FieldDefinition]) -> ColumnElement[bool]:
    """``f`` as a WHERE clause over :class:`User` (with EXISTS over memberships and
    profile values); ``fields`` are the profile fields of the extension."""

    def emails(inner: Filter) -> ColumnElement[bool]:
        clause = _Translator(_element_scope(_EMAIL, "emails"), {}).clause(inner)
        return and_(_EMAIL["value"].present(), clause)

    def groups(inner: Filter) -> ColumnElement[bool]:
        return _memberships(_Translator(_element_scope(_GROUP_OF_USER, "groups"), {}).clause(inner))

    return _Translator(_user_scope(fields), {"emails": emails, "groups": groups}).clause(f)


def user_sort_key(path: AttrPath, fields: Sequence[FieldDefinition]) -> ColumnElement[Any]:
    """The ORDER BY expression of ``sortBy`` (RFC 7644 §3.4.2.3) over :class:`User`;
    strings sort case-insensitively; ScimError ``invalidFilter`` for an attribute that is
    unknown or has many values."""
    operand = _user_scope(fields)(path)
    if isinstance(operand, _UserName):
        return func.lower(func.coalesce(User.username, User.email))
    if isinstance(operand, _Exists):
        if not operand.name.startswith("groups"):
            field = _find_field(path.attribute, fields)
            if field is not None:
                column = _field_column(field).column
                column = func.lower(column) if _field_kind(field) == "exact" else column
                return (
                    select(column)
                    .where(ProfileValue.user_id == User.id, ProfileValue.field_id == field.id)
                    .scalar_subquery()
                )
        raise _invalid(f"cannot sort by '{format_path(path)}': it has many values")
    if isinstance(operand, _Unfilterable):
        raise _invalid(f"cannot sort by '{operand.name}'")
    return func.lower(operand.column) if operand.kind == "text" else operand.column


# --- groups -----------------------------------------------------------------------------


def _members(clause: ColumnElement[bool]) -> ColumnElement[bool]:
    return exists(
        select(1)
        .select_from(GroupMember)
        .join(User, User.id == GroupMember.user_id)
        .where(GroupMember.group_id == Group.id, clause)
    )


_MEMBER: Final = {
    "value": _Column("members.value", GroupMember.user_id.expression, "uuid"),
    "display": _Column("members.display", User.display_name.expression, "text"),
    "type": _Column("members.type", literal("User", Text), "exact"),
}


def _group_core() -> dict[tuple[str, str | None], _Operand]:
    return {
        ("id", None): _Column("id", Group.id.expression, "uuid"),
        ("externalid", None): _Column("externalId", Group.external_id.expression, "exact"),
        ("displayname", None): _Column("displayName", Group.name.expression, "text"),
        ("members", None): _Exists(_MEMBER["value"], _members),
        **{("members", k): _Exists(v, _members) for k, v in _MEMBER.items()},
        ("meta", "created"): _Column("meta.created", Group.created_at.expression, "datetime"),
        ("meta", "lastmodified"): _Column(
            "meta.lastModified", Group.updated_at.expression, "datetime"
        ),
        ("meta", "resourcetype"): _Column("meta.resourceType", literal("Group", Text), "exact"),
        **_UNFILTERABLE,
        ("members", "$ref"): _Unfilterable("members.$ref"),
    }


def _group_scope() -> _Scope:
    core = _group_core()

    def scope(path: AttrPath) -> _Operand:
        urn = None if path.urn is None else path.urn.lower()
        sub = None if path.sub_attribute is None else path.sub_attribute.lower()
        found = (
            core.get((path.attribute.lower(), sub)) if urn in (None, SCHEMA_GROUP.lower()) else None
        )
        if found is None:
            raise _unknown(path)
        return found

    return scope


def group_filter(f: Filter) -> ColumnElement[bool]:
    """``f`` as a WHERE clause over :class:`Group` (with EXISTS over its members)."""

    def members(inner: Filter) -> ColumnElement[bool]:
        return _members(_Translator(_element_scope(_MEMBER, "members"), {}).clause(inner))

    return _Translator(_group_scope(), {"members": members}).clause(f)


def group_sort_key(path: AttrPath) -> ColumnElement[Any]:
    """The ORDER BY expression of ``sortBy`` over :class:`Group`."""
    operand = _group_scope()(path)
    if isinstance(operand, _Unfilterable):
        raise _invalid(f"cannot sort by '{operand.name}'")
    if not isinstance(operand, _Column):
        raise _invalid(f"cannot sort by '{format_path(path)}': it has many values")
    return func.lower(operand.column) if operand.kind == "text" else operand.column
