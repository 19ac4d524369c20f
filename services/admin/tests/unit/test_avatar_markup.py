"""Unit tests of admin_service.avatar_markup: SVG/XML is recognised whatever it is sent as."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from admin_service.avatar_markup import is_markup

SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.mark.parametrize(
    "data",
    [
        SVG,
        b'<?xml version="1.0"?>\n' + SVG,
        b"\xef\xbb\xbf  \n" + SVG,
        b"<!DOCTYPE svg>" + SVG,
        b"<!-- a logo -->" + SVG,
        b"<html><body>hi</body></html>",
        b"\n\t<SVG></SVG>",
        "<svg/>".encode("utf-16"),  # BOM and NULs
        b"GIF89a junk <svg onload=alert(1)>",
    ],
)
def test_markup_is_recognised(data: bytes) -> None:
    assert is_markup(data)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_images_are_not_markup(fmt: str) -> None:
    out = io.BytesIO()
    Image.new("RGB", (32, 32), (26, 115, 232)).save(out, fmt)
    assert not is_markup(out.getvalue())
