"""``POST /api/v1/auth/biometric`` with every shared test photo (issue 7 acceptance 1):
each enrolled person's other photos sign in, every other person's photo is refused (the
astronaut too), and the answers to refusals are alike.

The per-account throttle allows four failures before it delays the fifth, and a success
clears it, so the impostors come in threes between genuine sign-ins. Each attempt comes
from its own address: face attempts are also limited per address (10 a minute).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import pytest

from tests.harness import records
from tests.harness.faces import FACES
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi
from tests.integration.signin_fixtures import (
    create_client,
    fresh_address,
    new_challenge,
    signin_client,
)

pytestmark = [pytest.mark.integration, pytest.mark.face]

SINGLE_FACE = [
    "astronaut_skimage.jpg",
    "biden1.jpg",
    "biden2.jpg",
    "kit_harington1.jpg",
    "kit_harington2.jpg",
    "obama1.jpg",
    "obama2.jpg",
    "obama3_480p.jpg",
    "rose_leslie1.jpg",
    "rose_leslie2.jpg",
]
# Each person: the photo enrolled, and their other photos.
PEOPLE = {
    "biden": ("biden1.jpg", ["biden2.jpg"]),
    "kit_harington": ("kit_harington2.jpg", ["kit_harington1.jpg"]),
    "obama": ("obama2.jpg", ["obama1.jpg", "obama3_480p.jpg"]),
    "rose_leslie": ("rose_leslie1.jpg", ["rose_leslie2.jpg"]),
}


def as_text(name: str) -> str:
    return base64.b64encode((FACES / name).read_bytes()).decode()


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    with signin_client(stack.service_url("authui-api")) as client:
        yield client


@pytest.mark.parametrize("name", sorted(PEOPLE))
def test_own_photos_sign_in_and_everyone_else_is_refused(
    stack: Stack, http: httpx.Client, name: str
) -> None:
    enrolled, own = PEOPLE[name]
    person = records.create_user(stack)
    api = EntityApi(stack, person)
    try:
        files = {"file": (enrolled, (FACES / enrolled).read_bytes(), "image/jpeg")}
        assert api.put("/entity/face", files=files).status_code == 200
    finally:
        api.close()
    rp = create_client(stack, skip_consent=True)
    impostors = [photo for photo in SINGLE_FACE if not photo.startswith(name)]
    refusals = []
    for turn, start in enumerate(range(0, len(impostors), 3)):
        challenge = new_challenge(stack, rp)
        for photo in impostors[start : start + 3]:
            answer = http.post(
                "/api/v1/auth/biometric",
                json={"challenge": challenge, "email": person.email, "image": as_text(photo)},
                headers={"X-Forwarded-For": fresh_address()},
            )
            assert answer.status_code == 401, f"{photo} signed in as {name}: {answer.text}"
            refusals.append(answer.json())
        photo = own[turn % len(own)]
        answer = http.post(
            "/api/v1/auth/biometric",
            json={"challenge": challenge, "email": person.email, "image": as_text(photo)},
            headers={"X-Forwarded-For": fresh_address()},
        )
        assert answer.status_code == 200, f"{photo} did not sign in as {name}: {answer.text}"
        assert answer.json()["next"] in ("done", "consent")
    assert len(refusals) == len(impostors)
    assert all(body == refusals[0] for body in refusals)
    assert refusals[0]["code"] == "auth.invalid_credentials"
