"""A logout answered while 50 requests with the session's access token run at once, on a
stack with two token and two entity replicas behind the proxy: no request that starts
after the logout's answer succeeds (docs/security.md "Tokens end when what they stand for
ends").

Fifty threads each send ``GET /entity/profile`` and ``GET /oauth2/userinfo`` with the token
in turn, through the proxy (so each replica of each service answers some), recording when
each request started and what it got. Meanwhile the person logs out (RP-initiated, with the
session cookie and an ID token hint). Every request that started after the logout's answer
arrived must be refused (401); requests from before it succeed, which shows the token
worked until then (else the test could not fail). The clock is this process's own
``time.monotonic``, read just before a request is sent and just after the logout's answer
is read, so "after" never flatters the provider.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.harness import records, replicas
from tests.harness.stack import Stack, new_stack, remove_stack, start_stack
from tests.integration import token_fixtures as tf

pytestmark = [pytest.mark.integration, pytest.mark.alone]

REPLICAS = {"token": 2, "entity": 2}
CALLERS = 50
BEFORE_S, AFTER_S = 1.5, 1.5
SETTINGS = {
    "SVC_AUTH_FAIL_PER_IP": "10000000",
    "SVC_TOKEN_PER_IP": "10000000",
    "SVC_SECRETS_KEY": "",  # no face model processes: faster replicas on two cores
    "SVC_DB_POOL_SIZE": "2",
    "SVC_DB_HOT_POOL_SIZE": "2",
}
PATHS = ("/entity/profile", "/oauth2/userinfo")


@dataclass(frozen=True)
class Outcome:
    path: str
    started: float
    status: int


@pytest.fixture(scope="module")
def replicated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = new_stack(tmp_path_factory.mktemp("idp-logout-race"))
    stack.env.update(SETTINGS)
    try:
        start_stack(stack, replicas=REPLICAS, proxy_args=("--signin-rate", "10000r/s"))
        yield stack
    finally:
        replicas.terminate_all(stack)
        remove_stack(stack)


def _hammer(stack: Stack, token: str, stop: threading.Event, out: list[Outcome]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=stack.proxy_url, timeout=20, headers=headers) as client:
        turn = 0
        while not stop.is_set():
            path = PATHS[turn % len(PATHS)]
            turn += 1
            started = time.monotonic()
            status = client.get(path).status_code
            out.append(Outcome(path, started, status))


def test_no_request_that_starts_after_the_logout_answer_succeeds(replicated: Stack) -> None:
    stack = replicated
    app = tf.create_client(stack, scopes=[*tf.OIDC, "idp:account:read"])
    person = tf.create_person(stack)
    cookie, session = records.create_browser_session(stack, str(person.id))
    code = tf.create_code(stack, app, person, scope="openid idp:account:read", session_id=cookie)
    with httpx.Client(base_url=stack.proxy_url, timeout=20) as http:
        issued = tf.exchange(http, app, code)
        assert issued.status_code == 200, issued.text
        tokens = issued.json()
        stop = threading.Event()
        outcomes: list[list[Outcome]] = [[] for _ in range(CALLERS)]
        callers = [
            threading.Thread(target=_hammer, args=(stack, tokens["access_token"], stop, out))
            for out in outcomes
        ]
        for caller in callers:
            caller.start()
        time.sleep(BEFORE_S)
        logout = http.post(
            "/oauth2/logout",
            data={"id_token_hint": tokens["id_token"]},
            headers={"Cookie": f"svc_session={cookie}"},
        )
        answered = time.monotonic()
        assert logout.status_code in (200, 303), logout.text
        time.sleep(AFTER_S)
        stop.set()
        for caller in callers:
            caller.join(30)
    assert not records.session_exists(stack, session.sid)
    seen = [o for out in outcomes for o in out]
    before = [o for o in seen if o.started < answered]
    after = [o for o in seen if o.started > answered]
    succeeded_after = [o for o in after if o.status != 401]
    print(
        f"\n{len(seen)} requests by {CALLERS} callers on 2 token + 2 entity replicas: "
        f"{len(before)} started before the logout's answer "
        f"({sum(o.status == 200 for o in before)} answered 200), {len(after)} after "
        f"({len(succeeded_after)} not refused)"
    )
    for path in PATHS:  # the token worked on both services until the logout
        assert any(o.status == 200 for o in before if o.path == path), path
        assert any(o.path == path for o in after), path
    assert succeeded_after == [], succeeded_after[:5]
