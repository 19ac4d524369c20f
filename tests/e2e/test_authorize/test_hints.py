"""``/oauth2/authorize``'s hints (``id_token_hint``, ``login_hint``) and resumed challenges."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.e2e.test_authorize.support import (
    id_token_for,
    params,
    query_of,
    signed_in,
)
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e


def test_id_token_hint_for_the_same_person_keeps_the_session(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    hint = id_token_for(stack, first_party.client_id, person.id)  # expired hints are fine
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none", id_token_hint=hint),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


def test_id_token_hint_for_someone_else_means_no_session(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    hint = id_token_for(stack, first_party.client_id, str(uuid.uuid4()))
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, prompt="none", id_token_hint=hint),
        headers=signed_in(stack, person),
    )
    assert query_of(response)["error"] == "login_required"


def test_a_logout_token_as_id_token_hint_is_refused(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    logout_token = id_token_for(
        stack,
        first_party.client_id,
        person.id,
        events={"http://schemas.openid.net/event/backchannel-logout": {}},
        jti="j1",
    )
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, id_token_hint=logout_token),
        headers=signed_in(stack, person),
    )
    assert query_of(response)["error"] == "invalid_request"


def test_login_hint_is_only_a_suggestion(
    proxy: httpx.Client, stack: Stack, first_party: records.TestClient, person: records.TestUser
) -> None:
    response = proxy.get(
        "/oauth2/authorize",
        params=params(first_party, login_hint="someone.else@example.com"),
        headers=signed_in(stack, person),
    )
    assert "code" in query_of(response)


def test_resuming_an_unfinished_or_unknown_challenge_shows_an_error(
    proxy: httpx.Client, app: records.TestClient
) -> None:
    started = proxy.get("/oauth2/authorize", params=params(app))
    challenge = query_of(started)["challenge"]
    for value in (challenge, "unknown"):
        response = proxy.get("/oauth2/authorize", params={"challenge": value})
        assert response.status_code == 400
        assert "location" not in response.headers
