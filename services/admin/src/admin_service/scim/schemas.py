"""What ``/Schemas``, ``/ResourceTypes`` and ``/ServiceProviderConfig`` publish (RFC 7643
§5-§7), and the schemas filtering, PATCH and attribute selection read.

The core ``User`` and ``Group`` schemas list only what is stored (docs/scim.md "Attribute
mapping"); the ``User`` extension ``urn:ietf:params:scim:schemas:extension:idp:2.0:User``
is built on each request from the administrator's profile field definitions, so a field
added through ``POST /admin/profile-fields`` is discoverable at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from admin_service.scim.rfc7643_schema import (
    SCHEMA_GROUP,
    SCHEMA_PROFILE_EXTENSION,
    SCHEMA_USER,
    Attribute,
    AttributeType,
    ResourceSchema,
    Schema,
)
from idp_common.profile_fields.schema import ProfileFieldRead

SCHEMA_SCHEMA: Final = "urn:ietf:params:scim:schemas:core:2.0:Schema"
SCHEMA_RESOURCE_TYPE: Final = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
SCHEMA_SERVICE_PROVIDER_CONFIG: Final = (
    "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
)
#: Bulk limits, advertised in ``/ServiceProviderConfig`` and enforced (413 past them).
BULK_MAX_OPERATIONS: Final = 100
BULK_MAX_PAYLOAD_BYTES: Final = 1_048_576
#: Most resources one list page returns (``count`` above it is cut down to it).
MAX_RESULTS: Final = 200
DEFAULT_COUNT: Final = 100

_READ_ONLY_ID = Attribute(
    name="id",
    case_exact=True,
    mutability="readOnly",
    returned="always",
    uniqueness="server",
    description="Unique identifier of the resource, chosen by the provider (a UUID).",
)
_EXTERNAL_ID = Attribute(
    name="externalId",
    case_exact=True,
    description="The provisioning client's own identifier of the resource.",
)
_META = Attribute(
    name="meta",
    type="complex",
    mutability="readOnly",
    description="Resource metadata; lastModified is filterable with gt/ge/lt/le/eq.",
    sub_attributes=(
        Attribute(name="resourceType", case_exact=True, mutability="readOnly"),
        Attribute(name="created", type="dateTime", mutability="readOnly"),
        Attribute(name="lastModified", type="dateTime", mutability="readOnly"),
        Attribute(
            name="location", type="reference", mutability="readOnly", reference_types=("uri",)
        ),
        Attribute(name="version", case_exact=True, mutability="readOnly"),
    ),
)


def _ref(*types: str) -> Attribute:
    return Attribute(
        name="$ref", type="reference", mutability="readOnly", reference_types=tuple(types)
    )


USER_SCHEMA: Final = Schema(
    id=SCHEMA_USER,
    name="User",
    description="User account (only the attributes the provider stores; docs/scim.md)",
    attributes=(
        Attribute(
            name="userName",
            required=True,
            uniqueness="server",
            description="Unique identifier for sign-in: the username, or the email address "
            "of a person without a username. Compared case-insensitively.",
        ),
        Attribute(name="displayName", description="The name shown for the person."),
        Attribute(
            name="active",
            type="boolean",
            description="false disables the person and ends their sessions.",
        ),
        Attribute(
            name="emails",
            type="complex",
            multi_valued=True,
            description="One address is stored: the primary one (or the first).",
            sub_attributes=(
                Attribute(name="value", description="The email address."),
                Attribute(name="type", canonical_values=("work", "home", "other")),
                Attribute(name="primary", type="boolean"),
                Attribute(name="display", mutability="readOnly"),
            ),
        ),
        Attribute(
            name="groups",
            type="complex",
            multi_valued=True,
            mutability="readOnly",
            description="Groups the person is a member of (changed through /Groups).",
            sub_attributes=(
                Attribute(name="value", mutability="readOnly"),
                _ref("Group"),
                Attribute(name="display", mutability="readOnly"),
                Attribute(name="type", mutability="readOnly", canonical_values=("direct",)),
            ),
        ),
    ),
)

GROUP_SCHEMA: Final = Schema(
    id=SCHEMA_GROUP,
    name="Group",
    description="Group",
    attributes=(
        Attribute(
            name="displayName",
            required=True,
            uniqueness="server",
            description="The group's unique name.",
        ),
        Attribute(
            name="members",
            type="complex",
            multi_valued=True,
            description="Members of the group (people only).",
            sub_attributes=(
                Attribute(name="value", description="A user id."),
                _ref("User"),
                Attribute(name="display", mutability="readOnly"),
                Attribute(name="type", canonical_values=("User",)),
            ),
        ),
    ),
)

#: Profile field data types as SCIM attribute types. SCIM has no date type: a ``date``
#: field is a string ``YYYY-MM-DD`` (filters compare its text, which sorts as the date).
_TYPES: Final[dict[str, AttributeType]] = {"integer": "integer", "boolean": "boolean"}


def _field_attribute(field: ProfileFieldRead) -> Attribute:
    description = field.label
    if field.data_type == "date":
        description += " (a date, YYYY-MM-DD)"
    elif field.data_type in ("email", "phone", "url"):
        description += f" ({field.data_type})"
    if field.group_id is not None:
        description += f" (only for members of group {field.group_id})"
    return Attribute(
        name=field.key,
        type=_TYPES.get(field.data_type, "string"),
        required=field.required,
        case_exact=True,
        uniqueness="server" if field.unique else "none",
        description=description,
        canonical_values=tuple(field.enum_values or ()) if field.data_type == "enum" else (),
    )


def profile_extension(fields: Sequence[ProfileFieldRead]) -> Schema:
    """The extension of the administrator's profile fields, one attribute each; every one
    ``readWrite`` (``userWritable`` is about the person, not the provisioning client)."""
    return Schema(
        id=SCHEMA_PROFILE_EXTENSION,
        name="ProfileFields",
        description="The profile fields defined by the administrator (docs/scim.md)",
        attributes=tuple(_field_attribute(f) for f in fields),
    )


def with_common(schema: Schema) -> Schema:
    """The schema with ``id``, ``externalId`` and ``meta`` (RFC 7643 §3.1), as filters and
    attribute selection see it; ``/Schemas`` lists the resource's own attributes only."""
    return Schema(
        id=schema.id,
        name=schema.name,
        description=schema.description,
        attributes=(_READ_ONLY_ID, _EXTERNAL_ID, _META, *schema.attributes),
    )


