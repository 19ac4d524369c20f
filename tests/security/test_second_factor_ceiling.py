"""Attack 1: second factor without a ceiling.

Someone who knows a person's password but not their authenticator loops: a new sign-in
request, the correct password (which cleared the account's failure counter), then four
wrong one-time codes (the fifth would end the request) — about 96 guesses a minute from
one address, for ever. Wrong codes must count on a counter of their own that a correct
password never clears; past a few, the code step is locked with a growing delay, the lock
is audited, and the person is told by mail that someone knows their password.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyotp
import pytest

from tests.harness.stack import Stack, start_with_mail_catcher
from tests.integration.signin_fixtures import (
    Person,
    RelyingParty,
    audit_rows,
    create_client,
    create_person,
    mail_part,
    new_challenge,
    post,
    signin_client,
    totp_now,
    wait_for_mail,
)

pytestmark = pytest.mark.integration
ROUNDS = 3
WRONG_PER_ROUND = 4  # one fewer than the wrong codes that end a sign-in request


def wrong_code(person: Person) -> str:
    assert person.totp_secret is not None
    totp = pyotp.TOTP(person.totp_secret)
    accepted = {totp.at(time.time() + d) for d in (-60, -30, 0, 30, 60)}
    return next(c for c in ("000000", "111111", "222222", "333333", "444444") if c not in accepted)


def password_then_codes(
    base: str, stack: Stack, person: Person, rp: RelyingParty, codes: list[str]
) -> tuple[int, list[tuple[int, str]]]:
    """One sign-in request: the correct password, then ``codes``; (password status,
    [(status, problem code) of each code])."""
    challenge = new_challenge(stack, rp)
    with signin_client(base) as client:
        login = post(
            client,
            "/login",
            {"challenge": challenge, "email": person.email, "password": person.password},
        )
        answers = []
        for code in codes:
            answer = post(client, "/totp", {"challenge": challenge, "code": code})
            answers.append((answer.status_code, answer.json().get("code", "")))
    return login.status_code, answers


def test_knowing_the_password_does_not_buy_fresh_guesses_at_the_code(
    stack: Stack, extra_processes: Stack, tmp_path: Path
) -> None:
    mail_dir = tmp_path / "mail"
    base = start_with_mail_catcher(extra_processes, "authui-api", mail_dir).url
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    bad = wrong_code(person)
    evaluated = 0
    refused = 0
    for _ in range(ROUNDS):
        login, answers = password_then_codes(base, stack, person, rp, [bad] * WRONG_PER_ROUND)
        assert login == 200  # the password itself is right every time
        evaluated += sum(1 for status, _ in answers if status == 401)
        refused += sum(1 for status, code in answers if status == 429)
    # Five wrong codes in all are evaluated, whatever the number of correct passwords.
    assert evaluated == 5, f"{evaluated} wrong codes were evaluated"
    assert refused == ROUNDS * WRONG_PER_ROUND - 5

    # While locked, even the right code is not evaluated (no lucky guess gets through).
    assert person.totp_secret is not None
    login, answers = password_then_codes(base, stack, person, rp, [totp_now(person.totp_secret)])
    assert login == 200
    status, code = answers[0]
    assert (status, code) == (429, "auth.factor_throttled")

    locked = audit_rows(stack, "second_factor.locked", actor=person.id)
    assert locked, "the lock is audited"
    assert locked[0][4]["factor"] == "code" and locked[0][4]["failures"] == 5
    throttled = audit_rows(stack, "second_factor.throttled", actor=person.id)
    assert len(throttled) == refused + 1

    [notice] = wait_for_mail(mail_dir, 1)
    assert notice["To"] == person.email
    text = mail_part(notice)
    assert "entered your password correctly" in text
    assert "change it now" in text
    assert person.password not in text
