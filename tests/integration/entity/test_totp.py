"""``/entity/totp``, ``/entity/totp/enroll``, ``/entity/totp/confirm`` (contract §4; issue 5
acceptance 1 and 4): enrol, confirm with a real code (pyotp), recovery codes shown once and
stored as digests, the recent sign-in, remove."""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
import pyotp
import pytest

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from tests.harness.records import TestUser as Person
from tests.harness.records import query
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, assert_guarded, assert_problem, now

pytestmark = pytest.mark.integration

STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'


def credential(stack: Stack, person: Person) -> dict[str, object] | None:
    rows = query(
        stack,
        "SELECT secret_encrypted, confirmed_at, last_used_step FROM totp_credentials "
        "WHERE user_id = $1",
        uuid.UUID(person.id),
    )
    return rows[0] if rows else None


def recovery_digests(stack: Stack, person: Person) -> list[bytes]:
    rows = query(
        stack,
        "SELECT code_digest FROM totp_recovery_codes WHERE user_id = $1",
        uuid.UUID(person.id),
    )
    return [bytes(r["code_digest"]) for r in rows]  # type: ignore[call-overload]


def actions(stack: Stack, person: Person) -> list[tuple[object, object, object]]:
    rows = query(
        stack,
        "SELECT action, status_code, detail FROM audit_events WHERE actor = $1 ORDER BY id",
        person.id,
    )
    return [(r["action"], r["status_code"], r["detail"]) for r in rows]


def wrong_code(secret: str) -> str:
    near = {pyotp.TOTP(secret).at(time.time() + d) for d in (-60, -30, 0, 30, 60)}
    return next(c for c in ("000000", "111111", "222222", "333333") if c not in near)


def test_routes_are_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", "/entity/totp", SCOPE_IDP_ACCOUNT_READ)
    assert_guarded(entity_api, "POST", "/entity/totp/enroll", SCOPE_IDP_ACCOUNT_WRITE)
    confirm = {"code": "123456"}
    assert_guarded(
        entity_api, "POST", "/entity/totp/confirm", SCOPE_IDP_ACCOUNT_WRITE, json=confirm
    )
    assert_guarded(entity_api, "DELETE", "/entity/totp", SCOPE_IDP_ACCOUNT_WRITE)


def test_enrol_confirm_and_remove(stack: Stack, entity_api: EntityApi, person: Person) -> None:
    assert entity_api.get("/entity/totp").json() == {"enrolled": False, "pending": False}

    enrolled = entity_api.post("/entity/totp/enroll")
    assert enrolled.status_code == 201, enrolled.text
    body = enrolled.json()
    assert set(body) == {"secret", "otpauthUri", "qrCode"}
    secret = body["secret"]
    assert len(secret) == 32  # 160 bits of base32
    uri = urlsplit(body["otpauthUri"])
    assert (uri.scheme, uri.netloc) == ("otpauth", "totp")
    assert person.email in unquote(uri.path)
    assert parse_qs(uri.query)["secret"] == [secret]
    assert parse_qs(uri.query)["issuer"] == ["127.0.0.1"]
    assert body["qrCode"].startswith("data:image/svg+xml")
    assert "no-store" in enrolled.headers["cache-control"]
    stored = credential(stack, person)
    assert stored is not None and stored["confirmed_at"] is None
    assert secret.encode() not in bytes(stored["secret_encrypted"])  # type: ignore[call-overload]
    assert entity_api.get("/entity/totp").json() == {"enrolled": False, "pending": True}

    refused = entity_api.post("/entity/totp/confirm", json={"code": wrong_code(secret)})
    assert_problem(refused, 422, field="code")
    assert credential(stack, person)["confirmed_at"] is None  # type: ignore[index]

    confirmed = entity_api.post("/entity/totp/confirm", json={"code": pyotp.TOTP(secret).now()})
    assert confirmed.status_code == 200, confirmed.text
    codes = confirmed.json()["recoveryCodes"]
    assert confirmed.json()["confirmedAt"]
    assert len(codes) == len(set(codes)) == 10
    digests = recovery_digests(stack, person)
    assert sorted(digests) == sorted(
        hashlib.sha256(c.replace("-", "").encode()).digest() for c in codes
    )
    stored = credential(stack, person)
    assert stored is not None and stored["confirmed_at"] is not None
    assert stored["last_used_step"] is not None  # the confirming code cannot sign in again
    status = entity_api.get("/entity/totp").json()
    assert status["enrolled"] is True and status["recoveryCodesLeft"] == 10
    assert status["confirmedAt"] == confirmed.json()["confirmedAt"]

    assert_problem(entity_api.post("/entity/totp/enroll"), 409)
    assert_problem(entity_api.post("/entity/totp/confirm", json={"code": "123456"}), 409)
    assert credential(stack, person) == stored

    removed = entity_api.delete("/entity/totp")
    assert removed.status_code == 204, removed.text
    assert credential(stack, person) is None and recovery_digests(stack, person) == []
    assert entity_api.get("/entity/totp").json() == {"enrolled": False, "pending": False}
    # the removal was a credential change: the next one needs a sign-in after it
    assert entity_api.delete("/entity/totp").status_code == 403
    entity_api.sign_in_again()
    assert entity_api.delete("/entity/totp").status_code == 204

    written = [(a, s) for a, s, _ in actions(stack, person) if str(a).startswith("totp.")]
    assert written == [
        ("totp.enroll", 201),
        ("totp.confirm", 200),
        ("totp.delete", 204),
        ("totp.delete", 204),
    ]
    trail = str(actions(stack, person))
    assert secret not in trail and not any(c in trail for c in codes)


