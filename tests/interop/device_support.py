"""What the device-flow tests share (RFC 8628): a device client registered through the
administration API, the device side by hand (for the refusals) and the person's side
through the sign-in API with a real browser session.

The device client is public (``none``), with the grants
``urn:ietf:params:oauth:grant-type:device_code`` and ``refresh_token``, the four OIDC
scopes and one API scope the person holds.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.stack import Stack

OIDC_SCOPE = "openid profile email offline_access"


@dataclass(frozen=True)
class DeviceClient:
    issuer: str
    client_id: str
    name: str
    api_audience: str
    api_scope: str
    person: records.TestUser

    @property
    def scope(self) -> str:
        return f"{OIDC_SCOPE} {self.api_scope}"


def _sent(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, f"{response.request.url}: {response.text}"
    body: dict[str, Any] = response.json()
    return body


def register_device_client(
    stack: Stack, admin: ApiClient, grants: tuple[str, ...] = (GRANT_TYPE_DEVICE_CODE,)
) -> DeviceClient:
    n = uuid.uuid4().hex[:10]
    name, audience = f"device{n}", f"urn:device:{n}"
    api = _sent(admin.post("/admin/apis", json={"name": name, "audience": audience}), 201)
    api_scope = f"{name}:shows:watch"
    body = {"value": api_scope, "description": "Watch your shows"}
    _sent(admin.post(f"/admin/apis/{api['id']}/scopes", json=body), 201)
    display = f"Living-room TV {n}"
    client = _sent(
        admin.post(
            "/admin/clients",
            json={
                "name": display,
                "type": "public",
                "redirectUris": [],
                "postLogoutRedirectUris": [],
                "grantTypes": [*grants, "refresh_token"],
            },
        ),
        201,
    )
    scopes = [*OIDC_SCOPE.split(), api_scope]
    path = f"/admin/clients/{client['client_id']}/scopes"
    _sent(admin.put(path, json={"scopes": scopes}), 200)
    person = records.create_user(stack, scopes=(api_scope,))
    return DeviceClient(stack.issuer, client["client_id"], display, audience, api_scope, person)


def start(stack: Stack, device: DeviceClient, **extra: str) -> httpx.Response:
    """``POST /oauth2/device_authorization`` at the proxy, as a public client."""
    form = {"client_id": device.client_id, "scope": device.scope, **extra}
    return httpx.post(f"{stack.proxy_url}/oauth2/device_authorization", data=form, timeout=20)


def started(stack: Stack, device: DeviceClient) -> dict[str, Any]:
    return _sent(start(stack, device), 200)


def poll(base_url: str, device: DeviceClient, device_code: str) -> httpx.Response:
    form = {
        "grant_type": GRANT_TYPE_DEVICE_CODE,
        "device_code": device_code,
        "client_id": device.client_id,
    }
    return httpx.post(f"{base_url}/oauth2/token", data=form, timeout=20)


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    assert response.headers["cache-control"] == "no-store"
    error: str = response.json()["error"]
    return error


def signed_in(stack: Stack, device: DeviceClient, base_url: str | None = None) -> httpx.Client:
    """A browser of the person with a live ``svc_session`` (as the sign-in API makes it)."""
    cookie, _ = records.create_browser_session(stack, device.person.id)
    client = httpx.Client(base_url=base_url or stack.proxy_url, timeout=20)
    client.cookies.set("svc_session", cookie)
    return client


def decide(browser: httpx.Client, user_code: str, *, approve: bool) -> httpx.Response:
    return browser.post(
        "/api/v1/auth/device/decision",
        json={"user_code": user_code, "approve": approve},
        headers={"Origin": str(browser.base_url).rstrip("/")},
    )
