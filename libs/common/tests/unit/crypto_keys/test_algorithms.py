"""A key per algorithm: RS256 at the top of the key directory, PS256, ES256 and
EdDSA in sub-directories named by the algorithm; each signs with its own schedule, every
key is published with its ``alg``, and verification lets the key decide the algorithm."""

from __future__ import annotations

import base64
import io
import json
import warnings
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from joserfc import jws
from joserfc.jwk import KeySet as JoseKeySet

from idp_common.config import Settings
from idp_common.crypto.jwt import InvalidToken, sign_jwt, verify_jwt, verify_signature
from idp_common.crypto.keys import (
    KeySet,
    KeySetError,
    SigningKey,
    algorithm_directory,
    generate_key_file,
    load_key_set,
)
from idp_common.operations import key_commands
from idp_common.protocol.constants import SIGNING_ALGORITHMS
from idp_common.web.key_ring import directory_fingerprint
from libs.common.tests.unit.crypto_keys.support import KEY_A, KEY_B, pkcs8

T0 = datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC)
ISSUER = "https://idp.example.test"
EC_KEY = ec.generate_private_key(ec.SECP256R1())
ED_KEY = ed25519.Ed25519PrivateKey.generate()
PRIVATE_KEYS: dict[str, PrivateKeyTypes] = {
    "RS256": KEY_A,
    "PS256": KEY_B,
    "ES256": EC_KEY,
    "EdDSA": ED_KEY,
}
KEYS = KeySet(tuple(SigningKey.from_private_key(f"{a}.pem", k, a) for a, k in PRIVATE_KEYS.items()))


def pem(key: PrivateKeyTypes) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def key_dir(tmp_path: Path, algorithms: tuple[str, ...] = SIGNING_ALGORITHMS) -> Path:
    for alg in algorithms:
        place = algorithm_directory(tmp_path, alg)
        place.mkdir(exist_ok=True)
        (place / "a.pem").write_bytes(pem(PRIVATE_KEYS[alg]))
    return tmp_path


def test_every_algorithm_is_read_from_its_place_and_published_with_its_alg(
    tmp_path: Path,
) -> None:
    key_set = load_key_set(key_dir(tmp_path))
    assert key_set.algorithms == frozenset(SIGNING_ALGORITHMS)
    jwks = key_set.jwks()["keys"]
    assert [(k["alg"], k["kty"]) for k in jwks] == [
        ("RS256", "RSA"),
        ("PS256", "RSA"),
        ("ES256", "EC"),
        ("EdDSA", "OKP"),
    ]
    assert jwks[2]["crv"] == "P-256"
    assert jwks[3]["crv"] == "Ed25519"
    for jwk in jwks:
        assert jwk["use"] == "sig"
        assert "d" not in jwk
        # kid = RFC 7638 thumbprint, as joserfc computes it independently
        assert JoseKeySet.import_key_set({"keys": [jwk]}).keys[0].thumbprint() == jwk["kid"]


def test_a_directory_of_rs256_files_only_holds_rs256(tmp_path: Path) -> None:
    (tmp_path / "a.pem").write_bytes(pkcs8(KEY_A))
    (tmp_path / "unrelated").mkdir()  # another sub-directory is ignored
    key_set = load_key_set(tmp_path)
    assert key_set.algorithms == {"RS256"}
    with pytest.raises(KeySetError, match="no ES256 signing key"):
        sign_jwt({"a": 1}, key_set, alg="ES256")


def test_no_rs256_key_is_refused(tmp_path: Path) -> None:
    key_dir(tmp_path, ("ES256",))
    with pytest.raises(KeySetError, match="no signing key"):
        load_key_set(tmp_path)
    only_ec = SigningKey.from_private_key("e.pem", EC_KEY, "ES256")
    with pytest.raises(KeySetError, match="no RS256 signing key"):
        KeySet((only_ec,))


@pytest.mark.parametrize(
    ("alg", "make", "message"),
    [
        pytest.param("ES256", lambda: KEY_A, "is not an EC P-256 private key", id="rsa-in-es256"),
        pytest.param(
            "ES256",
            lambda: ec.generate_private_key(ec.SECP384R1()),
            "secp384r1 is not an EC P-256 private key",
            id="p384-in-es256",
        ),
        pytest.param("EdDSA", lambda: EC_KEY, "is not an Ed25519 private key", id="ec-in-eddsa"),
        pytest.param(
            "EdDSA",
            ed448.Ed448PrivateKey.generate,
            "is not an Ed25519 private key",
            id="ed448-in-eddsa",
        ),
        pytest.param("PS256", lambda: ED_KEY, "is not an RSA private key", id="ed-in-ps256"),
        pytest.param("RS256", lambda: EC_KEY, "is not an RSA private key", id="ec-at-top"),
    ],
)
def test_a_key_of_the_wrong_type_for_its_place_names_the_file(
    tmp_path: Path, alg: str, make: Callable[[], PrivateKeyTypes], message: str
) -> None:
    (tmp_path / "0-good.pem").write_bytes(pkcs8(KEY_A))
    place = algorithm_directory(tmp_path, alg)
    place.mkdir(exist_ok=True)
    bad = place / "z-bad.pem"
    bad.write_bytes(pem(make()))
    with pytest.raises(KeySetError) as info:
        load_key_set(tmp_path)
    assert str(bad) in str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize("alg", SIGNING_ALGORITHMS)
