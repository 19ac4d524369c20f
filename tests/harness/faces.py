"""Where the shared face test images are: ``../shared/testdata/faces`` beside the
repository (as CI checks it out), or ``IDP_TEST_FACES`` when set. See its README."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACES = Path(os.environ.get("IDP_TEST_FACES") or ROOT.parent / "shared" / "testdata" / "faces")


def face(name: str) -> bytes:
    """The bytes of one shared test image."""
    return (FACES / name).read_bytes()
