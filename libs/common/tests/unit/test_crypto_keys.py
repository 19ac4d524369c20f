"""Unit tests of idp_common.crypto.keys (spec part 5 "Signing keys")."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from joserfc import jwt as jose_jwt

from idp_common.crypto.keys import (
    KeySet,
    KeySetError,
    SigningKey,
    generate_key_file,
    load_key_set,
    load_signing_key,
)
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint

# Generated once per module: RSA key generation is the slow part of these tests.
KEY_A = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY_B = rsa.generate_private_key(public_exponent=65537, key_size=2048)

PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth"}


def pkcs8(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def pkcs1(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )


def b64url_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def independent_thumbprint(key: rsa.RSAPrivateKey) -> str:
    """RFC 7638 §3, written out again without the module under test."""
    numbers = key.public_key().public_numbers()
    text = f'{{"e":"{b64url_uint(numbers.e)}","kty":"RSA","n":"{b64url_uint(numbers.n)}"}}'
    digest = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


# --- RFC 7638 thumbprint ------------------------------------------------------------------

RFC7638_EXAMPLE = {
    "kty": "RSA",
    "n": (
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP"
        "ebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY"
        "368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f"
        "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
    ),
    "e": "AQAB",
    "alg": "RS256",
    "kid": "2011-04-29",
}


def test_thumbprint_matches_rfc7638_section_3_1_example() -> None:
    assert rfc7638_thumbprint(RFC7638_EXAMPLE) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def test_thumbprint_ignores_optional_and_private_members() -> None:
    bare = {k: RFC7638_EXAMPLE[k] for k in ("kty", "n", "e")}
    assert rfc7638_thumbprint(bare) == rfc7638_thumbprint({**RFC7638_EXAMPLE, "d": "x"})


def test_thumbprint_refuses_non_rsa() -> None:
    with pytest.raises(ValueError, match="RSA"):
        rfc7638_thumbprint({"kty": "EC", "crv": "P-256", "x": "a", "y": "b"})


# --- SigningKey and KeySet -----------------------------------------------------------------


def test_kid_is_the_rfc7638_thumbprint_of_the_public_key() -> None:
    signing_key = SigningKey.from_private_key("a.pem", KEY_A)
    assert signing_key.kid == independent_thumbprint(KEY_A)
    assert signing_key.key.kid == signing_key.kid
    # joserfc's own thumbprint agrees
    assert signing_key.public_key.thumbprint() == signing_key.kid


def test_public_jwk_has_no_private_member() -> None:
    jwk = SigningKey.from_private_key("a.pem", KEY_A).public_jwk
    assert set(jwk) == {"kty", "n", "e", "kid", "use", "alg"}
    assert jwk["kty"] == "RSA"
    assert jwk["use"] == "sig"
    assert jwk["alg"] == "RS256"
    numbers = KEY_A.public_key().public_numbers()
    assert jwk["n"] == b64url_uint(numbers.n)
    assert jwk["e"] == "AQAB"


def make_key_set() -> KeySet:
    return KeySet(
        (SigningKey.from_private_key("a.pem", KEY_A), SigningKey.from_private_key("b.pem", KEY_B))
    )


def test_newest_key_signs_and_all_are_published() -> None:
    key_set = make_key_set()
    assert key_set.signing_key.file_name == "b.pem"
    jwks = key_set.jwks()
    assert [k["kid"] for k in jwks["keys"]] == [
        independent_thumbprint(KEY_B),
        independent_thumbprint(KEY_A),
    ]
    for jwk in jwks["keys"]:
        assert not PRIVATE_MEMBERS & set(jwk)
        assert jwk["use"] == "sig"
        assert jwk["alg"] == "RS256"
    # the document is plain JSON
    assert json.loads(json.dumps(jwks)) == jwks


def test_find_by_kid() -> None:
    key_set = make_key_set()
    kid_a = independent_thumbprint(KEY_A)
    found = key_set.find(kid_a)
    assert found is not None
    assert found.file_name == "a.pem"
    assert key_set.find("no-such-kid") is None


def test_public_key_set_verifies_and_holds_no_private_key() -> None:
    key_set = make_key_set()
    public = key_set.public_key_set()
    assert {k.kid for k in public} == {independent_thumbprint(KEY_A), independent_thumbprint(KEY_B)}
    assert not any(k.is_private for k in public)
    token = jose_jwt.encode(
        {"alg": "RS256", "kid": key_set.signing_key.kid}, {"x": 1}, key_set.signing_key.key
    )
    assert jose_jwt.decode(token, public, algorithms=["RS256"]).claims == {"x": 1}


def test_empty_key_set_refused() -> None:
    with pytest.raises(KeySetError, match="empty"):
        KeySet(())


def test_same_key_twice_refused() -> None:
    with pytest.raises(KeySetError, match=r"b\.pem: holds the same key as a\.pem"):
        KeySet(
            (
                SigningKey.from_private_key("a.pem", KEY_A),
                SigningKey.from_private_key("b.pem", KEY_A),
            )
        )


# --- load_key_set --------------------------------------------------------------------------


def test_load_orders_by_file_name_and_newest_signs(tmp_path: Path) -> None:
    (tmp_path / "20260102T000000Z.pem").write_bytes(pkcs8(KEY_A))
    (tmp_path / "20250101T000000Z.pem").write_bytes(pkcs1(KEY_B))  # PKCS#1 is accepted too
    (tmp_path / "README.txt").write_text("not a key")
    (tmp_path / ".hidden.pem").write_text("ignored")
    (tmp_path / "sub.pem").mkdir()  # a directory is ignored

    key_set = load_key_set(tmp_path)

    assert [Path(k.file_name).name for k in key_set.keys] == [
        "20250101T000000Z.pem",
        "20260102T000000Z.pem",
    ]
    assert key_set.signing_key.kid == independent_thumbprint(KEY_A)
    assert key_set.keys[0].kid == independent_thumbprint(KEY_B)


def test_load_accepts_str_path(tmp_path: Path) -> None:
    (tmp_path / "k.pem").write_bytes(pkcs8(KEY_A))
    assert load_key_set(str(tmp_path)).signing_key.kid == independent_thumbprint(KEY_A)


def test_missing_directory_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(KeySetError, match="does not exist") as info:
        load_key_set(missing)
    assert str(missing) in str(info.value)


def test_directory_without_key_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(KeySetError, match="no signing key"):
        load_key_set(tmp_path)


def ec_pem() -> bytes:
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def small_rsa_pem() -> bytes:
    return pkcs8(rsa.generate_private_key(public_exponent=65537, key_size=1024))  # noqa: S505 - must be refused


def encrypted_pem() -> bytes:
    return KEY_A.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret"),
    )


def public_only_pem() -> bytes:
    return KEY_A.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(lambda: b"not a pem at all", "not a readable PEM private key", id="garbage"),
        pytest.param(lambda: b"", "not a readable PEM private key", id="empty"),
        pytest.param(public_only_pem, "not a readable PEM private key", id="public-key"),
        pytest.param(ec_pem, "not an RSA private key", id="ec-key"),
        pytest.param(small_rsa_pem, "1024 bits is too small", id="rsa-1024"),
        pytest.param(encrypted_pem, "encrypted keys are not supported", id="encrypted"),
    ],
)
def test_bad_key_file_refused_naming_the_file(
    tmp_path: Path, content: Callable[[], bytes], message: str
) -> None:
    (tmp_path / "a-good.pem").write_bytes(pkcs8(KEY_A))
    bad = tmp_path / "b-bad.pem"
    bad.write_bytes(content())
    with pytest.raises(KeySetError) as info:
        load_key_set(tmp_path)
    assert str(bad) in str(info.value)
    assert message in str(info.value)


def test_load_signing_key_names_the_file() -> None:
    with pytest.raises(KeySetError, match=r"^some/file\.pem: "):
        load_signing_key("some/file.pem", b"junk")


# --- generate_key_file ---------------------------------------------------------------------

NOW = datetime(2026, 11, 21, 6, 35, 0, tzinfo=UTC)


def test_generate_creates_private_directory_and_file(tmp_path: Path) -> None:
    directory = tmp_path / "keys" / "nested"
    path = generate_key_file(directory, now=NOW, bits=2048)

    assert path == directory / "20261121T063500Z.pem"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    key_set = load_key_set(directory)
    assert key_set.signing_key.file_name == str(path)
    assert list(directory.iterdir()) == [path]  # no temporary file left behind


def test_generate_uses_utc_for_the_name(tmp_path: Path) -> None:
    plus_two = timezone(timedelta(hours=2))
    path = generate_key_file(
        tmp_path, now=datetime(2026, 11, 21, 8, 35, tzinfo=plus_two), bits=2048
    )
    assert path.name == "20261121T063500Z.pem"


def test_generated_names_sort_in_creation_order(tmp_path: Path) -> None:
    first = generate_key_file(tmp_path, now=NOW, bits=2048)
    same_second = generate_key_file(tmp_path, now=NOW, bits=2048)
    later = generate_key_file(tmp_path, now=NOW + timedelta(seconds=1), bits=2048)

    assert same_second.name == "20261121T063500Z_001.pem"
    key_set = load_key_set(tmp_path)
    assert [k.file_name for k in key_set.keys] == [str(first), str(same_second), str(later)]
    assert key_set.signing_key.file_name == str(later)


def test_generate_refuses_when_an_existing_key_would_stay_newest(tmp_path: Path) -> None:
    (tmp_path / "zzz.pem").write_bytes(pkcs8(KEY_A))
    with pytest.raises(KeySetError, match=r"zzz\.pem"):
        generate_key_file(tmp_path, now=NOW, bits=2048)


def test_generate_refuses_naive_time_and_small_keys(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timezone"):
        generate_key_file(tmp_path, now=datetime(2026, 1, 1), bits=2048)
    with pytest.raises(ValueError, match="2048"):
        generate_key_file(tmp_path, now=NOW, bits=1024)
