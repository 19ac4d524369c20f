"""``GET /admin/activity`` (issue #28, docs/activity-dashboard.md): the figures equal the
traffic this module makes through the real stack (password sign-ins that succeed, fail and
are throttled, an authorization_code and client_credentials tokens, a back-channel logout
delivery, the live session count); closed hours are rolled up once however many replicas
ask at once; the token service's counts reach the audit log when it flushes, when a flush
failed first, and when it stops.

A stack of the module's own: the figures are the whole provider's, so no other test's
traffic may mix in."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.engine import create_engine, create_session_factory
from idp_common.storage.repos.activity import roll_up
from tests.harness import infra, oidc, records
from tests.harness.api import assert_guarded, assert_problem
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.admin.contract import AdminApi
from tests.integration.signin_fixtures import in_db, sql
from token_service.issued_counts import IssuedCounts, flush

pytestmark = pytest.mark.integration
MACHINE_SCOPE = "activity:read"


@pytest.fixture(scope="module")
def own_stack(private_stack: Stack) -> Stack:
    return private_stack


@pytest.fixture(scope="module")
def api(own_stack: Stack) -> Iterator[AdminApi]:
    client = AdminApi(own_stack)
    try:
        yield client
    finally:
        client.close()


def activity(api: AdminApi, range_name: str = "24h") -> dict[str, Any]:
    response = api.get("/admin/activity", params={"range": range_name})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def totals(body: dict[str, Any]) -> dict[str, int]:
    """Every series' total, by a flat name (``signins.password.failed``)."""
    found = {"throttled": body["throttled"]["total"]}
    for s in body["signins"]:
        found[f"signins.{s['method']}.{s['outcome']}"] = s["total"]
    for s in body["tokens"]:
        found[f"tokens.{s['grant']}"] = s["total"]
    for s in body["backchannel"]:
        found[f"backchannel.{s['status']}"] = s["total"]
    return found


