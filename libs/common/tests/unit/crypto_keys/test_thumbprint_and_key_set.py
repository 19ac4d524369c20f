"""idp_common.crypto.keys: RFC 7638 thumbprints as kids, public JWKs, the key set."""

from __future__ import annotations

import json

import pytest
from joserfc import jwt as jose_jwt

from idp_common.crypto.keys import (
    KeySet,
    KeySetError,
    SigningKey,
)
from idp_common.protocol.rfc7517_jwk import rfc7638_thumbprint
from libs.common.tests.unit.crypto_keys.support import (
    KEY_A,
    KEY_B,
    PRIVATE_MEMBERS,
    RFC7638_EXAMPLE,
    b64url_uint,
    independent_thumbprint,
    make_key_set,
)


def test_thumbprint_matches_rfc7638_section_3_1_example() -> None:
    assert rfc7638_thumbprint(RFC7638_EXAMPLE) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def test_thumbprint_ignores_optional_and_private_members() -> None:
    bare = {k: RFC7638_EXAMPLE[k] for k in ("kty", "n", "e")}
    assert rfc7638_thumbprint(bare) == rfc7638_thumbprint({**RFC7638_EXAMPLE, "d": "x"})


def test_thumbprint_refuses_other_key_types() -> None:
    with pytest.raises(ValueError, match="RSA, EC and OKP"):
        rfc7638_thumbprint({"kty": "oct", "k": "a"})


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
