"""SCIM PATCH (RFC 7644 §3.5.2): the request body read once into operations, and the
operations applied to a SCIM document, returning a new document (the input is never
changed). The service then writes the difference, under the same rules as a PUT.

Per operation (§3.5.2.1-3):

- ``add``: a multi-valued attribute gets the new values appended (a value already there,
  compared by ``value`` and ``type``, is not added twice); a complex attribute gets the given
  sub-attributes merged in; anything else is set. A value filter that matches nothing in an
  ``add`` creates the element the filter describes when it is a conjunction of ``eq``
  comparisons (``emails[type eq "work"].value`` on a person without one: Entra sends this),
  else ``noTarget``.
- ``replace``: a multi-valued attribute without a filter is replaced whole; a complex one
  is merged (§3.5.2.3: "Sub-attributes that are not specified ... are left unchanged"); a
  value filter that matches nothing is ``noTarget``. ``null`` clears the attribute.
- ``remove``: needs a path (else ``noTarget``); a value filter that matches nothing is
  ``noTarget``; an absent attribute is already removed, so its removal is a no-op (RFC 7643
  §2.5: unassigned and null are the same state). With a ``value`` list on a multi-valued
  attribute (Entra's ``{"op": "Remove", "path": "members", "value": [{"value": id}]}``)
  the listed values are removed.
- Without a path (``add``/``replace``), ``value`` is an object whose keys are attribute
  paths: plain names, dotted (``name.givenName``), URN-qualified
  (``urn:…:idp:2.0:User:department``) or an extension's URN holding an object of its
  attributes. ``schemas`` in it is ignored (the server keeps the resource's list).

Mutability (RFC 7643 §2.2, RFC 7644 §3.5.2): changing a ``readOnly`` attribute, or an
``immutable`` one that already has a (different) value, is ``mutability``; writing a
readOnly attribute's current value is accepted as a no-op, and readOnly sub-attributes
inside a new complex value (``members[].display``) are dropped, since the server computes
them. Removing (or clearing) a ``required`` attribute is ``mutability`` too (RFC 7644
§3.5.2.2: "If an attribute is removed or becomes unassigned and is defined as a required
attribute or a read-only attribute, the server SHALL return ... a "scimType" error code of
"mutability""). Values are checked against the attribute's type
(``invalidValue`` naming it); strings ``"True"``/``"False"`` (any case) become booleans and
decimal digit strings integers where the attribute has that type (Entra sends both as
strings). ``primary: true`` stays on at most one value of a multi-valued attribute: an
added primary value takes it from the others (RFC 7643 §2.4).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from typing import Any, Final, Literal

import msgspec

from admin_service.scim.rfc7643_schema import (
    MESSAGE_PATCH_OP,
    Attribute,
    Resolved,
    ResourceSchema,
)
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_filter import (
    And,
    Compare,
    Filter,
    PatchPath,
    matches_element,
    parse_datetime,
    parse_patch_path,
    value_of,
)

__all__ = ["PatchOperation", "apply_patch", "parse_patch_request"]

PatchOp = Literal["add", "replace", "remove"]
_OPS: Final[frozenset[str]] = frozenset({"add", "replace", "remove"})
_INTEGER: Final = re.compile(r"-?[0-9]{1,18}")
_DECIMAL: Final = re.compile(r"-?[0-9]{1,30}(?:\.[0-9]{1,30})?(?:[eE][+-]?[0-9]{1,3})?")


class PatchOperation(msgspec.Struct, frozen=True):
    """One PATCH operation; ``op`` lower-cased, ``path`` None when absent."""

    op: PatchOp
    path: str | None
    value: Any = None


def _has(container: dict[str, Any], name: str) -> bool:
    lowered = name.lower()
    return any(k.lower() == lowered for k in container)


def _syntax(detail: str) -> ScimError:
    return ScimError(400, detail, "invalidSyntax")


def _invalid(detail: str) -> ScimError:
    return ScimError(400, detail, "invalidValue")


def parse_patch_request(body: object) -> list[PatchOperation]:
    """The operations of a PatchOp request (RFC 7644 §3.5.2); ScimError 400
    ``invalidSyntax`` for a body of another shape, ``noTarget`` for a remove without path."""
    if not isinstance(body, dict):
        raise _syntax("the body must be a JSON object")
    schemas = value_of(body, "schemas")
    if not isinstance(schemas, list) or MESSAGE_PATCH_OP not in schemas:
        raise _syntax(f"'schemas' must list {MESSAGE_PATCH_OP}")
    operations = value_of(body, "Operations")
    if not isinstance(operations, list) or not operations:
        raise _syntax("'Operations' must be a non-empty array")
    return [_operation(i, item) for i, item in enumerate(operations)]


def _operation(index: int, item: object) -> PatchOperation:
    where = f"Operations[{index}]"
    if not isinstance(item, dict):
        raise _syntax(f"{where} must be an object")
    op = value_of(item, "op")
    if not isinstance(op, str) or op.lower() not in _OPS:
        raise _syntax(f"{where}.op must be add, replace or remove")
    kind: PatchOp = op.lower()  # type: ignore[assignment]  # checked against _OPS
    path = value_of(item, "path")
    if path is not None and not isinstance(path, str):
        raise _syntax(f"{where}.path must be a string")
    path = path.strip() if path is not None and path.strip() else None
    has_value = _has(item, "value")
    if kind != "remove" and not has_value:
        raise _syntax(f"{where}: '{kind}' needs a value")
    if kind == "remove" and path is None:
        raise ScimError(400, f"{where}: 'remove' needs a path", "noTarget")
    return PatchOperation(kind, path, value_of(item, "value"))


# --- applying ---------------------------------------------------------------------------


class _Target(msgspec.Struct, frozen=True, kw_only=True):
    extension: str | None
    attribute: Attribute
    value_filter: Filter | None
    sub: Attribute | None
    name: str  # as the errors show it


def apply_patch(
    document: dict[str, Any],
    operations: Sequence[PatchOperation],
    schema: ResourceSchema,
    *,
    ignore_unknown: bool = False,
) -> dict[str, Any]:
    """``document`` with ``operations`` applied in order (RFC 7644 §3.5.2), as a new dict.

    An attribute no schema defines is ``invalidPath`` (as a path) or ``invalidValue`` (as
    a key of a value), unless ``ignore_unknown``, when it is skipped."""
    patcher = _Patcher(copy.deepcopy(document), schema, ignore_unknown=ignore_unknown)
    for operation in operations:
        patcher.apply(operation)
    return patcher.document


class _Patcher:
    def __init__(self, document: dict[str, Any], schema: ResourceSchema, *, ignore_unknown: bool):
        self.document = document
        self.schema = schema
        self.ignore_unknown = ignore_unknown

    def apply(self, operation: PatchOperation) -> None:
        if operation.path is None:
            if operation.op == "remove":
                raise ScimError(400, "'remove' needs a path", "noTarget")
            self.apply_object(operation.op, operation.value, None)
            return
        extension = self.schema.schema_of(operation.path)
        if extension is not None and extension is not self.schema.core:
            if operation.op == "remove":
                for attribute in extension.attributes:
                    self.apply_path("remove", f"{extension.id}:{attribute.name}", None)
                return
            self.apply_object(operation.op, operation.value, extension.id, top=False)
            return
        self.apply_path(operation.op, operation.path, operation.value)

    def apply_object(
        self, op: PatchOp, value: Any, extension: str | None, *, top: bool = True
    ) -> None:
        if not isinstance(value, dict):
            raise _invalid(f"'{op}' without a path needs an object of attributes")
        for key, item in value.items():
            if extension is None and key.lower() == "schemas":
                continue
            schema = self.schema.schema_of(key) if top else None
            if schema is not None:  # {"urn:…:User": {...}}: that schema's attributes
                within = None if schema is self.schema.core else schema.id
                self.apply_object(op, item, within, top=False)
                continue
            self.apply_path(op, key if extension is None else f"{extension}:{key}", item)

    def apply_path(self, op: PatchOp, path_text: str, value: Any) -> None:
        target = self.target(parse_patch_path(path_text), path_text)
        if target is None:
            return
        if value is None and op != "remove":
            self.clear(target)
        elif op == "remove":
            self.remove(target, value)
        else:
            self.write(op, target, value)

    def target(self, path: PatchPath, text: str) -> _Target | None:
        found: Resolved | None = self.schema.resolve(path.path.urn, path.path.attribute)
        if found is None:
            if self.ignore_unknown:
                return None
            raise ScimError(400, f"unknown attribute '{text}'", "invalidPath")
        attribute = found.attribute
        sub_name = path.path.sub_attribute or path.sub_attribute
        sub = None
        if sub_name is not None:
            sub = attribute.sub(sub_name) if attribute.type == "complex" else None
            if sub is None:
                if self.ignore_unknown:
                    return None
                raise ScimError(
                    400, f"unknown attribute '{attribute.name}.{sub_name}'", "invalidPath"
                )
        if path.value_filter is not None and not (
            attribute.type == "complex" and attribute.multi_valued
        ):
            raise ScimError(
                400, f"'{attribute.name}' is not a multi-valued complex attribute", "invalidPath"
            )
        name = attribute.name if sub is None else f"{attribute.name}.{sub.name}"
        return _Target(
            extension=found.extension,
            attribute=attribute,
            value_filter=path.value_filter,
            sub=sub,
            name=name,
        )

    # -- where values live

    def holder(self, extension: str | None, *, create: bool) -> dict[str, Any] | None:
        if extension is None:
            return self.document
        for key, held in self.document.items():
            if key.lower() == extension.lower() and isinstance(held, dict):
                return held
        if not create:
            return None
        held = {}
        self.document[extension] = held
        schemas = self.document.get("schemas")
        if isinstance(schemas, list) and extension not in schemas:
            schemas.append(extension)
        return held

    def tidy(self, extension: str | None) -> None:
        """An extension object left empty goes, with its URN in ``schemas``."""
        held = self.holder(extension, create=False)
        if extension is None or held is None or any(_present(v) for v in held.values()):
            return
        for key in [k for k in self.document if k.lower() == extension.lower()]:
            del self.document[key]
        schemas = self.document.get("schemas")
        if isinstance(schemas, list):
            schemas[:] = [
                s for s in schemas if not (isinstance(s, str) and s.lower() == extension.lower())
            ]

    def current(self, target: _Target) -> Any:
        return value_of(self.holder(target.extension, create=False), target.attribute.name)

    def put(self, target: _Target, value: Any) -> None:
        held = self.holder(target.extension, create=True)
        assert held is not None  # created above
        _drop(held, target.attribute.name)
        if _present(value):
            held[target.attribute.name] = value
        self.tidy(target.extension)

    def elements(self, target: _Target) -> list[dict[str, Any]]:
        current = self.current(target)
        items = current if isinstance(current, list) else [] if current is None else [current]
        return [i for i in items if isinstance(i, dict)]

    def matched(self, target: _Target, elements: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assert target.value_filter is not None
        return [e for e in elements if matches_element(target.value_filter, e, target.attribute)]

    # -- the three operations

    def write(self, op: PatchOp, target: _Target, value: Any) -> None:
        attribute = target.attribute
        if target.value_filter is not None:
            self.write_filtered(op, target, value)
        elif target.sub is not None:
            self.write_sub(target, value)
        elif attribute.multi_valued:
            current = self.current(target)
            items = _coerce_list(attribute, value, target.name, self.ignore_unknown)
            kept = [] if op == "replace" else copy.deepcopy(_as_list(current))
            new = _merge_values(attribute, kept, items, target.name)
            if _mutable(attribute, current, new, target.name):
                self.put(target, new)
        elif attribute.type == "complex":
            new = _coerce(attribute, value, target.name, self.ignore_unknown)
            current = self.current(target)
            merged = {**(current if isinstance(current, dict) else {}), **new}
            if _mutable(attribute, current, merged, target.name):
                self.put(target, merged)
        else:
            new = _coerce(attribute, value, target.name, self.ignore_unknown)
            if _mutable(attribute, self.current(target), new, target.name):
                self.put(target, new)

    def write_filtered(self, op: PatchOp, target: _Target, value: Any) -> None:
        attribute = target.attribute
        _mutable(attribute, self.current(target), _CHANGE, target.name)
        elements = self.elements(target)
        hits = self.matched(target, elements)
        if not hits:
            seed = _seed(target.value_filter) if op == "add" else None
            if seed is None:
                raise ScimError(
                    400, f"no value of '{attribute.name}' matches the filter", "noTarget"
                )
            element = _coerce(attribute, seed, attribute.name, self.ignore_unknown, single=True)
            elements.append(element)
            hits = [element]
        for element in hits:
            if target.sub is not None:
                new = _coerce(target.sub, value, target.name, self.ignore_unknown)
                if _mutable(target.sub, value_of(element, target.sub.name), new, target.name):
                    _drop(element, target.sub.name)
                    element[target.sub.name] = new
            else:
                new = _coerce(attribute, value, target.name, self.ignore_unknown, single=True)
                for key, item in new.items():
                    sub = attribute.sub(key)
                    where = f"{attribute.name}.{key}"
                    if sub is not None and _mutable(sub, value_of(element, key), item, where):
                        _drop(element, key)
                        element[key] = item
        self.put(target, _one_primary(elements, target.name))

    def write_sub(self, target: _Target, value: Any) -> None:
        attribute, sub = target.attribute, target.sub
        assert sub is not None
        _mutable(attribute, self.current(target), _CHANGE, target.name)
        new = _coerce(sub, value, target.name, self.ignore_unknown)
        if attribute.multi_valued:
            elements = self.elements(target) or [{}]
        else:
            current = self.current(target)
            elements = [dict(current) if isinstance(current, dict) else {}]
        for element in elements:
            if _mutable(sub, value_of(element, sub.name), new, target.name):
                _drop(element, sub.name)
                element[sub.name] = new
        self.put(target, elements if attribute.multi_valued else elements[0])

    def clear(self, target: _Target) -> None:
        """``add``/``replace`` with ``null``: the attribute becomes unassigned (nothing to
        do when nothing matches)."""
        if target.value_filter is None:
            self.remove(target, None)
            return
        elements = self.elements(target)
        hits = self.matched(target, elements)
        if hits:
            self.remove_from(target, elements, hits)

    def remove(self, target: _Target, value: Any) -> None:
        attribute, sub = target.attribute, target.sub
        if target.value_filter is not None:
            elements = self.elements(target)
            hits = self.matched(target, elements)
            if not hits:
                raise ScimError(
                    400, f"no value of '{attribute.name}' matches the filter", "noTarget"
                )
            self.remove_from(target, elements, hits)
            return
        if sub is not None:
            _mutable(attribute, self.current(target), _CHANGE, target.name)
            elements = self.elements(target)
            for element in elements:
                _removable(sub, value_of(element, sub.name), target.name)
                _drop(element, sub.name)
            self.put(
                target, elements if attribute.multi_valued else elements[0] if elements else None
            )
            return
        current = self.current(target)
        if value is not None and attribute.multi_valued:
            given = _coerce_list(attribute, value, target.name, self.ignore_unknown)
            elements = _as_list(current)
            hits = [e for e in elements if any(_same(attribute, e, g) for g in given)]
            self.remove_from(target, elements, hits)
            return
        _removable(attribute, current, target.name)
        self.put(target, None)

    def remove_from(self, target: _Target, elements: list[Any], hits: list[Any]) -> None:
        attribute, sub = target.attribute, target.sub
        _mutable(attribute, self.current(target), _CHANGE, target.name)
        if sub is not None:
            for element in hits:
                _removable(sub, value_of(element, sub.name), target.name)
                _drop(element, sub.name)
            self.put(target, elements)
            return
        left = [e for e in elements if not any(e is h for h in hits)]
        if not left and attribute.required:
            raise ScimError(400, f"'{attribute.name}' is required", "mutability")
        self.put(target, left)


# --- rules ------------------------------------------------------------------------------

_CHANGE: Final = object()
"""A change whose new value is not known yet: only the attribute's mutability decides."""


