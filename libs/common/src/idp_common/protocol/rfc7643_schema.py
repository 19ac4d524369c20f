"""SCIM schema definitions (RFC 7643 §2, §7): the shape of a resource, as the ``/Schemas``
endpoint publishes it and as filtering, PATCH and attribute selection read it.

Pure data: the service builds the core ``User`` and ``Group`` schemas once, and the
``User`` extension of the administrator's profile fields on each request from their
definitions (docs/scim.md).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

SCHEMA_USER: Final = "urn:ietf:params:scim:schemas:core:2.0:User"
SCHEMA_GROUP: Final = "urn:ietf:params:scim:schemas:core:2.0:Group"
#: The profile fields' extension (issue #27: ``urn:…:schemas:extension:idp:2.0:User``).
SCHEMA_PROFILE_EXTENSION: Final = "urn:ietf:params:scim:schemas:extension:idp:2.0:User"
MESSAGE_LIST_RESPONSE: Final = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
MESSAGE_PATCH_OP: Final = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
MESSAGE_ERROR: Final = "urn:ietf:params:scim:api:messages:2.0:Error"
MESSAGE_BULK_REQUEST: Final = "urn:ietf:params:scim:api:messages:2.0:BulkRequest"
MESSAGE_BULK_RESPONSE: Final = "urn:ietf:params:scim:api:messages:2.0:BulkResponse"
MESSAGE_SEARCH_REQUEST: Final = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"

AttributeType = Literal[
    "string", "boolean", "decimal", "integer", "dateTime", "binary", "reference", "complex"
]
Mutability = Literal["readOnly", "readWrite", "immutable", "writeOnly"]
Returned = Literal["always", "never", "default", "request"]
Uniqueness = Literal["none", "server", "global"]


class Attribute(msgspec.Struct, frozen=True, kw_only=True):
    """One attribute definition (RFC 7643 §7). Names compare case-insensitively."""

    name: str
    type: AttributeType = "string"
    multi_valued: bool = False
    required: bool = False
    case_exact: bool = False
    mutability: Mutability = "readWrite"
    returned: Returned = "default"
    uniqueness: Uniqueness = "none"
    description: str = ""
    canonical_values: tuple[str, ...] = ()
    reference_types: tuple[str, ...] = ()
    sub_attributes: tuple[Attribute, ...] = ()

    def sub(self, name: str) -> Attribute | None:
        """The sub-attribute called ``name`` (any case), or None."""
        lowered = name.lower()
        return next((a for a in self.sub_attributes if a.name.lower() == lowered), None)

    def to_scim(self) -> dict[str, Any]:
        """The attribute as ``/Schemas`` shows it (RFC 7643 §7)."""
        doc: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "multiValued": self.multi_valued,
            "description": self.description,
            "required": self.required,
            "caseExact": self.case_exact,
            "mutability": self.mutability,
            "returned": self.returned,
            "uniqueness": self.uniqueness,
        }
        if self.canonical_values:
            doc["canonicalValues"] = list(self.canonical_values)
        if self.reference_types:
            doc["referenceTypes"] = list(self.reference_types)
        if self.sub_attributes:
            doc["subAttributes"] = [a.to_scim() for a in self.sub_attributes]
        return doc


class Schema(msgspec.Struct, frozen=True, kw_only=True):
    """A schema: its URN id and its attributes (RFC 7643 §7)."""

    id: str
    name: str
    description: str = ""
    attributes: tuple[Attribute, ...] = ()

    def attribute(self, name: str) -> Attribute | None:
        """The top-level attribute called ``name`` (any case), or None."""
        lowered = name.lower()
        return next((a for a in self.attributes if a.name.lower() == lowered), None)


class ResourceSchema(msgspec.Struct, frozen=True, kw_only=True):
    """A resource type's core schema and its extensions, as one request sees them.

    An attribute path names an extension attribute by the extension's URN followed by
    ``:`` (``urn:…:idp:2.0:User:department``); a core attribute by its name alone or
    with the core URN in front (RFC 7644 §3.10)."""

    core: Schema
    extensions: tuple[Schema, ...] = ()

    def schema_of(self, urn: str) -> Schema | None:
        lowered = urn.lower()
        return next((s for s in (self.core, *self.extensions) if s.id.lower() == lowered), None)
