"""RFC 7636: S256 only, verifier shape, constant-time comparison."""

from __future__ import annotations

import base64
import hashlib

import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest
from idp_common.protocol.rfc7636_pkce import requested_challenge, s256_challenge, verify_pkce

VERIFIER = "dBjftJeZ4CVP-mJ92K27uhbUJU1p1r_wW1gFWFOEjXk"
CHALLENGE = (
    base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
)


def test_s256() -> None:
    assert s256_challenge(VERIFIER) == CHALLENGE
    verify_pkce(VERIFIER, CHALLENGE, "S256")


@pytest.mark.parametrize(
    ("verifier", "challenge", "method"),
    [
        (None, CHALLENGE, "S256"),
        ("", CHALLENGE, "S256"),
        (VERIFIER[:-1] + "Y", CHALLENGE, "S256"),
        ("a" * 42, s256_challenge("a" * 42), "S256"),
        ("a" * 129, s256_challenge("a" * 129), "S256"),
        ("a" * 42 + "!", s256_challenge("a" * 42 + "!"), "S256"),
        (VERIFIER, VERIFIER, "plain"),
        (VERIFIER, CHALLENGE, None),
    ],
)
def test_refusals(verifier: str | None, challenge: str, method: str | None) -> None:
    with pytest.raises(InvalidGrant):
        verify_pkce(verifier, challenge, method)


@pytest.mark.parametrize(
    ("challenge", "method", "ok"),
    [
        (CHALLENGE, "S256", True),
        (CHALLENGE, "plain", False),
        (CHALLENGE, None, False),
        (None, "S256", False),
        ("short", "S256", False),
        (CHALLENGE + "=", "S256", False),
    ],
)
def test_requested_challenge(challenge: str | None, method: str | None, ok: bool) -> None:
    if ok:
        assert requested_challenge(challenge, method, required=True) == (CHALLENGE, "S256")
    else:
        with pytest.raises(InvalidRequest):
            requested_challenge(challenge, method, required=True)


def test_a_confidential_client_may_leave_pkce_out() -> None:
    assert requested_challenge(None, None, required=False) is None
    with pytest.raises(InvalidRequest, match="PKCE code_challenge is required"):
        requested_challenge(None, None, required=True)
    with pytest.raises(InvalidRequest, match="code_challenge_method without code_challenge"):
        requested_challenge(None, "S256", required=False)