def _present(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_present(v) for v in value.values())
    return value is not None and value not in ("", [])


def _drop(container: dict[str, Any], name: str) -> None:
    for key in [k for k in container if k.lower() == name.lower()]:
        del container[key]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [] if value is None else [value]


def _mutable(attribute: Attribute, current: Any, new: Any, name: str) -> bool:
    """Whether to write ``new`` over ``current``: False when they are equal (a no-op);
    ScimError ``mutability`` when the attribute's mutability forbids the change."""
    if new is not _CHANGE and new == current:
        return False
    if attribute.mutability == "readOnly":
        raise ScimError(400, f"'{name}' is readOnly", "mutability")
    if attribute.mutability == "immutable" and _present(current):
        raise ScimError(400, f"'{name}' is immutable", "mutability")
    return True


def _removable(attribute: Attribute, current: Any, name: str) -> None:
    if not _present(current):
        return
    if attribute.mutability in ("readOnly", "immutable"):
        raise ScimError(400, f"'{name}' is {attribute.mutability}", "mutability")
    if attribute.required:
        raise ScimError(400, f"'{name}' is required", "mutability")


def _coerce_list(attribute: Attribute, value: Any, name: str, ignore_unknown: bool) -> list[Any]:
    items = value if isinstance(value, list) else [value]
    return [_coerce(attribute, item, name, ignore_unknown, single=True) for item in items]


