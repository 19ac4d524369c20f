"""Unit tests of idp_common.crypto.secretbox (AES-256-GCM for stored secrets)."""

from __future__ import annotations

import base64

import pytest

from idp_common.crypto.secretbox import (
    SecretboxError,
    generate_key,
    open_sealed,
    parse_key,
    seal,
    totp_context,
)

KEY = parse_key(generate_key())


def test_round_trip_and_fresh_nonce() -> None:
    context = totp_context("user-1")
    first = seal(b"JBSWY3DPEHPK3PXP", key=KEY, context=context)
    second = seal(b"JBSWY3DPEHPK3PXP", key=KEY, context=context)
    assert first != second
    assert open_sealed(first, key=KEY, context=context) == b"JBSWY3DPEHPK3PXP"
    assert b"JBSWY3DP" not in first
    assert first[:1] == b"\x01"


@pytest.mark.parametrize(
    "change",
    [
        lambda blob: blob[:-1] + bytes([blob[-1] ^ 1]),  # altered tag
        lambda blob: blob[:20],  # truncated
        lambda blob: b"\x02" + blob[1:],  # unknown version
    ],
)
def test_altered_values_do_not_open(change) -> None:  # type: ignore[no-untyped-def]
    blob = seal(b"secret", key=KEY, context=b"c")
    with pytest.raises(SecretboxError):
        open_sealed(change(blob), key=KEY, context=b"c")


def test_context_and_key_bind_the_value() -> None:
    blob = seal(b"secret", key=KEY, context=totp_context("alice"))
    with pytest.raises(SecretboxError):
        open_sealed(blob, key=KEY, context=totp_context("mallory"))
    with pytest.raises(SecretboxError, match="another key"):
        open_sealed(blob, key=parse_key(generate_key()), context=totp_context("alice"))


def test_key_forms() -> None:
    raw = bytes(range(32))
    assert parse_key(base64.b64encode(raw).decode()) == raw
    assert parse_key(base64.urlsafe_b64encode(raw).decode().rstrip("=")) == raw
    with pytest.raises(ValueError, match="32 bytes"):
        parse_key(base64.b64encode(b"short").decode())
    with pytest.raises(ValueError, match="base64"):
        parse_key("not base64 at all!!")
    assert len(parse_key(generate_key() + "\n")) == 32
