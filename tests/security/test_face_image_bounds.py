"""Attack 14: face images decoded before any cheap check, and no per-address bound on
biometric attempts.

A PNG of a few kilobytes can declare tens of megapixels; face sign-in queued it for a
model process, which decoded every pixel (a 6000 x 6000 image is 108 MB of RGB and
seconds of a core) before finding no face. And each attempt costs a decode and an
embedding, yet an address could send as many as the general sign-in limit (120 a
minute). Now the pixel count is read from the header on the event loop and more than
16 megapixels is refused before anything is decoded, and face attempts are limited to
10 a minute per address.
"""

from __future__ import annotations

import base64
import io

import httpx
import pytest
from PIL import Image

from tests.harness.stack import Stack
from tests.integration.signin_fixtures import create_client, fresh_address, new_challenge

pytestmark = [pytest.mark.integration, pytest.mark.face]
FACE_PER_MINUTE = 10


def png(width: int, height: int) -> str:
    out = io.BytesIO()
    Image.new("L", (width, height)).save(out, "PNG")
    assert out.tell() < 300_000  # small on the wire, huge once decoded
    return base64.b64encode(out.getvalue()).decode()


def test_a_huge_image_is_refused_from_its_header(stack: Stack) -> None:
    rp = create_client(stack, skip_consent=True)
    with httpx.Client(base_url=stack.service_url("authui-api"), timeout=60) as client:
        answer = client.post(
            "/api/v1/auth/biometric",
            json={
                "challenge": new_challenge(stack, rp),
                "email": "someone@example.com",
                "image": png(6000, 6000),
            },
            headers={"X-Forwarded-For": fresh_address()},
        )
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["code"] == "face.too_many_pixels"
    assert body["errors"] == [{"field": "image", "message": body["detail"]}]
    assert "6000 x 6000" in body["detail"]


def test_face_attempts_are_limited_per_address(stack: Stack) -> None:
    address = fresh_address()
    body = {"challenge": "no-such-challenge", "email": "a@example.com", "image": "AAAA"}
    # The run's stack allows more (its browser tests come from one address): a service
    # with the default SVC_FACE_PER_IP.
    default = {"SVC_FACE_PER_IP": str(FACE_PER_MINUTE)}
    with (
        stack.extra_service("authui-api", default) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        answers = [
            client.post("/api/v1/auth/biometric", json=body, headers={"X-Forwarded-For": address})
            for _ in range(FACE_PER_MINUTE + 1)
        ]
        other = client.post(
            "/api/v1/auth/biometric", json=body, headers={"X-Forwarded-For": fresh_address()}
        )
    assert [a.status_code for a in answers[:FACE_PER_MINUTE]] == [404] * FACE_PER_MINUTE
    refused = answers[-1]
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert other.status_code == 404  # another address is not affected
