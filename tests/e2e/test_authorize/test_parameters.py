"""``/oauth2/authorize``'s parameters: an exact redirect URI, unknown or repeated clients,
invalid parameters returned to the client, PKCE for public clients."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.test_authorize.support import (
    params,
    query_of,
)
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://127.0.0.1:9/cb/",
        "http://127.0.0.1:9/cb?x=1",
        "http://127.0.0.1:10/cb",
        "https://127.0.0.1:9/cb",
        "http://127.0.0.1:9/CB",
        "",
    ],
)
def test_redirect_uri_must_match_exactly(
    proxy: httpx.Client, app: records.TestClient, redirect_uri: str
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert "redirect_uri" in response.text


def test_unknown_client_is_shown_an_error_not_redirected(proxy: httpx.Client) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params={
            "response_type": "code",
            "client_id": "nobody",
            "redirect_uri": "http://127.0.0.1:9/cb",
            "scope": "openid",
        },
    )
    assert response.status_code == 400
    assert "location" not in response.headers


def test_repeated_client_id_is_not_trusted(proxy: httpx.Client, app: records.TestClient) -> None:
    query = httpx.QueryParams(params(app)).add("client_id", app.client_id)
    assert proxy.get("/oauth2/authorize", params=query).status_code == 400


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": ""}, "invalid_scope"),
        ({"prompt": "none login"}, "invalid_request"),
        ({"prompt": "sometimes"}, "invalid_request"),
        ({"max_age": "-1"}, "invalid_request"),
        ({"code_challenge": "x" * 43, "code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": "short", "code_challenge_method": "S256"}, "invalid_request"),
        ({"id_token_hint": "not-a-token"}, "invalid_request"),
    ],
)
def test_invalid_parameters_are_returned_to_the_client(
    proxy: httpx.Client,
    stack: Stack,
    app: records.TestClient,
    changes: dict[str, str],
    error: str,
) -> None:
    response = proxy.get("/oauth2/authorize", params=params(app, **changes))
    assert response.status_code == 302
    assert response.headers["location"].startswith(app.redirect_uri + "?")
    query = query_of(response)
    assert query["error"] == error
    assert query["state"] == "st-1"
    assert query["iss"] == stack.issuer


def test_repeated_state_is_invalid_request(proxy: httpx.Client, app: records.TestClient) -> None:
    query = httpx.QueryParams(params(app)).add("state", "again")
    response = proxy.get("/oauth2/authorize", params=query)
    assert query_of(response)["error"] == "invalid_request"
    assert "state" not in query_of(response)


def test_public_client_must_use_pkce(proxy: httpx.Client, first_party: records.TestClient) -> None:
    bare = {k: v for k, v in params(first_party).items() if not k.startswith("code_challenge")}
    response = proxy.get("/oauth2/authorize", params=bare)
    assert query_of(response)["error"] == "invalid_request"
