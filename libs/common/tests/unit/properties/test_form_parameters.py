"""Properties of form and query parsing (RFC 6749 §3.1, §3.2): the token endpoint's
``application/x-www-form-urlencoded`` bodies (``token_service.forms.parse_form_body``)
and the shared rule of ``idp_common.protocol.rfc6749_parameters`` that authorize and
logout apply to their query strings.

- an empty value is the same as an absent parameter (docs/decisions.md "One home per rule");
- a recognised name given twice with a value is reported (never silently one of them);
- unknown names are ignored;
- whatever the bytes (bad percent-encodings, invalid UTF-8, too many fields), the answer
  is a dict of strings or ``InvalidRequest``, never another exception;
- a form the client encoded reads back as what it encoded.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc6749_parameters import group_pairs, single_values
from libs.common.tests.unit.properties.support import FAST
from token_service.forms import TokenRequest, field_names, parse_form_body

KNOWN = field_names(TokenRequest)
NAMES = st.sampled_from(sorted(KNOWN)) | st.text(max_size=6)
#: Any text that UTF-8 can carry (no lone surrogates).
VALUES = st.text(st.characters(codec="utf-8"), max_size=12)
PAIRS = st.lists(st.tuples(NAMES, VALUES), max_size=10)


@FAST
@given(PAIRS)
def test_one_value_per_name_given_once_and_the_repeated_names(
    pairs: list[tuple[str, str]],
) -> None:
    values, repeated = single_values(group_pairs(pairs, KNOWN))
    for name in KNOWN:
        present = [value for given, value in pairs if given == name and value != ""]
        if len(present) == 1:
            assert values[name] == present[0] and name not in repeated
        elif len(present) > 1:
            assert name in repeated and name not in values
        else:
            assert name not in values and name not in repeated
    assert set(values) <= KNOWN and set(repeated) <= KNOWN


@FAST
@given(st.dictionaries(st.sampled_from(sorted(KNOWN)), VALUES, max_size=8), PAIRS)
def test_an_encoded_form_reads_back_as_its_non_empty_values(
    form: dict[str, str], unknown: list[tuple[str, str]]
) -> None:
    extra = [(name, value) for name, value in unknown if name not in KNOWN]
    body = urlencode([*form.items(), *extra][:64]).encode()
    if len(form) + len(extra) > 64:
        return
    assert parse_form_body(body, KNOWN) == {k: v for k, v in form.items() if v != ""}


@FAST
@given(st.sampled_from(sorted(KNOWN)), VALUES.filter(bool), VALUES.filter(bool))
def test_a_recognised_name_given_twice_is_refused_naming_it(
    name: str, first: str, second: str
) -> None:
    body = urlencode([(name, first), ("grant_type", ""), (name, second)]).encode()
    with pytest.raises(InvalidRequest, match=f"parameter {name} is repeated"):
        parse_form_body(body, KNOWN)


@FAST
@given(st.sampled_from(sorted(KNOWN)), st.integers(0, 3))
def test_empty_values_are_absent_however_often_given(name: str, times: int) -> None:
    body = "&".join([f"{name}="] * times + [f"{name}"]).encode()
    assert parse_form_body(body, KNOWN) == {}


@FAST
@given(st.sampled_from(sorted(KNOWN)), st.binary(min_size=1, max_size=8))
def test_percent_encoded_bytes_that_are_not_utf8_are_refused(name: str, raw: bytes) -> None:
    body = f"{name}={quote(raw)}".encode()
    try:
        expected = raw.decode("utf-8")
    except UnicodeDecodeError:
        with pytest.raises(InvalidRequest, match="not a valid form"):
            parse_form_body(body, KNOWN)
    else:
        assert parse_form_body(body, KNOWN) == ({name: expected} if expected else {})


@FAST
@given(st.integers(65, 200))
def test_more_fields_than_the_bound_are_refused(count: int) -> None:
    body = "&".join(f"x{i}=1" for i in range(count)).encode()
    with pytest.raises(InvalidRequest):
        parse_form_body(body, KNOWN)


@FAST
@given(st.binary(max_size=300))
@example(b"%")
@example(b"%zz=1")
@example(b"\xff=1")
@example(b"client_id=%C0%80")
@example(b"&&&;;;==")
def test_any_body_is_a_form_or_the_documented_refusal(body: bytes) -> None:
    try:
        form = parse_form_body(body, KNOWN)
    except InvalidRequest:
        return
    assert set(form) <= KNOWN
    assert all(isinstance(value, str) and value for value in form.values())