def user_resource_schema(fields: Sequence[ProfileFieldRead]) -> ResourceSchema:
    return ResourceSchema(core=with_common(USER_SCHEMA), extensions=(profile_extension(fields),))


GROUP_RESOURCE_SCHEMA: Final = ResourceSchema(core=with_common(GROUP_SCHEMA))


def schema_document(schema: Schema, base: str) -> dict[str, Any]:
    """One schema as ``/Schemas`` answers it (RFC 7643 §7)."""
    return {
        "schemas": [SCHEMA_SCHEMA],
        "id": schema.id,
        "name": schema.name,
        "description": schema.description,
        "attributes": [a.to_scim() for a in schema.attributes],
        "meta": {"resourceType": "Schema", "location": f"{base}/Schemas/{schema.id}"},
    }


def resource_types(base: str) -> list[dict[str, Any]]:
    """``/ResourceTypes`` (RFC 7643 §6)."""
    user = {
        "schemas": [SCHEMA_RESOURCE_TYPE],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "User account",
        "schema": SCHEMA_USER,
        "schemaExtensions": [{"schema": SCHEMA_PROFILE_EXTENSION, "required": False}],
        "meta": {"resourceType": "ResourceType", "location": f"{base}/ResourceTypes/User"},
    }
    group = {
        "schemas": [SCHEMA_RESOURCE_TYPE],
        "id": "Group",
        "name": "Group",
        "endpoint": "/Groups",
        "description": "Group",
        "schema": SCHEMA_GROUP,
        "schemaExtensions": [],
        "meta": {"resourceType": "ResourceType", "location": f"{base}/ResourceTypes/Group"},
    }
    return [user, group]


def service_provider_config(base: str, docs: str) -> dict[str, Any]:
    """``/ServiceProviderConfig`` (RFC 7643 §5)."""
    return {
        "schemas": [SCHEMA_SERVICE_PROVIDER_CONFIG],
        "documentationUri": docs,
        "patch": {"supported": True},
        "bulk": {
            "supported": True,
            "maxOperations": BULK_MAX_OPERATIONS,
            "maxPayloadSize": BULK_MAX_PAYLOAD_BYTES,
        },
        "filter": {"supported": True, "maxResults": MAX_RESULTS},
        "changePassword": {"supported": False},
        "sort": {"supported": True},
        "etag": {"supported": True},
        "authenticationSchemes": [
            {
                "type": "oauthbearertoken",
                "name": "OAuth Bearer Token",
                "description": "An access token of the provider with the scope idp:scim:read "
                "(reads) or idp:scim:write (writes), usually from the client credentials grant.",
                "specUri": "https://www.rfc-editor.org/rfc/rfc6750",
                "primary": True,
            }
        ],
        "meta": {
            "resourceType": "ServiceProviderConfig",
            "location": f"{base}/ServiceProviderConfig",
        },
    }
