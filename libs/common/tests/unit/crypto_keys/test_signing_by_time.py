"""idp_common.crypto.keys: the key set signs with the key current at the token's time, and
new key files are refused only when they could never sign."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.key_schedule import key_file_stem
from idp_common.crypto.keys import (
    KeySet,
    KeySetError,
    SigningKey,
    generate_key_file,
    load_key_set,
    new_private_key_pem,
    write_key_file,
)
from libs.common.tests.unit.crypto_keys.support import KEY_A, KEY_B, NOW, pkcs8

KEY_C = rsa.generate_private_key(public_exponent=65537, key_size=2048)
T = NOW.timestamp()


def timed(offset: int, key: rsa.RSAPrivateKey) -> SigningKey:
    return SigningKey.from_private_key(f"{key_file_stem(NOW + timedelta(seconds=offset))}.pem", key)


OLD, CURRENT, NEXT = timed(-3600, KEY_A), timed(0, KEY_B), timed(300, KEY_C)
ROTATING = KeySet((OLD, CURRENT, NEXT))


@pytest.mark.parametrize(
    ("now", "signer"),
    [
        (T - 3601, OLD),  # before every time: the oldest
        (T - 1, OLD),
        (T, CURRENT),
        (T + 299.999, CURRENT),
        (T + 300, NEXT),
        (T + 10**6, NEXT),
    ],
)
def test_the_key_current_at_the_time_signs(now: float, signer: SigningKey) -> None:
    assert ROTATING.signing_key_at(now) is signer


def test_the_answer_follows_the_clock_both_ways() -> None:
    """The window kept for the hot path is left when the time leaves it, also backwards."""
    key_set = KeySet((OLD, CURRENT, NEXT))
    sequence = [T + 1, T + 301, T + 2, T - 10, T + 400, T + 150]
    expected = [CURRENT, NEXT, CURRENT, OLD, NEXT, CURRENT]
    assert [key_set.signing_key_at(t) for t in sequence] == expected


def test_sign_jwt_uses_the_key_of_the_token_time() -> None:
    before = sign_jwt({"iat": int(T + 299)}, ROTATING, now=T + 299)
    after = sign_jwt({"iat": int(T + 300)}, ROTATING, now=T + 300)
    assert [_kid(before), _kid(after)] == [CURRENT.kid, NEXT.kid]


def _kid(token: str) -> str:
    segment = token.split(".", maxsplit=1)[0]
    header = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    return str(header["kid"])


def test_every_key_is_published_next_ones_included() -> None:
    kids = [jwk["kid"] for jwk in ROTATING.jwks()["keys"]]
    assert kids == [NEXT.kid, CURRENT.kid, OLD.kid]  # newest first


def test_hand_named_keys_keep_the_last_by_name_signing() -> None:
    key_set = KeySet(
        (SigningKey.from_private_key("a.pem", KEY_A), SigningKey.from_private_key("b.pem", KEY_B))
    )
    assert key_set.signing_key.file_name == "b.pem"
    assert key_set.signing_key_at(0).file_name == "b.pem"


def test_a_fresh_install_whose_only_key_lies_ahead_signs_with_it(tmp_path: Path) -> None:
    path = write_key_file(tmp_path, pkcs8(KEY_A), activation=NOW + timedelta(days=3650))
    key_set = load_key_set(tmp_path)
    assert key_set.signing_key.file_name == str(path)


def test_write_names_the_file_by_its_activation(tmp_path: Path) -> None:
    path = write_key_file(tmp_path, pkcs8(KEY_A), activation=NOW + timedelta(seconds=310))
    assert path.name == "20261121T064010Z.pem"
    assert load_key_set(tmp_path).keys[0].kid == SigningKey.from_private_key("x", KEY_A).kid


def test_a_key_waiting_to_sign_does_not_block_a_key_active_now(tmp_path: Path) -> None:
    waiting = write_key_file(tmp_path, pkcs8(KEY_A), activation=NOW + timedelta(minutes=5))
    now_key = generate_key_file(tmp_path, now=NOW, bits=2048)
    key_set = load_key_set(tmp_path)
    assert [Path(k.file_name) for k in key_set.keys] == [now_key, waiting]
    assert key_set.signing_key_at(T).file_name == str(now_key)
    assert key_set.signing_key_at(T + 300).file_name == str(waiting)


def test_a_key_that_could_never_sign_is_refused(tmp_path: Path) -> None:
    # A key of the same second sorting after the new one, active as early: it would win.
    (tmp_path / "20261121T063500Z_001.pem").write_bytes(pkcs8(KEY_A))
    with pytest.raises(KeySetError, match=r"20261121T063500Z_001\.pem: sorts after"):
        write_key_file(tmp_path, pkcs8(KEY_B), activation=NOW)
    (tmp_path / "hand.pem").write_bytes(pkcs8(KEY_C))  # active always, sorts last
    with pytest.raises(KeySetError, match=r"hand\.pem"):
        write_key_file(tmp_path, pkcs8(KEY_B), activation=NOW + timedelta(days=1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["20261121T063500Z_001.pem", "hand.pem"]


def test_new_private_keys_are_checked_for_size() -> None:
    assert new_private_key_pem(2048).startswith(b"-----BEGIN PRIVATE KEY-----")
    with pytest.raises(ValueError, match="2048"):
        new_private_key_pem(1024)
