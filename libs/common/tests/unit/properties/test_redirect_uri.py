"""Properties of redirect-URI matching (RFC 6749 §3.1.2.3, ``match_redirect_uri``): a
redirect URI is accepted only when it equals a registered one character for character;
no case, trailing-slash, port, query or encoding leniency."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idp_common.protocol.oidc_authorize import (
    UntrustedRequest,
    match_redirect_uri,
    with_query,
)
from libs.common.tests.unit.properties.support import FAST

URIS = st.sampled_from(
    [
        "https://app.example/cb",
        "https://app.example/cb?x=1",
        "http://127.0.0.1:8123/callback",
        "com.example.app:/oauth",
    ]
)
ANY_URI = URIS | st.text(max_size=40)
#: Near misses of a registered URI: what a lenient comparison would accept.
NEAR = [
    lambda u: u + "/",
    lambda u: u.upper(),
    lambda u: u.replace("/cb", "/%63b"),
    lambda u: u + "#",
    lambda u: u + "?",
    lambda u: u.replace("https://app.example", "https://app.example:443"),
    lambda u: " " + u,
    lambda u: u + "\n",
]


@FAST
@given(st.lists(ANY_URI, max_size=4), st.none() | ANY_URI)
def test_the_answer_is_the_given_uri_exactly_when_it_is_registered(
    registered: list[str], given_uri: str | None
) -> None:
    try:
        accepted = match_redirect_uri(registered, given_uri)
    except UntrustedRequest:
        assert not given_uri or given_uri not in registered
    else:
        assert accepted == given_uri and given_uri in registered


@FAST
@given(URIS, st.sampled_from(NEAR))
def test_a_near_miss_of_a_registered_uri_is_refused(registered: str, near: object) -> None:
    candidate = near(registered)  # type: ignore[operator]
    if candidate == registered:
        return
    with pytest.raises(UntrustedRequest):
        match_redirect_uri([registered], candidate)


@FAST
@given(URIS, st.dictionaries(st.text(min_size=1, max_size=8), st.none() | st.text(max_size=12)))
def test_parameters_added_to_a_redirect_uri_read_back_and_keep_its_own(
    uri: str, params: dict[str, str | None]
) -> None:
    result = urlsplit(with_query(uri, params))
    original = urlsplit(uri)
    assert (result.scheme, result.netloc, result.path) == (
        original.scheme,
        original.netloc,
        original.path,
    )
    pairs = parse_qsl(result.query, keep_blank_values=True)
    own = parse_qsl(original.query, keep_blank_values=True)
    assert pairs[: len(own)] == own
    assert dict(pairs[len(own) :]) == {k: v for k, v in params.items() if v is not None}
