"""The device flow end to end (RFC 8628): oauth4webapi plays the device, a person approves
on the hosted page in headless Chromium (signing in on the way), and the library gets and
verifies the tokens; then the device code is spent.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from idp_common.protocol.rfc8628_device import new_user_code
from tests.harness import records
from tests.harness.api import ApiClient
from tests.harness.browser import PageLog, assert_inputs_labelled
from tests.harness.stack import Stack
from tests.interop.device_support import (
    DeviceClient,
    error_of,
    poll,
    register_device_client,
    started,
)
from tests.interop.support import NODE_DIR

pytestmark = pytest.mark.e2e

# The page's wording (web/auth/src/messages.ts).
DEVICE_CODE_MALFORMED = "Enter the 8-letter code shown on your device, like BCDF-GHJK."
DEVICE_CODE_INVALID = "That code is not valid. Check the code on your device: it may have expired."


@pytest.fixture
def device(stack: Stack, admin: ApiClient) -> DeviceClient:
    return register_device_client(stack, admin)


@pytest.fixture
def node_device(device: DeviceClient) -> Iterator[subprocess.Popen[str]]:
    """``node/device.mjs`` started: it asks for codes and polls until the person decides."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH (scripts/test.sh installs it)", pytrace=False)
    process = subprocess.Popen(
        [node, str(NODE_DIR / "device.mjs")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=NODE_DIR,
    )
    payload = {
        "issuer": device.issuer,
        "client_id": device.client_id,
        "scope": device.scope,
        "api_audience": device.api_audience,
        "timeout": 90,
    }
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload))
    process.stdin.close()
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def _line(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait(10)
        stderr = process.stderr.read() if process.stderr else ""
        pytest.fail(f"device.mjs: exit {process.returncode}\n{stderr}", pytrace=False)
    event: dict[str, Any] = json.loads(line)
    return event


def test_oauth4webapi_device_flow_approved_on_the_hosted_page(
    page: Page,
    page_log: PageLog,
    stack: Stack,
    device: DeviceClient,
    node_device: subprocess.Popen[str],
    screenshot: Callable[..., Path],
) -> None:
    started = _line(node_device)
    assert started["event"] == "started"
    user_code = started["user_code"]
    assert re.fullmatch(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}", user_code)
    assert started["verification_uri"] == f"{stack.issuer}/auth/device"
    assert started["verification_uri_complete"].startswith(started["verification_uri"] + "?")
    assert started["interval"] == 1  # SVC_DEVICE_POLL_INTERVAL of the test stack
    # Give the device time to poll while nobody has decided (authorization_pending): a
    # quick browser could otherwise approve before its first poll.
    time.sleep(3 * started["interval"])

    # Not signed in: the code comes pre-filled; continuing leads through sign-in and back.
    page.goto(started["verification_uri_complete"])
    expect(page.get_by_role("heading", name="Connect a device")).to_be_focused()
    expect(page.get_by_label("Code")).to_have_value(user_code)
    assert_inputs_labelled(page)
    screenshot("device-code")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(r"/auth/login\?challenge="))
    expect(page.get_by_text(device.name)).to_be_visible()
    page.get_by_label("Email").fill(device.person.email)
    page.get_by_label("Password").fill(device.person.password)
    page.get_by_role("button", name="Sign in", exact=True).click()

    page.wait_for_url(re.compile(r"/auth/device\?user_code="))
    heading = page.get_by_role("heading", name=f"Allow {device.name} on your device?")
    expect(heading).to_be_focused()
    expect(page.locator(".user-code")).to_have_text(user_code)
    scopes = page.locator("ul.scopes li")
    expect(scopes).to_have_count(5)
    expect(scopes.filter(has_text="Watch your shows")).to_have_count(1)
    screenshot("device-approve")
    page.get_by_role("button", name="Allow").click()
    expect(page.get_by_role("heading", name="Device connected")).to_be_focused()
    assert page_log.problems(expected_statuses=(401,)) == []  # the lookup before sign-in

    assert node_device.wait(60) == 0, node_device.stderr.read() if node_device.stderr else ""
    done = _line(node_device)
    assert done["event"] == "done", done
    assert done["polls"][-1] == "tokens"
    assert "authorization_pending" in done["polls"]  # it polled before the approval
    discovery = done["discovery"]
    assert discovery["device_authorization_endpoint"] == (
        f"{stack.issuer}/oauth2/device_authorization"
    )
    assert GRANT_TYPE_DEVICE_CODE in discovery["grant_types_supported"]

    person = device.person
    access = done["access_token"]["claims"]
    assert access["sub"] == person.id
    assert access["client_id"] == device.client_id
    audiences = access["aud"] if isinstance(access["aud"], list) else [access["aud"]]
    assert device.api_audience in audiences
    assert set(access["scope"].split()) == set(device.scope.split())
    assert access["amr"] == ["pwd"]
    id_token = done["id_token"]["claims"]
    assert id_token["sub"] == person.id
    assert id_token["aud"] == device.client_id
    assert id_token["email"] == person.email
    assert id_token["sid"] == access["sid"]
    assert done["refresh_token"]
    assert done["token_type"].lower() == "bearer"

    # Single use: the same device code again is invalid_grant.
    assert error_of(poll(stack.proxy_url, device, done["device_code"])) == "invalid_grant"


def test_a_signed_in_person_types_the_code_and_denies(
    page: Page, page_log: PageLog, stack: Stack, device: DeviceClient
) -> None:
    """Typed by hand (lower case, a space), after a wrong code; Deny reaches the device."""
    body = started(stack, device)
    cookie, _ = records.create_browser_session(stack, device.person.id)
    page.context.add_cookies([{"name": "svc_session", "value": cookie, "url": stack.proxy_url}])
    page.goto(f"{stack.proxy_url}/auth/device")
    expect(page.get_by_role("heading", name="Connect a device")).to_be_focused()
    code = page.get_by_label("Code")
    code.fill("hello")
    page.get_by_role("button", name="Continue").click()
    expect(code).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text(DEVICE_CODE_MALFORMED)).to_be_visible()
    code.fill(new_user_code())  # well-formed, names nothing
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_text(DEVICE_CODE_INVALID)).to_be_visible()

    code.fill(body["user_code"].lower().replace("-", " "))
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name=f"Allow {device.name} on your device?")).to_be_focused()
    page.get_by_role("button", name="Deny").click()
    expect(page.get_by_role("heading", name="Request denied")).to_be_focused()
    assert page_log.problems(expected_statuses=(404,)) == []
    assert error_of(poll(stack.proxy_url, device, body["device_code"])) == "access_denied"
