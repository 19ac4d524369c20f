"""Which attributes a SCIM response carries (RFC 7643 §2.4 ``returned``; RFC 7644 §3.9
``attributes`` and ``excludedAttributes``).

- ``returned: "always"`` (``id``) is in every response, whatever was asked or excluded;
  ``"never"`` (a password) in none; ``"default"`` unless excluded, or unless ``attributes``
  was given without naming it; ``"request"`` only when ``attributes`` names it.
- ``attributes`` replaces the default set by the named attributes (plus the ``always``
  ones); ``excludedAttributes`` removes the named ones from it. Both given: the named set
  less the excluded.
- Names are in standard attribute notation (RFC 7644 §3.10): ``userName``,
  ``name.givenName`` (a sub-attribute: the complex value keeps only it and its ``always``
  sub-attributes), ``emails.value`` (for each value of a multi-valued one), with or without
  a schema URN in front (``urn:…:core:2.0:User:userName``, ``urn:…:idp:2.0:User:department``);
  an extension's URN alone names all its attributes. Names are case-insensitive. A name no
  schema defines selects nothing (RFC 7644 leaves unknown names to the provider; a client
  asking for an attribute we do not have simply does not get it).
- ``schemas`` always stays. ``meta`` is ``returned: "default"`` (RFC 7643 §3.1 does not
  make it ``always``), so ``attributes=userName`` gives ``schemas``, ``id`` and ``userName``.
- A ``request`` sub-attribute is returned only when named itself (``name.formatted``),
  not when its parent is.
- A document key that no schema defines is kept only when ``attributes`` is not given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from admin_service.scim.rfc7643_schema import (
    Attribute,
    ResourceSchema,
    Schema,
    common_attribute,
)
from admin_service.scim.rfc7644_filter import parse_attr_path

__all__ = ["select_attributes"]

#: (extension id lower-cased or None for core, attribute name lower-cased) → the
#: sub-attribute names (lower-cased) named, or None for the whole attribute.
_Named: TypeAlias = dict[tuple[str | None, str], set[str] | None]


def _named(names: Sequence[str] | None, schema: ResourceSchema) -> _Named:
    named: _Named = {}
    for raw in names or ():
        text = raw.strip()
        if not text:
            continue
        whole = schema.schema_of(text)
        if whole is not None:
            extension = None if whole is schema.core else whole.id.lower()
            for attribute in whole.attributes:
                named[(extension, attribute.name.lower())] = None
            continue
        path = parse_attr_path(text)
        found = schema.resolve(path.urn, path.attribute)
        if found is None:
            continue
        key = (
            None if found.extension is None else found.extension.lower(),
            found.attribute.name.lower(),
        )
        if path.sub_attribute is None or found.attribute.type != "complex":
            named[key] = None
        elif key not in named or named[key] is not None:
            subs = named.get(key) or set()
            subs.add(path.sub_attribute.lower())
            named[key] = subs
    return named


class _Selector:
    def __init__(self, attributes: _Named | None, excluded: _Named) -> None:
        self.attributes = attributes
        self.excluded = excluded

    def keeps(self, key: tuple[str | None, str], attribute: Attribute) -> bool:
        if attribute.returned == "always":
            return True
        if attribute.returned == "never":
            return False
        if self.excluded.get(key, set()) is None:
            return False
        if self.attributes is not None:
            return key in self.attributes
        return attribute.returned == "default"

    def value(self, key: tuple[str | None, str], attribute: Attribute, value: Any) -> Any:
        if attribute.type != "complex" or attribute.returned == "always":
            return self.strip_never(attribute, value)
        asked = None if self.attributes is None else self.attributes.get(key)
        dropped = self.excluded.get(key) or set()
        if isinstance(value, list):
            return [self.sub_values(attribute, v, asked, dropped) for v in value]
        return self.sub_values(attribute, value, asked, dropped)

    @staticmethod
    def strip_never(attribute: Attribute, value: Any) -> Any:
        if attribute.type != "complex":
            return value
        if isinstance(value, list):
            return [_Selector.strip_never(attribute, v) for v in value]
        if not isinstance(value, dict):
            return value
        return {
            k: v
            for k, v in value.items()
            if (sub := attribute.sub(k)) is None or sub.returned != "never"
        }

    @staticmethod
    def sub_values(
        attribute: Attribute, value: Any, asked: set[str] | None, dropped: set[str]
    ) -> Any:
        if not isinstance(value, dict):
            return value
        result: dict[str, Any] = {}
        for k, v in value.items():
            sub = attribute.sub(k)
            if sub is None:
                if asked is None:
                    result[k] = v
                continue
            name = sub.name.lower()
            if sub.returned == "always":
                keep = True
            elif sub.returned == "never" or name in dropped:
                keep = False
            elif asked is not None:
                keep = name in asked
            else:
                keep = sub.returned == "default"
            if keep:
                result[k] = v
        return result


def _select_in(
    holder: dict[str, Any],
    schema: Schema,
    extension: str | None,
    selector: _Selector,
    core: bool,
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in holder.items():
        attribute = schema.attribute(name) or (common_attribute(name) if core else None)
        if attribute is None:
            if selector.attributes is None:
                result[name] = value
            continue
        key = (extension, attribute.name.lower())
        if selector.keeps(key, attribute):
            result[name] = selector.value(key, attribute, value)
    return result


def select_attributes(
    document: dict[str, Any],
    schema: ResourceSchema,
    *,
    attributes: Sequence[str] | None,
    excluded: Sequence[str] | None,
) -> dict[str, Any]:
    """``document`` with only the attributes the response carries (RFC 7644 §3.9), as a
    new dict. A malformed name is ScimError 400 ``invalidPath``."""
    asked = _named(attributes, schema) if attributes else None
    selector = _Selector(asked, _named(excluded, schema))
    result: dict[str, Any] = {}
    for name, value in document.items():
        if name == "schemas":
            result[name] = value
            continue
        extension = schema.schema_of(name)
        if extension is not None and extension is not schema.core and isinstance(value, dict):
            selected = _select_in(value, extension, extension.id.lower(), selector, core=False)
            if selected:
                result[name] = selected
            continue
        result.update(_select_in({name: value}, schema.core, None, selector, core=True))
    return result
