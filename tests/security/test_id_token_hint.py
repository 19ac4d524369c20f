"""Attack 16: ``id_token_hint`` was any token the provider signed, of any age.

``/oauth2/authorize`` and ``/oauth2/logout`` verified the hint's signature, issuer and
audience but never its ``typ``, and accepted it up to ten years after it expired. So an
access token (``typ: at+jwt``) whose audience named the client, leaked from the API it
was sent to, passed as an ID token: it named the person to ``/oauth2/authorize`` and
signed them out at ``/oauth2/logout``, with a redirect to the client's registered page.
An ID token stolen two years ago still did the same. A hint must be an ID token (``typ``
``JWT`` or absent, never ``at+jwt`` or ``logout+jwt``, no ``events``), and an expired one
is accepted only within a bound (OIDC RP-Initiated Logout 1.0 §2 allows an expired hint of a
recent session; here at most 24 hours after ``exp``, a session's idle lifetime).
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from idp_common.crypto.jwt import sign_jwt
from idp_common.crypto.keys import load_key_set
from tests.harness import records
from tests.harness.oidc import Authorization, query_of
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration
YEAR = 365 * 24 * 3600
EVENTS = {"http://schemas.openid.net/event/backchannel-logout": {}}


def signed(stack: Stack, typ: str, claims: dict[str, Any]) -> str:
    return sign_jwt({"iss": stack.issuer, **claims}, load_key_set(stack.key_dir), typ=typ)


def hints(stack: Stack, client_id: str, person: str, sid: str) -> dict[str, str]:
    now = int(time.time())
    person_claims = {"sub": person, "aud": client_id, "sid": sid}
    return {
        # an access token of the person for an API that shares the client's name
        "access token": signed(
            stack,
            "at+jwt",
            {
                **person_claims,
                "iat": now,
                "exp": now + 600,
                "jti": "a1",
                "client_id": client_id,
                "scope": "openid",
            },
        ),
        "logout token": signed(
            stack,
            "logout+jwt",
            {**person_claims, "iat": now, "exp": now + 120, "jti": "l1", "events": EVENTS},
        ),
        "ID token expired two years ago": signed(
            stack, "JWT", {**person_claims, "iat": now - 2 * YEAR - 600, "exp": now - 2 * YEAR}
        ),
    }


@pytest.mark.parametrize("kind", ["access token", "logout token", "ID token expired two years ago"])
def test_a_token_that_is_not_a_current_id_token_is_refused_as_a_hint(
    stack: Stack, kind: str
) -> None:
    app = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    hint = hints(stack, app.client_id, person.id, session.sid)[kind]
    headers = {"Cookie": f"svc_session={cookie}"}
    with httpx.Client(base_url=stack.service_url("token"), timeout=20) as token_service:
        params = {**Authorization(app).params("openid"), "prompt": "none", "id_token_hint": hint}
        authorized = token_service.get("/oauth2/authorize", params=params, headers=headers)
        assert authorized.status_code == 302, authorized.text
        answer = query_of(authorized.headers["location"])
        assert answer.get("error") == "invalid_request", f"the {kind} was taken as a hint"

        logout = token_service.get(
            "/oauth2/logout",
            params={
                "id_token_hint": hint,
                "post_logout_redirect_uri": app.post_logout_redirect_uri,
            },
            headers=headers,
        )
        assert logout.status_code == 400, f"the {kind} signed the person out"
        assert "location" not in logout.headers
    assert records.session_exists(stack, session.sid)


def test_an_id_token_that_expired_an_hour_ago_still_signs_out(stack: Stack) -> None:
    """OIDC RP-Initiated Logout 1.0 §2: the application may hold an expired ID token."""
    app = records.create_client(stack, skip_consent=True)
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    now = int(time.time())
    hint = signed(
        stack,
        "JWT",
        {
            "sub": person.id,
            "aud": app.client_id,
            "sid": session.sid,
            "iat": now - 4200,
            "exp": now - 3600,
        },
    )
    logout = httpx.get(
        stack.service_url("token") + "/oauth2/logout",
        params={"id_token_hint": hint, "post_logout_redirect_uri": app.post_logout_redirect_uri},
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=20,
    )
    assert logout.status_code == 302, logout.text
    assert logout.headers["location"].startswith(app.post_logout_redirect_uri)
    assert not records.session_exists(stack, session.sid)
