"""The face test images: ``tests/data/faces`` (its README gives each photo's source and
licence)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.harness.records import TestUser
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

ROOT = Path(__file__).resolve().parents[2]
FACES = ROOT / "tests" / "data" / "faces"


def face(name: str) -> bytes:
    """The bytes of one test image."""
    return (FACES / name).read_bytes()


def enrol_face(stack: Stack, person: TestUser, photo: str = "obama1.jpg") -> None:
    """``PUT /entity/face`` through the proxy with a fresh sign-in of the person's."""
    api = EntityApi(stack, person)
    try:
        answer = httpx.put(
            stack.proxy_url + "/entity/face",
            headers={"Authorization": f"Bearer {api.token(**api.write_claims())}"},
            files={"file": (photo, face(photo), "image/jpeg")},
            timeout=30,
        )
    finally:
        api.close()
    assert answer.status_code == 200, answer.text
    assert answer.json()["enrolled"] is True
