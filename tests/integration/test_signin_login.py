"""Sign-in API, password step (contract §4 "Sign-in and recovery", part 5 "Browser
session", part 8; docs/design.md "Wire contracts"), against the stack's authui-api."""

from __future__ import annotations

import httpx
import pytest

from idp_common.protocol.oidc_core_claims import session_sid
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    fresh_address,
    new_challenge,
    post,
    read_challenge,
    sessions_of,
    signin_client,
    sql,
    unique,
)

pytestmark = pytest.mark.integration
WRONG = {"code", "detail", "status", "title", "type", "instance"}


@pytest.fixture
def authui(stack: Stack) -> str:
    return stack.service_url("authui-api")


def cookie_of(response: httpx.Response) -> str:
    header = response.headers["set-cookie"]
    return header.split(";", 1)[0].split("=", 1)[1]


def test_read_a_challenge(stack: Stack, authui: str) -> None:
    rp = create_client(stack, scopes=("openid", "email", "idp:account:read"))
    challenge = new_challenge(stack, rp, login_hint="ada@example.com")
    answer = httpx.get(f"{authui}/api/v1/auth/challenge/{challenge}")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    body = answer.json()
    assert body == {
        "id": challenge,
        "kind": "login",
        "next": "password",
        "client": {"client_id": rp.client_id, "name": rp.name},
        "loginHint": "ada@example.com",
        "brand": body["brand"],  # issue #28: tests/integration/branding check its values
        "locale": "en",  # no ui_locales, no person yet, no Accept-Language (issue #28)
        "scopes": [
            {"value": "openid", "description": body["scopes"][0]["description"]},
            {"value": "email", "description": body["scopes"][1]["description"]},
            {
                "value": "idp:account:read",
                "description": "View your profile, photo and sign-in methods",
            },
        ],
        "face": body["face"],  # true with the face stack (tests marked face check it)
        "passkey": True,  # a discoverable passkey is always offered at this step
    }
    assert isinstance(body["face"], bool)
    brand_keys = {"productName", "logoUri", "primaryColor", "termsUri", "privacyUri"}
    assert set(body["brand"]) == brand_keys
    assert all(s["description"] and s["description"] != s["value"] for s in body["scopes"])


def test_unknown_challenge_is_a_404_problem(authui: str) -> None:
    answer = httpx.get(f"{authui}/api/v1/auth/challenge/nope-{unique('x')}")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "auth.challenge_not_found"
    with signin_client(authui) as client:
        missing = post(client, "/login", {"challenge": "gone", "email": "a@b.c", "password": "x"})
    assert missing.status_code == 404


def test_sign_in_without_consent_needed(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp, state="st")
    with signin_client(authui) as client:
        answer = post(
            client,
            "/login",
            {"challenge": challenge, "email": person.email.upper(), "password": person.password},
        )
    assert answer.status_code == 200
    assert answer.json() == {
        "next": "done",
        "redirectTo": f"{stack.issuer}/oauth2/authorize?challenge={challenge}",
    }
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("svc_session=")
    attributes = [a.strip() for a in cookie.split(";")[1:]]
    assert sorted(attributes) == ["HttpOnly", "Path=/", "SameSite=Lax"]  # no Secure in dev
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "done"
    assert saved.user_id == person.id
    assert saved.amr == ["pwd"] and saved.acr == "urn:idp:acr:1fa"
    assert saved.session_sid == session_sid(cookie_of(answer))
    assert [s.sid for s in sessions_of(stack, person.id)] == [saved.session_sid]
    rows = sql(
        stack,
        "SELECT actor, target, status_code FROM audit_events WHERE action = 'login.succeeded' "
        "AND actor = :actor",
        actor=person.id,
    )
    assert [tuple(r) for r in rows] == [(person.id, rp.client_id, 200)]


