"""Real headless Chromium for page tests (registered by the root conftest.py).

Debian's ``chromium`` package drives the pages through Python Playwright; the project never
downloads a browser (no ``playwright install``). Override the binary with
``IDP_TEST_CHROMIUM``.

Fixtures:

- ``browser``: one Chromium per test session, each launch with a fresh profile.
- ``page``: a page in a new context (own cookies and storage) per test. Every console
  error, uncaught exception and Content-Security-Policy violation is recorded in
  ``page_log``. When the test fails, a full-page screenshot is saved as
  ``<tmp_path>/failure.png``.
- ``page_log``: what the page reported; ``page_log.problems()`` lists the errors.
- ``screenshot``: ``screenshot("consent")`` saves ``<tmp_path>/consent.png`` on demand.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, expect, sync_playwright

CHROMIUM = os.environ.get("IDP_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_WAIT = float(os.environ.get("IDP_TEST_CHROMIUM_WAIT", "120"))
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
TIMEOUT_MS = 15_000

# The browser logs "Failed to load resource: the server responded with a status of 401
# (Unauthorized)" for each non-2xx fetch. A test that provokes such an answer names its
# status as expected; any other status is a problem.
_HTTP_STATUS = re.compile(r"^Failed to load resource: the server responded with a status of (\d+)")

# Reports every CSP violation on the console as well. Playwright injects init scripts
# through the DevTools protocol, so the page's own CSP does not apply to this one.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"}`);
});
"""


@dataclass
class PageLog:
    """Console messages and uncaught exceptions of one page."""

    console: list[ConsoleMessage] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)

    # Methods, not ``list.append``: Playwright tags each handler with an attribute.
    def on_console(self, message: ConsoleMessage) -> None:
        self.console.append(message)

    def on_exception(self, error: Error) -> None:
        self.exceptions.append(str(error))

    def problems(self, expected_statuses: Iterable[int] = ()) -> list[str]:
        """Console errors (CSP violations included) and uncaught exceptions.

        A failed-request message for one of ``expected_statuses`` is not a problem.
        """
        allowed = {str(status) for status in expected_statuses}
        found = [f"exception: {text}" for text in self.exceptions]
        for message in self.console:
            if message.type != "error":
                continue
            status = _HTTP_STATUS.match(message.text)
            if status and status.group(1) in allowed:
                continue
            found.append(f"console error: {message.text} ({message.location.get('url', '')})")
        return found

    def csp_violations(self) -> list[str]:
        return [
            m.text
            for m in self.console
            if m.text.startswith("CSP violation") or "Content Security Policy" in m.text
        ]


def _wait_for_chromium() -> None:
    """Waits for the binary, which a concurrent ``apt-get install`` may still be writing."""
    deadline = time.monotonic() + CHROMIUM_WAIT
    while not os.access(CHROMIUM, os.X_OK):
        if time.monotonic() > deadline:
            pytest.fail(
                f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium; "
                "`make up` does) or set IDP_TEST_CHROMIUM. Never `playwright install`."
            )
        time.sleep(1)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keeps each phase's report on the item, so ``page`` knows whether the test failed."""
    report = yield
    setattr(item, f"_report_{report.when}", report)
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Lists the screenshots the tests saved (on failure or on demand)."""
    shots = [
        (report.nodeid, path)
        for reports in terminalreporter.stats.values()
        for report in reports
        if isinstance(report, pytest.TestReport) and report.when == "teardown"
        for name, path in report.user_properties
        if name == "screenshot"
    ]
    if shots:
        terminalreporter.section("screenshots")
        for nodeid, path in shots:
            terminalreporter.write_line(f"{nodeid}: {path}")


def _failed(item: pytest.Item) -> bool:
    return any(
        getattr(getattr(item, f"_report_{when}", None), "failed", False)
        for when in ("setup", "call")
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Module-scoped on purpose: while Playwright's sync API runs, it keeps an event loop
    marked as running in the main thread, which would break every async test after it."""
    _wait_for_chromium()
    with sync_playwright() as playwright:
        # launch() gives each browser a fresh temporary profile (user data dir).
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page_log() -> PageLog:
    return PageLog()


@pytest.fixture
def screenshot(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Path]:
    """``screenshot(name, page=None)``: saves ``<tmp_path>/<name>.png`` and returns its path."""

    def take(name: str, target: Page | None = None) -> Path:
        shot_page = target or request.getfixturevalue("page")
        path = tmp_path / f"{name}.png"
        shot_page.screenshot(path=str(path), full_page=True)
        request.node.user_properties.append(("screenshot", str(path)))
        return path

    return take


@pytest.fixture
def page(
    browser: Browser, page_log: PageLog, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Page]:
    context = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 768})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(_CSP_LISTENER)
    new_page = context.new_page()
    new_page.on("console", page_log.on_console)
    new_page.on("pageerror", page_log.on_exception)
    try:
        yield new_page
    finally:
        if _failed(request.node):
            path = tmp_path / "failure.png"
            try:
                new_page.screenshot(path=str(path), full_page=True)
                request.node.user_properties.append(("screenshot", str(path)))
            except Error:  # the page or browser is gone: nothing to capture
                pass
        context.close()


def assert_inputs_labelled(page: Page) -> None:
    """Every visible input has exactly one label bound to it and a non-empty name."""
    inputs = page.locator("input:visible")
    assert inputs.count() > 0
    for index in range(inputs.count()):
        element = inputs.nth(index)
        input_id = element.get_attribute("id")
        assert input_id, "input without id"
        assert page.locator(f'label[for="{input_id}"]').count() == 1, input_id
        expect(element).to_have_accessible_name(re.compile(r"\S"))
