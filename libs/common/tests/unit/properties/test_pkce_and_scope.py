"""Properties of PKCE (RFC 7636) and of the ``scope`` parameter (RFC 6749 §3.3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest, InvalidScope
from idp_common.protocol.rfc6749_scope import (
    MAX_SCOPE_LENGTH,
    format_scope,
    narrow_scope,
    parse_scope,
)
from idp_common.protocol.rfc7636_pkce import requested_challenge, s256_challenge, verify_pkce
from libs.common.tests.unit.properties.support import FAST

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
VERIFIER = st.text(UNRESERVED, min_size=43, max_size=128)
VERIFIER_RULE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
SCOPE_CHARS = "".join(chr(c) for c in [0x21, *range(0x23, 0x5C), *range(0x5D, 0x7F)])
SCOPE_TOKEN = st.text(SCOPE_CHARS, min_size=1, max_size=10)


@FAST
@given(VERIFIER)
def test_a_verifier_matches_its_own_s256_challenge(verifier: str) -> None:
    challenge = s256_challenge(verifier)
    assert requested_challenge(challenge, "S256", required=True) == (challenge, "S256")
    verify_pkce(verifier, challenge, "S256")


@FAST
@given(VERIFIER, VERIFIER)
def test_another_verifier_is_refused(verifier: str, other: str) -> None:
    if other == verifier:
        return
    with pytest.raises(InvalidGrant):
        verify_pkce(other, s256_challenge(verifier), "S256")


@FAST
@given(
    st.text(max_size=200)
    | st.text(UNRESERVED, max_size=42)
    | st.text(UNRESERVED, min_size=129, max_size=140)
)
def test_a_verifier_outside_43_to_128_unreserved_characters_is_always_refused(
    verifier: str,
) -> None:
    if VERIFIER_RULE.fullmatch(verifier):
        return
    # Even against the challenge of the very same string, if it could be hashed at all.
    challenge = s256_challenge(verifier) if verifier.isascii() else "x" * 43
    with pytest.raises(InvalidGrant):
        verify_pkce(verifier, challenge, "S256")


@FAST
@given(VERIFIER, st.none() | st.text(max_size=8))
def test_only_the_s256_method_is_accepted(verifier: str, method: str | None) -> None:
    if method == "S256":
        return
    challenge = s256_challenge(verifier)
    with pytest.raises(InvalidGrant):
        verify_pkce(verifier, challenge, method)
    with pytest.raises(InvalidRequest):
        requested_challenge(challenge, method, required=False)


@FAST
@given(st.text(max_size=60))
def test_a_challenge_is_43_base64url_characters_or_refused(challenge: str) -> None:
    try:
        accepted = requested_challenge(challenge, "S256", required=True)
    except InvalidRequest:
        assert not re.fullmatch(r"[A-Za-z0-9_-]{43}", challenge)
    else:
        assert accepted == (challenge, "S256")
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", challenge)


@FAST
@given(st.lists(SCOPE_TOKEN, max_size=10), st.integers(1, 3))
def test_format_then_parse_is_the_list_without_duplicates(tokens: list[str], spaces: int) -> None:
    unique = list(dict.fromkeys(tokens))
    assert parse_scope(format_scope(tokens)) == unique
    assert parse_scope((" " * spaces).join(tokens)) == unique


@FAST
@given(st.text(max_size=300) | st.text(max_size=MAX_SCOPE_LENGTH + 50, alphabet="ab "))
def test_any_scope_value_is_tokens_of_the_rfc_set_or_invalid_scope(raw: str) -> None:
    try:
        scopes = parse_scope(raw)
    except InvalidScope:
        assert len(raw) > MAX_SCOPE_LENGTH or any(
            token and not set(token) <= set(SCOPE_CHARS) for token in raw.split(" ")
        )
        return
    assert len(raw) <= MAX_SCOPE_LENGTH
    assert scopes == list(dict.fromkeys(token for token in raw.split(" ") if token))
    assert all(set(token) <= set(SCOPE_CHARS) for token in scopes)


@FAST
@given(
    st.lists(SCOPE_TOKEN | st.sampled_from(["openid", "email"]), max_size=8),
    st.sets(SCOPE_TOKEN | st.sampled_from(["openid", "email"]), max_size=8),
    st.none() | st.sets(SCOPE_TOKEN, max_size=8),
)
def test_a_grant_never_widens_the_request(
    requested: list[str], client: set[str], user: set[str] | None
) -> None:
    granted = narrow_scope(requested, client, user)
    assert len(granted) == len(set(granted))
    assert set(granted) <= set(requested) & client
    oidc = {"openid", "profile", "email", "offline_access"}
    if user is not None:
        assert all(scope in oidc or scope in user for scope in granted)
    assert granted == [s for s in dict.fromkeys(requested) if s in granted]
