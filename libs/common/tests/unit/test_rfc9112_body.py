"""RFC 9112 §6: the body length a request's header section declares."""

from __future__ import annotations

import pytest

from idp_common.protocol.rfc9112_body import declared_body_length


@pytest.mark.parametrize(
    ("version", "headers", "expected"),
    [
        ("1.1", [], 0),
        ("1.0", [(b"host", b"x")], 0),
        ("1.1", [(b"content-length", b"0")], 0),
        ("1.1", [(b"content-length", b" 0 ")], 0),
        ("1.1", [(b"content-length", b"12")], 12),
        ("1.1", [(b"Content-Length", b"12")], 12),
        ("1.1", [(b"content-length", b"12"), (b"content-length", b"12")], 12),
        ("1.1", [(b"content-length", b"12"), (b"content-length", b"13")], None),
        ("1.1", [(b"content-length", b"-1")], None),
        ("1.1", [(b"content-length", b"1e3")], None),
        ("1.1", [(b"content-length", b"")], None),
        ("1.1", [(b"transfer-encoding", b"chunked")], None),
        ("1.1", [(b"content-length", b"5"), (b"transfer-encoding", b"chunked")], None),
        ("2", [], None),  # HTTP/2 frames a body without either header
        ("3", [(b"content-length", b"5")], None),
        ("", [], None),
    ],
)
def test_declared_body_length(
    version: str, headers: list[tuple[bytes, bytes]], expected: int | None
) -> None:
    assert declared_body_length(version, headers) == expected
