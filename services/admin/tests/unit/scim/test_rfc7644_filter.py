"""RFC 7644 §3.4.2.2 filters and §3.5.2 PATCH paths: the parse tree of each form, the
refusals (``invalidFilter`` naming the problem), and in-memory evaluation."""

from __future__ import annotations

from typing import Any

import pytest

from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_filter import (
    MAX_DEPTH,
    MAX_FILTER_LENGTH,
    MAX_TERMS,
    And,
    AttrPath,
    Compare,
    Not,
    Or,
    PatchPath,
    Present,
    ValuePath,
    format_filter,
    matches,
    matches_element,
    parse_attr_path,
    parse_filter,
    parse_patch_path,
)
from services.admin.tests.unit.scim.support import EXT, GROUP, USER, barbara


def p(name: str, sub: str | None = None, urn: str | None = None) -> AttrPath:
    return AttrPath(urn, name, sub)


USER_URN = "urn:ietf:params:scim:schemas:core:2.0:User"


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ('userName eq "bjensen"', Compare(p("userName"), "eq", "bjensen")),
        ('userName Eq "bjensen"', Compare(p("userName"), "eq", "bjensen")),
        ('name.familyName co "O\'Malley"', Compare(p("name", "familyName"), "co", "O'Malley")),
        (f'{USER_URN}:userName sw "J"', Compare(p("userName", urn=USER_URN), "sw", "J")),
        (f"{USER_URN}:name.givenName pr", Present(p("name", "givenName", USER_URN))),
        (f'{EXT}:department eq "x"', Compare(p("department", urn=EXT), "eq", "x")),
        ("title pr", Present(p("title"))),
        ("title PR", Present(p("title"))),
        (
            'meta.lastModified gt "2011-05-13T04:42:34Z"',
            Compare(p("meta", "lastModified"), "gt", "2011-05-13T04:42:34Z"),
        ),
        ("age ge 18", Compare(p("age"), "ge", 18)),
        ("score lt -1.5e2", Compare(p("score"), "lt", -150.0)),
        ("active eq true", Compare(p("active"), "eq", True)),
        ("active eq False", Compare(p("active"), "eq", False)),
        ("title eq null", Compare(p("title"), "eq", None)),
        ('x eq "a\\"b\\\\c\\u00e9\\n"', Compare(p("x"), "eq", 'a"b\\cé\n')),
        (
            'title pr and userType eq "Employee"',
            And(Present(p("title")), Compare(p("userType"), "eq", "Employee")),
        ),
        (
            'title pr or userType eq "Intern"',
            Or(Present(p("title")), Compare(p("userType"), "eq", "Intern")),
        ),
        # and binds tighter than or, on either side
        ("a pr or b pr and c pr", Or(Present(p("a")), And(Present(p("b")), Present(p("c"))))),
        ("a pr and b pr or c pr", Or(And(Present(p("a")), Present(p("b"))), Present(p("c")))),
        ("a pr and b pr and c pr", And(And(Present(p("a")), Present(p("b"))), Present(p("c")))),
        ("a pr AND b pr OR c pr", Or(And(Present(p("a")), Present(p("b"))), Present(p("c")))),
        ("(a pr or b pr) and c pr", And(Or(Present(p("a")), Present(p("b"))), Present(p("c")))),
        ("not (a pr) and b pr", And(Not(Present(p("a"))), Present(p("b")))),
        ("NOT(a pr)", Not(Present(p("a")))),
        ('not (a eq "x" or b pr)', Not(Or(Compare(p("a"), "eq", "x"), Present(p("b"))))),
        (
            'emails[type eq "work" and value co "@example.com"]',
            ValuePath(
                p("emails"),
                And(Compare(p("type"), "eq", "work"), Compare(p("value"), "co", "@example.com")),
            ),
        ),
        (
            'userType eq "Employee" and emails[type eq "work" and value co "@example.com"]',
            And(
                Compare(p("userType"), "eq", "Employee"),
                ValuePath(
                    p("emails"),
                    And(
                        Compare(p("type"), "eq", "work"),
                        Compare(p("value"), "co", "@example.com"),
                    ),
                ),
            ),
        ),
        (
            'emails[not (type eq "work")]',
            ValuePath(p("emails"), Not(Compare(p("type"), "eq", "work"))),
        ),
        # leniency: a value path followed by a sub-attribute comparison
        (
            'emails[type eq "work"].value eq "a@b"',
            ValuePath(
                p("emails"),
                And(Compare(p("type"), "eq", "work"), Compare(p("value"), "eq", "a@b")),
            ),
        ),
        ("members.$ref pr", Present(p("members", "$ref"))),
        ('  userName   eq   "x"  ', Compare(p("userName"), "eq", "x")),
    ],
)
def test_parse(text: str, tree: object) -> None:
    assert parse_filter(text) == tree
    assert parse_filter(format_filter(parse_filter(text))) == tree


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("userName", "expected an operator after 'userName'"),
        ('userName regex "x"', "the operator 'regex' is not supported"),
        ("userName eq", "expected a value"),
        ("userName eq bjensen", "expected a value"),
        ('userName eq "open', "unterminated string"),
        ('userName eq "bad \\q escape"', "bad escape"),
        ('userName eq "nul \\u0000"', "NUL"),
        ('userName eq "\\ud800"', "unpaired surrogate"),
        ("age eq 1e999", "out of range"),
        ("age eq 01", "unexpected"),
        ("age eq 1.", "unexpected"),
        ('userName eq "x" and', "expected an attribute name"),
        ('userName eq "x" xor a pr', "unexpected 'xor a pr'"),
        ('(userName eq "x"', "expected ')'"),
        ('userName eq "x")', "unexpected ')'"),
        ('emails[type eq "work"', "expected ']'"),
        ("emails[type[value pr]]", "a value filter inside a value filter"),
        ("emails[urn:x:y:type pr]", "must be a sub-attribute name"),
        ("emails[name.givenName pr]", "must be a sub-attribute name"),
        ("name.givenName[value pr]", "has a sub-attribute before '['"),
        ("a.b.c pr", "'a.b.c' is not an attribute path"),
        ("1abc pr", "'1abc' is not an attribute path"),
        ("userName: pr", "'userName:' is not an attribute path"),
        ("foo:bar pr", "'foo:bar' is not an attribute path"),
        ("not a pr", "expected '(' after 'not'"),
        ("@ pr", "expected an attribute name but found '@'"),
        ("(" * (MAX_DEPTH + 1) + "a pr" + ")" * (MAX_DEPTH + 1), "nested deeper than"),
        (" or ".join(["a pr"] * (MAX_TERMS + 1)), f"more than {MAX_TERMS} comparisons"),
        ("a" * (MAX_FILTER_LENGTH + 1), f"longer than {MAX_FILTER_LENGTH}"),
    ],
)
def test_refused(text: str, detail: str) -> None:
    with pytest.raises(ScimError) as caught:
        parse_filter(text)
    assert caught.value.status == 400
    assert caught.value.scim_type == "invalidFilter"
    assert detail in caught.value.detail


