"""Is an upload markup (SVG, XML, HTML) whatever type it was sent as?

A logo is shown on the sign-in page of the provider's own origin: an SVG may carry script
that would run there when the image is opened directly, so markup is refused outright
rather than sanitised. The check looks at the bytes, not the declared type: a
file that opens, after an optional byte-order mark and white space, with ``<`` (``<svg``,
``<?xml``, ``<!DOCTYPE``, ``<!--``, ``<html``), or names ``<svg`` in its first kilobytes,
is markup. No PNG, JPEG or WebP starts with ``<``. Pure.
"""

from __future__ import annotations

from typing import Final

_HEAD: Final = 4096
_BOMS: Final = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def is_markup(data: bytes) -> bool:
    head = data[:_HEAD]
    for bom in _BOMS:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    # UTF-16 text has a NUL after each ASCII character: compare without them
    text = head.replace(b"\x00", b"").lstrip().lower()
    return text.startswith(b"<") or b"<svg" in text
