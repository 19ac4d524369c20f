"""RFC 9449 proof rules (``idp_common.protocol.rfc9449_dpop``), without HTTP: proofs are
signed by the tests' client-side builder (``tests.harness.dpop``, joserfc)."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping

import pytest

from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint
from idp_common.protocol.rfc9449_dpop import (
    IAT_WINDOW_SECONDS,
    NONCE_PERIOD_SECONDS,
    DpopRefusedAtResource,
    InvalidDpopProof,
    UseDpopNonce,
    acceptable_nonces,
    access_token_hash,
    bound_jkt,
    dpop_challenge,
    dpop_nonce,
    normalize_htu,
    parse_dpop_jkt,
    single_proof,
    verify_proof,
)
from tests.harness.dpop import DpopKey, b64url

URL = "https://id.example.com/oauth2/token"
NOW = 1_800_000_000


@pytest.fixture(scope="module")
def key() -> DpopKey:
    return DpopKey.generate()


def _refused(proof: str, message: str, **kwargs: object) -> None:
    options: dict[str, object] = {"method": "POST", "url": URL, "now": NOW, **kwargs}
    with pytest.raises(InvalidDpopProof, match=message):
        verify_proof(proof, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("alg", ["ES256", "RS256", "PS256", "EdDSA"])
def test_a_proof_of_each_algorithm_holds_and_names_its_key(alg: str) -> None:
    key = DpopKey.generate(alg)
    checked = verify_proof(
        key.proof("POST", URL, iat=NOW, jti="j1"), method="POST", url=URL, now=NOW
    )
    assert checked.jkt == key.jkt == rfc7638_thumbprint(key.public_jwk)
    assert (checked.jti, checked.iat, checked.htm) == ("j1", NOW, "POST")


def test_exactly_one_header() -> None:
    assert single_proof([]) is None
    assert single_proof([" a.b.c "]) == "a.b.c"
    for values in (["a.b.c", "a.b.c"], [""]):
        with pytest.raises(InvalidDpopProof, match="exactly one"):
            single_proof(values)


def test_typ_must_be_dpop_jwt(key: DpopKey) -> None:
    _refused(key.proof("POST", URL, iat=NOW, header={"typ": "JWT"}), "typ")
    _refused(key.proof("POST", URL, iat=NOW, header={"typ": None}), "typ")


def _unsigned(
    header: Mapping[str, object], claims: Mapping[str, object], signature: str = "c2ln"
) -> str:
    def part(value: Mapping[str, object]) -> str:
        return b64url(json.dumps(value).encode())

    return f"{part(header)}.{part(claims)}.{signature}"


def test_none_and_hmac_are_refused(key: DpopKey) -> None:
    claims = {"jti": "x", "htm": "POST", "htu": URL, "iat": NOW}
    for alg in ("none", "HS256", "ES384", "RS512"):
        header = {"typ": "dpop+jwt", "alg": alg, "jwk": key.public_jwk}
        _refused(_unsigned(header, claims), "alg is not supported")
    oct_key = {"kty": "oct", "k": b64url(b"secret" * 6)}
    _refused(_unsigned({"typ": "dpop+jwt", "alg": "ES256", "jwk": oct_key}, claims), "private")


def test_the_jwk_must_be_public_and_fit_the_alg(key: DpopKey) -> None:
    private = dict(key.key.as_dict(private=True))
    _refused(key.proof("POST", URL, iat=NOW, header={"jwk": private}), "private key")
    rsa = DpopKey.generate("RS256")
    _refused(key.proof("POST", URL, iat=NOW, header={"jwk": rsa.public_jwk}), "fit")
    _refused(key.proof("POST", URL, iat=NOW, header={"jwk": None}), "no jwk")


def test_the_signature_is_checked_with_the_header_key(key: DpopKey) -> None:
    other = DpopKey.generate()
    forged = key.proof("POST", URL, iat=NOW, header={"jwk": other.public_jwk})
    _refused(forged, "signature")
    head, body, sig = key.proof("POST", URL, iat=NOW).split(".")
    tampered = json.loads(base64.urlsafe_b64decode(body + "=="))
    tampered["htm"] = "GET"
    _refused(".".join((head, b64url(json.dumps(tampered).encode()), sig)), "signature")


def test_malformed_proofs() -> None:
    for proof in ("", "a.b", "a.b.c", "x" * 9000, "e30.e30.", "bm90IGpzb24.e30.c2ln"):
        _refused(proof, "DPoP proof")


def test_htm_must_be_the_method(key: DpopKey) -> None:
    _refused(key.proof("GET", URL, iat=NOW), "htm")
    _refused(key.proof("post", URL, iat=NOW), "htm")


@pytest.mark.parametrize(
    "htu",
    [
        "https://id.example.com/oauth2/token?x=1",
        "https://id.example.com/oauth2/token#f",
        "HTTPS://ID.EXAMPLE.COM/oauth2/token",
        "https://id.example.com:443/oauth2/token",
        "https://id.example.com/oauth2/%74oken",
    ],
)
def test_htu_matches_after_normalisation(key: DpopKey, htu: str) -> None:
    verify_proof(key.proof("POST", htu, iat=NOW), method="POST", url=URL, now=NOW)


@pytest.mark.parametrize(
    "htu",
    [
        "https://id.example.com/oauth2/userinfo",
        "http://id.example.com/oauth2/token",
        "https://id.example.com:8443/oauth2/token",
        "https://evil.example.com/oauth2/token",
        "https://id.example.com/OAUTH2/token",
        "/oauth2/token",
    ],
)
def test_htu_for_another_url_is_refused(key: DpopKey, htu: str) -> None:
    _refused(key.proof("POST", htu, iat=NOW), "htu")


def test_normalize_htu() -> None:
    assert normalize_htu("HTTP://A.example:80") == "http://a.example/"
    assert normalize_htu("https://[::1]:8443/p?q") == "https://[::1]:8443/p"
    assert normalize_htu("https://a.example/%7euser%2f") == "https://a.example/~user%2F"
    for bad in ("ftp://a.example/", "https:///p", "https://u:p@a.example/", "https://a:x/"):
        assert normalize_htu(bad) is None


def test_iat_window(key: DpopKey) -> None:
    for iat in (NOW - IAT_WINDOW_SECONDS, NOW + IAT_WINDOW_SECONDS):
        verify_proof(key.proof("POST", URL, iat=iat), method="POST", url=URL, now=NOW)
    for iat in (NOW - IAT_WINDOW_SECONDS - 1, NOW + IAT_WINDOW_SECONDS + 1):
        _refused(key.proof("POST", URL, iat=iat), "iat")
    _refused(key.proof("POST", URL, claims={"iat": "now"}), "iat")
    _refused(key.proof("POST", URL, claims={"iat": True}), "iat")


def test_jti_is_required(key: DpopKey) -> None:
    _refused(key.proof("POST", URL, iat=NOW, claims={"jti": None}), "no jti")
    _refused(key.proof("POST", URL, iat=NOW, claims={"jti": 7}), "no jti")
    _refused(key.proof("POST", URL, iat=NOW, jti="j" * 257), "too long")


def test_ath_binds_the_access_token(key: DpopKey) -> None:
    token = "eyJ.access.token"
    assert access_token_hash(token) == b64url(hashlib.sha256(token.encode()).digest())
    proof = key.proof("GET", URL, iat=NOW, access_token=token)
    verify_proof(proof, method="GET", url=URL, now=NOW, access_token=token)
    _refused(
        key.proof("GET", URL, iat=NOW, access_token="another"),
        "ath",
        method="GET",
        access_token=token,
    )
    _refused(key.proof("GET", URL, iat=NOW), "ath", method="GET", access_token=token)


def test_nonces_rotate_and_the_last_one_still_holds(key: DpopKey) -> None:
    secret = b"k" * 32
    current, previous = acceptable_nonces(secret, NOW)
    assert current != previous
    assert dpop_nonce(secret, NOW + NONCE_PERIOD_SECONDS, back=1) == current
    assert dpop_nonce(b"other" * 7, NOW) != current
    nonces = acceptable_nonces(secret, NOW)
    for accepted in (current, previous):
        verify_proof(
            key.proof("POST", URL, iat=NOW, nonce=accepted),
            method="POST",
            url=URL,
            now=NOW,
            nonces=nonces,
        )
    refused: tuple[str | None, ...] = (None, "wrong", dpop_nonce(secret, NOW, back=2))
    for nonce in refused:
        with pytest.raises(UseDpopNonce) as caught:
            verify_proof(
                key.proof("POST", URL, iat=NOW, nonce=nonce),
                method="POST",
                url=URL,
                now=NOW,
                nonces=nonces,
            )
        assert caught.value.headers == {"DPoP-Nonce": current}
        assert caught.value.to_body()["error"] == "use_dpop_nonce"
        assert caught.value.status_code == 400


def test_dpop_jkt_of_an_authorization_request(key: DpopKey) -> None:
    assert parse_dpop_jkt(None) is None
    assert parse_dpop_jkt(key.jkt) == key.jkt
    for bad in ("", "short", key.jkt + "A", key.jkt[:-1] + "=", key.jkt[:-1] + "+"):
        with pytest.raises(InvalidRequest, match="dpop_jkt"):
            parse_dpop_jkt(bad)


def test_bound_jkt() -> None:
    assert bound_jkt({"cnf": {"jkt": "abc"}}) == "abc"
    for claims in ({}, {"cnf": "abc"}, {"cnf": {"jkt": ""}}, {"cnf": {"x5t#S256": "a"}}):
        assert bound_jkt(claims) is None


def test_resource_refusals_are_401_with_a_dpop_challenge() -> None:
    refusal = DpopRefusedAtResource.of(InvalidDpopProof('bad "proof"'))
    assert refusal.status_code == 401
    assert refusal.to_body() == {"error": "invalid_dpop_proof", "error_description": "bad ?proof?"}
    assert refusal.headers["WWW-Authenticate"] == (
        'DPoP algs="RS256 PS256 ES256 EdDSA", error="invalid_dpop_proof", '
        'error_description="bad ?proof?"'
    )
    nonce = DpopRefusedAtResource.of(UseDpopNonce("n1"))
    assert nonce.headers["DPoP-Nonce"] == "n1"
    assert nonce.to_body()["error"] == "use_dpop_nonce"
    assert dpop_challenge() == 'DPoP algs="RS256 PS256 ES256 EdDSA"'
