"""The activity dashboard in the console (issue #28, acceptance 3), in Chromium.

The first administrator opens ``/console/admin/activity`` and reads the figures; the test
then makes known traffic through the real stack (three password sign-ins that succeed,
wrong passwords for one account until the next is throttled, four ``client_credentials``
tokens), and the dashboard's tables show exactly that much more, the active sessions three
more. The charts are drawn (a canvas each, by uPlot) under the console's CSP with no
violation and no console error; each chart's per-hour table adds up to its totals and its
last row is the current UTC hour; the 7 days range shows the same totals on this fresh stack.

The traffic is made the way applications make it (the OIDC flow over HTTP, the token
endpoint), not through the console. A stack of the module's own: the figures are the whole
provider's, so no other test's traffic may mix in.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.harness import oidc, records
from tests.harness.browser import PageLog
from tests.harness.console import check_screen, create_first_admin, settle, sign_in
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.e2e

ACTIVITY = "/console/admin/activity"
MACHINE_SCOPE = "dashboard:read"
CHARTS = {
    "signins": "Sign-ins per hour",
    "throttled": "Throttled attempts per hour",
    "tokens": "Tokens issued per hour",
    "backchannel": "Back-channel logout deliveries per hour",
}
#: The token service flushes its counts every second in the test stack.
FIGURES_WAIT = 30.0


@pytest.fixture(scope="module")
def own_stack(private_stack: Stack) -> Stack:
    return private_stack


def _table_rows(table: Locator) -> list[list[str]]:
    return [row.locator("th, td").all_inner_texts() for row in table.locator("tbody tr").all()]


def _number(text: str) -> int:
    return int(text.replace(",", "").strip())


def figures(page: Page) -> dict[str, int]:
    """Every series' total as the tables show it, by chart and series name."""
    found: dict[str, int] = {}
    for chart, title in CHARTS.items():
        table = page.get_by_role("table", name=f"{title}: totals", exact=True)
        if table.count() == 0:
            continue
        for name, total in _table_rows(table):
            found[f"{chart}: {name}"] = _number(total)
    return found


def active_sessions(page: Page) -> int:
    return _number(page.get_by_test_id("active-sessions").inner_text())


