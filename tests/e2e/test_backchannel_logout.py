"""Back-channel logout end to end through the proxy (contract §6; issue 6 acceptance 1,
2 and 5): real applications are HTTP receivers on 127.0.0.1, the person signs in through
the sign-in API, logs out, and the logout-dispatcher delivers the logout tokens."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from idp_common.protocol.constants import BACKCHANNEL_LOGOUT_EVENT
from tests.harness import infra, oidc, records
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi

pytestmark = pytest.mark.e2e

ACTION = "POST backchannel_logout"


@pytest.fixture
def healthy() -> Iterator[Receiver]:
    with Receiver() as receiver:
        yield receiver


def application(stack: Stack, backchannel_uri: str) -> records.TestClient:
    return records.create_client(stack, skip_consent=True, backchannel_logout_uri=backchannel_uri)


def test_logout_reaches_both_applications_with_valid_tokens(
    stack: Stack, healthy: Receiver
) -> None:
    first = application(stack, healthy.url_for("/first"))
    second = application(stack, healthy.url_for("/second"))
    person = records.create_user(stack)
    with oidc.Browser(stack) as browser:
        at_first = oidc.Authorization(first)
        id_first = oidc.exchange(stack, at_first, browser.sign_in(at_first, person))["id_token"]
        at_second = oidc.Authorization(second)
        id_second = oidc.exchange(stack, at_second, browser.reach(at_second))["id_token"]
        _, first_claims = oidc.verified_claims(stack, id_first, audience=first.client_id)
        _, second_claims = oidc.verified_claims(stack, id_second, audience=second.client_id)
        sid = first_claims["sid"]
        assert second_claims["sid"] == sid  # one browser session, two applications

        logged_out = browser.get(
            "/oauth2/logout",
            params={
                "id_token_hint": id_first,
                "post_logout_redirect_uri": first.post_logout_redirect_uri,
            },
        )
    assert logged_out.status_code == 302
    assert logged_out.headers["location"].startswith(first.post_logout_redirect_uri)

    got = healthy.wait_for(2)
    assert sorted(r.path for r in got) == ["/first", "/second"]
    for received, app in zip(sorted(got, key=lambda r: r.path), (first, second), strict=True):
        assert received.headers["content-type"] == "application/x-www-form-urlencoded"
        assert set(received.form) == {"logout_token"}
        header, claims = oidc.verified_claims(
            stack, received.form["logout_token"], audience=app.client_id, typ="logout+jwt"
        )
        assert header["alg"] == "RS256"
        assert header["kid"] == oidc.jwks(stack).keys[0].kid  # the current (newest) key
        assert claims["sid"] == sid
        assert claims["sub"] == person.id == first_claims["sub"]
        assert claims["events"] == {BACKCHANNEL_LOGOUT_EVENT: {}}
        assert "nonce" not in claims
        assert claims["exp"] - claims["iat"] == 120
        assert isinstance(claims["jti"], str) and len(claims["jti"]) >= 16
    assert got[0].form["logout_token"] != got[1].form["logout_token"]

    rows = records.backchannel_attempts(stack, sid, 2)
    assert sorted((r["target"], r["status_code"]) for r in rows) == sorted(
        [(first.client_id, 200), (second.client_id, 200)]
    )
    uris = {
        first.client_id: healthy.url_for("/first"),
        second.client_id: healthy.url_for("/second"),
    }
    for row in rows:
        assert row["actor"] == "service:logout-dispatcher"
        detail = row["detail"]
        assert detail["uri"] == uris[str(row["target"])]
        assert detail["status_code"] == 200
        assert detail["delivered"] is True
        assert detail["user_id"] == person.id
        assert not any(r.form["logout_token"] in str(detail) for r in got)  # no token stored

    # An administrator reads the attempts through the audit API.
    admin = AdminApi(stack)
    try:
        listed = admin.get("/admin/audit", params={"action": ACTION, "target": second.client_id})
    finally:
        admin.close()
    assert listed.status_code == 200, listed.text
    (item,) = listed.json()["items"]
    assert item["status_code"] == 200
    assert item["detail"]["uri"] == uris[second.client_id]
    assert item["detail"]["sid"] == sid


def sign_in_to_all(stack: Stack, browser: oidc.Browser, apps: list[records.TestClient]) -> str:
    """One session reaching every app in ``apps``; returns its ``sid`` (from an ID token)."""
    person = records.create_user(stack)
    first = oidc.Authorization(apps[0])
    tokens = oidc.exchange(stack, first, browser.sign_in(first, person))
    for app in apps[1:]:
        browser.reach(oidc.Authorization(app))
    _, claims = oidc.verified_claims(stack, tokens["id_token"], audience=apps[0].client_id)
    return str(claims["sid"])


def test_failing_applications_neither_delay_sign_out_nor_get_a_second_try(
    stack: Stack, healthy: Receiver
) -> None:
    with Receiver(hang=True) as silent, Receiver(status=500) as broken:
        closed_uri = f"http://127.0.0.1:{infra.closed_port()}/logout"
        apps = [
            application(stack, silent.url),
            application(stack, broken.url),
            application(stack, closed_uri),
            application(stack, healthy.url),
        ]
        with oidc.Browser(stack) as browser:
            sid = sign_in_to_all(stack, browser, apps)
            started, started_wall = time.monotonic(), time.time()
            logged_out = browser.post("/oauth2/logout", data={"client_id": apps[3].client_id})
            answered = time.monotonic() - started
        # Sign-out does not wait on any delivery.
        assert logged_out.status_code == 303
        assert answered < 1.0, f"logout took {answered:.2f}s"

        assert len(healthy.wait_for(1, timeout=2.0)) == 1
        told_after = healthy.snapshot()[0].at - started_wall
        assert told_after < 1.0, f"the healthy app was told after {told_after:.2f}s"

        rows = records.backchannel_attempts(stack, sid, 4, timeout=8.0)
        done = time.monotonic() - started
        by_client = {str(r["target"]): r for r in rows}
        assert len(rows) == 4
        assert by_client[apps[0].client_id]["status_code"] == 0  # never answered
        assert by_client[apps[0].client_id]["detail"]["error"] == "timeout"
        assert 4900 <= by_client[apps[0].client_id]["detail"]["elapsed_ms"] <= 5500
        assert by_client[apps[1].client_id]["status_code"] == 500
        assert by_client[apps[1].client_id]["detail"]["delivered"] is False
        assert by_client[apps[2].client_id]["status_code"] == 0  # closed port
        assert by_client[apps[2].client_id]["detail"]["error"] == "connect"
        assert by_client[apps[3].client_id]["status_code"] == 200
        assert done < 7.0, f"the failed attempts were audited only after {done:.1f}s"

        time.sleep(1.5)  # nothing is retried
        assert len(silent.snapshot()) == 1
        assert len(broken.snapshot()) == 1
        assert len(healthy.snapshot()) == 1
        assert len(records.backchannel_attempts(stack, sid, 5, timeout=0)) == 4


def test_a_logout_token_is_refused_as_id_token_hint(stack: Stack, healthy: Receiver) -> None:
    app = application(stack, healthy.url)
    with oidc.Browser(stack) as browser:
        sign_in_to_all(stack, browser, [app])
        browser.post("/oauth2/logout", data={"client_id": app.client_id})
    logout_token = healthy.wait_for(1)[0].form["logout_token"]
    oidc.verified_claims(stack, logout_token, audience=app.client_id, typ="logout+jwt")

    with oidc.Browser(stack) as browser:
        sign_in_to_all(stack, browser, [app])  # a live session: only the hint can refuse
        authorization = oidc.Authorization(app)
        refused = browser.get(
            "/oauth2/authorize",
            params={**authorization.params(), "id_token_hint": logout_token, "prompt": "none"},
        )
    assert refused.status_code in (302, 303)
    values = oidc.query_of(refused.headers["location"])
    assert values["error"] == "invalid_request"
    assert "code" not in values
    assert values["state"] == authorization.state

    at_logout = httpx.get(
        stack.proxy_url + "/oauth2/logout", params={"id_token_hint": logout_token}, timeout=10
    )
    assert at_logout.status_code == 400
    assert "location" not in at_logout.headers
