"""Decoding and cleaning an uploaded photo with Pillow.

- :func:`open_image` decodes bytes as one of the allowed formats and refuses what is not
  an image, is truncated, or has more than ``max_pixels`` pixels (a decompression bomb:
  the size is read from the header, before any pixel is decoded). Face sign-in reuses it.
- :func:`clean_photo` also checks that the image is the type it was sent as (a PNG sent
  as ``image/jpeg`` is refused), then re-encodes it in that format from its pixels alone:
  the EXIF orientation is applied first, an ICC profile is converted to sRGB, and no EXIF,
  ICC, XMP or text chunk is written. Only the first frame of an animation is kept.

Both are CPU work: run them in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

#: Media type of an upload -> Pillow's format name.
FORMATS: Final = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}
#: Pillow's format name -> extension of the stored object.
EXTENSIONS: Final = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
#: 40 megapixels: any camera photo fits; a 40000 x 40000 bomb is refused unread.
MAX_PIXELS: Final = 40_000_000
JPEG_QUALITY: Final = 90
WEBP_QUALITY: Final = 90


class ImageRejected(ValueError):
    """The bytes are not an acceptable image; the message says why (for the caller)."""


@dataclass(frozen=True)
class CleanPhoto:
    data: bytes
    content_type: str
    extension: str
    width: int
    height: int


def open_image(
    data: bytes, *, formats: Collection[str], max_pixels: int = MAX_PIXELS
) -> Image.Image:
    """The decoded image (pixels loaded); :class:`ImageRejected` otherwise."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(formats))
            if image.width * image.height > max_pixels:
                raise ImageRejected(
                    f"has {image.width} x {image.height} pixels, more than {max_pixels}"
                )
            image.load()
    except ImageRejected:
        raise
    except UnidentifiedImageError as exc:
        names = ", ".join(sorted(formats))
        raise ImageRejected(f"is not an image of a supported format ({names})") from exc
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageRejected("has too many pixels") from exc
    except (OSError, ValueError, SyntaxError, EOFError) as exc:  # truncated or corrupt
        raise ImageRejected("could not be decoded (truncated or corrupt)") from exc
    return image


def _to_srgb(image: Image.Image, icc: bytes) -> Image.Image:
    """The pixels converted from the ``icc`` profile to sRGB (as is if it cannot be read)."""
    try:
        converted = ImageCms.profileToProfile(
            image, io.BytesIO(icc), ImageCms.createProfile("sRGB"), outputMode=image.mode
        )
    except (ImageCms.PyCMSError, OSError, ValueError):
        return image
    return converted if converted is not None else image


def _pixels_only(image: Image.Image) -> Image.Image:
    """A copy upright, in sRGB, in a mode every format stores, with no metadata at all.

    The format is the one decoded, so a JPEG never has alpha to lose.
    """
    upright = ImageOps.exif_transpose(image)
    icc = upright.info.get("icc_profile")
    if upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info:
        pixels = upright.convert("RGBA")
    elif upright.mode == "L":
        pixels = upright.copy()
    else:
        pixels = upright.convert("RGB")
    pixels.info = {}
    if icc:
        pixels = _to_srgb(pixels, icc)
        pixels.info = {}
    return pixels


def clean_photo(data: bytes, content_type: str, *, max_pixels: int = MAX_PIXELS) -> CleanPhoto:
    """Check ``data`` is an image of ``content_type`` and re-encode it without metadata."""
    claimed = FORMATS.get(content_type)
    if claimed is None:
        raise ImageRejected(f"type {content_type!r} is not one of {', '.join(FORMATS)}")
    image = open_image(data, formats=FORMATS.values(), max_pixels=max_pixels)
    if image.format != claimed:
        actual = next(t for t, f in FORMATS.items() if f == image.format)
        raise ImageRejected(f"is {actual}, not the {content_type} it was sent as")
    try:
        pixels = _pixels_only(image)
    except (OSError, ValueError, SyntaxError) as exc:  # odd pixel modes, broken EXIF
        raise ImageRejected("could not be converted") from exc
    out = io.BytesIO()
    if claimed == "JPEG":
        pixels.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
    elif claimed == "WEBP":
        pixels.save(out, "WEBP", quality=WEBP_QUALITY)
    else:
        pixels.save(out, "PNG", optimize=False)
    return CleanPhoto(
        data=out.getvalue(),
        content_type=content_type,
        extension=EXTENSIONS[claimed],
        width=pixels.width,
        height=pixels.height,
    )