def grown_by(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    names = set(before) | set(after)
    moved = {n: after.get(n, 0) - before.get(n, 0) for n in names}
    return {n: v for n, v in moved.items() if v}


def refresh(page: Page) -> None:
    page.get_by_role("button", name="Refresh", exact=True).click()
    settle(page)


def make_traffic(stack: Stack) -> int:
    """3 password sign-ins, wrong passwords for one account until it is throttled (one 429),
    4 client_credentials tokens; answers how many wrong passwords were refused with 401."""
    app = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    for _ in range(3):
        with oidc.Browser(stack) as browser:
            browser.sign_in(oidc.Authorization(app), person)
    ghost = f"ghost-{secrets.token_hex(5)}@example.com"
    answers: list[int] = []
    with oidc.Browser(stack) as browser:
        while 429 not in answers:
            assert len(answers) < 12, f"never throttled: {answers}"
            to_login = browser.authorize(oidc.Authorization(app))
            challenge = oidc.query_of(to_login.headers["location"])["challenge"]
            answer = browser.post(
                "/api/v1/auth/login",
                json={"challenge": challenge, "email": ghost, "password": "wrong"},
            )
            answers.append(answer.status_code)
    assert set(answers[:-1]) == {401}, answers
    tf.create_api(stack, [MACHINE_SCOPE])
    machine = tf.create_client(stack, scopes=[MACHINE_SCOPE], grant_types=["client_credentials"])
    for _ in range(4):
        issued = httpx.post(
            stack.proxy_url + "/oauth2/token",
            data={"grant_type": "client_credentials", "scope": MACHINE_SCOPE},
            headers=machine.basic(),
        )
        assert issued.status_code == 200, issued.text
    return len(answers) - 1


def test_the_dashboard_draws_the_traffic_and_its_tables_equal_it(
    own_stack: Stack, page: Page, page_log: PageLog, request: pytest.FixtureRequest
) -> None:
    stack = own_stack
    admin = create_first_admin(stack)
    sign_in(page, stack, admin, ACTIVITY)
    expect(page.get_by_role("heading", level=1, name="Activity")).to_be_visible()
    expect(page.get_by_role("button", name="Last 24 hours")).to_have_attribute(
        "aria-pressed", "true"
    )
    settle(page)
    # The administrator's own sign-in is counted, and the console's code exchange once the
    # token service has flushed its counts: what follows adds to that.
    deadline = time.monotonic() + FIGURES_WAIT
    while figures(page).get("tokens: Authorization code", 0) < 1:
        assert time.monotonic() < deadline, "the console's own token was never counted"
        time.sleep(0.5)
        refresh(page)
    before, sessions_before = figures(page), active_sessions(page)
    assert before["signins: Password, succeeded"] == 1

    refused = make_traffic(stack)
    expected = {
        "signins: Password, succeeded": 3,
        "signins: Password, failed": refused,
        "signins: Password, throttled": 1,
        "throttled: Throttled": 1,
        "tokens: Client credentials": 4,
    }

    deadline = time.monotonic() + FIGURES_WAIT
    while True:
        refresh(page)
        now = figures(page)
        if grown_by(before, now) == expected:
            break
        assert time.monotonic() < deadline, (
            f"the tables never showed the traffic: {grown_by(before, now)}"
        )
        time.sleep(0.5)
    assert active_sessions(page) == sessions_before + 3

    # Each chart with figures is drawn on a canvas of its own size, and says what it shows.
    for chart in ("signins", "throttled", "tokens"):
        panel = page.locator(f"section[data-chart={chart}]")
        canvas = panel.locator("canvas")
        expect(canvas).to_have_count(1)
        size = canvas.evaluate("c => [c.width, c.height]")
        assert size[0] > 100 and size[1] > 100, (chart, size)
        label = panel.get_by_role("img").get_attribute("aria-label") or ""
        assert label.startswith(f"Chart: {CHARTS[chart]}. Totals: "), label
    # Nothing was delivered over the back channel: that chart says so instead.
    expect(page.locator("section[data-chart=backchannel]")).to_contain_text(
        "Nothing was counted in the last 24 hours."
    )

    # The hours behind the disclosure add up to the totals; the last row is this hour.
    signins = page.locator("section[data-chart=signins]")
    signins.get_by_text("Figures for each hour").click()
    hours = page.get_by_role("table", name="Sign-ins per hour: each hour", exact=True)
    expect(hours).to_be_visible()
    headers = hours.locator("thead th").all_inner_texts()
    rows = _table_rows(hours)
    assert len(rows) == 24
    for column, series in enumerate(headers[1:], start=1):
        assert sum(_number(row[column]) for row in rows) == now[f"signins: {series}"], series
    last_hour = hours.locator("tbody tr").last.locator("time")
    current = datetime.now(UTC).strftime("%Y-%m-%dT%H:00:00Z")
    assert last_hour.get_attribute("datetime") in {current, _previous_hour_of(current)}
    check_screen(page, "admin-activity", request)

    # On this fresh stack the last 7 days hold the same.
    page.get_by_role("button", name="Last 7 days").click()
    expect(page).to_have_url(f"{stack.proxy_url}{ACTIVITY}?range=7d")
    settle(page)
    expect(page.get_by_role("button", name="Last 7 days")).to_have_attribute("aria-pressed", "true")
    assert figures(page) == now
    expect(page.locator("section[data-chart=signins] canvas")).to_have_count(1)

    assert page_log.csp_violations() == []
    # 401 and 429 belong to the sign-in traffic above, not to the console's page.
    assert page_log.problems() == []


def _previous_hour_of(hour: str) -> str:
    """The hour before ``hour`` (the test may cross an hour's end between reads)."""
    start = datetime.strptime(hour, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return datetime.fromtimestamp(start.timestamp() - 3600, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
