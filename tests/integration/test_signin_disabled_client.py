"""The sign-in API and the device page with a client an administrator disabled: its
sign-in challenge is neither shown nor completed (404 ``auth.challenge_not_found``, the
challenge deleted, no session, no consent), and its user codes are not shown nor decided
(404 ``auth.device_code_invalid``), as for a client that does not exist."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import httpx
import pytest

from idp_common.protocol.constants import GRANT_TYPE_DEVICE_CODE
from tests.harness.api import ApiClient
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    read_challenge,
    sessions_of,
    signin_client,
    sql,
    start_session,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def authui(stack: Stack) -> str:
    return stack.service_url("authui-api")


@pytest.fixture(scope="module")
def admin(stack: Stack) -> Iterator[ApiClient]:
    with closing(AdminApi(stack)) as api:
        yield api


def disable(admin: ApiClient, client_id: str) -> None:
    response = admin.patch(f"/admin/clients/{client_id}", json={"disabled": True})
    assert response.status_code == 200, response.text


def assert_not_found(response: httpx.Response, code: str) -> None:
    assert response.status_code == 404, response.text
    assert response.json()["code"] == code


def test_the_challenge_of_a_disabled_client_is_not_shown(
    stack: Stack, authui: str, admin: ApiClient
) -> None:
    rp = create_client(stack)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        assert client.get(f"/api/v1/auth/challenge/{challenge}").status_code == 200
        disable(admin, rp.client_id)
        shown = client.get(f"/api/v1/auth/challenge/{challenge}")
    assert_not_found(shown, "auth.challenge_not_found")
    assert read_challenge(stack, challenge) is None


def test_a_sign_in_to_a_client_disabled_meanwhile_is_not_completed(
    stack: Stack, authui: str, admin: ApiClient
) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    disable(admin, rp.client_id)
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        refused = post(client, "/login", body)
    assert_not_found(refused, "auth.challenge_not_found")
    assert "set-cookie" not in refused.headers
    assert sessions_of(stack, person.id) == []
    assert read_challenge(stack, challenge) is None


def test_consent_to_a_client_disabled_meanwhile_is_not_recorded(
    stack: Stack, authui: str, admin: ApiClient
) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        assert post(client, "/login", body).json() == {"next": "consent"}
        disable(admin, rp.client_id)
        refused = post(client, "/consent", {"challenge": challenge, "approve": True})
    assert_not_found(refused, "auth.challenge_not_found")
    assert sql(stack, "SELECT 1 FROM consents WHERE user_id = :u", u=person.id) == []
    assert read_challenge(stack, challenge) is None


def test_the_device_page_neither_shows_nor_approves_a_disabled_client(
    stack: Stack, authui: str, admin: ApiClient
) -> None:
    device = tf.create_client(stack, public=True, grant_types=[GRANT_TYPE_DEVICE_CODE])
    form = {"client_id": device.client_id, "scope": "openid"}
    started = httpx.post(stack.service_url("token") + "/oauth2/device_authorization", data=form)
    assert started.status_code == 200, started.text
    user_code = started.json()["user_code"]
    cookie, _ = start_session(stack, create_person(stack))
    with signin_client(authui) as browser:
        browser.cookies.set("svc_session", cookie)
        lookup = {"user_code": user_code}
        assert post(browser, "/device/lookup", lookup).status_code == 200
        disable(admin, device.client_id)
        shown = post(browser, "/device/lookup", lookup)
        approved = post(browser, "/device/decision", {**lookup, "approve": True})
    assert_not_found(shown, "auth.device_code_invalid")
    assert_not_found(approved, "auth.device_code_invalid")