def test_sign_and_verify_round_trip_per_algorithm(alg: str) -> None:
    claims = {"iss": ISSUER, "aud": "api", "exp": 2_000_000_000, "sub": "x"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # joserfc's EdDSA deprecation warning is not raised
        token = sign_jwt(claims, KEYS, alg=alg, typ="at+jwt")
        header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
        signer = KEYS.by_algorithm[alg][0]
        assert header == {"alg": alg, "kid": signer.kid, "typ": "at+jwt"}
        assert verify_jwt(token, KEYS, issuer=ISSUER, audience="api", now=1) == claims
    # and with the published JWKS alone, by joserfc directly (which warns on EdDSA)
    published = JoseKeySet.import_key_set(KEYS.jwks())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jws.deserialize_compact(token, published, algorithms=[alg]).payload


@pytest.mark.parametrize(
    ("token_alg", "forged_alg"),
    [("PS256", "RS256"), ("RS256", "PS256"), ("ES256", "EdDSA"), ("EdDSA", "ES256")],
)
def test_a_header_alg_other_than_its_keys_is_refused(token_alg: str, forged_alg: str) -> None:
    """RFC 8725 §3.1: the key that kid names fixes the algorithm, not the header."""
    token = sign_jwt({"a": 1}, KEYS, alg=token_alg)
    _, payload, signature = token.split(".")
    kid = KEYS.by_algorithm[token_alg][0].kid
    forged = f"{b64({'alg': forged_alg, 'kid': kid})}.{payload}.{signature}"
    with pytest.raises(InvalidToken, match="algorithm does not match the key"):
        verify_signature(forged, KEYS)


@pytest.mark.parametrize("alg", ["none", "HS256", "RS384", "ES384", "Ed25519"])
def test_other_algorithms_stay_refused(alg: str) -> None:
    token = sign_jwt({"a": 1}, KEYS, alg="ES256")
    _, payload, signature = token.split(".")
    kid = KEYS.by_algorithm["ES256"][0].kid
    with pytest.raises(InvalidToken, match="unsupported algorithm"):
        verify_signature(f"{b64({'alg': alg, 'kid': kid})}.{payload}.{signature}", KEYS)


def test_each_algorithm_has_its_own_schedule(tmp_path: Path) -> None:
    (tmp_path / "a.pem").write_bytes(pkcs8(KEY_A))
    first = generate_key_file(tmp_path, now=T0, alg="ES256")
    second = generate_key_file(tmp_path, now=T0 + timedelta(hours=1), alg="ES256")
    assert first.parent == second.parent == tmp_path / "ES256"
    key_set = load_key_set(tmp_path)
    assert key_set.signing_key_at(T0.timestamp() + 60, "ES256").file_name == str(first)
    assert key_set.signing_key_at(T0.timestamp() + 3600, "ES256").file_name == str(second)
    assert key_set.signing_key_at(T0.timestamp() + 3600).file_name == str(tmp_path / "a.pem")
    assert [k["alg"] for k in key_set.jwks()["keys"]] == ["RS256", "ES256", "ES256"]


def test_the_re_reading_sees_a_key_added_to_a_sub_directory(tmp_path: Path) -> None:
    (tmp_path / "a.pem").write_bytes(pkcs8(KEY_A))
    before = directory_fingerprint(tmp_path)
    generate_key_file(tmp_path, now=T0, alg="EdDSA")
    after = directory_fingerprint(tmp_path)
    assert after != before
    assert after[-1][0] == "EdDSA/20261126T100000Z.pem"


def test_generate_and_rotate_take_the_algorithm(tmp_path: Path) -> None:
    settings = Settings(key_dir=str(tmp_path / "keys"))
    out = io.StringIO()
    key_commands.generate(settings, now=T0, bits=2048, if_missing=True, out=out)
    key_commands.generate(settings, now=T0, bits=2048, if_missing=True, out=out, alg="ES256")
    key_commands.generate(settings, now=T0, bits=2048, if_missing=True, out=out, alg="ES256")
    assert "1 ES256 key file(s)" in out.getvalue().splitlines()[-1]
    later = T0 + timedelta(hours=1)
    key_commands.rotate(
        settings, clock=lambda: later, bits=2048, lead=None, dry_run=False, out=out, alg="ES256"
    )
    key_set = load_key_set(settings.key_dir)
    assert [len(key_set.by_algorithm[a]) for a in ("RS256", "ES256")] == [1, 2]
    assert sorted(p.name for p in (tmp_path / "keys" / "ES256").iterdir()) == [
        "20261126T100000Z.pem",
        "20261126T110515Z.pem",
    ]
    listing = io.StringIO()
    key_commands.list_keys(settings, now=later, out=listing)
    lines = listing.getvalue().splitlines()
    assert len(lines) == 3
    assert "/ES256/20261126T110515Z.pem" in lines[2]
    assert "next" in lines[2]


def test_rsa_keys_of_ps256_are_published_as_ps256_only() -> None:
    ps = SigningKey.from_private_key("p.pem", KEY_A, "PS256")
    rs = SigningKey.from_private_key("r.pem", KEY_A)
    assert ps.public_jwk["alg"] == "PS256"
    # the same RSA key has one thumbprint: one key serves one algorithm at a time
    assert ps.kid == rs.kid
    with pytest.raises(KeySetError, match="holds the same key"):
        KeySet((rs, ps))


def test_an_unknown_algorithm_has_no_place() -> None:
    assert isinstance(KEY_A, rsa.RSAPrivateKey)
    with pytest.raises(ValueError, match="unsupported signing algorithm"):
        algorithm_directory("/x", "HS256")
