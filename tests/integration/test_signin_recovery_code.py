"""Sign-in API, code step: a one-time recovery code (made when the authenticator was
confirmed through ``POST /entity/totp/confirm``) stands in for a TOTP code, once."""

from __future__ import annotations

import pyotp
import pytest

from tests.harness.records import create_user
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi
from tests.integration.signin_fixtures import (
    RelyingParty,
    audit_rows,
    create_client,
    new_challenge,
    post,
    read_challenge,
    signin_client,
)

pytestmark = pytest.mark.integration


def enrolled_person(stack: Stack) -> tuple[EntityApi, list[str]]:
    """A person with a confirmed authenticator, through the self-service API; their codes."""
    api = EntityApi(stack, create_user(stack))
    secret = api.post("/entity/totp/enroll").json()["secret"]
    confirmed = api.post("/entity/totp/confirm", json={"code": pyotp.TOTP(secret).now()})
    assert confirmed.status_code == 200, confirmed.text
    return api, confirmed.json()["recoveryCodes"]


def code_step(stack: Stack, api: EntityApi, rp: RelyingParty, code: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    challenge = new_challenge(stack, rp)
    person = api.person
    with signin_client(stack.service_url("authui-api")) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        first = post(client, "/login", body)
        assert first.status_code == 200, first.text
        assert first.json() == {"next": "totp"}
        answer = post(client, "/totp", {"challenge": challenge, "code": code})
    return challenge, {"status": answer.status_code, **answer.json()}


def test_a_recovery_code_signs_in_once(stack: Stack) -> None:
    api, codes = enrolled_person(stack)
    rp = create_client(stack, skip_consent=True)

    typed = " ".join(codes[0].upper().split("-"))  # case and separators do not matter
    challenge, answer = code_step(stack, api, rp, typed)
    assert answer["status"] == 200 and answer["next"] == "done", answer
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.acr == "urn:idp:acr:2fa"

    _, again = code_step(stack, api, rp, codes[0])
    assert again["status"] == 401 and again["code"] == "auth.invalid_code"

    _, second = code_step(stack, api, rp, codes[1].replace("-", ""))
    assert second["status"] == 200 and second["next"] == "done", second

    assert api.get("/entity/totp").json()["recoveryCodesLeft"] == len(codes) - 2
    used = audit_rows(stack, "totp.recovery_code_used", actor=api.person.id)
    assert [row[2] for row in used] == [200, 200]
    assert not any(c in str(used) for c in codes)


def test_another_person_s_recovery_code_is_refused(stack: Stack) -> None:
    api, _ = enrolled_person(stack)
    _, others = enrolled_person(stack)
    rp = create_client(stack, skip_consent=True)
    _, answer = code_step(stack, api, rp, others[0])
    assert answer["status"] == 401 and answer["code"] == "auth.invalid_code"
