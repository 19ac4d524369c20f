"""RFC 9110 §13.1.2 If-None-Match (weak comparison) and the JWKS entity tag."""

from __future__ import annotations

import pytest

from token_service.protocol.rfc9110_conditional import entity_tag, none_match

TAG = entity_tag(b'{"keys":[]}')


def test_the_tag_is_quoted_and_follows_the_bytes() -> None:
    assert TAG.startswith('"') and TAG.endswith('"') and len(TAG) == 24
    assert entity_tag(b'{"keys":[]}') == TAG
    assert entity_tag(b'{"keys":[1]}') != TAG


@pytest.mark.parametrize(
    "header",
    [TAG, f"W/{TAG}", f'"other", {TAG}', f' "a" ,W/{TAG} ', "*", " * "],
)
def test_a_named_tag_or_a_star_matches(header: str) -> None:
    assert none_match(header, TAG)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        '"other"',
        TAG.strip('"'),
        f"{TAG[:-1]}",
        '""',
        "W/",
        ",,",
        f"{TAG}x",
        '"x",' * 2000,  # as long as the proxy lets a header be: still no match, no error
        "\x00\n" + TAG,
    ],
)
def test_anything_else_matches_nothing(header: str | None) -> None:
    assert not none_match(header, TAG)
