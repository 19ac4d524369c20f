"""``/entity/passkeys`` (issue #26, docs/passkeys.md): register a passkey with a software
authenticator (real ES256 keys, browser-shaped JSON), list, rename and remove it; the
recent sign-in; responses that prove the wrong thing (origin, RP id, no user verification),
challenges replayed, given to someone else or for a sign-in; other people's passkeys; the
limit; and the audit trail, which never holds the credential."""

from __future__ import annotations

import struct
import uuid
from typing import Any

import cbor2
import httpx
import pytest
from redis.asyncio import Redis

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from idp_common.state.passkey_ceremonies import Ceremony, PasskeyCeremonies
from idp_common.storage.repos.passkeys import MAX_PASSKEYS_PER_PERSON
from tests.harness import infra
from tests.harness.passkeys import SoftAuthenticator, SoftCredential, b64url, unb64url
from tests.harness.records import TestUser as Person
from tests.harness.records import create_user, query
from tests.harness.stack import Stack
from tests.integration.entity.contract import (
    MISSING_ID,
    EntityApi,
    assert_guarded,
    assert_problem,
    now,
)

pytestmark = pytest.mark.integration

STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'
OPTIONS = "/entity/passkeys/registration-options"
RP_ID = "127.0.0.1"
ZERO_AAGUID = "00000000-0000-0000-0000-000000000000"


def authenticator(stack: Stack) -> SoftAuthenticator:
    return SoftAuthenticator(origin=stack.issuer, rp_id=RP_ID)


def stored(stack: Stack, person: Person) -> list[dict[str, Any]]:
    return query(
        stack,
        "SELECT id, credential_id, name, sign_count FROM passkeys WHERE user_id = $1 "
        "ORDER BY created_at",
        uuid.UUID(person.id),
    )


def audit_rows(stack: Stack, person: Person) -> list[dict[str, Any]]:
    return query(
        stack,
        "SELECT action, status_code, target, detail::text AS detail FROM audit_events "
        "WHERE actor = $1 ORDER BY id",
        person.id,
    )


def passkey_actions(stack: Stack, person: Person) -> list[tuple[Any, Any]]:
    return [
        (r["action"], r["status_code"])
        for r in audit_rows(stack, person)
        if str(r["action"]).startswith("passkey.")
    ]


def options(api: EntityApi) -> dict[str, Any]:
    answer = api.post(OPTIONS)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def register(
    api: EntityApi, soft: SoftAuthenticator, name: str | None = None, **lie: Any
) -> httpx.Response:
    body: dict[str, Any] = {"credential": soft.create(options(api), **lie)}
    if name is not None:
        body["name"] = name
    return api.post("/entity/passkeys", json=body)


def assert_refused(answer: httpx.Response, code: str) -> None:
    assert_problem(answer, 422, field="credential")
    assert answer.json()["code"] == code, answer.text


def test_routes_are_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", "/entity/passkeys", SCOPE_IDP_ACCOUNT_READ)
    assert_guarded(entity_api, "POST", OPTIONS, SCOPE_IDP_ACCOUNT_WRITE)
    body = {"credential": {}}
    assert_guarded(entity_api, "POST", "/entity/passkeys", SCOPE_IDP_ACCOUNT_WRITE, json=body)
    path = f"/entity/passkeys/{MISSING_ID}"
    assert_guarded(entity_api, "PATCH", path, SCOPE_IDP_ACCOUNT_WRITE, json={"name": "x"})
    assert_guarded(entity_api, "DELETE", path, SCOPE_IDP_ACCOUNT_WRITE)


