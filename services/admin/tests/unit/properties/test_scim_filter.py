"""Properties of the SCIM filter parser (RFC 7644 §3.4.2.2): any text is a tree or a
ScimError (never another exception, whatever its nesting), and a tree printed by
``format_filter`` parses back to itself."""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_filter import (
    MAX_DEPTH,
    And,
    AttrPath,
    Compare,
    Filter,
    Not,
    Or,
    Present,
    ValuePath,
    format_filter,
    matches,
    parse_filter,
    parse_patch_path,
)
from libs.common.tests.unit.properties.support import FAST
from services.admin.tests.unit.scim.support import USER, barbara

#: Characters that filters are made of, so that the text often gets deep into the parser.
FILTER_ALPHABET = st.sampled_from(
    [*'abeqnotrpwsgl ()[]."\\:-_$0123456789ATUEuFfxz\t\n', "\x00", "é", "\ud800"]
)
FILTERISH = st.text(FILTER_ALPHABET, max_size=200) | st.builds(
    " ".join,
    st.lists(
        st.sampled_from(
            [
                "userName",
                "eq",
                '"x"',
                "and",
                "or",
                "not",
                "(",
                ")",
                "[",
                "]",
                "pr",
                "emails",
                "type",
                "1",
                "true",
                "null",
                "gt",
                "emails[type",
                "]",
                ".value",
                "urn:a:b:c",
            ]
        ),
        max_size=30,
    ),
)


@FAST
@given(st.text(max_size=300) | FILTERISH)
@example("(" * 5000 + "a pr" + ")" * 5000)
@example("not (" * 2000 + "a pr" + ")" * 2000)
@example("emails[" * 3000)
@example(" and ".join(["a pr"] * 1000))
def test_any_text_is_a_tree_or_a_scim_error(text: str) -> None:
    for parse in (parse_filter, parse_patch_path):
        try:
            parse(text)
        except ScimError as exc:
            assert exc.status == 400
            assert exc.scim_type in ("invalidFilter", "invalidPath")


@FAST
@given(FILTERISH)
def test_evaluation_is_a_bool_or_a_scim_error(text: str) -> None:
    try:
        tree = parse_filter(text)
    except ScimError:
        return
    try:
        assert matches(tree, barbara(), USER) in (True, False)
    except ScimError as exc:
        assert exc.scim_type == "invalidFilter"


NAMES = st.from_regex(r"\$?[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True).filter(
    lambda name: name.lower() != "not"  # "not" before a name is refused: it must open "("
)
URNS = st.sampled_from([None, "urn:ietf:params:scim:schemas:core:2.0:User", "urn:x:y"])
VALUES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    .filter(lambda s: "\x00" not in s)
    .filter(lambda s: not any(0xD800 <= ord(c) <= 0xDFFF for c in s))
)
OPS = st.sampled_from(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"])


def _paths(relative: bool) -> st.SearchStrategy[AttrPath]:
    if relative:
        return st.builds(AttrPath, st.none(), NAMES, st.none())
    return st.builds(AttrPath, URNS, NAMES, st.none() | NAMES)


def _filters(relative: bool) -> st.SearchStrategy[Filter]:
    leaves = st.builds(Compare, _paths(relative), OPS, VALUES) | st.builds(
        Present, _paths(relative)
    )
    if not relative:
        leaves = leaves | st.builds(
            ValuePath, st.builds(AttrPath, URNS, NAMES, st.none()), _filters(relative=True)
        )
    return st.recursive(
        leaves,
        lambda inner: (
            st.builds(And, inner, inner) | st.builds(Or, inner, inner) | st.builds(Not, inner)
        ),
        max_leaves=12,
    )


@FAST
@given(_filters(relative=False))
def test_printed_filters_parse_back(tree: Filter) -> None:
    assume(_depth(tree) <= MAX_DEPTH)
    assert parse_filter(format_filter(tree)) == tree


def _depth(tree: Filter) -> int:
    """Nesting the printed text has: each ``not (``, ``[`` and parenthesised child."""
    if isinstance(tree, Not):
        return 1 + _depth(tree.inner)
    if isinstance(tree, ValuePath):
        return 1 + _depth(tree.filter)
    if isinstance(tree, And | Or):
        return 1 + max(_depth(tree.left), _depth(tree.right))
    return 0
