"""The length of an HTTP/1.x request body, from its header section (RFC 9112 §6).

- §6.1: ``Transfer-Encoding`` present: the body is chunked and its length is known only
  at its end; it overrides ``Content-Length`` (§6.3 rule 3).
- §6.2, §6.3 rule 5: a valid ``Content-Length`` gives the length in octets; several
  differing values, or one that is not a decimal number, make the framing unreliable.
- §6.3 rule 6: a request with neither header has no body (length 0).

HTTP/2 and HTTP/3 frame a body without either header, so for them nothing is known from
the headers alone. Header names arrive lowercased from ASGI servers, but are compared
case-insensitively here anyway.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["declared_body_length"]

_HTTP1 = frozenset({"1.0", "1.1"})


def declared_body_length(http_version: str, headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    """The body's length in octets, 0 for no body, ``None`` when the headers do not tell
    (chunked, HTTP/2 or later, a malformed or ambiguous ``Content-Length``)."""
    if http_version not in _HTTP1:
        return None
    lengths: set[bytes] = set()
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"transfer-encoding":
            return None
        if lowered == b"content-length":
            lengths.add(value.strip())
    if not lengths:
        return 0
    if len(lengths) > 1:
        return None
    (text,) = lengths
    return int(text) if text.isdigit() else None
