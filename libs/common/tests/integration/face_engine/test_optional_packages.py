"""The face engine without its optional packages: unavailable, and known without importing them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from libs.common.tests.integration.face_engine.support import (
    BLOCKED,
    BLOCKER,
    probe,
)

pytestmark = pytest.mark.integration


def test_without_the_optional_packages_the_engine_is_unavailable() -> None:
    assert probe(hide_face_stack=True) == {
        "available": False,
        "imported": [],
        "refused": "FaceUnavailable",
    }


def test_the_blocker_refuses_exactly_the_face_packages() -> None:
    env = dict(os.environ, PYTHONPATH=str(BLOCKER))
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["dlib", "face_recognition_models", "face_recognition_models"]


@pytest.mark.face
def test_with_the_packages_availability_is_known_without_importing_them() -> None:
    assert probe(hide_face_stack=False) == {"available": True, "imported": [], "refused": None}
