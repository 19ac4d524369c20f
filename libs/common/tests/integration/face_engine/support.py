"""Helpers shared by the face engine tests: the test photos, encoded images, subprocess probes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from idp_common.config import Settings
from idp_common.crypto.secretbox import generate_key
from idp_common.face import (
    FaceEngine,
    FaceRejected,
)
from tests.harness.faces import FACES

ROOT = Path(__file__).resolve().parents[5]
BLOCKER = ROOT / "tests" / "harness" / "without_face"
#: The single-face photos and whose face each shows (obama3_480p is obama1 at a lower
#: resolution: a near-duplicate, still a photo of the same person).
PEOPLE = {
    "obama1": "obama",
    "obama2": "obama",
    "obama3_480p": "obama",
    "biden1": "biden",
    "biden2": "biden",
    "kit_harington1": "kit_harington",
    "kit_harington2": "kit_harington",
    "rose_leslie1": "rose_leslie",
    "rose_leslie2": "rose_leslie",
    "astronaut_skimage": "eileen_collins",
}
SETTINGS = Settings(secrets_key=generate_key(), face_workers=2)


def photo(name: str) -> bytes:
    return (FACES / f"{name}.jpg").read_bytes()


def encoded(image: Image.Image, fmt: str = "JPEG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


async def rejection(engine: FaceEngine, image: bytes) -> FaceRejected:
    with pytest.raises(FaceRejected) as caught:
        await engine.embed(image)
    return caught.value


PROBE = textwrap.dedent(
    """
    import asyncio, json, sys
    from idp_common.config import Settings
    from idp_common.crypto.secretbox import generate_key
    from idp_common.face import FaceEngine, FaceUnavailable

    async def main():
        engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
        available = engine.available
        imported = sorted(m for m in ("dlib", "numpy", "face_recognition_models")
                          if m in sys.modules)
        refused = None
        if not available:
            await engine.start()
            try:
                await engine.embed(b"an image")
            except FaceUnavailable as exc:
                refused = type(exc).__name__
        await engine.close()
        print(json.dumps({"available": available, "imported": imported, "refused": refused}))

    if __name__ == "__main__":
        asyncio.run(main())
    """
)


def probe(*, hide_face_stack: bool) -> dict[str, object]:
    """Run :data:`PROBE` in a fresh interpreter (nothing imported by other tests)."""
    env = dict(os.environ)
    if hide_face_stack:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(BLOCKER), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        check=False,
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


BLOCKED = textwrap.dedent(
    """
    import importlib.util
    for name in ("dlib", "face_recognition_models", "face_recognition_models.models"):
        try:
            __import__(name)
        except ModuleNotFoundError as exc:
            print(exc.name)
    import PIL  # the rest is untouched
    """
)
