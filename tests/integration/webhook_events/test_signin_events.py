"""Webhook events of signing in (docs/webhooks.md "Events"), against the stack's sign-in
API: a success, each failure and each throttled attempt announce one event, written in the
transaction of the decision's audit row; consent granted; never the password typed, the
code, the email or the address."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    create_client,
    create_person,
    new_challenge,
    post,
    secrets_key_text,
    signin_client,
    totp_now,
    unique,
)
from tests.integration.webhook_events.support import assert_no_secret, events_about, one

pytestmark = pytest.mark.integration
WRONG_PASSWORD = "definitely-not-it-77"


@pytest.fixture
def authui(stack: Stack) -> str:
    return stack.service_url("authui-api")


@pytest.fixture(scope="module")
def keyed_authui(stack: Stack) -> Iterator[str]:
    """An authui-api that holds the run's SVC_SECRETS_KEY (it opens one-time code secrets)."""
    with stack.extra_service("authui-api", {"SVC_SECRETS_KEY": secrets_key_text(stack)}) as url:
        yield url


def test_signed_in_then_consent_granted(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, scopes=("openid", "email"))
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        assert post(client, "/login", body).json() == {"next": "consent"}
        approved = post(client, "/consent", {"challenge": challenge, "approve": True})
        assert approved.status_code == 200, approved.text
    succeeded = one(stack, person.id, "signin.succeeded")
    sid = succeeded.pop("sid")
    assert isinstance(sid, str) and sid
    assert succeeded == {
        "user_id": person.id,
        "client_id": rp.client_id,
        "amr": ["pwd"],
        "acr": "urn:idp:acr:1fa",
    }
    assert one(stack, person.id, "consent.granted") == {
        "user_id": person.id,
        "client_id": rp.client_id,
        "scopes": ["openid", "email"],
    }
    assert [e["type"] for e in events_about(stack, person.id)] == [
        "signin.succeeded",
        "consent.granted",
    ]
    assert_no_secret(stack, person.id, person.password, person.email)


def test_failures_then_throttled_attempts(stack: Stack, authui: str) -> None:
    """Wrong passwords until the account throttle refuses: each 401 is one
    ``signin.failed``, each 429 one ``signin.throttled``, nothing else."""
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    statuses = []
    with signin_client(authui) as client:
        for _ in range(12):
            challenge = new_challenge(stack, rp)
            body = {"challenge": challenge, "email": person.email, "password": WRONG_PASSWORD}
            statuses.append(post(client, "/login", body).status_code)
            if statuses[-1] == 429:
                break
    assert statuses[-1] == 429 and set(statuses[:-1]) == {401}, statuses
    events = events_about(stack, rp.client_id)
    assert [e["type"] for e in events] == ["signin.failed"] * (len(statuses) - 1) + [
        "signin.throttled"
    ]
    assert events[0]["data"] == {
        "user_id": person.id,
        "client_id": rp.client_id,
        "reason": "password",
        "method": "password",
    }
    throttled = events[-1]["data"]
    assert throttled.pop("retry_after") >= 1
    assert throttled == {"user_id": None, "client_id": rp.client_id, "reason": "account_throttled"}
    assert_no_secret(stack, rp.client_id, WRONG_PASSWORD, person.email, person.password)


def test_an_unknown_account_fails_without_a_person(stack: Stack, authui: str) -> None:
    rp = create_client(stack, skip_consent=True)
    nobody = f"{unique('nobody')}@example.com"
    with signin_client(authui) as client:
        body = {"challenge": new_challenge(stack, rp), "email": nobody, "password": WRONG_PASSWORD}
        assert post(client, "/login", body).status_code == 401
    expected = {"client_id": rp.client_id, "reason": "unknown_account", "method": "password"}
    assert [e["data"] for e in events_about(stack, rp.client_id)] == [{"user_id": None, **expected}]
    assert_no_secret(stack, rp.client_id, nobody, WRONG_PASSWORD)


def test_a_wrong_code_is_a_failed_sign_in(stack: Stack, keyed_authui: str) -> None:
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    wrong = totp_now(person.totp_secret, offset_steps=40)
    with signin_client(keyed_authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        assert post(client, "/login", body).json()["next"] == "totp"
        refused = post(client, "/totp", {"challenge": challenge, "code": wrong})
        assert refused.status_code == 401, refused.text
        right = totp_now(person.totp_secret)
        assert post(client, "/totp", {"challenge": challenge, "code": right}).status_code == 200
    failed = one(stack, person.id, "signin.failed")
    assert failed == {
        "user_id": person.id,
        "client_id": rp.client_id,
        "reason": "wrong_code",
        "method": "totp",
        "failures": 1,
    }
    succeeded = one(stack, person.id, "signin.succeeded")
    assert succeeded["amr"] == ["pwd", "otp", "mfa"]
    assert_no_secret(stack, person.id, wrong, right, person.totp_secret, person.password)
