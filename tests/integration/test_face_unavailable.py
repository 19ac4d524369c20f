"""Without the optional face stack (issue 7 acceptance 4): the face routes answer 503
``face.unavailable`` and nothing else changes.

The services run here with ``tests/harness/without_face`` first on ``PYTHONPATH``: its
``sitecustomize`` makes ``import dlib`` and ``import face_recognition_models`` fail, as on a
machine where the group was not installed. (The whole suite without the packages:
``uv sync --frozen`` without ``--group face``, then ``pytest -m "not face"``.)
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import httpx
import pytest

from tests.harness import records
from tests.harness.faces import FACES
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi

pytestmark = pytest.mark.integration

BLOCKER = Path(__file__).resolve().parents[1] / "harness" / "without_face"


def without_face(stack: Stack, service: str) -> str:
    path = os.pathsep.join(filter(None, [str(BLOCKER), os.environ.get("PYTHONPATH")]))
    process = stack.start_service(service, {"PYTHONPATH": path})
    stack.wait_until_up(process)
    return process.url


def test_face_routes_answer_503_and_the_rest_works(extra_processes: Stack) -> None:
    stack = extra_processes
    entity = without_face(stack, "entity")
    authui = without_face(stack, "authui-api")
    person = records.create_user(stack)
    api = EntityApi(stack, person)
    try:
        # a write's token: it stands on a live session (the face routes are sensitive)
        bearer = {"Authorization": f"Bearer {api.token(**api.write_claims())}"}
        photo = (FACES / "obama1.jpg").read_bytes()
        answers = [
            httpx.get(entity + "/entity/face", headers=bearer),
            httpx.put(entity + "/entity/face", headers=bearer, files={"file": ("a.jpg", photo)}),
            httpx.delete(entity + "/entity/face", headers=bearer),
        ]
        profile = httpx.get(entity + "/entity/profile", headers=bearer)
    finally:
        api.close()
    for answer in answers:
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "face.unavailable"
    assert profile.status_code == 200  # the rest of the API is unchanged

    app = records.create_client(stack, skip_consent=True)
    challenge = records_challenge(stack, app)
    shown = httpx.get(f"{authui}/api/v1/auth/challenge/{challenge}")
    assert shown.status_code == 200 and shown.json()["face"] is False
    image = base64.b64encode(photo).decode()
    refused = httpx.post(
        authui + "/api/v1/auth/biometric",
        json={"challenge": challenge, "email": person.email, "image": image},
    )
    assert refused.status_code == 503 and refused.json()["code"] == "face.unavailable"
    password = httpx.post(
        authui + "/api/v1/auth/login",
        json={"challenge": challenge, "email": person.email, "password": person.password},
    )
    assert password.status_code == 200, password.text  # password sign-in still works


def records_challenge(stack: Stack, app: records.TestClient) -> str:
    """A sign-in challenge as GET /oauth2/authorize makes it (through the proxy)."""
    _, challenge = records.pkce_pair()
    answer = httpx.get(
        stack.proxy_url + "/oauth2/authorize",
        params={
            "response_type": "code",
            "client_id": app.client_id,
            "redirect_uri": app.redirect_uri,
            "scope": "openid",
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        },
    )
    assert answer.status_code in (302, 303), answer.text
    location = answer.headers["location"]
    return location.split("challenge=", 1)[1].split("&", 1)[0]
