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
#: The profile fields' extension (``urn:…:schemas:extension:idp:2.0:User``).
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

    def resolve(self, urn: str | None, name: str) -> Resolved | None:
        """The attribute ``[urn:]name`` names, or None when no schema defines it.

        Without a URN: the core schema's attribute, else a common attribute (RFC 7643
        §3.1), else an extension attribute of that name when exactly one extension has
        one (clients such as Entra qualify extension attributes; a bare name is accepted
        only when it cannot mean two things)."""
        if urn is not None:
            schema = self.schema_of(urn)
            if schema is None:
                return None
            found = schema.attribute(name)
            if schema is self.core:
                found = found or common_attribute(name)
                return None if found is None else Resolved(extension=None, attribute=found)
            return None if found is None else Resolved(extension=schema.id, attribute=found)
        found = self.core.attribute(name) or common_attribute(name)
        if found is not None:
            return Resolved(extension=None, attribute=found)
        hits = [(s.id, a) for s in self.extensions if (a := s.attribute(name)) is not None]
        if len(hits) != 1:
            return None
        return Resolved(extension=hits[0][0], attribute=hits[0][1])


class Resolved(msgspec.Struct, frozen=True, kw_only=True):
    """Where an attribute path points: ``extension`` is the id of the extension schema
    whose object holds the attribute in a document, None for a core or common one."""

    extension: str | None
    attribute: Attribute


#: The common attributes of every resource (RFC 7643 §3.1), used when the core schema
#: does not list them itself.
COMMON_ATTRIBUTES: Final = (
    Attribute(
        name="id", case_exact=True, mutability="readOnly", returned="always", uniqueness="server"
    ),
    Attribute(name="externalId", case_exact=True),
    Attribute(
        name="meta",
        type="complex",
        mutability="readOnly",
        sub_attributes=(
            Attribute(name="resourceType", case_exact=True, mutability="readOnly"),
            Attribute(name="created", type="dateTime", mutability="readOnly"),
            Attribute(name="lastModified", type="dateTime", mutability="readOnly"),
            Attribute(name="location", type="reference", case_exact=True, mutability="readOnly"),
            Attribute(name="version", case_exact=True, mutability="readOnly"),
        ),
    ),
)


def common_attribute(name: str) -> Attribute | None:
    """The common attribute (RFC 7643 §3.1) called ``name`` (any case), or None."""
    lowered = name.lower()
    return next((a for a in COMMON_ATTRIBUTES if a.name.lower() == lowered), None)
