"""What the face engine refuses, and why (the codes the HTTP layer puts in its problems).

Both classes cross the process boundary of the model pool: they pickle through their
``args``, so ``code`` and ``message`` are positional.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "NO_FACE",
    "SEVERAL_FACES",
    "TOO_BLURRY",
    "TOO_MANY_PIXELS",
    "TOO_SMALL",
    "UNREADABLE_IMAGE",
    "FaceRejected",
    "FaceUnavailable",
]

UNREADABLE_IMAGE: Final = "face.unreadable_image"
NO_FACE: Final = "face.no_face"
SEVERAL_FACES: Final = "face.several_faces"
TOO_SMALL: Final = "face.too_small"
TOO_BLURRY: Final = "face.too_blurry"
TOO_MANY_PIXELS: Final = "face.too_many_pixels"


class FaceUnavailable(Exception):
    """Face sign-in cannot run here: the optional packages or the secrets key are missing,
    or the model processes failed (HTTP 503, ``face.unavailable``)."""


class FaceRejected(Exception):
    """The image cannot be used (HTTP 422): ``code`` is one of the constants above and
    ``message`` a sentence for the person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
