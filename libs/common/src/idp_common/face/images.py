"""Decoding, normalising and measuring images for the face model (runs in the pool).

- :func:`decode`: bytes to an upright RGB image whose longer side is at most
  :data:`MAX_SIDE` pixels. HOG detection costs grow with the pixel count (about 0.1 s at
  512 px, 1 s at 2000 px), and a face that fills a camera frame is still hundreds of pixels
  wide at 1024. JPEGs are decoded at a reduced scale straight away (``draft``), which makes
  a 12-megapixel photo cheap.
- :func:`sharpness`: the variance of the Laplacian of a grey image (Pech-Pacheco et al.,
  "Diatom autofocusing in brightfield microscopy", ICPR 2000), the usual blur measure.
  It is taken on the aligned 150 x 150 face chip the recogniser sees, so it does not depend
  on how large the face was in the photo.
"""

from __future__ import annotations

import io
import warnings
from typing import Final

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageOps, UnidentifiedImageError

from idp_common.face.errors import UNREADABLE_IMAGE, FaceRejected

__all__ = ["FORMATS", "MAX_PIXELS", "MAX_SIDE", "decode", "sharpness"]

#: What browsers and phones send (a canvas capture is PNG, JPEG or WebP).
FORMATS: Final = ("JPEG", "PNG", "WEBP")
#: 40 megapixels: any camera photo fits; a decompression bomb is refused from its header.
MAX_PIXELS: Final = 40_000_000
MAX_SIDE: Final = 1024
_UNREADABLE: Final = "The image could not be read; send a JPEG, PNG or WebP photo."
#: ITU-R BT.601 luma weights, as Pillow's "L" conversion.
_LUMA: Final = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _open(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(FORMATS))
            if image.width * image.height > MAX_PIXELS:
                raise FaceRejected(
                    UNREADABLE_IMAGE,
                    f"The image is too large ({image.width} x {image.height} pixels); "
                    f"send one of at most {MAX_PIXELS // 1_000_000} megapixels.",
                )
            # JPEG only: decode at 1/2, 1/4 or 1/8 scale while still larger than needed.
            image.draft("RGB", (MAX_SIDE, MAX_SIDE))
            image.load()
    except FaceRejected:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise FaceRejected(UNREADABLE_IMAGE, _UNREADABLE) from None
    except (OSError, ValueError, SyntaxError, EOFError):  # truncated or corrupt
        raise FaceRejected(UNREADABLE_IMAGE, _UNREADABLE) from None
    return image


def decode(data: bytes) -> Image.Image:
    """The upright RGB image, at most :data:`MAX_SIDE` pixels on its longer side.

    :class:`FaceRejected` (``face.unreadable_image``) when ``data`` is not a JPEG, PNG or
    WebP image, is corrupt, or has more than :data:`MAX_PIXELS` pixels.
    """
    image = _open(data)
    try:
        # Phones store portrait photos sideways with an EXIF orientation; HOG only finds
        # upright faces.
        upright = ImageOps.exif_transpose(image)
        rgb = upright.convert("RGB")
    except (OSError, ValueError, SyntaxError):  # odd pixel modes, broken EXIF
        raise FaceRejected(UNREADABLE_IMAGE, _UNREADABLE) from None
    if max(rgb.size) > MAX_SIDE:
        scale = MAX_SIDE / max(rgb.size)
        size = (max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale)))
        rgb = rgb.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
    return rgb


def sharpness(rgb: npt.NDArray[np.uint8]) -> float:
    """Variance of the 4-neighbour Laplacian of the grey ``rgb`` (H x W x 3) image."""
    grey = rgb.astype(np.float32) @ _LUMA
    laplacian = (
        grey[1:-1, :-2] + grey[1:-1, 2:] + grey[:-2, 1:-1] + grey[2:, 1:-1] - 4 * grey[1:-1, 1:-1]
    )
    return float(laplacian.var())
