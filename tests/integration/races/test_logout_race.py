"""Two (and more) logouts of one session at once (issue 21): the session was reached by two
applications, each with a back-channel receiver. The browser's logout (GET with its cookie,
twice, and RP-initiated with ``id_token_hint``, GET and POST), the person ending the session
in the self-service API and an administrator ending the person's sessions all leave at the
same moment. Every answer is clean, the session ends once: one ``session.ended`` event,
and each application receives exactly one logout token, never two.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES, SELF_SERVICE_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.api import TWO_FACTOR_SIGN_IN, create_administrator
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack
from tests.integration.races.support import Call, at_once, no_server_error, people

# many requests at once, each holding a database connection: runs alone (scripts/test.sh)
pytestmark = [pytest.mark.integration, pytest.mark.alone]
#: After the expected deliveries, how long nothing more may arrive.
SETTLE_SECONDS = 1.5


def _reach(stack: Stack, cookie: str, app: records.TestClient) -> str:
    """Authorize ``app`` with the session's cookie (recording it in the session); the
    ID token of the code's exchange."""
    authorization = oidc.Authorization(app)
    answer = httpx.get(
        stack.service_url("token") + "/oauth2/authorize",
        params=authorization.params(),
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert answer.status_code in (302, 303), answer.text
    code = oidc.query_of(answer.headers["location"])["code"]
    return str(oidc.exchange(stack, authorization, code)["id_token"])


def _bearer(stack: Stack, subject: str, scopes: tuple[str, ...], **claims: object) -> str:
    return tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=scopes, subject=subject, **claims)


def _logouts(
    stack: Stack, cookie: str, sid: str, person: str, app: records.TestClient, hint: str
) -> list[Call]:
    token, browser = stack.service_url("token"), {"Cookie": f"svc_session={cookie}"}
    rp = {"id_token_hint": hint, "post_logout_redirect_uri": app.post_logout_redirect_uri}
    own = _bearer(stack, person, tuple(SELF_SERVICE_SCOPES), auth_time=int(time.time()))
    admin = _bearer(
        stack,
        create_administrator(stack, ADMIN_SCOPES),
        tuple(ADMIN_SCOPES),
        auth_time=int(time.time()),
        **TWO_FACTOR_SIGN_IN,
    )

    def by_cookie(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.get(token + "/oauth2/logout", headers=browser)

    def by_hint(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.get(token + "/oauth2/logout", params=rp, headers=browser)

    def by_post(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.post(token + "/oauth2/logout", data=rp, headers=browser)

    def by_person(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        url = stack.service_url("entity") + f"/entity/sessions/{sid}"
        return client.delete(url, headers={"Authorization": f"Bearer {own}"})

    def by_admin(client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        url = stack.service_url("admin") + f"/admin/users/{person}/sessions"
        return client.delete(url, headers={"Authorization": f"Bearer {admin}"})

    return [by_cookie, by_cookie, by_hint, by_post, by_person, by_admin]


def test_logouts_of_one_session_at_once_tell_each_application_once(stack: Stack) -> None:
    with Receiver() as receiver:
        apps = [
            records.create_client(
                stack, skip_consent=True, backchannel_logout_uri=receiver.url_for(f"/app{n}")
            )
            for n in (1, 2)
        ]
        (person,) = people(stack, 1)
        cookie, session = records.create_browser_session(stack, person.id)
        hints = [_reach(stack, cookie, app) for app in apps]

        answers = at_once(_logouts(stack, cookie, session.sid, person.id, apps[0], hints[0]))
        no_server_error(answers)
        codes = [answer.status_code for answer in answers]
        assert codes[:4] == [302, 302, 302, 303], [a.text[:200] for a in answers]
        assert codes[4] in (204, 404), answers[4].text  # 404: already ended by another
        assert codes[5] == 204, answers[5].text

        receiver.wait_for(2)
        time.sleep(SETTLE_SECONDS)  # a second delivery would have arrived by now
        got = receiver.snapshot()
    assert sorted(r.path for r in got) == ["/app1", "/app2"], [r.path for r in got]
    for received in got:
        app = apps[0] if received.path == "/app1" else apps[1]
        _, claims = oidc.verified_claims(
            stack, received.form["logout_token"], audience=app.client_id, typ="logout+jwt"
        )
        assert claims["sub"] == person.id
    assert not records.session_exists(stack, session.sid)
    events = records.query(
        stack, "SELECT id FROM event_outbox WHERE payload->>'sid' = $1", session.sid
    )
    assert len(events) == 1, f"{len(events)} session.ended events for one session"
    live = records.query(
        stack,
        "SELECT id FROM refresh_tokens WHERE session_sid = $1 AND revoked_at IS NULL",
        session.sid,
    )
    assert live == []