def test_limits_are_not_refused_below_them() -> None:
    nested = "(" * MAX_DEPTH + "a pr" + ")" * MAX_DEPTH
    assert parse_filter(nested) == Present(p("a"))
    assert isinstance(parse_filter(" or ".join(["a pr"] * MAX_TERMS)), Or)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("members", PatchPath(p("members"), None, None)),
        ("name.familyName", PatchPath(p("name", "familyName"), None, None)),
        (
            'members[value eq "2819c223"]',
            PatchPath(p("members"), Compare(p("value"), "eq", "2819c223"), None),
        ),
        (
            'emails[type eq "work"].value',
            PatchPath(p("emails"), Compare(p("type"), "eq", "work"), "value"),
        ),
        (
            'addresses[type eq "work" and primary eq true].streetAddress',
            PatchPath(
                p("addresses"),
                And(Compare(p("type"), "eq", "work"), Compare(p("primary"), "eq", True)),
                "streetAddress",
            ),
        ),
        (f"{EXT}:department", PatchPath(p("department", urn=EXT), None, None)),
        (f"{USER_URN}:name.givenName", PatchPath(p("name", "givenName", USER_URN), None, None)),
    ],
)
def test_patch_path(text: str, path: PatchPath) -> None:
    assert parse_patch_path(text) == path


@pytest.mark.parametrize(
    "text",
    [
        "",
        "members[",
        'members[value eq "x"]extra',
        'members[value eq "x"].',
        'members[value eq "x"].display.more',
        'name.givenName[value eq "x"]',
        "members eq 1",
        "a.b.c",
    ],
)
def test_patch_path_refused(text: str) -> None:
    with pytest.raises(ScimError) as caught:
        parse_patch_path(text)
    assert caught.value.scim_type == "invalidPath"


