"""What runs inside the model processes: dlib's detector, landmarks and recogniser.

Imported only in the pool processes (:mod:`idp_common.face.engine` reaches it through
small functions that import it there), so a service process never loads dlib.
:func:`load` is the pool's initializer: the three models are read once per process
(about 0.5 s) into module globals, then every :func:`embed` reuses them.

Steps of :func:`embed` (the rules of the face contract):

1. decode (:func:`idp_common.face.images.decode`): upright RGB, longer side <= 1024 px;
2. HOG frontal face detector, upsampled once (finds faces down to about 40 px);
3. detections whose box is smaller than ``min_size`` on its shorter side are ignored;
   besides the strongest detection, a weak one (score below
   :data:`OTHER_FACE_MIN_SCORE`) is not counted as a second face: HOG gives weak false
   positives on patterned objects (the mission patch of the shared astronaut photo scores
   0.02-0.21 across scales and JPEG qualities, the faces of the shared photos 0.8-3.1; a
   weak real face in the background is then ignored, which is harmless);
4. exactly one face must remain: else ``no_face``, ``too_small`` (faces were found, all
   too small) or ``several_faces``;
5. 5-point landmarks, and the aligned 150 x 150 chip the recogniser takes;
6. sharpness of that chip (:func:`idp_common.face.images.sharpness`) below
   :data:`MIN_SHARPNESS` is ``too_blurry``;
7. the ResNet descriptor of the chip: 128 float32 little-endian.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
from pathlib import Path
from typing import Any, Final

import dlib
import numpy as np

from idp_common.face.errors import NO_FACE, SEVERAL_FACES, TOO_BLURRY, TOO_SMALL, FaceRejected
from idp_common.face.images import decode, sharpness

__all__ = [
    "CHIP_SIZE",
    "MIN_SHARPNESS",
    "OTHER_FACE_MIN_SCORE",
    "analyse",
    "embed",
    "fingerprint",
    "load",
    "ready",
]

DETECTOR_UPSAMPLE: Final = 1
#: dlib's chip for dlib_face_recognition_resnet_model_v1: 150 px, 25 % padding.
CHIP_SIZE: Final = 150
CHIP_PADDING: Final = 0.25
#: Variance of the Laplacian of the grey chip. Measured on the test images (tests/data/faces):
#: the single-face photos give 187-1808 (rose_leslie2 187, biden1 202, astronaut 203); a
#: Gaussian blur of radius 1 gives 24-196, radius 2 gives 4-80, radius 4 gives 1-21.
#: Same-person distances stay <= 0.45 down to about 15, so 40 refuses what is clearly
#: blurred and still leaves every sharp photo a margin of more than four times.
MIN_SHARPNESS: Final = 40.0
#: A detection other than the strongest counts as a second face from this score on.
OTHER_FACE_MIN_SCORE: Final = 0.3
#: The model processes yield the CPU to the service's event loop (as the argon2 threads).
NICE: Final = 10

_models: dict[str, Any] = {}


def load(models_dir: str) -> None:
    """Pool initializer: read the models once into this process."""
    with contextlib.suppress(OSError):
        os.nice(NICE)
    # Ctrl-C reaches the whole process group: the service shuts the pool down itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    folder = Path(models_dir)
    _models["detector"] = dlib.get_frontal_face_detector()
    _models["landmarks"] = dlib.shape_predictor(
        str(folder / "shape_predictor_5_face_landmarks.dat")
    )
    _models["recogniser"] = dlib.face_recognition_model_v1(
        str(folder / "dlib_face_recognition_resnet_model_v1.dat")
    )


def ready() -> int:
    """This process's id once its models are loaded (the initializer ran first)."""
    if not _models:
        raise RuntimeError("the face models are not loaded")
    return os.getpid()


def _one_face(pixels: np.ndarray[Any, Any], min_size: int) -> Any:
    """The one usable face's dlib rectangle; :class:`FaceRejected` otherwise."""
    boxes, scores, _ = _models["detector"].run(pixels, DETECTOR_UPSAMPLE)
    found = sorted(zip(scores, boxes, strict=True), key=lambda pair: -pair[0])
    large = [(s, box) for s, box in found if min(box.width(), box.height()) >= min_size]
    if not large:
        if found:
            raise FaceRejected(
                TOO_SMALL,
                f"The face is too small (under {min_size} pixels across); "
                "come closer to the camera or send a larger photo.",
            )
        raise FaceRejected(NO_FACE, "No face was found in the image.")
    faces = [large[0]] + [(s, box) for s, box in large[1:] if s >= OTHER_FACE_MIN_SCORE]
    if len(faces) > 1:
        raise FaceRejected(
            SEVERAL_FACES, f"{len(faces)} faces were found; the image must show only yours."
        )
    return faces[0][1]


def embed(image: bytes, min_size: int) -> bytes:
    """The embedding of the one face in ``image`` (512 bytes); :class:`FaceRejected`."""
    return _embed_pixels(np.asarray(decode(image)), min_size)


def analyse(image: bytes, min_size: int) -> tuple[bytes, bytes]:
    """(embedding, pixel digest) of ``image``: the digest (:func:`pixel_digest`) lets the
    sign-in recognise a published photo sent back as it is."""
    pixels = np.asarray(decode(image))
    return _embed_pixels(pixels, min_size), pixel_digest(pixels)


def fingerprint(image: bytes, min_size: int) -> tuple[bytes, bytes | None]:
    """(pixel digest, embedding or None) of a published photo: None when the photo does
    not show exactly one usable face (a landscape, a pet, a group)."""
    pixels = np.asarray(decode(image))
    try:
        embedding: bytes | None = _embed_pixels(pixels, min_size)
    except FaceRejected:
        embedding = None
    return pixel_digest(pixels), embedding


def pixel_digest(pixels: np.ndarray[Any, Any]) -> bytes:
    """SHA-256 of the decoded pixels and their shape: the same for every copy of one file,
    whatever its name or container metadata."""
    digest = hashlib.sha256(repr(pixels.shape).encode())
    digest.update(np.ascontiguousarray(pixels).tobytes())
    return digest.digest()


def _embed_pixels(pixels: np.ndarray[Any, Any], min_size: int) -> bytes:
    box = _one_face(pixels, min_size)
    shape = _models["landmarks"](pixels, box)
    chip = np.asarray(dlib.get_face_chip(pixels, shape, size=CHIP_SIZE, padding=CHIP_PADDING))
    if sharpness(chip) < MIN_SHARPNESS:
        raise FaceRejected(
            TOO_BLURRY, "The face is too blurry; hold still, in good light, and try again."
        )
    descriptor = _models["recogniser"].compute_face_descriptor(chip)
    return np.asarray(descriptor, dtype="<f4").tobytes()
