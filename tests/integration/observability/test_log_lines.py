"""Log lines (issue 22): every line a service writes is one JSON object with its service,
request id and (when a span is current) trace; a whole sign-in, code exchange, refresh,
userinfo and logout with DEBUG logs on leaves no password, code, token, session cookie
or client secret in any of them; the proxy's request id is the one in the services'
lines and answers.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx
import pytest

from tests.harness import oidc, records
from tests.harness.receivers import Receiver
from tests.harness.stack import SERVICES, Stack
from tests.integration.observability.conftest import Traced
from tests.integration.observability.flows import exchange_and_refresh, log_out, sign_in

pytestmark = pytest.mark.integration

FIELDS = {"timestamp", "level", "logger", "event", "service", "request_id"}
PROXY_ID = re.compile(r"[0-9a-f]{32}")


def service_logs(stack: Stack) -> dict[str, str]:
    """Each service process's whole log so far (Granian's master and workers)."""
    return {
        f"{p.name} ({p.log_path.name})": p.log_path.read_text(errors="replace")
        for p in stack.processes
        if p.name in SERVICES
    }


def lines_of(stack: Stack) -> list[dict[str, Any]]:
    parsed = []
    for name, text in service_logs(stack).items():
        complete = text[: text.rfind("\n") + 1]  # a line being written is not read yet
        for number, line in enumerate(complete.splitlines(), 1):
            try:
                record = json.loads(line)
            except ValueError:
                pytest.fail(f"{name} line {number} is not JSON: {line[:300]!r}")
            assert isinstance(record, dict), line
            assert set(record) >= FIELDS, f"{name} line {number} lacks {FIELDS - set(record)}"
            parsed.append(record)
    return parsed


def wait_for_line(stack: Stack, found: Any, timeout: float = 15) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        records_ = lines_of(stack)
        if any(found(r) for r in records_) or time.monotonic() > deadline:
            return records_
        time.sleep(0.2)


def test_a_whole_session_leaves_only_json_lines_and_no_secret(traced: Traced) -> None:
    stack, collector = traced.stack, traced.collector
    with Receiver() as relying_party:
        app = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=relying_party.url
        )
        with oidc.Browser(stack) as browser:
            session = sign_in(stack, app, browser)
            exchange_and_refresh(session, stack.proxy_url)
            userinfo = browser.get(
                "/oauth2/userinfo",
                headers={"Authorization": f"Bearer {session.refreshed['access_token']}"},
            )
            assert userinfo.status_code == 200, userinfo.text
            logout = log_out(session, browser)
        delivered = relying_party.wait_for(1, timeout=30)
    assert len(delivered) == 1
    logout_token = delivered[0].form["logout_token"]

    # The dispatcher's line of the fan-out carries the logout's trace.
    request_id = logout.headers["x-request-id"]
    spans = collector.wait_for(
        lambda spans: any(s.attributes.get("idp.request_id") == request_id for s in spans)
    )
    (logout_server,) = [s for s in spans if s.attributes.get("idp.request_id") == request_id]

    def fan_out_line(record: dict[str, Any]) -> bool:
        delivered = "delivered" in str(record["event"])
        return delivered and record.get("trace_id") == logout_server.trace_id

    lines = wait_for_line(stack, fan_out_line)
    (fanned,) = [r for r in lines if fan_out_line(r)]
    assert fanned["service"] == "logout-dispatcher" and fanned["request_id"] is None
    assert {r["service"] for r in lines} == set(SERVICES)
    assert any(r["logger"] == "_granian" for r in lines), "Granian's own lines are missing"
    text = "\n".join(service_logs(stack).values())
    secrets = {**session.secrets(), "logout token": logout_token}
    for name, value in secrets.items():
        assert value not in text, f"the {name} is in a service log"

    # The proxy's id (32 hex digits) is the answer's and the line's of the same request.
    exchange_id = session.answers["exchange"].headers["x-request-id"]
    assert PROXY_ID.fullmatch(exchange_id), exchange_id
    (line,) = [r for r in lines if r["request_id"] == exchange_id and r["logger"] == "idp.request"]
    assert line["service"] == "token"
    assert line["event"].startswith("POST /oauth2/token 200 "), line
    assert len(line["trace_id"]) == 32 and len(line["span_id"]) == 16  # tracing is on here


def test_the_request_id_is_the_proxys_and_a_caller_may_only_send_a_well_formed_one(
    traced: Traced,
) -> None:
    stack = traced.stack
    discovery = "/.well-known/openid-configuration"
    through_proxy = httpx.get(
        stack.proxy_url + discovery, headers={"X-Request-Id": "chosen-by-the-client"}, timeout=10
    )
    assert through_proxy.status_code == 200
    assert PROXY_ID.fullmatch(through_proxy.headers["x-request-id"])  # nginx's, not the client's

    direct = stack.service_url("token") + discovery
    kept = httpx.get(direct, headers={"X-Request-Id": "lb-7f3a.42:1"}, timeout=10)
    assert kept.headers["x-request-id"] == "lb-7f3a.42:1"
    for bad in ("two words", "x" * 65, 'quote"d', "é"):
        answer = httpx.get(direct, headers={"X-Request-Id": bad.encode()}, timeout=10)
        assert PROXY_ID.fullmatch(answer.headers["x-request-id"]), bad  # made anew
    made = httpx.get(direct, timeout=10).headers["x-request-id"]
    assert PROXY_ID.fullmatch(made)
    lines = wait_for_line(stack, lambda r: r["request_id"] == made)
    mine = [r for r in lines if r["request_id"] == made and r["logger"] == "idp.request"]
    assert [r["event"].split()[:3] for r in mine] == [["GET", discovery, "200"]]
