"""The client side of the load: one async function per kind of request, as an
application's back end or a browser sends it, through the proxy. Each returns an
:class:`~tests.chaos.report.Outcome` (the one exception is :func:`sign_in`, which also
returns the browser it signed in). Nothing raises for an answer the server gives; an
answer that is not what a healthy service gives is a failure, described for the report.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from tests.chaos.report import NO_ANSWER, Outcome, describe_answer
from tests.harness.oidc import Authorization, query_of
from tests.harness.records import TestClient, TestUser

TIMEOUT = httpx.Timeout(10.0)
#: Answers where the request may or may not have taken effect: the client cannot tell.
AMBIGUOUS = (502, 504)


class Failed(Exception):
    """An iteration that did not end normally; ``outcome`` says what the client saw."""

    def __init__(self, seen: str, bad: bool = False, status: int = 0) -> None:
        super().__init__(seen)
        self.seen, self.bad, self.status = seen, bad, status


def expect(response: httpx.Response, *statuses: int) -> httpx.Response:
    if response.status_code in statuses:
        return response
    if response.status_code in (302, 303):
        error = query_of(response.headers.get("location", "")).get("error", "redirect")
        raise Failed(f"{response.status_code} error={error}", status=response.status_code)
    seen, bad = describe_answer(
        response.status_code,
        response.headers.get("content-type", ""),
        response.headers.get("retry-after"),
    )
    raise Failed(seen, bad, response.status_code)


def basic(client: TestClient) -> str:
    pair = f"{quote(client.client_id, safe='')}:{quote(client.secret or '', safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def unverified_claims(token: str) -> dict[str, Any]:
    """The claims of a JWT this run just received from the provider (only ``sid`` is used)."""
    payload = token.split(".")[1]
    padded = payload + "=" * (-len(payload) % 4)
    claims: dict[str, Any] = json.loads(base64.urlsafe_b64decode(padded))
    return claims


async def run_one(kind: str, step: Any) -> tuple[Outcome, Any]:
    """Run ``step()`` (a coroutine function) and turn what happened into an Outcome."""
    started = time.monotonic()
    try:
        value = await step()
    except Failed as failed:
        ended = time.monotonic()
        return Outcome(kind, started, False, failed.seen, failed.bad, ended), failed
    except httpx.TransportError as error:
        return Outcome(kind, started, False, NO_ANSWER, ended=time.monotonic()), error
    except (ValueError, KeyError) as error:  # a 200 whose body is not what it should be
        return Outcome(kind, started, False, f"malformed answer ({error.__class__.__name__})",
                       True, time.monotonic()), error  # fmt: skip
    return Outcome(kind, started, True, ended=time.monotonic()), value


async def client_credentials(http: httpx.AsyncClient, client: TestClient, scope: str) -> str:
    answer = await http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": scope},
        headers={"Authorization": basic(client)},
    )
    return str(expect(answer, 200).json()["access_token"])


async def refresh(http: httpx.AsyncClient, client: TestClient, token: str) -> str:
    answer = await http.post(
        "/oauth2/token",
        data={"grant_type": "refresh_token", "refresh_token": token},
        headers={"Authorization": basic(client)},
    )
    return str(expect(answer, 200).json()["refresh_token"])


async def exchange(
    http: httpx.AsyncClient, authorization: Authorization, code: str
) -> dict[str, Any]:
    app = authorization.app
    answer = await http.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": app.redirect_uri,
            "code_verifier": authorization.verifier,
        },
        headers={"Authorization": basic(app)},
    )
    tokens: dict[str, Any] = expect(answer, 200).json()
    if "access_token" not in tokens:
        raise KeyError("access_token")
    return tokens


def code_of(answer: httpx.Response, authorization: Authorization) -> str:
    values = query_of(expect(answer, 302, 303).headers["location"])
    if "code" not in values:
        raise Failed(f"{answer.status_code} error={values.get('error', 'no code')}")
    return values["code"]


async def authorize_and_exchange(
    http: httpx.AsyncClient, app: TestClient, cookie: str
) -> dict[str, Any]:
    """Authorize with an existing session cookie (no prompt), then trade the code."""
    authorization = Authorization(app)
    answer = await http.get(
        "/oauth2/authorize", params=authorization.params(), headers={"Cookie": cookie}
    )
    return await exchange(http, authorization, code_of(answer, authorization))


async def userinfo(http: httpx.AsyncClient, access_token: str) -> None:
    answer = await http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {access_token}"})
    if "sub" not in expect(answer, 200).json():
        raise KeyError("sub")


@dataclass
class SignedIn:
    """A browser signed in by the load, with the applications it reached."""

    browser: httpx.AsyncClient
    sid: str
    apps: list[str]
    logout_tries: int = 0
    logged_out: bool = False  # the logout was answered 303
    signed_in_at: float = field(default_factory=time.monotonic)


async def sign_in(
    base_url: str, person: TestUser, first: TestClient, others: list[TestClient]
) -> SignedIn:
    """Password sign-in at ``first`` through the sign-in API, then ``others`` reached with
    the same session. The browser is closed by its logout (or the end of the run)."""
    browser = httpx.AsyncClient(base_url=base_url, timeout=TIMEOUT, follow_redirects=False)
    try:
        authorization = Authorization(first)
        to_login = expect(
            await browser.get("/oauth2/authorize", params=authorization.params()), 302, 303
        )
        challenge = query_of(to_login.headers["location"])["challenge"]
        step = expect(
            await browser.post(
                "/api/v1/auth/login",
                json={"challenge": challenge, "email": person.email, "password": person.password},
            ),
            200,
        ).json()
        if step.get("next") != "done":
            raise Failed(f"200 next={step.get('next')}")
        code = code_of(await browser.get(step["redirectTo"]), authorization)
        tokens = await exchange(browser, authorization, code)
        sid = str(unverified_claims(tokens["id_token"])["sid"])
        signed = SignedIn(browser, sid, [first.client_id])
        for app in others:
            reached = Authorization(app)
            code = code_of(await browser.get("/oauth2/authorize", params=reached.params()), reached)
            signed.apps.append(app.client_id)
            await exchange(browser, reached, code)
        return signed
    except BaseException:
        await browser.aclose()
        raise


async def logout(signed: SignedIn, client_id: str) -> None:
    """RP-initiated logout (POST /oauth2/logout) with the browser's session cookie."""
    signed.logout_tries += 1
    expect(await signed.browser.post("/oauth2/logout", data={"client_id": client_id}), 303)
    signed.logged_out = True


async def first_refresh_tokens(
    base_url: str, app: TestClient, cookies: list[str], n: int
) -> list[str]:
    """``n`` refresh tokens, each the first of the family of a real code exchange (with
    ``offline_access``), so that every refresh in the load runs the whole grant: the spend,
    the access token's ``jti`` tracked in Redis before the commit, the successor."""
    async with httpx.AsyncClient(base_url=base_url, timeout=TIMEOUT) as http:
        tokens = []
        for i in range(n):
            answer = await authorize_and_exchange(http, app, cookies[i % len(cookies)])
            tokens.append(str(answer["refresh_token"]))
        return tokens
