"""Attack 18: a step-up or ``prompt=login`` signed the person out of every other application.

Completing a sign-in ended the browser's previous session the way a logout does
(``reason: replaced``): every application reached in it got a back-channel logout token.
So an application asking the same person to sign in again (``prompt=login``, ``max_age``,
an RFC 9470 step-up) signed them out everywhere else, and any site able to start such a
request could do it at will. Re-authenticating the same person must keep the session's
applications (a new session id, the same membership) and send no logout; the applications
must still be told, each with the ``sid`` it knows, when that session really ends, and
the refresh tokens issued before the re-authentication must be revoked then.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import httpx
import pytest

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness import oidc, records, tokens
from tests.harness.receivers import Receiver
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
#: How long a back-channel delivery would take to arrive if one were sent.
SETTLE_SECONDS = 2.0


@dataclass
class ForcedSignIn(oidc.Authorization):
    """An authorization that asks for a new sign-in although the browser has a session."""

    def params(self, scope: str = "openid profile offline_access") -> dict[str, str]:
        return {**super().params(scope), "prompt": "login"}


def sid_of(stack: Stack, authorization: oidc.Authorization, code: str) -> str:
    id_token = oidc.exchange(stack, authorization, code)["id_token"]
    _, claims = oidc.verified_claims(stack, id_token, audience=authorization.app.client_id)
    return str(claims["sid"])


def test_signing_in_again_keeps_the_applications_and_tells_nobody(stack: Stack) -> None:
    with Receiver() as receiver, oidc.Browser(stack) as browser:
        first = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=receiver.url_for("/first")
        )
        second = records.create_client(
            stack, skip_consent=True, backchannel_logout_uri=receiver.url_for("/second")
        )
        person = records.create_user(stack)

        signed_in = oidc.Authorization(first)
        old_sid = sid_of(stack, signed_in, browser.sign_in(signed_in, person))
        reached = oidc.Authorization(second)
        assert sid_of(stack, reached, browser.reach(reached)) == old_sid

        again = ForcedSignIn(first)
        new_sid = sid_of(stack, again, browser.sign_in(again, person))
        assert new_sid != old_sid  # a new session id at every sign-in

        time.sleep(SETTLE_SECONDS)
        assert [r.path for r in receiver.snapshot()] == [], "re-authentication logged out"
        events = records.query(
            stack, "SELECT id FROM event_outbox WHERE payload->>'sid' = $1", old_sid
        )
        assert events == [], "re-authentication wrote a session.ended event"

        bearer = tokens.mint(
            stack.key_dir, issuer=stack.issuer, scopes=SELF_SERVICE_SCOPES, subject=person.id
        )
        listed = httpx.get(
            stack.proxy_url + "/entity/sessions",
            headers={"Authorization": f"Bearer {bearer}"},
            timeout=20,
        )
        assert listed.status_code == 200, listed.text
        (session,) = listed.json()["items"]
        assert session["id"] == new_sid
        assert sorted(a["clientId"] for a in session["applications"]) == sorted(
            [first.client_id, second.client_id]
        )

        logout = browser.get("/oauth2/logout")
        assert logout.status_code == 302, logout.text
        got = receiver.wait_for(3)
        time.sleep(SETTLE_SECONDS)
        got = receiver.snapshot()
        told: dict[str, set[str]] = {}
        for received in got:
            app = first if received.path == "/first" else second
            _, claims = oidc.verified_claims(
                stack, received.form["logout_token"], audience=app.client_id, typ="logout+jwt"
            )
            assert claims["sub"] == person.id
            told.setdefault(received.path, set()).add(str(claims["sid"]))
        # each application is told with the sid(s) its ID tokens carried
        assert told == {"/first": {old_sid, new_sid}, "/second": {old_sid}}

    live = records.query(
        stack,
        "SELECT session_sid FROM refresh_tokens WHERE session_sid = ANY($1::text[])"
        " AND revoked_at IS NULL",
        [old_sid, new_sid],
    )
    assert live == [], "refresh tokens of the session outlived its end"
