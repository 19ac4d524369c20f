"""Base64url without padding (RFC 4648 §5), the one encoder and decoder."""

from __future__ import annotations

import binascii

import pytest

from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode


@pytest.mark.parametrize("raw", [b"", b"f", b"fo", b"foo", b"\xfb\xff", bytes(range(64))])
def test_round_trip_without_padding(raw: bytes) -> None:
    text = base64url_encode(raw)
    assert "=" not in text and "+" not in text and "/" not in text
    assert base64url_decode(text) == raw
    assert base64url_decode(text, strict=True) == raw


def test_rfc4648_vectors() -> None:
    assert base64url_encode(b"foobar") == "Zm9vYmFy"
    assert base64url_encode(b"\xfb\xff") == "-_8"


def test_padding_is_optional_when_reading() -> None:
    assert base64url_decode("Zm8=") == base64url_decode("Zm8") == b"fo"


def test_strict_refuses_other_alphabets_and_padding() -> None:
    for text in ("+_8", "/_8", "Zm8=", "Zm 8"):
        with pytest.raises(ValueError):
            base64url_decode(text, strict=True)


def test_impossible_lengths_are_refused() -> None:
    with pytest.raises(binascii.Error):
        base64url_decode("Z")
