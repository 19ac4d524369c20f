"""A password change (the person's own, or an administrator's reset) and sign-ins with the
old password at once (issue 21; contract §4: a new password ends every session of the
person and revokes their refresh tokens).

Serially, a sign-in with the old password either comes before the change (it succeeds, and
the change then ends its session) or after it (401). So once the change has answered,
whatever the interleaving: no session of the person is alive, a cookie a sign-in got with
the old password reaches no application, the old password is refused and the new one
works. Five sign-ins (the account's free attempts) leave at staggered moments around the
change, in several rounds, so that some verify the old password while the change commits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx
import pytest

from tests.harness import oidc, records
from tests.harness.api import fresh_address, signed_in_administrator
from tests.harness.stack import Stack
from tests.integration.races.support import Call, at_once, no_server_error, self_service_bearer

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
NEW_PASSWORD = "an entirely new passphrase 42"
ROUNDS = 3  # per way of changing the password
SIGN_INS = 5  # the account's free attempts: more would be throttled, not raced
STAGGER = 0.04  # seconds between the sign-ins' departures


def _challenge(stack: Stack, app: records.TestClient) -> str:
    """A sign-in challenge, as a browser without a session gets one from authorize."""
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/authorize",
        params=oidc.Authorization(app).params(),
        timeout=20,
    )
    assert answer.status_code in (302, 303), answer.text
    return oidc.query_of(answer.headers["location"])["challenge"]


def _sign_in(stack: Stack, challenge: str, email: str, password: str, delay: float) -> Call:
    url = stack.service_url("authui-api") + "/api/v1/auth/login"
    body = {"challenge": challenge, "email": email, "password": password}

    async def call(client: httpx.AsyncClient) -> httpx.Response:
        await asyncio.sleep(delay)
        return await client.post(url, json=body, headers={"X-Forwarded-For": fresh_address()})

    return call


def _change(stack: Stack, person: records.TestUser) -> Call:
    bearer = self_service_bearer(stack, person.id)
    url = stack.service_url("entity") + "/entity/credentials/password"
    body = {"currentPassword": person.password, "newPassword": NEW_PASSWORD}

    def call(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.post(url, json=body, headers={"Authorization": f"Bearer {bearer}"})

    return call


def _reset(stack: Stack, person: records.TestUser) -> Call:
    """An administrator's reset to the new password (``POST /admin/users/{id}/reset-password``)."""
    _, bearer = signed_in_administrator(stack)
    url = stack.service_url("admin") + f"/admin/users/{person.id}/reset-password"

    def call(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        headers = {"Authorization": f"Bearer {bearer}", "X-Forwarded-For": fresh_address()}
        return client.post(url, json={"password": NEW_PASSWORD}, headers=headers)

    return call


def _reaches_application(stack: Stack, app: records.TestClient, cookie: str) -> bool:
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/authorize",
        params=oidc.Authorization(app).params(),
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    return "code" in oidc.query_of(answer.headers.get("location", ""))


def _live_sessions(stack: Stack, person: records.TestUser) -> list[str]:
    """The sids the sign-ins audited for the person whose session still exists."""
    rows = records.query(
        stack,
        "SELECT detail->>'sid' AS sid FROM audit_events"
        " WHERE action = 'login.succeeded' AND actor = $1",
        person.id,
    )
    return [str(r["sid"]) for r in rows if records.session_exists(stack, str(r["sid"]))]


@pytest.mark.parametrize("change", [_change, _reset], ids=["own change", "admin reset"])
def test_no_session_signed_in_with_the_old_password_outlives_the_change(
    stack: Stack, change: Callable[[Stack, records.TestUser], Call]
) -> None:
    app = records.create_client(stack, skip_consent=True)
    for _ in range(ROUNDS):
        person = records.create_user(stack)
        sign_ins = [
            _sign_in(stack, _challenge(stack, app), person.email, person.password, n * STAGGER)
            for n in range(SIGN_INS)
        ]
        answers = at_once([change(stack, person), *sign_ins])
        no_server_error(answers)
        assert answers[0].status_code == 204, answers[0].text
        assert {a.status_code for a in answers[1:]} <= {200, 401}, [a.text for a in answers]

        assert _live_sessions(stack, person) == [], "a session outlived the password change"
        for signed_in in (a for a in answers[1:] if a.status_code == 200):
            cookie = signed_in.cookies["svc_session"]
            assert not _reaches_application(stack, app, cookie)

        late = httpx.post(
            stack.service_url("authui-api") + "/api/v1/auth/login",
            json={
                "challenge": _challenge(stack, app),
                "email": person.email,
                "password": person.password,
            },
            headers={"X-Forwarded-For": fresh_address()},
            timeout=20,
        )
        assert late.status_code == 401, late.text
        new = _sign_in(stack, _challenge(stack, app), person.email, NEW_PASSWORD, 0)
        assert at_once([new])[0].status_code == 200
