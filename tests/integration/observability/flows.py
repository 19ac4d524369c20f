"""What a person and an application do, for the traces and log lines it leaves: sign in
through the proxy, then exchange the code and refresh (through the proxy or straight at
the token service's port), and log out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.harness import oidc, records
from tests.harness.stack import Stack


@dataclass
class Session:
    """The secrets one run of the flow handled, and the answers it got."""

    app: records.TestClient
    person: records.TestUser
    authorization: oidc.Authorization
    code: str = ""
    cookie: str = ""
    tokens: dict[str, Any] = field(default_factory=dict)
    refreshed: dict[str, Any] = field(default_factory=dict)
    answers: dict[str, httpx.Response] = field(default_factory=dict)

    def secrets(self) -> dict[str, str]:
        """Every value that must never reach a log line or a span."""
        found = {
            "password": self.person.password,
            "code": self.code,
            "code_verifier": self.authorization.verifier,
            "session cookie": self.cookie,
            "client secret": self.app.secret or "",
        }
        for source, answer in (("exchange", self.tokens), ("refresh", self.refreshed)):
            for name in ("access_token", "refresh_token", "id_token"):
                if answer.get(name):
                    found[f"{source} {name}"] = answer[name]
        return {name: value for name, value in found.items() if value}


def sign_in(stack: Stack, app: records.TestClient, browser: oidc.Browser) -> Session:
    person = records.create_user(stack)
    authorization = oidc.Authorization(app)
    session = Session(app, person, authorization)
    session.code = browser.sign_in(authorization, person)
    session.cookie = browser.session_cookie
    return session


def token_request(base_url: str, session: Session, form: dict[str, str]) -> httpx.Response:
    app = session.app
    assert app.secret is not None
    return httpx.post(
        base_url + "/oauth2/token", data=form, auth=(app.client_id, app.secret), timeout=30
    )


def exchange_and_refresh(session: Session, base_url: str) -> None:
    """The code exchange and one refresh at ``base_url`` (the proxy, or the token
    service's own port)."""
    exchanged = token_request(
        base_url,
        session,
        {
            "grant_type": "authorization_code",
            "code": session.code,
            "redirect_uri": session.app.redirect_uri,
            "code_verifier": session.authorization.verifier,
        },
    )
    assert exchanged.status_code == 200, exchanged.text
    session.tokens = exchanged.json()
    refreshed = token_request(
        base_url,
        session,
        {"grant_type": "refresh_token", "refresh_token": session.tokens["refresh_token"]},
    )
    assert refreshed.status_code == 200, refreshed.text
    session.refreshed = refreshed.json()
    session.answers.update(exchange=exchanged, refresh=refreshed)


def log_out(session: Session, browser: oidc.Browser) -> httpx.Response:
    """RP-initiated logout through the proxy, with the ID token as ``id_token_hint``."""
    answer = browser.get(
        "/oauth2/logout",
        params={
            "id_token_hint": session.refreshed.get("id_token") or session.tokens["id_token"],
            "post_logout_redirect_uri": session.app.post_logout_redirect_uri,
        },
    )
    assert answer.status_code == 302, answer.text
    session.answers["logout"] = answer
    return answer
