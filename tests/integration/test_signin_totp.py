"""Sign-in API, one-time code step (RFC 6238; docs/design.md "Sign-in": password → code when
an authenticator is confirmed). The secrets are sealed with ``idp_common.crypto.secretbox``
under ``SVC_SECRETS_KEY``, which an extra authui-api process of this module is given."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pyotp
import pytest

from idp_common.protocol.oidc_core_claims import session_sid
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    Person,
    RelyingParty,
    audit_rows,
    create_client,
    create_person,
    new_challenge,
    post,
    read_challenge,
    secrets_key_text,
    signin_client,
    sql,
    totp_now,
)

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def keyed_authui(stack: Stack) -> Iterator[str]:
    """An authui-api that holds the run's SVC_SECRETS_KEY (the stack's may not yet)."""
    with stack.extra_service("authui-api", {"SVC_SECRETS_KEY": secrets_key_text(stack)}) as url:
        yield url


def password_step(stack: Stack, base: str, person: Person, rp: RelyingParty) -> tuple[str, dict]:  # type: ignore[type-arg]
    challenge = new_challenge(stack, rp)
    with signin_client(base) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        answer = post(client, "/login", body)
    assert answer.status_code == 200
    assert "set-cookie" not in answer.headers  # no session before the second factor
    return challenge, answer.json()


def test_code_step_completes_a_two_factor_sign_in(stack: Stack, keyed_authui: str) -> None:
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    challenge, first = password_step(stack, keyed_authui, person, rp)
    assert first == {"next": "totp"}
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "totp" and saved.session_sid is None
    assert person.totp_secret is not None
    with signin_client(keyed_authui) as client:
        accepted = {pyotp.TOTP(person.totp_secret).at(time.time() + d) for d in (-30, 0, 30)}
        wrong_code = next(c for c in ("000000", "111111", "222222", "333333") if c not in accepted)
        wrong = post(client, "/totp", {"challenge": challenge, "code": wrong_code})
        answer = post(
            client, "/totp", {"challenge": challenge, "code": totp_now(person.totp_secret)}
        )
    assert wrong.status_code == 401
    assert wrong.json()["code"] == "auth.invalid_code"
    assert answer.status_code == 200
    assert answer.json()["next"] == "done"
    cookie = answer.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "done"
    assert saved.amr == ["pwd", "otp", "mfa"] and saved.acr == "urn:idp:acr:2fa"
    assert saved.session_sid == session_sid(cookie)
    failures = audit_rows(stack, "totp.failed", actor=person.id)
    assert [r[2] for r in failures] == [401]


def test_a_code_is_accepted_once_and_the_previous_step_too(stack: Stack, keyed_authui: str) -> None:
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    assert person.totp_secret is not None
    first, _ = password_step(stack, keyed_authui, person, rp)
    second, _ = password_step(stack, keyed_authui, person, rp)
    # The step before (clock drift is allowed), made just before it is sent and never in
    # the last seconds of a step: crossing into the next one would make it two steps old.
    if time.time() % 30 > 25:
        time.sleep(30 - time.time() % 30 + 0.1)
    code = totp_now(person.totp_secret, -1)
    with signin_client(keyed_authui) as client:
        accepted = post(client, "/totp", {"challenge": first, "code": code})
        replayed = post(client, "/totp", {"challenge": second, "code": code})
    assert accepted.status_code == 200
    assert replayed.status_code == 401
    step = sql(
        stack, "SELECT last_used_step FROM totp_credentials WHERE user_id = :u", u=person.id
    )[0][0]
    assert step is not None


def test_five_wrong_codes_end_the_challenge(stack: Stack, keyed_authui: str) -> None:
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    challenge, _ = password_step(stack, keyed_authui, person, rp)
    assert person.totp_secret is not None
    current = {totp_now(person.totp_secret, d) for d in (-1, 0, 1)}
    wrong = next(c for c in ("111111", "222222", "333333", "444444") if c not in current)
    with signin_client(keyed_authui) as client:
        answers = [post(client, "/totp", {"challenge": challenge, "code": wrong}) for _ in range(5)]
        after = post(client, "/totp", {"challenge": challenge, "code": "123456"})
    assert [a.status_code for a in answers] == [401] * 5
    assert [a.json()["code"] for a in answers] == ["auth.invalid_code"] * 4 + [
        "auth.challenge_ended"
    ]
    assert read_challenge(stack, challenge) is None
    assert after.status_code == 404


def test_totp_only_at_its_step(stack: Stack, keyed_authui: str) -> None:
    rp = create_client(stack)
    challenge = new_challenge(stack, rp)
    with signin_client(keyed_authui) as client:
        answer = post(client, "/totp", {"challenge": challenge, "code": "123456"})
    assert answer.status_code == 409


def test_without_the_key_the_code_step_is_unavailable(stack: Stack, extra_processes: Stack) -> None:
    process = extra_processes.start_service(
        "authui-api", {"SVC_SECRETS_KEY": "", "SVC_SECRETS_KEY_FILE": ""}
    )
    extra_processes.wait_until_up(process)
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    base = process.url
    challenge, first = password_step(stack, base, person, rp)
    assert first == {"next": "totp"}
    assert person.totp_secret is not None
    with signin_client(base) as client:
        answer = post(
            client, "/totp", {"challenge": challenge, "code": totp_now(person.totp_secret)}
        )
    assert answer.status_code == 503
    assert answer.json()["code"] == "auth.totp_unavailable"