def _coerce(
    attribute: Attribute, value: Any, name: str, ignore_unknown: bool, *, single: bool = False
) -> Any:
    """``value`` checked against the attribute's type (``invalidValue``), with the string
    forms of booleans and integers converted."""
    if attribute.multi_valued and not single:
        return _coerce_list(attribute, value, name, ignore_unknown)
    kind = attribute.type
    if kind == "complex":
        if not isinstance(value, dict):
            raise _invalid(f"'{name}' must be an object")
        result: dict[str, Any] = {}
        for key, item in value.items():
            sub = attribute.sub(key)
            if sub is None:
                if ignore_unknown:
                    continue
                raise _invalid(f"unknown attribute '{attribute.name}.{key}'")
            if sub.mutability == "readOnly" or item is None:
                continue
            result[sub.name] = _coerce(sub, item, f"{attribute.name}.{sub.name}", ignore_unknown)
        return result
    return _scalar(kind, value, name)


_BAD: Final = object()


def _boolean(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value if isinstance(value, bool) else _BAD


def _integer(value: Any) -> Any:
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return value if isinstance(value, int) and not isinstance(value, bool) else _BAD


def _decimal(value: Any) -> Any:
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        value = float(value.strip())
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value if math.isfinite(value) else _BAD
    return _BAD


def _date_time(value: Any) -> Any:
    return value if isinstance(value, str) and parse_datetime(value) is not None else _BAD


def _text(value: Any) -> Any:
    return value if isinstance(value, str) else _BAD


_CONVERTERS: Final = {
    "boolean": _boolean,
    "integer": _integer,
    "decimal": _decimal,
    "dateTime": _date_time,
}


def _scalar(kind: str, value: Any, name: str) -> Any:
    result = _CONVERTERS.get(kind, _text)(value)
    if result is _BAD:
        raise _invalid(f"'{name}' must be a {kind}")
    return result


def _identity(attribute: Attribute, value: Any) -> Any:
    """What makes two values of a multi-valued attribute the same one: ``value`` and
    ``type`` of a complex value (case-insensitive unless caseExact), else the value."""
    if not isinstance(value, dict):
        return value.lower() if isinstance(value, str) and not attribute.case_exact else value
    sub = attribute.sub("value")
    raw = value_of(value, "value")
    if isinstance(raw, str) and not (sub is not None and sub.case_exact):
        raw = raw.lower()
    kind = value_of(value, "type")
    return (raw, kind.lower() if isinstance(kind, str) else kind)


def _same(attribute: Attribute, a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict) and value_of(b, "type") is None:
        # A removal naming only the value ({"value": id}) matches whatever its type.
        return bool(_identity(attribute, a)[0] == _identity(attribute, b)[0])
    return bool(_identity(attribute, a) == _identity(attribute, b))


def _merge_values(attribute: Attribute, kept: list[Any], added: list[Any], name: str) -> list[Any]:
    _one_primary(added, name)
    result = list(kept)
    for item in added:
        if isinstance(item, dict) and value_of(item, "primary") is True:
            for other in result:
                if isinstance(other, dict) and value_of(other, "primary") is True:
                    _drop(other, "primary")
                    other["primary"] = False
        same = next(
            (e for e in result if _identity(attribute, e) == _identity(attribute, item)), None
        )
        if same is None:
            result.append(item)
        elif isinstance(same, dict) and isinstance(item, dict):
            same.update(item)  # the value is there: its other sub-attributes follow the add
    return _one_primary(result, name)


def _one_primary(elements: list[Any], name: str) -> list[Any]:
    primaries = [e for e in elements if isinstance(e, dict) and value_of(e, "primary") is True]
    if len(primaries) > 1:
        raise _invalid(f"'{name}': at most one value may be primary")
    return elements


def _seed(f: Filter | None) -> dict[str, Any] | None:
    """The element a filter of ``eq`` comparisons joined by ``and`` describes, or None."""
    if isinstance(f, Compare) and f.op == "eq" and f.value is not None:
        return {f.path.attribute: f.value}
    if isinstance(f, And):
        left, right = _seed(f.left), _seed(f.right)
        return None if left is None or right is None else {**left, **right}
    return None