def test_attr_path() -> None:
    assert parse_attr_path("name.givenName") == p("name", "givenName")
    assert parse_attr_path(f"{EXT}:age") == p("age", urn=EXT)
    with pytest.raises(ScimError, match="not an attribute path"):
        parse_attr_path("name..x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('userName eq "bjensen@example.com"', True),
        ('USERNAME EQ "BJENSEN@example.COM"', True),  # caseExact false
        ('nickName eq "babs"', False),  # caseExact true
        ('nickName eq "Babs"', True),
        ('userName sw "bjen"', True),
        ('userName ew "@example.com"', True),
        ('userName co "sen@ex"', True),
        ('userName co "%"', False),
        ('userName ne "bjensen@example.com"', False),
        ('userName ne "other"', True),
        ('userName gt "a"', True),
        ('userName lt "a"', False),
        ('title eq "x"', False),  # absent never equals
        ('title ne "x"', True),  # absent is not equal
        ('not (title eq "x")', True),
        ("title pr", False),
        ("title eq null", True),
        ("userName ne null", True),
        ("displayName pr", True),
        ("name.givenName pr", True),
        ("name.formatted pr", False),
        ('name.familyName eq "jensen"', True),
        ("name pr", True),
        ('emails eq "babs@jensen.org"', True),  # complex without sub: its value
        ('emails.value eq "babs@jensen.org"', True),  # any value of a multi-valued one
        ('emails.type eq "home"', True),
        ('emails[type eq "work" and value co "@example.com"]', True),
        ('emails[type eq "home" and value co "@example.com"]', False),
        ('emails[type eq "work"].value eq "bjensen@example.com"', True),
        ("emails[primary eq true]", True),
        ('emails[not (type eq "work")]', True),
        ('emails.value ne "babs@jensen.org"', False),  # ne: no value equals
        ("active eq true", True),
        ("active ne true", False),
        ("active eq false", False),
        (f"{EXT}:age gt 40", True),
        (f"{EXT}:age ge 41.0", True),
        (f"{EXT}:age lt 41", False),
        ("age eq 41", True),  # a bare extension name, unambiguous
        (f'{EXT}:department sw "tour"', True),
        (f"{EXT}:vip eq false", True),
        (f"{EXT}:startDate pr", False),
        (f'{USER_URN}:userName eq "BJENSEN@EXAMPLE.COM"', True),
        ('meta.lastModified gt "2011-05-13T04:42:33Z"', True),
        ('meta.lastModified gt "2011-05-13T06:42:33+02:00"', True),  # chronological
        ('meta.lastModified gt "2011-05-13T04:42:34Z"', False),
        ('meta.lastModified ge "2011-05-13T04:42:34.000Z"', True),
        ('meta.created lt "2011-01-01"', True),
        ('id eq "2819c223-7f76-453a-919d-413861904646"', True),
        ('id eq "2819C223-7F76-453A-919D-413861904646"', False),  # id is caseExact
        ('externalId eq "bjensen"', True),
        ('groups.value eq "e9e30dba-f08f-4109-8486-d5c6a331660a"', True),
        ('userName eq "x" or displayName co "Babs"', True),
        ('userName eq "x" and displayName co "Babs"', False),
        ('not (userName eq "x") and not (title pr)', True),
    ],
)
def test_matches(text: str, expected: bool) -> None:
    assert matches(parse_filter(text), barbara(), USER) is expected


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ('nosuch eq "x"', "unknown attribute 'nosuch'"),
        ('name.middle eq "x"', "unknown attribute 'name.middle'"),
        ('emails[kind eq "x"]', "unknown attribute 'emails.kind'"),
        ('urn:x:y:z eq "x"', "unknown attribute 'urn:x:y:z'"),
        ("active gt true", "'gt' cannot compare 'active' (boolean)"),
        ('active co "t"', "'co' cannot compare 'active'"),
        ("x509Certificates.value pr", "has no sub-attribute"),
        ('x509Certificates lt "a"', "cannot compare 'x509Certificates' (binary)"),
        ('age co "4"', "'co' cannot compare 'age' (integer)"),
        ('age eq "41"', "'age' is integer"),
        ("age eq 4.5", "'age' is integer"),
        ("active eq 1", "'active' is boolean"),
        ("userName eq 5", "'userName' is string"),
        ('meta.created gt "yesterday"', "not an ISO 8601 dateTime"),
        ('meta.created co "2010"', "'co' cannot compare"),
        ("title gt null", "cannot compare with null"),
        ('name eq "x"', "'name' is complex"),
        ('userName[value eq "x"]', "'userName' is not complex"),
    ],
)
def test_matches_refused(text: str, detail: str) -> None:
    with pytest.raises(ScimError) as caught:
        matches(parse_filter(text), barbara(), USER)
    assert caught.value.scim_type == "invalidFilter"
    assert detail in caught.value.detail


def test_matches_element() -> None:
    members = GROUP.core.attribute("members")
    assert members is not None
    element: dict[str, Any] = {"value": "u-1", "type": "User"}
    assert matches_element(parse_filter('value eq "u-1"'), element, members)
    assert not matches_element(parse_filter('value eq "U-1"'), element, members)


def test_extension_missing_and_non_dict_values() -> None:
    doc = barbara()
    del doc[EXT]
    doc["emails"] = ["not an object", None]
    assert not matches(parse_filter("age gt 1"), doc, USER)
    assert not matches(parse_filter("emails[type pr]"), doc, USER)
    assert matches(parse_filter("not (age pr)"), doc, USER)
