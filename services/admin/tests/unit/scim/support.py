"""A User and a Group resource schema shaped like the ones the SCIM service publishes
(core attributes plus the profile fields' extension), for the pure SCIM module tests."""

from __future__ import annotations

from typing import Any

from admin_service.scim.rfc7643_schema import (
    SCHEMA_GROUP,
    SCHEMA_PROFILE_EXTENSION,
    SCHEMA_USER,
    Attribute,
    ResourceSchema,
    Schema,
)

EXT = SCHEMA_PROFILE_EXTENSION

USER_CORE = Schema(
    id=SCHEMA_USER,
    name="User",
    attributes=(
        Attribute(name="userName", required=True, uniqueness="server"),
        Attribute(name="displayName"),
        Attribute(name="title"),
        Attribute(name="nickName", case_exact=True),
        Attribute(name="active", type="boolean"),
        Attribute(name="password", mutability="writeOnly", returned="never"),
        Attribute(
            name="name",
            type="complex",
            sub_attributes=(
                Attribute(name="givenName"),
                Attribute(name="familyName"),
                Attribute(name="formatted", returned="request"),
            ),
        ),
        Attribute(
            name="emails",
            type="complex",
            multi_valued=True,
            sub_attributes=(
                Attribute(name="value"),
                Attribute(name="type", canonical_values=("work", "home")),
                Attribute(name="primary", type="boolean"),
            ),
        ),
        Attribute(
            name="groups",
            type="complex",
            multi_valued=True,
            mutability="readOnly",
            sub_attributes=(
                Attribute(name="value", case_exact=True, mutability="readOnly"),
                Attribute(name="display", mutability="readOnly"),
            ),
        ),
        Attribute(name="x509Certificates", type="binary", multi_valued=True),
    ),
)

PROFILE = Schema(
    id=EXT,
    name="Profile",
    attributes=(
        Attribute(name="department"),
        Attribute(name="age", type="integer"),
        Attribute(name="vip", type="boolean"),
        Attribute(name="badge", required=True),
        Attribute(name="employeeNumber", mutability="immutable"),
        Attribute(name="startDate", type="dateTime"),
        Attribute(name="score", type="decimal"),
    ),
)

USER = ResourceSchema(core=USER_CORE, extensions=(PROFILE,))

GROUP = ResourceSchema(
    core=Schema(
        id=SCHEMA_GROUP,
        name="Group",
        attributes=(
            Attribute(name="displayName", required=True),
            Attribute(
                name="members",
                type="complex",
                multi_valued=True,
                sub_attributes=(
                    Attribute(name="value", case_exact=True, mutability="immutable"),
                    Attribute(name="display", mutability="readOnly"),
                    Attribute(name="type", mutability="immutable"),
                ),
            ),
        ),
    )
)

USER_ID = "2819c223-7f76-453a-919d-413861904646"


def barbara() -> dict[str, Any]:
    """RFC 7643 §8.2's Barbara, trimmed to this schema, with the profile extension."""
    return {
        "schemas": [SCHEMA_USER, EXT],
        "id": USER_ID,
        "externalId": "bjensen",
        "userName": "bjensen@example.com",
        "displayName": "Babs Jensen",
        "nickName": "Babs",
        "active": True,
        "name": {"givenName": "Barbara", "familyName": "Jensen"},
        "emails": [
            {"value": "bjensen@example.com", "type": "work", "primary": True},
            {"value": "babs@jensen.org", "type": "home"},
        ],
        "groups": [{"value": "e9e30dba-f08f-4109-8486-d5c6a331660a", "display": "Tour Guides"}],
        "meta": {
            "resourceType": "User",
            "created": "2010-01-23T04:56:22Z",
            "lastModified": "2011-05-13T04:42:34Z",
            "version": 'W/"3694e05e9dff591"',
        },
        EXT: {"department": "Tour Operations", "age": 41, "vip": False, "badge": "B-1"},
    }
