"""RFC 7643 §2.4 ``returned`` and RFC 7644 §3.9 ``attributes``/``excludedAttributes``."""

from __future__ import annotations

from typing import Any

import pytest

from admin_service.scim.rfc7643_schema import SCHEMA_USER
from admin_service.scim.rfc7644_attributes import select_attributes
from admin_service.scim.rfc7644_errors import ScimError
from services.admin.tests.unit.scim.support import EXT, USER, USER_ID, barbara


def select(attributes: list[str] | None = None, excluded: list[str] | None = None) -> Any:
    doc = barbara()
    doc["password"] = "never shown"
    doc["name"]["formatted"] = "Ms. Barbara J Jensen"  # returned: request
    return select_attributes(doc, USER, attributes=attributes, excluded=excluded)


def test_default_set() -> None:
    doc = select()
    expected = barbara()
    assert doc == expected  # password (never) and name.formatted (request) gone
    assert "password" not in doc


def test_attributes_replace_the_default_set() -> None:
    assert select(["userName"]) == {
        "schemas": [SCHEMA_USER, EXT],
        "id": USER_ID,
        "userName": "bjensen@example.com",
    }


def test_names_are_case_insensitive_and_may_carry_the_urn() -> None:
    assert select([f"{SCHEMA_USER}:USERNAME", "displayname"]) == {
        "schemas": [SCHEMA_USER, EXT],
        "id": USER_ID,
        "userName": "bjensen@example.com",
        "displayName": "Babs Jensen",
    }


def test_sub_attributes() -> None:
    doc = select(["name.givenName", "emails.value", "meta.created"])
    assert doc["name"] == {"givenName": "Barbara"}
    assert doc["emails"] == [{"value": "bjensen@example.com"}, {"value": "babs@jensen.org"}]
    assert doc["meta"] == {"created": "2010-01-23T04:56:22Z"}
    assert set(doc) == {"schemas", "id", "name", "emails", "meta"}


def test_request_attributes_only_when_asked() -> None:
    assert "formatted" not in select()["name"]
    assert "formatted" not in select(["name"])["name"]  # the sub-attribute must be named
    assert select(["name.formatted"])["name"] == {"formatted": "Ms. Barbara J Jensen"}


def test_never_even_when_asked() -> None:
    assert "password" not in select(["password", "userName"])


def test_excluded() -> None:
    doc = select(excluded=["emails", "name.familyName", f"{EXT}:age", "id", "meta"])
    assert "emails" not in doc
    assert doc["name"] == {"givenName": "Barbara"}
    assert "age" not in doc[EXT]
    assert doc["id"] == USER_ID  # always
    assert "meta" not in doc
    assert doc["userName"] == "bjensen@example.com"


def test_extension() -> None:
    assert select([f"{EXT}:department"])[EXT] == {"department": "Tour Operations"}
    assert select(["age"])[EXT] == {"age": 41}  # unambiguous bare name
    assert select([EXT])[EXT] == barbara()[EXT]  # the extension URN: all of it
    assert EXT not in select(excluded=[EXT])
    assert EXT not in select(["userName"])


def test_both_given() -> None:
    doc = select(["userName", "emails"], ["emails.type"])
    assert doc["emails"] == [
        {"value": "bjensen@example.com", "primary": True},
        {"value": "babs@jensen.org"},
    ]


def test_unknown_names_select_nothing_and_unknown_keys() -> None:
    doc = barbara()
    doc["x-custom"] = 1
    assert select_attributes(doc, USER, attributes=None, excluded=["nosuch"])["x-custom"] == 1
    assert "x-custom" not in select_attributes(doc, USER, attributes=["nosuch"], excluded=None)


def test_malformed_name() -> None:
    with pytest.raises(ScimError) as caught:
        select(["name..givenName"])
    assert caught.value.scim_type == "invalidPath"


def test_input_not_changed() -> None:
    doc = barbara()
    select_attributes(doc, USER, attributes=["name.givenName"], excluded=None)
    assert doc == barbara()
