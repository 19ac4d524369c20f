"""The cheap check before a face image is decoded: its pixel count, read from the header.

Decoding costs memory and time in proportion to the pixels (a 6000 x 6000 PNG of a few
kilobytes decodes to 108 MB), so an image is refused on the service's event loop, from the
few header bytes Pillow reads to open it, before it is queued for a model process
(docs/security.md, attack 14). The sign-in page scales a photo to at most 1024 pixels before
sending it; :data:`MAX_PIXELS` still admits a 12-megapixel phone photo sent as it is.
"""

from __future__ import annotations

import io
import warnings
from typing import Final

from PIL import Image, UnidentifiedImageError

from idp_common.face.errors import TOO_MANY_PIXELS, UNREADABLE_IMAGE, FaceRejected

__all__ = ["MAX_PIXELS", "check_pixel_count"]

#: 16 megapixels (4096 x 4096, 4000 x 3000 fits).
MAX_PIXELS: Final = 16_000_000
_FORMATS: Final = ["JPEG", "PNG", "WEBP"]


def check_pixel_count(data: bytes, max_pixels: int = MAX_PIXELS) -> None:
    """Refuse ``data`` from its header alone when it is not a JPEG, PNG or WebP image or
    has more than ``max_pixels`` pixels (:class:`FaceRejected`); decodes no pixel."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=_FORMATS) as image:
                width, height = image.size
    except (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
        OSError,
        ValueError,
        SyntaxError,
        EOFError,
    ):
        raise FaceRejected(
            UNREADABLE_IMAGE, "The image could not be read; send a JPEG, PNG or WebP photo."
        ) from None
    if width * height > max_pixels:
        raise FaceRejected(
            TOO_MANY_PIXELS,
            f"The image has too many pixels ({width} x {height}); send one of at most "
            f"{max_pixels // 1_000_000} megapixels.",
        )
