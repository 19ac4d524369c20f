"""Consent and withdrawal at once (issue 21): a person connected to an application (an
earlier consent and a refresh token) approves more scopes on the sign-in page while, in the
self-service API, they withdraw the connection.

Serially there are two outcomes: approve then withdraw (no consent is left), or withdraw
then approve (the consent holds exactly what was approved now). Either way the refresh
token issued before is revoked and the browser session stays (a withdrawal ends no
session). After the race the state is one of the two, the consent row, the connection list
and the refresh tokens agreeing with each other; both answers are clean. Several rounds,
the withdrawal leaving at a different moment in each.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.stack import Stack
from tests.integration.races.support import (
    Call,
    at_once,
    no_server_error,
    people,
    self_service_bearer,
)

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
ASKED = "openid profile offline_access"
OFFSETS = (0.0, 0.005, 0.01, 0.02, 0.04)  # seconds the withdrawal leaves after the approval


def _consent_challenge(stack: Stack, app: records.TestClient, cookie: str) -> str:
    """Authorize with a session but without consent to every scope: the consent step."""
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/authorize",
        params=oidc.Authorization(app).params(ASKED),
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert answer.status_code in (302, 303), answer.text
    challenge = oidc.query_of(answer.headers["location"])["challenge"]
    step = httpx.get(
        stack.service_url("authui-api") + f"/api/v1/auth/challenge/{challenge}",
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert step.json()["next"] == "consent", step.text
    return challenge


def _approve(stack: Stack, challenge: str, cookie: str) -> Call:
    url = stack.service_url("authui-api") + "/api/v1/auth/consent"

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        return await client.post(
            url,
            json={"challenge": challenge, "approve": True},
            headers={"Cookie": f"svc_session={cookie}"},
        )

    return call


def _withdraw(stack: Stack, person: records.TestUser, client_id: str, delay: float) -> Call:
    url = stack.service_url("entity") + f"/entity/connections/{client_id}"
    bearer = self_service_bearer(stack, person.id)

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        await asyncio.sleep(delay)
        return await client.delete(url, headers={"Authorization": f"Bearer {bearer}"})

    return call


def _listed(stack: Stack, person: records.TestUser) -> list[str]:
    bearer = tokens.mint(
        stack.key_dir, issuer=stack.issuer, scopes=SELF_SERVICE_SCOPES, subject=person.id
    )
    answer = httpx.get(
        stack.service_url("entity") + "/entity/connections",
        headers={"Authorization": f"Bearer {bearer}"},
        timeout=20,
    )
    assert answer.status_code == 200, answer.text
    return [item["clientId"] for item in answer.json()["items"]]


def test_approval_and_withdrawal_at_once_end_in_one_serial_outcome(stack: Stack) -> None:
    app = records.create_client(stack)
    for person, offset in zip(people(stack, len(OFFSETS)), OFFSETS, strict=True):
        _race(stack, app, person, offset)


def _race(stack: Stack, app: records.TestClient, person: records.TestUser, offset: float) -> None:
    cookie, session = records.create_browser_session(stack, person.id)
    records.give_consent(stack, app.client_id, person.id, ["openid"])
    records.issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    challenge = _consent_challenge(stack, app, cookie)

    approved, withdrawn = at_once(
        [_approve(stack, challenge, cookie), _withdraw(stack, person, app.client_id, offset)]
    )
    no_server_error([approved, withdrawn])
    assert approved.status_code == 200, approved.text
    assert approved.json()["next"] == "done"
    assert withdrawn.status_code == 204, withdrawn.text  # connected before either began

    consent = records.query(
        stack,
        "SELECT c.scopes FROM consents c JOIN clients k ON k.id = c.client_pk"
        " WHERE c.user_id = $1 AND k.client_id = $2",
        uuid.UUID(person.id),
        app.client_id,
    )
    live = records.query(
        stack,
        "SELECT t.id FROM refresh_tokens t JOIN clients k ON k.id = t.client_pk"
        " WHERE t.user_id = $1 AND k.client_id = $2 AND t.revoked_at IS NULL",
        uuid.UUID(person.id),
        app.client_id,
    )
    assert live == [], "the refresh token issued before the withdrawal is still valid"
    if consent:  # withdraw, then approve: exactly what was approved now
        assert sorted(consent[0]["scopes"]) == sorted(ASKED.split())  # type: ignore[arg-type]
        assert _listed(stack, person) == [app.client_id]
    else:  # approve, then withdraw: nothing is left
        assert _listed(stack, person) == []
    assert records.session_exists(stack, session.sid)  # a withdrawal ends no session
    # The sign-in approved before (or after) the withdrawal completes, as serially.
    resumed = httpx.get(
        approved.json()["redirectTo"], headers={"Cookie": f"svc_session={cookie}"}, timeout=20
    )
    assert "code" in oidc.query_of(resumed.headers.get("location", "")), resumed.text