def test_sign_in_then_consent(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        answer = post(
            client,
            "/login",
            {"challenge": challenge, "email": person.email, "password": person.password},
        )
        assert answer.status_code == 200
        assert answer.json() == {"next": "consent"}
        assert "svc_session=" in answer.headers["set-cookie"]
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
    assert (read["kind"], read["next"]) == ("consent", "consent")


def test_prompt_consent_asks_even_a_first_party_client(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp, prompt=["consent"])
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        assert post(client, "/login", body).json() == {"next": "consent"}


def test_wrong_password_unknown_account_and_disabled_account_answer_alike(
    stack: Stack, authui: str
) -> None:
    person = create_person(stack)
    disabled = create_person(stack, disabled=True)
    rp = create_client(stack, skip_consent=True)
    attempts = [
        (person.email, "not-the-password"),
        (f"{unique('nobody')}@example.com", "not-the-password"),
        (disabled.email, disabled.password),
    ]
    answers = []
    with signin_client(authui) as client:
        for address, password in attempts:
            challenge = new_challenge(stack, rp)
            body = {"challenge": challenge, "email": address, "password": password}
            answers.append(post(client, "/login", body))
    assert {a.status_code for a in answers} == {401}
    assert all(a.headers["content-type"] == "application/problem+json" for a in answers)
    assert all("set-cookie" not in a.headers for a in answers)
    bodies = [a.json() for a in answers]
    assert bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["code"] == "auth.invalid_credentials"
    assert set(bodies[0]) == WRONG
    failed = sql(
        stack,
        "SELECT actor, detail->>'reason' FROM audit_events WHERE action = 'login.failed' "
        "AND actor IN (:a, :b)",
        a=person.id,
        b=disabled.id,
    )
    assert sorted(tuple(r) for r in failed) == sorted(
        [(person.id, "password"), (disabled.id, "disabled")]
    )
    assert "not-the-password" not in str(sql(stack, "SELECT detail FROM audit_events"))


@pytest.mark.parametrize("same_person", [True, False], ids=["same-person", "another-person"])
def test_a_new_session_id_at_every_sign_in(stack: Stack, authui: str, same_person: bool) -> None:
    people = [create_person(stack)]
    people.append(people[0] if same_person else create_person(stack))
    rp = create_client(stack, skip_consent=True)
    cookies = []
    with signin_client(authui) as client:
        for person in people:
            challenge = new_challenge(stack, rp)
            body = {"challenge": challenge, "email": person.email, "password": person.password}
            answer = post(client, "/login", body)
            assert answer.status_code == 200
            cookies.append(cookie_of(answer))
    assert cookies[0] != cookies[1]
    # The browser's previous session is gone (it carried the old cookie): one session left.
    assert [s.sid for s in sessions_of(stack, people[1].id)] == [session_sid(cookies[1])]
    if not same_person:
        assert sessions_of(stack, people[0].id) == []
    ended = sql(
        stack,
        "SELECT subject, payload FROM event_outbox WHERE payload->>'sid' = :sid",
        sid=session_sid(cookies[0]),
    )
    if same_person:  # a re-authentication continues the session: nobody is signed out
        assert ended == []
        (continued,) = sessions_of(stack, people[0].id)
        assert continued.previous_sids == [session_sid(cookies[0])]
        return
    # another person: the previous session ended with the logout fan-out
    assert len(ended) == 1
    assert ended[0][0] == f"{stack.env['SVC_NATS_PREFIX']}.session.ended"
    assert ended[0][1]["reason"] == "replaced" and ended[0][1]["user_id"] == people[0].id


def test_login_only_at_the_password_step(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    challenge = new_challenge(stack, rp, step="consent", user_id=person.id)
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        answer = post(client, "/login", body)
    assert answer.status_code == 409
    assert answer.json()["code"] == "auth.wrong_step"


@pytest.mark.parametrize("exists", [True, False])
def test_failed_sign_ins_slow_the_account_down(stack: Stack, authui: str, exists: bool) -> None:
    address = create_person(stack).email if exists else f"{unique('ghost')}@example.com"
    rp = create_client(stack, skip_consent=True)
    codes = []
    with signin_client(authui) as client:
        for _ in range(6):
            body = {"challenge": new_challenge(stack, rp), "email": address, "password": "bad"}
            codes.append(post(client, "/login", body))
    assert [a.status_code for a in codes] == [401] * 5 + [429]
    refused = codes[-1]
    assert refused.json()["code"] == "auth.account_throttled"
    assert 1 <= int(refused.headers["retry-after"]) <= 2


def test_the_121st_sign_in_from_one_address_is_refused(stack: Stack, authui: str) -> None:
    limit = 120  # contract §8 TOKEN_PER_IP: the stack keeps the default
    address = fresh_address()
    with signin_client(authui, address=address) as client:
        body = {"challenge": "no-such-challenge", "email": "a@example.com", "password": "x"}
        codes = [post(client, "/login", body).status_code for _ in range(limit)]
        refused = post(client, "/login", body)
        totp = post(client, "/totp", {"challenge": "no-such-challenge", "code": "123456"})
    assert codes == [404] * limit
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["content-type"] == "application/problem+json"
    assert totp.status_code == 429  # the code step counts in the same bucket
    with signin_client(authui) as other:  # another address is not affected
        assert post(other, "/login", body).status_code == 404


def test_production_cookie_is_secure(stack: Stack, extra_processes: Stack) -> None:
    process = extra_processes.start_service("authui-api", {"SVC_ENV": "prod"})
    extra_processes.wait_until_up(process)
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    with signin_client(process.url) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        answer = post(client, "/login", body)
    assert answer.status_code == 200
    attributes = sorted(a.strip() for a in answer.headers["set-cookie"].split(";")[1:])
    assert attributes == ["HttpOnly", "Path=/", "SameSite=Lax", "Secure"]


def test_through_the_proxy(stack: Stack) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    with httpx.Client(base_url=stack.proxy_url) as client:
        assert client.get(f"/api/v1/auth/challenge/{challenge}").status_code == 200
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        answer = client.post("/api/v1/auth/login", json=body, headers={"Origin": stack.issuer})
    assert answer.status_code == 200
    assert answer.json()["next"] == "done"
