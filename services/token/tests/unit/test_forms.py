"""Reading token endpoint forms: a parameter given twice is refused, except ``resource``
(RFC 8707 §2) and ``audience`` (RFC 8693 §2.1), which may repeat."""

from __future__ import annotations

import pytest

from idp_common.protocol.rfc6749_errors import InvalidRequest
from token_service.forms import (
    REPEATABLE,
    TokenRequest,
    field_names,
    parse_form_body,
    parse_form_lists,
    to_struct,
)

KNOWN = field_names(TokenRequest)


def test_resource_and_audience_may_repeat() -> None:
    body = b"grant_type=x&resource=urn%3Aa&resource=&resource=urn%3Ab&audience=c&audience=d"
    form, lists = parse_form_lists(body, KNOWN, REPEATABLE)
    assert form == {"grant_type": "x"}
    assert lists == {"resource": ["urn:a", "urn:b"], "audience": ["c", "d"]}
    req = to_struct({**form, **lists}, TokenRequest)
    assert req.resource == ["urn:a", "urn:b"]
    assert req.audience == ["c", "d"]


def test_an_empty_repeatable_is_omitted() -> None:
    form, lists = parse_form_lists(b"grant_type=x&resource=", KNOWN, REPEATABLE)
    assert (form, lists) == ({"grant_type": "x"}, {})
    assert to_struct(form, TokenRequest).resource == []


@pytest.mark.parametrize("name", ["scope", "grant_type", "subject_token"])
def test_other_parameters_still_may_not_repeat(name: str) -> None:
    with pytest.raises(InvalidRequest):
        parse_form_lists(f"{name}=a&{name}=b".encode(), KNOWN, REPEATABLE)


def test_without_repeatable_names_resource_may_not_repeat() -> None:
    with pytest.raises(InvalidRequest):
        parse_form_body(b"resource=urn%3Aa&resource=urn%3Ab", KNOWN)
