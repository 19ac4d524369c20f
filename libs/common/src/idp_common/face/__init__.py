"""Face sign-in's engine (docs/design.md "Sign-in", contract §1 and part 4
``POST /api/v1/auth/biometric``): from an image to the embedding of its one face, and
the sealed templates compared 1:1.

- :mod:`.engine`: :class:`FaceEngine`, the pool of model processes, and its lifespan;
- :mod:`.model`: what runs in those processes (dlib's HOG detector, 5-point landmarks and
  ResNet recogniser, from ``dlib-bin`` and ``face_recognition_models``);
- :mod:`.images`: decoding, normalising and the blur measure (in the pool too);
- :mod:`.template`: sealing and comparing embeddings (pure);
- :mod:`.errors`: :class:`FaceUnavailable` (503) and :class:`FaceRejected` (422).

The face stack is an optional install (``uv sync --group face``). Importing this package
never imports dlib or numpy: without them, :attr:`FaceEngine.available` is False.

Layer (pyproject.toml): beside events, state, avatars, profile_fields; may import storage,
config, protocol, crypto and errors.
"""

from idp_common.face.engine import FaceEngine, lifespan
from idp_common.face.errors import (
    NO_FACE,
    SEVERAL_FACES,
    TOO_BLURRY,
    TOO_SMALL,
    UNREADABLE_IMAGE,
    FaceRejected,
    FaceUnavailable,
)
from idp_common.face.template import (
    EMBEDDING_SIZE,
    distance,
    matches,
    open_template,
    seal_template,
)

__all__ = [
    "EMBEDDING_SIZE",
    "NO_FACE",
    "SEVERAL_FACES",
    "TOO_BLURRY",
    "TOO_SMALL",
    "UNREADABLE_IMAGE",
    "FaceEngine",
    "FaceRejected",
    "FaceUnavailable",
    "distance",
    "lifespan",
    "matches",
    "open_template",
    "seal_template",
]