def test_enrolling_again_replaces_a_pending_secret(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    first = entity_api.post("/entity/totp/enroll").json()["secret"]
    second = entity_api.post("/entity/totp/enroll").json()["secret"]
    assert first != second
    old_code = pyotp.TOTP(first).now()
    if old_code != pyotp.TOTP(second).now():
        stale = entity_api.post("/entity/totp/confirm", json={"code": old_code})
        assert_problem(stale, 422, field="code")
    done = entity_api.post("/entity/totp/confirm", json={"code": pyotp.TOTP(second).now()})
    assert done.status_code == 200, done.text


def test_confirm_without_an_enrolment_is_a_409(entity_api: EntityApi) -> None:
    assert_problem(entity_api.post("/entity/totp/confirm", json={"code": "123456"}), 409)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "code"),
        ({"code": 123456}, "code"),
        ({"code": "1" * 21}, "code"),
        ({"code": "1", "x": 1}, "x"),
    ],
)
def test_a_malformed_confirmation_names_the_field(
    entity_api: EntityApi, body: dict[str, object], field: str
) -> None:
    entity_api.post("/entity/totp/enroll")
    assert_problem(entity_api.post("/entity/totp/confirm", json=body), 422, field=field)


def test_writes_need_a_recent_sign_in(stack: Stack, entity_api: EntityApi, person: Person) -> None:
    secret = entity_api.post("/entity/totp/enroll").json()["secret"]
    entity_api.claims = {"auth_time": now() - 1000, "amr": ["pwd"]}
    for method, path, body in (
        ("POST", "/entity/totp/enroll", None),
        ("POST", "/entity/totp/confirm", {"code": pyotp.TOTP(secret).now()}),
        ("DELETE", "/entity/totp", None),
    ):
        refused = entity_api.call(method, path, json=body)
        assert_problem(refused, 403)
        assert refused.headers["www-authenticate"] == STEP_UP
    assert entity_api.get("/entity/totp").json() == {"enrolled": False, "pending": True}
    assert credential(stack, person) is not None


def test_a_machine_client_token_reads_nothing(entity_api: EntityApi) -> None:
    token = entity_api.token(sub="app-machine")
    answer = entity_api.client.get("/entity/totp", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code in (403, 404), answer.text


@pytest.fixture
def keyless_entity(extra_processes: Stack) -> Iterator[str]:
    service = extra_processes.start_service("entity", {"SVC_SECRETS_KEY": ""})
    extra_processes.wait_until_up(service)
    yield service.url


def test_without_a_secrets_key_enrolment_is_a_503(
    stack: Stack, entity_api: EntityApi, person: Person, keyless_entity: str
) -> None:
    entity_api.client = httpx.Client(base_url=keyless_entity, timeout=20)
    assert_problem(entity_api.post("/entity/totp/enroll"), 503)
    assert credential(stack, person) is None
    assert entity_api.get("/entity/totp").json() == {"enrolled": False, "pending": False}