def test_options_for_a_discoverable_verified_passkey(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    first = options(entity_api)
    assert first["rp"] == {"id": RP_ID, "name": RP_ID}
    assert first["user"]["name"] == person.email
    assert first["user"]["id"] == b64url(uuid.UUID(person.id).bytes)
    assert first["authenticatorSelection"]["residentKey"] == "required"
    assert first["authenticatorSelection"]["userVerification"] == "required"
    assert first["attestation"] == "none"
    assert first["excludeCredentials"] == []
    assert first["challenge"] != options(entity_api)["challenge"]

    soft = authenticator(stack)
    assert register(entity_api, soft).status_code == 201
    excluded = options(entity_api)["excludeCredentials"]
    assert [e["id"] for e in excluded] == [b64url(soft.credentials[0].credential_id)]


def test_register_list_rename_and_remove(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    assert entity_api.get("/entity/passkeys").json() == {"items": []}
    soft = authenticator(stack)
    created = register(entity_api, soft, name="  My laptop ")
    assert created.status_code == 201, created.text
    passkey = created.json()
    assert set(passkey) == {
        "id",
        "name",
        "createdAt",
        "lastUsedAt",
        "synced",
        "backedUp",
        "userVerified",
        "aaguid",
        "signCount",
        "transports",
        "cloneSuspectedAt",
    }
    assert passkey["name"] == "My laptop"
    assert passkey["synced"] is False and passkey["backedUp"] is False
    assert passkey["userVerified"] is True
    assert passkey["aaguid"] == ZERO_AAGUID and passkey["signCount"] == 0
    assert passkey["lastUsedAt"] is None and passkey["cloneSuspectedAt"] is None
    assert passkey["transports"] == ["hybrid", "internal"]
    rows = stored(stack, person)
    assert [(str(r["id"]), bytes(r["credential_id"])) for r in rows] == [
        (passkey["id"], soft.credentials[0].credential_id)
    ]

    synced = register(entity_api, soft, backup_eligible=True)
    assert synced.status_code == 201, synced.text
    assert synced.json()["name"] == "Passkey"
    assert synced.json()["synced"] is True and synced.json()["backedUp"] is True
    listed = entity_api.get("/entity/passkeys").json()["items"]
    assert [p["id"] for p in listed] == [passkey["id"], synced.json()["id"]]
    assert listed[0] == passkey

    path = f"/entity/passkeys/{passkey['id']}"
    renamed = entity_api.patch(path, json={"name": "Work laptop"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {**passkey, "name": "Work laptop"}
    assert stored(stack, person)[0]["name"] == "Work laptop"

    removed = entity_api.delete(path)
    assert removed.status_code == 204, removed.text
    assert [str(r["id"]) for r in stored(stack, person)] == [synced.json()["id"]]
    # the removal was a credential change: the next one needs a sign-in after it
    assert_problem(entity_api.delete(path), 403)
    entity_api.sign_in_again()
    assert_problem(entity_api.delete(path), 404)
    assert_problem(entity_api.patch(path, json={"name": "again"}), 404)

    assert passkey_actions(stack, person) == [
        ("passkey.registered", 201),
        ("passkey.registered", 201),
        ("passkey.renamed", 200),
        ("passkey.removed", 204),
    ]
    trail = str(audit_rows(stack, person))
    assert passkey["id"] in trail
    credential = soft.credentials[0].credential_id
    assert b64url(credential) not in trail and credential.hex() not in trail


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 65, "line\nbreak", "tab\there", "nul\x00", "sep\u2028x"]
)
def test_a_bad_name_is_a_422_naming_it(
    stack: Stack, entity_api: EntityApi, person: Person, name: str
) -> None:
    soft = authenticator(stack)
    assert_problem(register(entity_api, soft, name=name), 422, field="name")
    assert stored(stack, person) == []
    created = register(entity_api, soft, name="Phone")
    assert created.status_code == 201, created.text
    path = f"/entity/passkeys/{created.json()['id']}"
    assert_problem(entity_api.patch(path, json={"name": name}), 422, field="name")
    assert stored(stack, person)[0]["name"] == "Phone"


def test_a_64_character_name_is_kept(stack: Stack, entity_api: EntityApi) -> None:
    created = register(entity_api, authenticator(stack), name="é" * 64)
    assert created.status_code == 201, created.text
    assert created.json()["name"] == "é" * 64


def test_writes_need_a_recent_sign_in(stack: Stack, entity_api: EntityApi, person: Person) -> None:
    soft = authenticator(stack)
    kept = register(entity_api, soft).json()
    pending = soft.create(options(entity_api))
    entity_api.claims = {"auth_time": now() - 1000, "amr": ["pwd"]}
    for method, path, body in (
        ("POST", OPTIONS, None),
        ("POST", "/entity/passkeys", {"credential": pending}),
        ("DELETE", f"/entity/passkeys/{kept['id']}", None),
    ):
        refused = entity_api.call(method, path, json=body)
        assert_problem(refused, 403)
        assert refused.headers["www-authenticate"] == STEP_UP
    assert [str(r["id"]) for r in stored(stack, person)] == [kept["id"]]
    # Reading and renaming need no fresh sign-in.
    assert len(entity_api.get("/entity/passkeys").json()["items"]) == 1
    renamed = entity_api.patch(f"/entity/passkeys/{kept['id']}", json={"name": "Old sign-in"})
    assert renamed.status_code == 200, renamed.text


@pytest.mark.parametrize(
    ("lie", "reason"),
    [
        ({"origin": "https://evil.example"}, "wrong_origin"),
        ({"rp_id": "evil.example"}, "wrong_rp_id"),
        ({"uv": False}, "user_verification_missing"),
    ],
)
def test_a_response_proving_the_wrong_thing_is_refused(
    stack: Stack, entity_api: EntityApi, person: Person, lie: dict[str, Any], reason: str
) -> None:
    soft = authenticator(stack)
    answer = register(entity_api, soft, **lie)
    assert_refused(answer, "passkey.rejected")
    assert reason in answer.json()["detail"]
    assert stored(stack, person) == []
    refusals = [r for r in audit_rows(stack, person) if r["action"].startswith("passkey.")]
    assert [(r["action"], r["status_code"]) for r in refusals] == [
        ("passkey.registration_refused", 422)
    ]
    assert f'"reason": "{reason}"' in refusals[0]["detail"]
    assert refusals[0]["target"] == person.id
    trail = str(audit_rows(stack, person))
    assert b64url(soft.credentials[0].credential_id) not in trail
    assert "clientDataJSON" not in trail and "attestationObject" not in trail


def test_a_replayed_response_finds_no_challenge(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    credential = authenticator(stack).create(options(entity_api))
    first = entity_api.post("/entity/passkeys", json={"credential": credential})
    assert first.status_code == 201, first.text
    again = entity_api.post("/entity/passkeys", json={"credential": credential})
    assert_refused(again, "passkey.challenge_unknown")
    assert len(stored(stack, person)) == 1
    assert passkey_actions(stack, person) == [
        ("passkey.registered", 201),
        ("passkey.registration_refused", 422),
    ]


def test_a_challenge_never_given_is_refused(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    made_up = b64url(b"\x07" * 32)
    answer = register(entity_api, authenticator(stack), challenge=made_up)
    assert_refused(answer, "passkey.challenge_unknown")
    broken = entity_api.post("/entity/passkeys", json={"credential": {"response": "x"}})
    assert_refused(broken, "passkey.challenge_unknown")
    assert stored(stack, person) == []


def test_another_persons_challenge_is_refused_and_spent(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    other = EntityApi(stack, create_user(stack))
    try:
        credential = authenticator(stack).create(options(other))
        stolen = entity_api.post("/entity/passkeys", json={"credential": credential})
        assert_refused(stolen, "passkey.challenge_unknown")
        # The challenge answered one ceremony: its own person cannot use it now either.
        late = other.post("/entity/passkeys", json={"credential": credential})
        assert_refused(late, "passkey.challenge_unknown")
        assert stored(stack, person) == [] and stored(stack, other.person) == []
    finally:
        other.close()


async def _sign_in_challenge(stack: Stack) -> bytes:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        ceremonies = PasskeyCeremonies(redis, stack.env["SVC_REDIS_PREFIX"], 300)
        return await ceremonies.begin(Ceremony(purpose="signin", subject="some-challenge"))
    finally:
        await redis.aclose()


def test_a_sign_in_challenge_does_not_register(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    challenge = b64url(infra.run(_sign_in_challenge(stack)))
    answer = register(entity_api, authenticator(stack), challenge=challenge)
    assert_refused(answer, "passkey.challenge_unknown")
    assert stored(stack, person) == []


def _answered_with(response: dict[str, Any], credential: SoftCredential) -> dict[str, Any]:
    """``response`` re-made so that the credential it attests is ``credential`` (an
    authenticator answering a new challenge with a credential it made before)."""
    attestation = cbor2.loads(unb64url(response["response"]["attestationObject"]))
    auth_data: bytes = attestation["authData"]
    attestation["authData"] = (
        auth_data[:53]  # RP id hash, flags, counter, AAGUID
        + struct.pack(">H", len(credential.credential_id))
        + credential.credential_id
        + credential.cose_public_key()
    )
    response["response"]["attestationObject"] = b64url(cbor2.dumps(attestation))
    response["id"] = response["rawId"] = b64url(credential.credential_id)
    return response


def test_a_credential_registered_already_is_a_409(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    soft = authenticator(stack)
    assert register(entity_api, soft).status_code == 201
    first = soft.credentials[0]
    again = _answered_with(soft.create(options(entity_api)), first)
    mine = entity_api.post("/entity/passkeys", json={"credential": again})
    assert_problem(mine, 409)
    assert mine.json()["code"] == "passkey.already_registered"

    other = EntityApi(stack, create_user(stack))
    try:
        theirs = _answered_with(soft.create(options(other)), first)
        stolen = other.post("/entity/passkeys", json={"credential": theirs})
        assert_problem(stolen, 409)
        assert stolen.json()["detail"] == mine.json()["detail"]  # whose it is stays unsaid
        assert stored(stack, other.person) == []
    finally:
        other.close()
    assert len(stored(stack, person)) == 1


def test_someone_elses_passkey_is_a_404(stack: Stack, entity_api: EntityApi) -> None:
    owner = create_user(stack)
    other = EntityApi(stack, owner)
    try:
        theirs = register(other, authenticator(stack), name="Theirs").json()
    finally:
        other.close()
    path = f"/entity/passkeys/{theirs['id']}"
    assert_problem(entity_api.patch(path, json={"name": "Mine now"}), 404)
    assert_problem(entity_api.delete(path), 404)
    assert entity_api.get("/entity/passkeys").json() == {"items": []}
    assert [(str(r["id"]), r["name"]) for r in stored(stack, owner)] == [(theirs["id"], "Theirs")]
    for bad in ("not-a-uuid", MISSING_ID):
        assert_problem(entity_api.delete(f"/entity/passkeys/{bad}"), 404)


def test_the_passkey_past_the_limit_is_a_409(
    stack: Stack, entity_api: EntityApi, person: Person
) -> None:
    query(
        stack,
        "INSERT INTO passkeys (user_id, credential_id, public_key, aaguid, backup_eligible, "
        "backed_up, user_verified, name) SELECT $1, gen_random_uuid()::text::bytea, "
        "'\\x00'::bytea, $2, false, false, true, 'Key ' || n "
        "FROM generate_series(1, $3::int) AS n",
        uuid.UUID(person.id),
        ZERO_AAGUID,
        MAX_PASSKEYS_PER_PERSON - 1,
    )
    soft = authenticator(stack)
    last = register(entity_api, soft)
    assert last.status_code == 201, last.text
    over = register(entity_api, soft)
    assert_problem(over, 409)
    assert over.json()["code"] == "passkey.too_many"
    assert len(stored(stack, person)) == MAX_PASSKEYS_PER_PERSON


def test_an_oversized_body_is_refused(stack: Stack, entity_api: EntityApi, person: Person) -> None:
    credential = authenticator(stack).create(options(entity_api))
    credential["padding"] = "x" * (70 * 1024)
    answer = entity_api.post("/entity/passkeys", json={"credential": credential})
    assert_problem(answer, 413)
    assert stored(stack, person) == []
