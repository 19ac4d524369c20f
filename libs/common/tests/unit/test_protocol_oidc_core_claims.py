"""Pure claims of OpenID Connect Core 1.0: ``sid``, ``at_hash``, the ID token's claims."""

from __future__ import annotations

import hashlib

import pytest

from idp_common.protocol.oidc_core_claims import at_hash, digest, id_token_claims, session_sid
from idp_common.protocol.rfc4648_base64url import base64url_encode


def test_sid_is_the_base64url_sha256_of_the_session_id() -> None:
    expected = base64url_encode(hashlib.sha256(b"cookie-value").digest())
    assert session_sid("cookie-value") == expected and len(expected) == 43


def test_at_hash_is_the_left_half_of_sha256() -> None:
    # OIDC Core §3.1.3.6 with the access token of the specification's examples.
    assert at_hash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ"


@pytest.mark.parametrize(
    ("alg", "hash_name"),
    [("RS256", "sha256"), ("PS256", "sha256"), ("ES256", "sha256"), ("EdDSA", "sha512")],
)
def test_at_hash_follows_the_id_token_algorithm(alg: str, hash_name: str) -> None:
    """OIDC Core errata set 2 §3.1.3.6: EdDSA with Ed25519 hashes with SHA-512."""
    full = hashlib.new(hash_name, b"token").digest()
    assert at_hash("token", alg) == base64url_encode(full[: len(full) // 2])
    assert id_token_claims(
        issuer="https://idp",
        subject="u",
        client_id="c",
        now=1,
        ttl=1,
        auth_time=1,
        acr="a",
        amr=(),
        access_token="token",
        alg=alg,
    )["at_hash"] == at_hash("token", alg)


def test_digest_is_sha256_of_the_secret() -> None:
    assert digest("s") == hashlib.sha256(b"s").digest()


def test_id_token_claims() -> None:
    claims = id_token_claims(
        issuer="https://idp",
        subject="u1",
        client_id="app",
        now=100,
        ttl=60,
        auth_time=90,
        acr="a",
        amr=("pwd",),
        nonce="n",
        sid="s",
        access_token="jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y",
        extra={"email": "e@x", "sub": "forged"},
    )
    assert claims["aud"] == claims["azp"] == "app"
    assert (claims["iat"], claims["exp"], claims["auth_time"]) == (100, 160, 90)
    assert claims["amr"] == ["pwd"] and claims["nonce"] == "n" and claims["sid"] == "s"
    assert claims["at_hash"] == "77QmUPtjPfzWtF2AnpK9RQ"
    assert claims["email"] == "e@x" and claims["sub"] == "u1"  # extra never overrides


def test_optional_claims_are_left_out() -> None:
    claims = id_token_claims(
        issuer="i", subject="u", client_id="c", now=0, ttl=1, auth_time=0, acr="a", amr=[]
    )
    assert not {"nonce", "sid", "at_hash"} & claims.keys()