def change(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    names = set(before) | set(after)
    moved = {n: after.get(n, 0) - before.get(n, 0) for n in names}
    return {n: v for n, v in moved.items() if v}


def execute(stack: Stack, statement: str, **params: Any) -> None:
    async def work(session: AsyncSession) -> None:
        await session.execute(text(statement), params)

    in_db(stack, work)


def wait_until(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the figures never reached the traffic"
        time.sleep(0.25)


def test_guarded(api: AdminApi) -> None:
    assert_guarded(api, "GET", "/admin/activity", "idp:audit:read")


@pytest.mark.parametrize("value", ["30d", "", "24H", "7"])
def test_another_range_is_a_422_naming_range(api: AdminApi, value: str) -> None:
    response = api.get("/admin/activity", params={"range": value})
    assert_problem(response, 422, field="range")


def test_shape_hours_aligned_oldest_first(api: AdminApi) -> None:
    for name, count in (("24h", 24), ("7d", 168)):
        body = activity(api, name)
        assert body["range"] == name
        hours = [datetime.fromisoformat(h) for h in body["hours"]]
        assert len(hours) == count
        assert all(h.minute == 0 and h.second == 0 and h.utcoffset() == timedelta(0) for h in hours)
        assert all(b - a == timedelta(hours=1) for a, b in itertools.pairwise(hours))
        now = datetime.now(UTC)
        assert hours[-1] <= now < hours[-1] + timedelta(hours=1)
        every = [body["throttled"], *body["signins"], *body["tokens"], *body["backchannel"]]
        assert all(len(s["counts"]) == count and sum(s["counts"]) == s["total"] for s in every)
        assert isinstance(body["activeSessions"], int)
    assert activity(api)["hours"][-1].endswith(":00:00Z")  # the default range is 24h
    assert api.get("/admin/activity").json()["range"] == "24h"


def failed_password_attempts(stack: Stack, app: records.TestClient) -> list[int]:
    """Wrong passwords for one unknown account, each on a fresh sign-in request, until the
    account's delay refuses one (429; the fifth failure starts a delay of a second or two,
    which a slow machine may outlast between two attempts: then it tries again)."""
    email = f"ghost-{secrets.token_hex(5)}@example.com"
    answers: list[int] = []
    with oidc.Browser(stack) as browser:
        challenges = []
        for _ in range(12):  # made first, so the attempts follow each other closely
            to_login = browser.authorize(oidc.Authorization(app))
            challenges.append(oidc.query_of(to_login.headers["location"])["challenge"])
        for challenge in challenges:
            answer = browser.post(
                "/api/v1/auth/login",
                json={"challenge": challenge, "email": email, "password": "wrong"},
            )
            answers.append(answer.status_code)
            if answer.status_code == 429:
                break
    return answers


def test_the_figures_equal_the_traffic(own_stack: Stack, api: AdminApi) -> None:
    stack = own_stack
    before, before_week = totals(activity(api)), totals(activity(api, "7d"))
    sessions_before = activity(api)["activeSessions"]
    tf.create_api(stack, [MACHINE_SCOPE])
    machine = tf.create_client(stack, scopes=[MACHINE_SCOPE], grant_types=["client_credentials"])
    with Receiver() as relying_party:
        app = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=relying_party.url
        )
        person = records.create_user(stack)
        with oidc.Browser(stack) as browser:
            authorization = oidc.Authorization(app)
            code = browser.sign_in(authorization, person)  # password succeeded
            tokens = oidc.exchange(stack, authorization, code)  # authorization_code
            assert activity(api)["activeSessions"] == sessions_before + 1
            for _ in range(2):
                issued = httpx.post(
                    stack.proxy_url + "/oauth2/token",
                    data={"grant_type": "client_credentials", "scope": MACHINE_SCOPE},
                    headers=machine.basic(),
                )
                assert issued.status_code == 200, issued.text
            # five wrong passwords, then the account waits: the next is throttled
            attempts = failed_password_attempts(stack, app)
            assert attempts[:5] == [401] * 5 and attempts[-1] == 429, attempts
            logout = browser.get(
                "/oauth2/logout",
                params={
                    "id_token_hint": tokens["id_token"],
                    "post_logout_redirect_uri": app.post_logout_redirect_uri,
                },
            )
            assert logout.status_code == 302, logout.text
        relying_party.wait_for(1)
    expected = {
        "signins.password.succeeded": 1,
        "signins.password.failed": attempts.count(401),
        "signins.password.throttled": 1,
        "throttled": 1,
        "tokens.authorization_code": 1,
        "tokens.client_credentials": 2,
        "backchannel.delivered": 1,
    }
    # the token counts arrive with the next flush (1 s in the test stack), the delivery's
    # row when the dispatcher has audited it
    wait_until(lambda: change(before, totals(activity(api))) == expected)
    assert change(before_week, totals(activity(api, "7d"))) == expected
    assert activity(api)["activeSessions"] == sessions_before  # the logout ended it
    rows = sql(
        stack,
        "SELECT detail FROM audit_events WHERE action = 'tokens.issued' AND target = :client",
        client=machine.client_id,
    )
    assert sum(r[0]["count"] for r in rows) == 2
    assert {(r[0]["grant"], r[0]["clientId"]) for r in rows} == {
        ("client_credentials", machine.client_id)
    }


def test_closed_hours_are_rolled_up_once_however_many_ask_at_once(
    own_stack: Stack, api: AdminApi
) -> None:
    """Rows in an hour three hours back (closed): asked by eight callers at once and then
    again, and rolled by four sessions at once, the hour is counted once."""
    stack = own_stack
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    at = hour + timedelta(minutes=17)
    execute(stack, "DELETE FROM activity_hours WHERE hour = :hour", hour=hour)
    for _ in range(4):
        execute(
            stack,
            "INSERT INTO audit_events (occurred_at, action, status_code, detail) "
            "VALUES (:at, 'totp.failed', 401, '{}')",
            at=at,
        )
    execute(
        stack,
        "INSERT INTO audit_events (occurred_at, action, status_code, detail) VALUES "
        "(:at, 'tokens.issued', 200, "
        """'{"grant": "refresh_token", "clientId": "x", "count": 5}')""",
        at=at,
    )
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: activity(api), range(8)))
    answers.append(activity(api))
    answers.append(activity(api, "7d"))
    for body in answers:
        index = body["hours"].index(hour.strftime("%Y-%m-%dT%H:%M:%SZ"))
        (totp,) = [s for s in body["signins"] if (s["method"], s["outcome"]) == ("totp", "failed")]
        (refresh,) = [s for s in body["tokens"] if s["grant"] == "refresh_token"]
        assert (totp["counts"][index], refresh["counts"][index]) == (4, 5)
    stored = sql(
        stack,
        "SELECT action, variant, count FROM activity_hours WHERE hour = :hour ORDER BY action",
        hour=hour,
    )
    assert [tuple(r) for r in stored] == [
        ("", "", 0),
        ("tokens.issued", "refresh_token", 5),
        ("totp.failed", "", 4),
    ]

    # The roll-up itself, four transactions at once, with the hour to do again.
    execute(stack, "DELETE FROM activity_hours WHERE hour = :hour", hour=hour)

    async def roll_four() -> list[int]:
        engine = create_engine(stack.database_url)
        sessions = create_session_factory(engine)

        async def one() -> int:
            async with sessions.begin() as session:
                return await roll_up(session, datetime.now(UTC), 24)

        try:
            return await asyncio.gather(*(one() for _ in range(4)))
        finally:
            await engine.dispose()

    rolled = infra.run(roll_four())
    assert sorted(rolled) == [0, 0, 0, 1]  # one did the hour, three found it done
    again = sql(
        stack,
        "SELECT action, count FROM activity_hours WHERE hour = :hour ORDER BY action",
        hour=hour,
    )
    assert [tuple(r) for r in again] == [("", 0), ("tokens.issued", 5), ("totp.failed", 4)]


