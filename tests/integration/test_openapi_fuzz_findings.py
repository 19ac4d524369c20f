"""What the OpenAPI fuzzing of issue #21 found, each pinned by a plain request.

PostgreSQL ``text`` cannot hold NUL (U+0000): a value carrying one that reached a query
failed in asyncpg and the service answered 500. Such a value names nothing stored, so it
gets the answer of an unknown or invalid value.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.harness import records
from tests.harness.oidc import Authorization, Browser, query_of
from tests.harness.rows import query
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

NUL_CLIENT = "app-\x00"
ADDRESS = {"X-Forwarded-For": "198.18.251.21"}


@pytest.fixture
def token_service(stack: Stack) -> httpx.Client:
    return httpx.Client(base_url=stack.service_url("token"), headers=ADDRESS, timeout=10)


def test_a_client_id_with_nul_is_an_unknown_client_at_the_token_endpoints(
    token_service: httpx.Client,
) -> None:
    answers = {
        "token (form)": token_service.post(
            "/oauth2/token", data={"grant_type": "client_credentials", "client_id": NUL_CLIENT}
        ),
        "token (basic)": token_service.post(
            "/oauth2/token", data={"grant_type": "client_credentials"}, auth=(NUL_CLIENT, "s")
        ),
        "introspect": token_service.post(
            "/oauth2/introspect", data={"token": "x"}, auth=(NUL_CLIENT, "s")
        ),
        "revoke": token_service.post(
            "/oauth2/revoke", data={"token": "x", "client_id": NUL_CLIENT}
        ),
    }
    for name, answer in answers.items():
        assert answer.status_code == 401, (name, answer.status_code, answer.text)
        assert answer.json()["error"] == "invalid_client", (name, answer.text)


def test_a_client_id_with_nul_is_refused_with_a_page_at_authorize_and_logout(
    token_service: httpx.Client,
) -> None:
    authorize = {
        "response_type": "code",
        "client_id": NUL_CLIENT,
        "redirect_uri": "https://app.example/cb",
        "scope": "openid",
    }
    answers = {
        "GET authorize": token_service.get("/oauth2/authorize", params=authorize),
        "POST authorize": token_service.post("/oauth2/authorize", data=authorize),
        "GET logout": token_service.get("/oauth2/logout", params={"client_id": NUL_CLIENT}),
        "POST logout": token_service.post("/oauth2/logout", data={"client_id": NUL_CLIENT}),
    }
    for name, answer in answers.items():
        assert answer.status_code == 400, (name, answer.status_code, answer.text)
        assert answer.headers["content-type"].startswith("text/html"), name
        assert "Location" not in answer.headers, name


def test_a_nonce_with_nul_is_an_invalid_request_sent_to_the_client(stack: Stack) -> None:
    app = records.create_client(stack)
    person = records.create_user(stack)
    with Browser(stack) as browser:
        browser.sign_in(Authorization(app), person)
        authorization = Authorization(app, nonce="n-\x00")
        answer = browser.authorize(authorization)
    assert answer.status_code == 302, answer.text
    sent = query_of(answer.headers["location"])
    assert sent["error"] == "invalid_request", sent
    assert "nonce" in sent["error_description"], sent
    assert sent["state"] == authorization.state
    assert "code" not in sent


def test_a_failed_client_authentication_with_nul_is_still_audited(
    stack: Stack, token_service: httpx.Client
) -> None:
    """The refusal's audit row carries the id as sent, NUL shown as U+FFFD: the row was
    lost before (the insert failed and was only logged), so a NUL hid the attempt."""
    marker = uuid.uuid4().hex
    answer = token_service.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": f"app-\x00{marker}"},
    )
    assert answer.status_code == 401, answer.text
    rows = query(
        stack,
        "SELECT actor, target FROM audit_events WHERE action = $1 AND actor = $2",
        "token.client_auth_failed",
        f"app-\ufffd{marker}",
    )
    assert rows == [{"actor": f"app-\ufffd{marker}", "target": f"app-\ufffd{marker}"}], rows
