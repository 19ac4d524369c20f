"""``/oauth2/authorize`` with and without a session: sign-in, consent, ``prompt`` and
``max_age``."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.test_authorize.support import (
    params,
    query_of,
    signed_in,
)
from tests.harness import records, snapshots
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_without_session_the_person_is_sent_to_sign_in(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, login_hint="ann@example.com"))
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(stack.issuer + "/auth/login?challenge=")
    challenge = query_of(response)["challenge"]
    page = proxy.get(f"/api/v1/auth/challenge/{challenge}")  # the sign-in API reads it
    assert page.status_code == 200
    assert page.json()["loginHint"] == "ann@example.com"
    assert page.json()["next"] == "password"


def test_post_is_accepted_like_get(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    response = proxy.post("/oauth2/authorize", data=params(app))
    assert response.status_code == 303
    assert response.headers["location"].startswith(stack.issuer + "/auth/login?challenge=")


def test_prompt_none_without_session_is_login_required_and_writes_nothing(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    before = (snapshots.database_fingerprint(stack), snapshots.redis_snapshot(stack))
    response = proxy.get("/oauth2/authorize", params=params(app, prompt="none"))
    assert query_of(response)["error"] == "login_required"
    assert query_of(response)["iss"] == stack.issuer
    assert (snapshots.database_fingerprint(stack), snapshots.redis_snapshot(stack)) == before


def test_prompt_none_without_consent_is_consent_required_and_writes_nothing(
    proxy: httpx.Client, stack: Stack, app: records.TestClient, person: records.TestUser
) -> None:
    cookies = signed_in(stack, person)
    before = (snapshots.database_fingerprint(stack), snapshots.redis_snapshot(stack))
    response = proxy.get("/oauth2/authorize", params=params(app, prompt="none"), headers=cookies)
    assert query_of(response)["error"] == "consent_required"
    assert (snapshots.database_fingerprint(stack), snapshots.redis_snapshot(stack)) == before


def test_session_and_first_party_client_get_a_code_at_once(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize", params=params(first_party), headers=signed_in(stack, person)
    )
    assert response.status_code == 302
    query = query_of(response)
    assert query["code"]
    assert query["state"] == "st-1"
    assert query["iss"] == stack.issuer


def test_prompt_none_with_session_gets_a_code(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none"),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


def test_session_without_consent_goes_to_the_consent_step(
    proxy: httpx.Client, stack: Stack, app: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app), headers=signed_in(stack, person))
    assert response.headers["location"].startswith(stack.issuer + "/auth/login?challenge=")
    page = proxy.get(f"/api/v1/auth/challenge/{query_of(response)['challenge']}")
    assert page.status_code == 200
    assert page.json()["next"] == "consent"


def test_remembered_consent_skips_the_screen_unless_prompt_consent(
    proxy: httpx.Client, stack: Stack, app: records.TestClient
) -> None:
    person = records.create_user(stack)
    records.give_consent(stack, app.client_id, person.id, ["openid", "profile"])
    cookies = signed_in(stack, person)
    remembered = proxy.get("/oauth2/authorize", params=params(app), headers=cookies)
    assert "code" in query_of(remembered)
    asked = proxy.get("/oauth2/authorize", params=params(app, prompt="consent"), headers=cookies)
    assert "challenge" in query_of(asked)
    page = proxy.get(f"/api/v1/auth/challenge/{query_of(asked)['challenge']}")
    assert page.json()["next"] == "consent"
    silent = proxy.get("/oauth2/authorize", params=params(app, prompt="none"), headers=cookies)
    assert "code" in query_of(silent)


@pytest.mark.parametrize("prompt", ["login", "select_account"])
def test_prompt_login_forces_sign_in(
    proxy: httpx.Client,
    stack: Stack,
    first_party: records.TestClient,
    person: records.TestUser,
    prompt: str,
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt=prompt),
        headers=signed_in(stack, person),
    )
    assert "challenge" in query_of(response)


@pytest.mark.parametrize(
    ("age", "max_age", "fresh_enough"), [(5, "0", False), (120, "60", False), (10, "3600", True)]
)
def test_max_age(
    proxy: httpx.Client,
    stack: Stack,
    first_party: records.TestClient,
    person: records.TestUser,
    age: int,
    max_age: str,
    fresh_enough: bool,
) -> None:
    cookies = signed_in(stack, person, auth_time=int(time.time()) - age)
    response = proxy.get(
        "/oauth2/authorize", params=params(first_party, max_age=max_age), headers=cookies
    )
    assert ("code" in query_of(response)) is fresh_enough
    assert ("challenge" in query_of(response)) is not fresh_enough
