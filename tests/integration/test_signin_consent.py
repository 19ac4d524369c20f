"""Sign-in API, consent step (docs/design.md "Sign-in": consent remembered per person and
client; deny sends the browser to the client with ``error=access_denied``, RFC 6749
§4.1.2.1, and ``iss``, RFC 9207)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    audit_rows,
    create_client,
    create_person,
    new_challenge,
    post,
    read_challenge,
    signin_client,
    sql,
    start_session,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def authui(stack: Stack) -> str:
    return stack.service_url("authui-api")


def signed_in_consent(stack: Stack, authui: str, client: httpx.Client, **fields: object) -> str:
    """Sign in through a challenge that then asks for consent; return its id."""
    person = fields.pop("person")
    rp = fields.pop("rp")
    challenge = new_challenge(stack, rp, **fields)  # type: ignore[arg-type]
    body = {"challenge": challenge, "email": person.email, "password": person.password}  # type: ignore[attr-defined]
    assert post(client, "/login", body).json() == {"next": "consent"}
    return challenge


def test_approve_is_remembered(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    with signin_client(authui) as client:
        challenge = signed_in_consent(stack, authui, client, person=person, rp=rp)
        answer = post(client, "/consent", {"challenge": challenge, "approve": True})
        assert answer.status_code == 200
        assert answer.json() == {
            "next": "done",
            "redirectTo": f"{stack.issuer}/oauth2/authorize?challenge={challenge}",
        }
        saved = read_challenge(stack, challenge)
        assert saved is not None and saved.step == "done"
        scopes = sql(stack, "SELECT scopes FROM consents WHERE user_id = :u", u=person.id)[0][0]
        assert sorted(scopes) == ["email", "openid"]
        # The next sign-in to this client asks no consent.
        again = new_challenge(stack, rp)
        body = {"challenge": again, "email": person.email, "password": person.password}
        assert post(client, "/login", body).json()["next"] == "done"
    assert [r[1] for r in audit_rows(stack, "consent.granted", actor=person.id)] == [rp.client_id]


@pytest.mark.parametrize("state", ["xyz abc&=", None])
def test_deny_sends_the_browser_back_with_access_denied(
    stack: Stack, authui: str, state: str | None
) -> None:
    person = create_person(stack)
    rp = create_client(stack)
    with signin_client(authui) as client:
        challenge = signed_in_consent(stack, authui, client, person=person, rp=rp, state=state)
        answer = post(client, "/consent", {"challenge": challenge, "approve": False})
    assert answer.status_code == 200
    target = answer.json()["redirectTo"]
    assert answer.json()["next"] == "done"
    parts = urlsplit(target)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == rp.redirect_uri
    expected = [("error", "access_denied")]
    if state is not None:
        expected.append(("state", state))
    expected.append(("iss", stack.issuer))
    assert parse_qsl(parts.query) == expected
    assert read_challenge(stack, challenge) is None
    assert sql(stack, "SELECT 1 FROM consents WHERE user_id = :u", u=person.id) == []
    assert len(audit_rows(stack, "consent.denied", actor=person.id)) == 1


def test_a_consent_challenge_from_an_existing_session(stack: Stack, authui: str) -> None:
    """authorize found a session but no consent: the challenge starts at ``consent``."""
    person = create_person(stack)
    rp = create_client(stack)
    cookie, session = start_session(stack, person)
    challenge = new_challenge(
        stack,
        rp,
        step="consent",
        user_id=person.id,
        auth_time=session.auth_time,
        amr=["pwd"],
        acr="urn:idp:acr:1fa",
        session_sid=session.sid,
    )
    with signin_client(authui) as client:
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
        assert (read["kind"], read["next"]) == ("consent", "consent")
        stranger = post(client, "/consent", {"challenge": challenge, "approve": True})
        client.cookies.set("svc_session", cookie)
        owner = post(client, "/consent", {"challenge": challenge, "approve": True})
    assert stranger.status_code == 403
    assert stranger.json()["code"] == "auth.session_mismatch"
    assert owner.status_code == 200 and owner.json()["next"] == "done"


def test_consent_only_at_its_step(stack: Stack, authui: str) -> None:
    rp = create_client(stack)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        answer = post(client, "/consent", {"challenge": challenge, "approve": True})
    assert answer.status_code == 409
