"""Face templates: sealing the embedding for storage, and comparing two embeddings.

Pure: no dlib, no numpy, so the services compare templates without the face stack's
weight on their event loop (128 floats take microseconds in plain Python).

An embedding is what :meth:`FaceEngine.embed` returns: 128 float32, little-endian (512
bytes), dlib's ResNet face descriptor. Two faces of the same person lie closer than about
0.5 in Euclidean distance (dlib's own figure is 0.6; docs/design.md caps the threshold at 0.5).

The stored template is ``seal(tag + embedding)`` (:mod:`idp_common.crypto.secretbox`,
bound to the person with ``face_context(user_id)``): the database holds no readable
numbers. The one-byte tag names the model, so that a template from another model (should
the model ever change) is refused instead of compared with meaningless distances.
"""

from __future__ import annotations

import hmac
import math
import struct
from typing import Final

from idp_common.crypto.secretbox import SecretboxError, face_context, open_sealed, seal

__all__ = [
    "EMBEDDING_BYTES",
    "EMBEDDING_SIZE",
    "PHOTO_COPY_DISTANCE",
    "distance",
    "is_published_photo",
    "matches",
    "open_template",
    "seal_template",
]

EMBEDDING_SIZE: Final = 128
EMBEDDING_BYTES: Final = EMBEDDING_SIZE * 4
#: dlib_face_recognition_resnet_model_v1 with the 5-point alignment.
MODEL_TAG: Final = b"\x01"
_FLOATS: Final = struct.Struct(f"<{EMBEDDING_SIZE}f")
#: Closer than this to a published photo's face, an image is a copy of that photo. Copies
#: of the shared test photos (JPEG quality 30-90, scaled to 0.4-1.3, cropped by 20 px) lie
#: 0.02-0.13 from the original; two different photos of one person lie 0.35-0.41 apart
#: (measured with the model of :data:`MODEL_TAG`; docs/face-signin.md).
PHOTO_COPY_DISTANCE: Final = 0.2


def _floats(embedding: bytes) -> tuple[float, ...]:
    if len(embedding) != EMBEDDING_BYTES:
        raise ValueError(f"an embedding is {EMBEDDING_BYTES} bytes, got {len(embedding)}")
    values: tuple[float, ...] = _FLOATS.unpack(embedding)
    if not all(math.isfinite(value) for value in values):
        raise ValueError("an embedding holds only finite numbers")
    return values


def seal_template(embedding: bytes, *, key: bytes, user_id: object) -> bytes:
    """The value to store for ``user_id`` (ValueError when ``embedding`` is not one)."""
    _floats(embedding)
    return seal(MODEL_TAG + embedding, key=key, context=face_context(user_id))


def open_template(sealed: bytes, *, key: bytes, user_id: object) -> bytes:
    """The embedding :func:`seal_template` sealed for ``user_id``.

    :class:`SecretboxError` when it does not open (another key, another person's row,
    altered) or holds no embedding of the current model: the caller treats the person as
    having no usable template.
    """
    plain = open_sealed(sealed, key=key, context=face_context(user_id))
    if plain[:1] != MODEL_TAG or len(plain) != 1 + EMBEDDING_BYTES:
        raise SecretboxError("not a face template of the current model")
    return plain[1:]


def distance(a: bytes, b: bytes) -> float:
    """Euclidean distance between two embeddings (ValueError when one is not)."""
    return math.dist(_floats(a), _floats(b))


def matches(enrolled: bytes, presented: bytes, threshold: float) -> bool:
    """True when ``presented`` is the face of ``enrolled``: distance at most ``threshold``."""
    return distance(enrolled, presented) <= threshold


def is_published_photo(
    presented_digest: bytes,
    presented: bytes,
    published: list[tuple[bytes, bytes | None]],
    max_distance: float = PHOTO_COPY_DISTANCE,
) -> bool:
    """True when the presented image is one of the ``published`` photos (pairs of pixel
    digest and face embedding): the same decoded pixels, or a face closer than
    ``max_distance`` to a published one (a resized, re-encoded or cropped copy)."""
    for digest, embedding in published:
        if hmac.compare_digest(digest, presented_digest):
            return True
        if embedding is not None and distance(embedding, presented) < max_distance:
            return True
    return False
