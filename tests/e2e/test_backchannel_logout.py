"""Back-channel logout end to end through the proxy (spec part 6; issue 6 acceptance 1,
2 and 5): real applications are HTTP receivers on 127.0.0.1, the person signs in through
the sign-in API, logs out, and the logout-dispatcher delivers the logout tokens."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from idp_common.protocol.constants import BACKCHANNEL_LOGOUT_EVENT
from tests.harness import oidc, records
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

ACTION = "POST backchannel_logout"


@pytest.fixture
def healthy() -> Iterator[Receiver]:
    with Receiver() as receiver:
        yield receiver


def application(stack: Stack, backchannel_uri: str) -> records.TestClient:
    return records.create_client(stack, skip_consent=True, backchannel_logout_uri=backchannel_uri)


def delivery_rows(
    stack: Stack, sid: str, expected: int, timeout: float = 10.0
) -> list[dict[str, Any]]:
    """The audit rows of the deliveries for session ``sid``, once ``expected`` are there."""
    deadline = time.monotonic() + timeout
    while True:
        rows = records.query(
            stack,
            "SELECT target, status_code, actor, detail FROM audit_events"
            " WHERE action = $1 AND detail->>'sid' = $2 ORDER BY id",
            ACTION,
            sid,
        )
        rows = [{**row, "detail": json.loads(str(row["detail"]))} for row in rows]
        if len(rows) >= expected or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


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

    rows = delivery_rows(stack, sid, 2)
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
