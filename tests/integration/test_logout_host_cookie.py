"""``/oauth2/logout`` with the ``__Host-`` session cookie (issue #19, attack 17: the token
service's side): in production with ``SVC_SESSION_COOKIE_HOST_PREFIX=true`` logout reads
``__Host-svc_session`` and clears it as a ``__Host-`` cookie must be set (RFC 6265bis
§4.1.3.2: Secure, ``Path=/``, no ``Domain``); the unprefixed name ends nothing."""

from __future__ import annotations

import httpx
import pytest

from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration
OVERRIDES = {"SVC_ENV": "prod", "SVC_SESSION_COOKIE_HOST_PREFIX": "true"}


def test_logout_reads_and_clears_the_host_prefixed_cookie(stack: Stack) -> None:
    person = records.create_user(stack)
    cookie, session = records.create_browser_session(stack, person.id)
    with (
        stack.extra_service("token", OVERRIDES) as token_url,
        httpx.Client(base_url=token_url, timeout=20) as client,
    ):
        plain = client.get("/oauth2/logout", headers={"Cookie": f"svc_session={cookie}"})
        assert plain.status_code == 302, plain.text
        assert records.session_exists(stack, session.sid)  # not this deployment's cookie

        answer = client.get("/oauth2/logout", headers={"Cookie": f"__Host-svc_session={cookie}"})
    assert answer.status_code == 302, answer.text
    assert not records.session_exists(stack, session.sid)
    name, _, rest = answer.headers["set-cookie"].partition("=")
    assert name == "__Host-svc_session"
    value, *attributes = [part.strip() for part in rest.split(";")]
    assert value in ("", '""')  # emptied
    named = {part.split("=")[0].lower(): part for part in attributes}
    assert "secure" in named and named["path"] == "Path=/" and "domain" not in named
    assert named["max-age"] == "Max-Age=0"
