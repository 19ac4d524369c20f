"""Properties of base64url without padding (RFC 4648 §5, RFC 7515 §2), the encoding of
JWT segments, PKCE challenges and paging cursors: it round-trips, and any text decodes
to bytes or raises ``ValueError`` (never another exception)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode
from libs.common.tests.unit.properties.support import FAST


@FAST
@given(st.binary(max_size=200))
def test_encode_then_decode_is_the_bytes(raw: bytes) -> None:
    text = base64url_encode(raw)
    assert re.fullmatch(r"[A-Za-z0-9_-]*", text)
    assert base64url_decode(text, strict=True) == raw
    assert base64url_decode(text) == raw


@FAST
@given(st.text(max_size=60), st.booleans())
def test_any_text_decodes_or_raises_value_error(text: str, strict: bool) -> None:
    try:
        decoded = base64url_decode(text, strict=strict)
    except ValueError:
        return
    assert isinstance(decoded, bytes)
    if strict:
        assert re.fullmatch(r"[A-Za-z0-9_-]*", text)