def test_counts_kept_through_a_failed_write_reach_the_log(own_stack: Stack) -> None:
    client_id = f"kept-{secrets.token_hex(4)}"

    async def scenario() -> tuple[int, int, int]:
        away = create_engine(f"postgresql+asyncpg://postgres@127.0.0.1:{infra.closed_port()}/x")
        engine = create_engine(own_stack.database_url)
        counts = IssuedCounts()
        try:
            counts.add("client_credentials", client_id)
            counts.add("client_credentials", client_id)
            failed = await flush(counts, create_session_factory(away))
            counts.add("client_credentials", client_id)  # meanwhile
            written = await flush(counts, create_session_factory(engine))
            empty = await flush(counts, create_session_factory(engine))
        finally:
            await away.dispose()
            await engine.dispose()
        return failed, written, empty

    assert infra.run(scenario()) == (0, 1, 0)
    rows = sql(
        own_stack,
        "SELECT detail FROM audit_events WHERE action = 'tokens.issued' AND target = :client",
        client=client_id,
    )
    assert [r[0] for r in rows] == [
        {"grant": "client_credentials", "clientId": client_id, "count": 3}
    ]


def test_a_stopping_token_service_writes_what_it_counted(own_stack: Stack) -> None:
    stack = own_stack
    tf.create_api(stack, [MACHINE_SCOPE + ".stop"])
    machine = tf.create_client(
        stack, scopes=[MACHINE_SCOPE + ".stop"], grant_types=["client_credentials"]
    )

    def written() -> list[Any]:
        return sql(
            stack,
            "SELECT detail FROM audit_events WHERE action = 'tokens.issued' AND target = :c",
            c=machine.client_id,
        )

    with stack.extra_service("token", {"SVC_ACTIVITY_FLUSH_SECONDS": "3600"}) as url:
        for _ in range(3):
            issued = httpx.post(
                url + "/oauth2/token",
                data={"grant_type": "client_credentials", "scope": MACHINE_SCOPE + ".stop"},
                headers={**machine.basic(), "X-Forwarded-For": tf.fresh_address()},
            )
            assert issued.status_code == 200, issued.text
        time.sleep(1)
        assert written() == []  # an hour between writes: nothing yet
    assert sum(r[0]["count"] for r in written()) == 3
