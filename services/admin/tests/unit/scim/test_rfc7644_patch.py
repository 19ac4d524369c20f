"""RFC 7644 §3.5.2 PATCH: the request body's checks, and each operation on a document
(paths, value filters, extension URNs, Entra's forms, mutability, required, noTarget)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from admin_service.scim.rfc7643_schema import MESSAGE_PATCH_OP, SCHEMA_GROUP, SCHEMA_USER
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_patch import PatchOperation, apply_patch, parse_patch_request
from services.admin.tests.unit.scim.support import EXT, GROUP, USER, barbara


def body(*operations: dict[str, Any]) -> dict[str, Any]:
    return {"schemas": [MESSAGE_PATCH_OP], "Operations": list(operations)}


def patch(document: dict[str, Any], *operations: dict[str, Any], schema: Any = USER) -> Any:
    return apply_patch(document, parse_patch_request(body(*operations)), schema)


def test_parse() -> None:
    ops = parse_patch_request(
        body(
            {"op": "Replace", "path": "active", "value": "False"},
            {"op": "ADD", "value": {"title": "x"}},
            {"op": "remove", "path": " title "},
            {"op": "add", "path": "", "value": {"title": "y"}},
        )
    )
    assert ops == [
        PatchOperation("replace", "active", "False"),
        PatchOperation("add", None, {"title": "x"}),
        PatchOperation("remove", "title", None),
        PatchOperation("add", None, {"title": "y"}),
    ]
    # "Operations" and member names any case (some clients send "operations")
    assert parse_patch_request(
        {"schemas": [MESSAGE_PATCH_OP], "operations": [{"OP": "remove", "Path": "title"}]}
    ) == [PatchOperation("remove", "title", None)]


@pytest.mark.parametrize(
    ("request_body", "scim_type", "detail"),
    [
        ([], "invalidSyntax", "must be a JSON object"),
        ({"Operations": [{"op": "add", "value": {}}]}, "invalidSyntax", "'schemas' must list"),
        ({"schemas": [SCHEMA_USER], "Operations": []}, "invalidSyntax", "'schemas' must list"),
        ({"schemas": [MESSAGE_PATCH_OP]}, "invalidSyntax", "'Operations' must be"),
        ({"schemas": [MESSAGE_PATCH_OP], "Operations": []}, "invalidSyntax", "non-empty"),
        (body("add"), "invalidSyntax", "Operations[0] must be an object"),
        (body({"op": "move", "path": "a"}), "invalidSyntax", "add, replace or remove"),
        (body({"op": 1, "path": "a"}), "invalidSyntax", "add, replace or remove"),
        (body({"op": "add", "path": 5, "value": 1}), "invalidSyntax", "path must be a string"),
        (body({"op": "add", "path": "title"}), "invalidSyntax", "'add' needs a value"),
        (body({"op": "replace"}), "invalidSyntax", "'replace' needs a value"),
        (body({"op": "remove"}), "noTarget", "'remove' needs a path"),
    ],
)
def test_parse_refused(request_body: object, scim_type: str, detail: str) -> None:
    with pytest.raises(ScimError) as caught:
        parse_patch_request(request_body)
    assert (caught.value.status, caught.value.scim_type) == (400, scim_type)
    assert detail in caught.value.detail


def test_input_is_never_changed() -> None:
    doc = barbara()
    before = copy.deepcopy(doc)
    after = patch(
        doc,
        {"op": "add", "path": "emails", "value": [{"value": "n@x.org", "type": "other"}]},
        {"op": "replace", "path": "name.givenName", "value": "Babs"},
        {"op": "remove", "path": f"{EXT}:department"},
    )
    assert doc == before
    assert after != before


def test_add_and_replace_simple() -> None:
    doc = patch(
        barbara(),
        {"op": "add", "path": "title", "value": "Tour Guide"},
        {"op": "replace", "path": "displayName", "value": "Barbara"},
        {"op": "replace", "path": "nickName", "value": "B"},  # absent or not: replace sets
    )
    assert (doc["title"], doc["displayName"], doc["nickName"]) == ("Tour Guide", "Barbara", "B")


def test_attribute_names_any_case_keep_their_canonical_spelling() -> None:
    doc = patch(barbara(), {"op": "replace", "path": "DISPLAYNAME", "value": "B"})
    assert doc["displayName"] == "B"
    assert "DISPLAYNAME" not in doc


def test_entra_boolean_strings() -> None:
    doc = patch(barbara(), {"op": "Replace", "path": "active", "value": "False"})
    assert doc["active"] is False
    doc = patch(doc, {"op": "replace", "value": {"active": "TRUE"}})
    assert doc["active"] is True
    doc = patch(doc, {"op": "Add", "path": f"{EXT}:vip", "value": "True"})
    assert doc[EXT]["vip"] is True
    doc = patch(doc, {"op": "replace", "path": f"{EXT}:age", "value": "42"})
    assert doc[EXT]["age"] == 42


def test_pathless_dotted_and_urn_keys() -> None:
    doc = patch(
        barbara(),
        {
            "op": "replace",
            "value": {
                "name.givenName": "Babs",
                f"{EXT}:department": "Sales",
                EXT: {"age": 42},
                "schemas": ["ignored"],
                f"{SCHEMA_USER}:displayName": "B. Jensen",
            },
        },
    )
    assert doc["name"] == {"givenName": "Babs", "familyName": "Jensen"}
    assert doc[EXT]["department"] == "Sales"
    assert doc[EXT]["age"] == 42
    assert doc["displayName"] == "B. Jensen"
    assert doc["schemas"] == [SCHEMA_USER, EXT]


def test_schema_urn_keys_holding_objects() -> None:
    doc = patch(
        barbara(),
        {"op": "replace", "value": {SCHEMA_USER: {"title": "T"}, EXT: {"department": "D"}}},
    )
    assert (doc["title"], doc[EXT]["department"]) == ("T", "D")


def test_extension_urn_as_path() -> None:
    doc = patch(barbara(), {"op": "add", "path": EXT, "value": {"department": "Sales"}})
    assert doc[EXT]["department"] == "Sales"


def test_extension_object_appears_and_goes_with_its_urn() -> None:
    doc = barbara()
    del doc[EXT]
    doc["schemas"] = [SCHEMA_USER]
    doc = patch(doc, {"op": "add", "path": f"{EXT}:department", "value": "Sales"})
    assert doc[EXT] == {"department": "Sales"}
    assert doc["schemas"] == [SCHEMA_USER, EXT]
    doc = patch(doc, {"op": "remove", "path": f"{EXT}:department"})
    assert EXT not in doc
    assert doc["schemas"] == [SCHEMA_USER]


def test_complex_add_and_replace_merge() -> None:
    doc = patch(barbara(), {"op": "replace", "path": "name", "value": {"givenName": "Babs"}})
    assert doc["name"] == {"givenName": "Babs", "familyName": "Jensen"}
    doc = patch(doc, {"op": "add", "value": {"name": {"familyName": "J"}}})
    assert doc["name"] == {"givenName": "Babs", "familyName": "J"}


def test_multi_valued_add_appends_without_duplicates() -> None:
    doc = patch(
        barbara(),
        {
            "op": "add",
            "path": "emails",
            "value": [
                {"value": "BJENSEN@example.com", "type": "work"},  # already there
                {"value": "b@other.org", "type": "other"},
            ],
        },
    )
    assert [e["value"] for e in doc["emails"]] == [
        "BJENSEN@example.com",
        "babs@jensen.org",
        "b@other.org",
    ]
    assert len(doc["emails"]) == 3


def test_added_primary_takes_it_from_the_others() -> None:
    doc = patch(
        barbara(),
        {"op": "add", "path": "emails", "value": {"value": "n@x.org", "primary": "true"}},
    )
    assert [e.get("primary") for e in doc["emails"]] == [False, None, True]


def test_two_primaries_refused() -> None:
    with pytest.raises(ScimError) as caught:
        patch(
            barbara(),
            {
                "op": "replace",
                "path": "emails",
                "value": [{"value": "a@x", "primary": True}, {"value": "b@x", "primary": True}],
            },
        )
    assert caught.value.scim_type == "invalidValue"


def test_multi_valued_replace_replaces_all() -> None:
    doc = patch(barbara(), {"op": "replace", "path": "emails", "value": [{"value": "n@x.org"}]})
    assert doc["emails"] == [{"value": "n@x.org"}]


def test_value_filter_sub_attribute() -> None:
    doc = patch(
        barbara(),
        {"op": "replace", "path": 'emails[type eq "work"].value', "value": "new@example.com"},
    )
    assert doc["emails"][0] == {"value": "new@example.com", "type": "work", "primary": True}
    assert doc["emails"][1]["value"] == "babs@jensen.org"


def test_value_filter_replaces_matched_element_by_merge() -> None:
    doc = patch(
        barbara(),
        {"op": "replace", "path": 'emails[type eq "home"]', "value": {"value": "h@x.org"}},
    )
    assert doc["emails"][1] == {"value": "h@x.org", "type": "home"}


def test_add_with_filter_that_matches_nothing_creates_the_element() -> None:
    doc = barbara()
    del doc["emails"]
    doc = patch(
        doc, {"op": "Add", "path": 'emails[type eq "work"].value', "value": "w@example.com"}
    )
    assert doc["emails"] == [{"type": "work", "value": "w@example.com"}]


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "replace", "path": 'emails[type eq "other"].value', "value": "x@y"},
        {"op": "remove", "path": 'emails[type eq "other"]'},
        {"op": "add", "path": 'emails[type co "zz"].value', "value": "x@y"},  # not eq: no seed
    ],
)
def test_no_target(operation: dict[str, Any]) -> None:
    with pytest.raises(ScimError) as caught:
        patch(barbara(), operation)
    assert caught.value.scim_type == "noTarget"


def test_remove_forms() -> None:
    doc = patch(
        barbara(),
        {"op": "remove", "path": 'emails[type eq "home"]'},
        {"op": "remove", "path": "name.familyName"},
        {"op": "remove", "path": "nickName"},
        {"op": "remove", "path": "title"},  # absent: nothing to do
    )
    assert doc["emails"] == [{"value": "bjensen@example.com", "type": "work", "primary": True}]
    assert doc["name"] == {"givenName": "Barbara"}
    assert "nickName" not in doc
    doc = patch(doc, {"op": "remove", "path": "emails"}, {"op": "remove", "path": "name"})
    assert "emails" not in doc
    assert "name" not in doc


def test_remove_sub_attribute_of_matched_values() -> None:
    doc = patch(barbara(), {"op": "remove", "path": 'emails[type eq "work"].primary'})
    assert doc["emails"][0] == {"value": "bjensen@example.com", "type": "work"}


def test_null_clears() -> None:
    doc = patch(
        barbara(),
        {"op": "replace", "path": "displayName", "value": None},
        {"op": "replace", "value": {"nickName": None}},
    )
    assert "displayName" not in doc
    assert "nickName" not in doc


def group() -> dict[str, Any]:
    return {
        "schemas": [SCHEMA_GROUP],
        "id": "g-1",
        "displayName": "Tour Guides",
        "members": [
            {"value": "u-1", "display": "One", "type": "User"},
            {"value": "u-2", "display": "Two", "type": "User"},
        ],
    }


def test_group_members() -> None:
    doc = patch(
        group(),
        {"op": "add", "path": "members", "value": [{"value": "u-3", "display": "ignored"}]},
        {"op": "remove", "path": 'members[value eq "u-1"]'},
        schema=GROUP,
    )
    # display is readOnly: dropped from the added value, the server fills it in
    assert doc["members"] == [{"value": "u-2", "display": "Two", "type": "User"}, {"value": "u-3"}]


def test_entra_remove_members_with_value_list() -> None:
    doc = patch(
        group(),
        {"op": "Remove", "path": "members", "value": [{"value": "u-2"}, {"value": "u-9"}]},
        schema=GROUP,
    )
    assert [m["value"] for m in doc["members"]] == ["u-1"]


def test_replace_members_path_less() -> None:
    doc = patch(group(), {"op": "replace", "value": {"members": [{"value": "u-7"}]}}, schema=GROUP)
    assert doc["members"] == [{"value": "u-7"}]


@pytest.mark.parametrize(
    ("operation", "detail"),
    [
        ({"op": "replace", "path": "id", "value": "other"}, "'id' is readOnly"),
        ({"op": "remove", "path": "id"}, "'id' is readOnly"),
        ({"op": "add", "path": "groups", "value": [{"value": "g"}]}, "'groups' is readOnly"),
        ({"op": "replace", "value": {"meta": {"created": "x"}, "id": "x"}}, "'id' is readOnly"),
        (
            {"op": "replace", "path": f"{EXT}:employeeNumber", "value": "2"},
            "'employeeNumber' is immutable",
        ),
        ({"op": "remove", "path": f"{EXT}:employeeNumber"}, "'employeeNumber' is immutable"),
    ],
)
def test_mutability(operation: dict[str, Any], detail: str) -> None:
    doc = barbara()
    doc[EXT]["employeeNumber"] = "1"
    with pytest.raises(ScimError) as caught:
        patch(doc, operation)
    assert caught.value.scim_type == "mutability"
    assert detail in caught.value.detail


def test_read_only_same_value_and_immutable_first_value_are_accepted() -> None:
    doc = patch(
        barbara(),
        {"op": "replace", "value": {"id": barbara()["id"], "displayName": "B"}},
        {"op": "add", "path": f"{EXT}:employeeNumber", "value": "7"},  # absent: may be set
        {"op": "replace", "path": f"{EXT}:employeeNumber", "value": "7"},  # same: no-op
    )
    assert doc[EXT]["employeeNumber"] == "7"


def test_immutable_sub_attribute_of_existing_member() -> None:
    with pytest.raises(ScimError) as caught:
        patch(
            group(),
            {"op": "replace", "path": 'members[value eq "u-1"].value', "value": "u-9"},
            schema=GROUP,
        )
    assert caught.value.scim_type == "mutability"


@pytest.mark.parametrize(
    "operation",
    [
        {"op": "remove", "path": "userName"},
        {"op": "replace", "path": "userName", "value": None},
        {"op": "remove", "path": f"{EXT}:badge"},
    ],
)
def test_required_cannot_be_removed(operation: dict[str, Any]) -> None:
    with pytest.raises(ScimError) as caught:
        patch(barbara(), operation)
    assert caught.value.scim_type == "mutability"  # RFC 7644 §3.5.2.2
    assert "is required" in caught.value.detail


@pytest.mark.parametrize(
    ("operation", "scim_type", "detail"),
    [
        ({"op": "add", "path": "nosuch", "value": 1}, "invalidPath", "unknown attribute 'nosuch'"),
        ({"op": "add", "path": "name.middle", "value": "x"}, "invalidPath", "'name.middle'"),
        ({"op": "add", "path": "title.sub", "value": "x"}, "invalidPath", "'title.sub'"),
        ({"op": "add", "value": {"nosuch": 1}}, "invalidPath", "unknown attribute 'nosuch'"),
        ({"op": "add", "path": "title[value eq 1]", "value": "x"}, "invalidPath", "'title'"),
        ({"op": "add", "path": "emails[", "value": "x"}, "invalidPath", "expected"),
        ({"op": "replace", "path": "active", "value": "yes"}, "invalidValue", "'active' must be"),
        ({"op": "replace", "path": f"{EXT}:age", "value": 4.5}, "invalidValue", "'age' must be"),
        ({"op": "replace", "path": f"{EXT}:age", "value": True}, "invalidValue", "'age' must be"),
        ({"op": "replace", "path": "title", "value": 5}, "invalidValue", "'title' must be"),
        (
            {"op": "replace", "path": f"{EXT}:startDate", "value": "soon"},
            "invalidValue",
            "'startDate' must be a dateTime",
        ),
        ({"op": "replace", "path": "name", "value": "x"}, "invalidValue", "must be an object"),
        (
            {"op": "add", "path": "emails", "value": [{"value": "a", "kind": "b"}]},
            "invalidValue",
            "unknown attribute 'emails.kind'",
        ),
        ({"op": "replace", "value": ["x"]}, "invalidValue", "needs an object"),
    ],
)
def test_refused(operation: dict[str, Any], scim_type: str, detail: str) -> None:
    with pytest.raises(ScimError) as caught:
        patch(barbara(), operation)
    assert caught.value.scim_type == scim_type
    assert detail in caught.value.detail


def test_ignore_unknown() -> None:
    ops = parse_patch_request(
        body(
            {"op": "add", "value": {"nosuch": 1, "title": "T", "name.middle": "x"}},
            {"op": "add", "path": "emails", "value": {"value": "n@x", "kind": "x"}},
        )
    )
    doc = apply_patch(barbara(), ops, USER, ignore_unknown=True)
    assert doc["title"] == "T"
    assert "nosuch" not in doc
    assert doc["emails"][-1] == {"value": "n@x"}


def test_datetime_and_decimal_values() -> None:
    doc = patch(
        barbara(),
        {"op": "add", "path": f"{EXT}:startDate", "value": "2024-01-02T03:04:05Z"},
        {"op": "add", "path": f"{EXT}:score", "value": "2.5"},
    )
    assert doc[EXT]["startDate"] == "2024-01-02T03:04:05Z"
    assert doc[EXT]["score"] == 2.5
