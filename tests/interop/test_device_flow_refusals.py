"""The device flow's refusals (RFC 8628 §3.5, §5.1), by hand through the proxy: polled too
fast, denied, expired, spent; a client without the grant or the scope; the page's API
without a session, cross-site, and guessing user codes (limited per address and per
code); Redis refusing or gone (503 with ``Retry-After``, never 500).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from idp_common.protocol.rfc8628_device import new_user_code
from tests.harness.api import ApiClient, fresh_address
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import audit_rows
from tests.interop.device_support import (
    DeviceClient,
    decide,
    error_of,
    poll,
    register_device_client,
    signed_in,
    start,
    started,
)
from tests.security.test_refresh_redis_failure import OwnRedis, _start_redis

pytestmark = pytest.mark.e2e


@pytest.fixture
def device(stack: Stack, admin: ApiClient) -> DeviceClient:
    return register_device_client(stack, admin)


@pytest.fixture
def browser(stack: Stack, device: DeviceClient) -> Iterator[httpx.Client]:
    with signed_in(stack, device) as client:
        yield client


def test_the_answer_of_the_device_authorization_endpoint(
    stack: Stack, device: DeviceClient
) -> None:
    response = start(stack, device)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) == {
        "device_code",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
        "expires_in",
        "interval",
    }
    assert len(body["device_code"]) == 43  # 256 bits, base64url
    assert body["expires_in"] == 600
    assert body["interval"] == 1
    page = f"{stack.issuer}/auth/device"
    assert body["verification_uri"] == page
    assert body["verification_uri_complete"] == f"{page}?user_code={body['user_code']}"


def test_polling_too_fast_is_slow_down_and_the_interval_grows(
    stack: Stack, device: DeviceClient
) -> None:
    code = started(stack, device)["device_code"]
    assert error_of(poll(stack.proxy_url, device, code)) == "authorization_pending"
    assert error_of(poll(stack.proxy_url, device, code)) == "slow_down"
    time.sleep(1.5)  # past the first interval (1 s), not past the grown one (6 s)
    assert error_of(poll(stack.proxy_url, device, code)) == "slow_down"


def test_denied_is_access_denied(stack: Stack, device: DeviceClient, browser: httpx.Client) -> None:
    body = started(stack, device)
    answer = decide(browser, body["user_code"], approve=False)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"status": "denied"}
    assert error_of(poll(stack.proxy_url, device, body["device_code"])) == "access_denied"
    rows = audit_rows(stack, "device.denied", target=device.client_id)
    assert [row.actor for row in rows] == [device.person.id]
    # A decision is final: the user code is spent.
    again = decide(browser, body["user_code"], approve=True)
    assert again.status_code == 404
    assert again.json()["code"] == "auth.device_code_invalid"


def test_approved_code_gives_tokens_once(
    stack: Stack, device: DeviceClient, browser: httpx.Client
) -> None:
    body = started(stack, device)
    lookup = browser.post("/api/v1/auth/device/lookup", json={"user_code": body["user_code"]})
    assert lookup.status_code == 200, lookup.text
    shown = lookup.json()
    assert shown["client"] == {"client_id": device.client_id, "name": device.name}
    assert {scope["value"] for scope in shown["scopes"]} == set(device.scope.split())
    typed = body["user_code"].lower().replace("-", " ")  # as a person might type it
    assert decide(browser, typed, approve=True).json() == {"status": "approved"}
    tokens = poll(stack.proxy_url, device, body["device_code"])
    assert tokens.status_code == 200, tokens.text
    assert {"access_token", "id_token", "refresh_token"} <= set(tokens.json())
    assert error_of(poll(stack.proxy_url, device, body["device_code"])) == "invalid_grant"
    assert audit_rows(stack, "device.approved", target=device.client_id)


def test_expired_is_expired_token(
    stack: Stack, extra_processes: Stack, device: DeviceClient, browser: httpx.Client
) -> None:
    """A token service whose codes live one second (``SVC_DEVICE_CODE_TTL``)."""
    with extra_processes.extra_service("token", {"SVC_DEVICE_CODE_TTL": "1"}) as url:
        form = {"client_id": device.client_id, "scope": device.scope}
        body = httpx.post(f"{url}/oauth2/device_authorization", data=form, timeout=20).json()
        assert body["expires_in"] == 1
        time.sleep(2.2)
        assert error_of(poll(url, device, body["device_code"])) == "expired_token"
    lookup = browser.post("/api/v1/auth/device/lookup", json={"user_code": body["user_code"]})
    assert lookup.status_code == 404
    assert lookup.json()["code"] == "auth.device_code_invalid"


def test_a_client_without_the_grant_or_the_scope_is_refused(
    stack: Stack, admin: ApiClient, device: DeviceClient
) -> None:
    other = register_device_client(stack, admin, grants=())
    response = start(stack, other)
    assert response.status_code == 400
    assert response.json()["error"] == "unauthorized_client"
    response = start(stack, device, scope="not-a-scope-of-this-client")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_scope"
    unknown = httpx.post(
        f"{stack.proxy_url}/oauth2/device_authorization",
        data={"client_id": "no-such-client", "scope": "openid"},
        timeout=20,
    )
    assert unknown.status_code == 401
    assert unknown.json()["error"] == "invalid_client"


def test_the_page_api_needs_a_session_and_the_same_site(
    stack: Stack, device: DeviceClient, browser: httpx.Client
) -> None:
    body = started(stack, device)
    anonymous = httpx.post(
        f"{stack.proxy_url}/api/v1/auth/device/lookup",
        json={"user_code": body["user_code"]},
        timeout=20,
    )
    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == "auth.device_signin_required"
    cross_site = browser.post(
        "/api/v1/auth/device/decision",
        json={"user_code": body["user_code"], "approve": True},
        headers={"Origin": "https://evil.example"},
    )
    assert cross_site.status_code == 403
    as_form = browser.post(
        "/api/v1/auth/device/decision", data={"user_code": body["user_code"], "approve": "true"}
    )
    assert as_form.status_code == 415
    assert error_of(poll(stack.proxy_url, device, body["device_code"])) == "authorization_pending"


def test_wrong_user_codes_are_limited_per_address(stack: Stack, device: DeviceClient) -> None:
    """``SVC_USER_CODE_FAILURES_PER_IP`` (20) wrong codes an hour; right ones are not
    counted. Straight to the service, naming a fresh address (the proxy's is everyone's)."""
    body = started(stack, device)
    url = stack.service_url("authui-api")
    with signed_in(stack, device, base_url=url) as client:
        client.headers["X-Forwarded-For"] = fresh_address()
        lookup = {"user_code": body["user_code"]}
        for _ in range(3):
            assert client.post("/api/v1/auth/device/lookup", json=lookup).status_code == 200
        # Well-formed codes, each drawn anew (one in 2.56e10 of naming a live one).
        for typed in [new_user_code() for _ in range(19)] + ["not a code"]:
            wrong = client.post("/api/v1/auth/device/lookup", json={"user_code": typed})
            assert wrong.status_code == 404, wrong.text
        refused = client.post("/api/v1/auth/device/lookup", json=lookup)
        assert refused.status_code == 429
        assert refused.json()["code"] == "auth.device_rate_limited"
        assert int(refused.headers["retry-after"]) > 3000  # the hour's window
        client.headers["X-Forwarded-For"] = fresh_address()  # another address may go on
        assert client.post("/api/v1/auth/device/lookup", json=lookup).status_code == 200


def test_one_user_code_is_limited_whatever_the_address(stack: Stack, device: DeviceClient) -> None:
    body = started(stack, device)
    url = stack.service_url("authui-api")
    lookup = {"user_code": body["user_code"]}
    with signed_in(stack, device, base_url=url) as client:
        answers = []
        for _ in range(11):
            client.headers["X-Forwarded-For"] = fresh_address()
            answers.append(client.post("/api/v1/auth/device/lookup", json=lookup).status_code)
    assert answers == [200] * 10 + [429]


@pytest.fixture
def own_redis_token(extra_processes: Stack) -> Iterator[tuple[str, OwnRedis]]:
    """A token service on a Redis of the test's own (that the test makes fail)."""
    own = _start_redis(extra_processes)
    process = extra_processes.start_service("token", {"SVC_REDIS_URL": own.url})
    extra_processes.wait_until_up(process)
    try:
        yield process.url, own
    finally:
        own.client.close()


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error"] == "temporarily_unavailable"
    assert int(response.headers["retry-after"]) >= 1


def test_redis_refusing_or_gone_is_503_with_retry_after(
    device: DeviceClient, own_redis_token: tuple[str, OwnRedis]
) -> None:
    url, own = own_redis_token
    form = {"client_id": device.client_id, "scope": device.scope}
    body = httpx.post(f"{url}/oauth2/device_authorization", data=form, timeout=20).json()
    own.refuse_writes()
    try:
        _assert_unavailable(httpx.post(f"{url}/oauth2/device_authorization", data=form))
        _assert_unavailable(poll(url, device, body["device_code"]))
    finally:
        own.accept_writes()
    assert error_of(poll(url, device, body["device_code"])) == "authorization_pending"
    own.process.stop()
    _assert_unavailable(httpx.post(f"{url}/oauth2/device_authorization", data=form))
    _assert_unavailable(poll(url, device, body["device_code"]))
