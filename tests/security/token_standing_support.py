"""Helpers of the tests of what an access token stands on (a session, the person's
credentials, its client): real sign-ins through the proxy, calls with a token straight to
a service, the refusal every resource gives an ended token, and mail processes.

Calls with a token go straight to the service (from 127.0.0.1, a trusted sender) with a
fresh ``X-Forwarded-For`` each, so that the 401s these tests expect never add up to the
per-address limit on failed authentications.
"""

from __future__ import annotations

import base64
import json
import socket
import sys
import time
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from idp_common.protocol.constants import (
    SCOPE_IDP_ACCOUNT_READ,
    SCOPE_IDP_ACCOUNT_WRITE,
    SCOPE_IDP_SESSIONS_READ,
    SCOPE_IDP_SESSIONS_WRITE,
)
from tests.harness import infra, oidc, records
from tests.harness.api import fresh_address
from tests.harness.dpop import DpopKey
from tests.harness.process import Process
from tests.harness.stack import START_TIMEOUT, Stack
from tests.integration.signin_fixtures import wait_for_mail

#: What the console asks for: the person's own account and sessions.
SELF_SERVICE = (
    "openid",
    SCOPE_IDP_ACCOUNT_READ,
    SCOPE_IDP_ACCOUNT_WRITE,
    SCOPE_IDP_SESSIONS_READ,
    SCOPE_IDP_SESSIONS_WRITE,
)
PROFILE = "/entity/profile"
TOKEN_PATH = "/oauth2/token"


@dataclass(frozen=True)
class SignedIn:
    """One browser's sign-in: its session cookie and the tokens its application got."""

    cookie: str
    tokens: dict[str, Any]

    @property
    def access_token(self) -> str:
        return str(self.tokens["access_token"])

    @property
    def id_token(self) -> str:
        return str(self.tokens["id_token"])

    @property
    def sid(self) -> str:
        """The session's public id, as the ID token names it."""
        return str(claims_of(self.id_token)["sid"])


def claims_of(token: str) -> dict[str, Any]:
    """The claims of a JWT, unverified (the tests that check signatures do so elsewhere)."""
    segment = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    )
    return decoded


def self_service_app(stack: Stack) -> records.TestClient:
    """A confidential application that may ask for the self-service scopes, no consent."""
    return records.create_client(stack, scopes=SELF_SERVICE, skip_consent=True)


def sign_in(
    stack: Stack,
    app: records.TestClient,
    person: records.TestUser,
    scope: str = " ".join(SELF_SERVICE),
    *,
    dpop: DpopKey | None = None,
) -> SignedIn:
    """A new browser signs ``person`` in with the password through ``/oauth2/authorize``
    and the sign-in API, and the application trades the code at ``/oauth2/token`` (with a
    proof of ``dpop`` when given: a DPoP-bound access token)."""
    authorization = oidc.Authorization(app)
    with oidc.Browser(stack) as browser:
        code = browser.sign_in(authorization, person, scope)
        cookie = browser.session_cookie
    headers = {} if dpop is None else {"DPoP": dpop.proof("POST", stack.issuer + TOKEN_PATH)}
    return SignedIn(cookie, oidc.exchange(stack, authorization, code, headers))


def call(
    stack: Stack,
    service: str,
    method: str,
    path: str,
    token: str,
    *,
    scheme: str = "Bearer",
    **request: Any,
) -> httpx.Response:
    """``method path`` straight to ``service`` with ``token``, from a fresh address."""
    headers = {
        "Authorization": f"{scheme} {token}",
        "X-Forwarded-For": fresh_address(),
        **request.pop("headers", {}),
    }
    return httpx.request(
        method, stack.service_url(service) + path, headers=headers, timeout=30, **request
    )


def entity(stack: Stack, method: str, path: str, token: str, **request: Any) -> httpx.Response:
    return call(stack, "entity", method, path, token, **request)


def userinfo(stack: Stack, token: str) -> httpx.Response:
    return call(stack, "token", "GET", "/oauth2/userinfo", token)


def introspect(stack: Stack, client: tuple[str, str], token: str) -> dict[str, Any]:
    """What ``/oauth2/introspect`` answers ``client`` (id, secret) about ``token``."""
    answer = httpx.post(
        stack.service_url("token") + "/oauth2/introspect",
        data={"token": token},
        auth=client,
        headers={"X-Forwarded-For": fresh_address()},
        timeout=20,
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def log_out(stack: Stack, app: records.TestClient, signed_in: SignedIn) -> None:
    """RP-initiated logout through the proxy: the browser, with its cookie, follows the
    application to ``/oauth2/logout`` with the ID token as hint, and is sent back."""
    with httpx.Client(base_url=stack.proxy_url, timeout=20) as browser:
        answer = browser.get(
            "/oauth2/logout",
            params={
                "id_token_hint": signed_in.id_token,
                "post_logout_redirect_uri": app.post_logout_redirect_uri,
                "state": "bye",
            },
            headers={"Cookie": f"svc_session={signed_in.cookie}"},
        )
    assert answer.status_code == 302, answer.text
    back = urlsplit(answer.headers["location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == app.post_logout_redirect_uri
    assert not records.session_exists(stack, signed_in.sid)


#: :func:`outcome` of a token refused as it must be (RFC 6750 §3.1).
REFUSED = "401 invalid_token"


def outcome(answer: httpx.Response) -> str:
    """:data:`REFUSED` for a 401 whose challenge names ``invalid_token``; else the status
    (and any challenge) the answer had instead, for the assertion to show."""
    status = answer.status_code
    challenge = answer.headers.get("www-authenticate", "")
    if status == 401 and 'error="invalid_token"' in challenge:
        return REFUSED
    return f"{status} {challenge}".strip()


# --- mail --------------------------------------------------------------------------------
def start_mail_catcher(stack: Stack, mail_dir: Path) -> int:
    """``idp mail-catcher`` on a free port writing into ``mail_dir``, accepting; its port.
    The process joins ``stack.processes`` (whoever started it stops it)."""
    port = infra.free_port()
    command = [sys.executable, "-m", "idp_common.operations.cli", "mail-catcher"]
    stack.spawn(
        "mail-catcher", [*command, "--port", str(port), "--dir", str(mail_dir)], port, stack.env
    )
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return port
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def start_mailing(
    stack: Stack, service: str, smtp_port: int, overrides: dict[str, str] | None = None
) -> Process:
    """One more ``service`` process (with ``overrides``) that sends its mail to the catcher
    on ``smtp_port``, up and ready."""
    process = stack.start_service(
        service, {"SVC_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}", **(overrides or {})}
    )
    stack.wait_until_up(process)
    return process


def mail_to(mail_dir: Path, address: str, timeout: float = 15) -> EmailMessage:
    """The one mail the catcher holds for ``address`` (waiting for it)."""
    deadline = time.monotonic() + timeout
    while True:
        present = len(list(mail_dir.glob("*.eml")))
        mails = [m for m in wait_for_mail(mail_dir, present, timeout) if m["To"] == address]
        if mails:
            assert len(mails) == 1, [m["Subject"] for m in mails]
            return mails[0]
        assert time.monotonic() < deadline, f"no mail to {address} in {mail_dir}"
        time.sleep(0.1)
