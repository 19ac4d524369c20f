"""The bearer-token guard on a real route (``GET /admin/audit``, ``idp:audit:read``).

Spec §7: 401 for a missing, expired, malformed, wrong-audience or badly signed token;
403 for a valid token without the permission. Requests go straight to the admin service
from 127.0.0.1 (a trusted sender), each with its own ``X-Forwarded-For`` so that the
per-address limit on failed authentications never mixes tests.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from idp_common.crypto.keys import generate_key_file
from tests.harness import tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration
AUDIT_READ = "idp:audit:read"


@pytest.fixture
def admin(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.service_url("admin"), timeout=10) as client:
        yield client


def fresh_address() -> str:
    return f"198.18.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}"


def call(admin: httpx.Client, authorization: str | None) -> httpx.Response:
    headers = {"X-Forwarded-For": fresh_address()}
    if authorization is not None:
        headers["Authorization"] = authorization
    return admin.get("/admin/audit", headers=headers)


def mint(stack: Stack, **kw: object) -> str:
    return tokens.mint(stack.key_dir, issuer=stack.issuer, **kw)  # type: ignore[arg-type]


def assert_401(response: httpx.Response, *, error: bool) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["content-type"] == "application/problem+json"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert ('error="invalid_token"' in challenge) is error


def test_missing_token(admin: httpx.Client) -> None:
    assert_401(call(admin, None), error=False)
    assert_401(call(admin, "Basic dXNlcjpwYXNz"), error=False)
    assert_401(call(admin, "Bearer"), error=False)


def test_expired_token(admin: httpx.Client, stack: Stack) -> None:
    token = mint(stack, scopes=[AUDIT_READ], now=int(time.time()) - 700, ttl=600)
    assert_401(call(admin, f"Bearer {token}"), error=True)


@pytest.mark.parametrize("token", ["abc", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", "x" * 20000])
def test_malformed_token(admin: httpx.Client, token: str) -> None:
    assert_401(call(admin, f"Bearer {token}"), error=True)


def test_wrong_audience(admin: httpx.Client, stack: Stack) -> None:
    token = mint(stack, scopes=[AUDIT_READ], audience="https://other.example/api")
    assert_401(call(admin, f"Bearer {token}"), error=True)


def test_wrong_issuer(admin: httpx.Client, stack: Stack) -> None:
    token = tokens.mint(
        stack.key_dir,
        issuer="https://other.example",
        scopes=[AUDIT_READ],
        audience=stack.issuer + "/api",
    )
    assert_401(call(admin, f"Bearer {token}"), error=True)


def test_not_an_access_token(admin: httpx.Client, stack: Stack) -> None:
    token = mint(stack, scopes=[AUDIT_READ], typ="JWT")  # e.g. an ID token
    assert_401(call(admin, f"Bearer {token}"), error=True)


def test_tampered_payload_fails_the_signature(admin: httpx.Client, stack: Stack) -> None:
    header, payload, signature = mint(stack, scopes=["openid"]).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["scope"] = AUDIT_READ
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    assert_401(call(admin, f"Bearer {header}.{forged}.{signature}"), error=True)


def test_signed_by_a_key_the_provider_does_not_publish(
    admin: httpx.Client, stack: Stack, tmp_path: Path
) -> None:
    generate_key_file(tmp_path, now=datetime.now(UTC), bits=2048)
    token = tokens.mint(tmp_path, issuer=stack.issuer, scopes=[AUDIT_READ])
    assert_401(call(admin, f"Bearer {token}"), error=True)


def test_valid_token_without_the_permission_is_403_and_audited(
    admin: httpx.Client, stack: Stack
) -> None:
    subject = f"user-{uuid.uuid4().hex[:8]}"
    token = mint(stack, scopes=["openid", "idp:users:read"], subject=subject)
    response = call(admin, f"Bearer {token}")
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "auth.insufficient_scope"
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert f'scope="{AUDIT_READ}"' in response.headers["www-authenticate"]
    rows = read_audit(admin, stack, action="access.denied", actor=subject)
    assert len(rows) == 1
    assert rows[0]["status_code"] == 403
    assert rows[0]["detail"]["permission"] == AUDIT_READ


def test_valid_token_with_the_permission_passes(admin: httpx.Client, stack: Stack) -> None:
    response = call(admin, f"Bearer {mint(stack, scopes=['openid', AUDIT_READ])}")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"items", "nextCursor"}


def test_audit_list_validates_its_parameters(admin: httpx.Client, stack: Stack) -> None:
    auth = {"Authorization": f"Bearer {mint(stack, scopes=[AUDIT_READ])}"}
    too_many = admin.get("/admin/audit", params={"limit": 500}, headers=auth)
    assert too_many.status_code == 422
    assert [e["field"] for e in too_many.json()["errors"]] == ["limit"]
    bad_cursor = admin.get("/admin/audit", params={"cursor": "!!"}, headers=auth)
    assert bad_cursor.status_code == 422
    assert bad_cursor.json()["errors"][0]["field"] == "cursor"


def read_audit(client: httpx.Client, stack: Stack, **filters: str) -> list[dict[str, object]]:
    auth = {"Authorization": f"Bearer {mint(stack, scopes=[AUDIT_READ])}"}
    response = client.get("/admin/audit", params=filters, headers=auth)
    assert response.status_code == 200, response.text
    items: list[dict[str, object]] = response.json()["items"]
    return items
