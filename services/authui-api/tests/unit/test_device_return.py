"""A sign-in started by the device page returns to it (``Challenge.return_to``); every
other one goes back to ``/oauth2/authorize``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from authui_service.flow import done
from idp_common.config import Settings
from idp_common.state.challenges import Challenge

CTX = cast(Any, SimpleNamespace(settings=Settings(issuer="https://id.example.com")))


def test_a_device_sign_in_returns_to_the_device_page() -> None:
    back = "https://id.example.com/auth/device?user_code=BCDF-GHJK"
    challenge = Challenge(id="c1", client_id="tv", redirect_uri="", scopes=[], return_to=back)
    answer = done(CTX, challenge)
    assert (answer.next, answer.redirect_to) == ("done", back)


def test_an_authorization_request_resumes_at_authorize() -> None:
    challenge = Challenge(id="c1", client_id="app", redirect_uri="https://app/cb", scopes=[])
    answer = done(CTX, challenge)
    assert answer.redirect_to == "https://id.example.com/oauth2/authorize?challenge=c1"
