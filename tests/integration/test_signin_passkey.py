"""Sign-in API, passkeys (issue #26; W3C WebAuthn Level 3 §7.2; docs/passkeys.md,
docs/security.md "Passkey sign-in"), against the stack's authui-api.

Each test plays one attack (or one way in) with a software authenticator that makes real
ES256 assertions (``tests/harness/passkeys.py``), and checks the answer, the audit row
and what is stored. Passkeys are written straight into the stack's database, as the
self-service registration would have stored them.
"""

from __future__ import annotations

import json
import secrets
import uuid
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from redis.asyncio import Redis

from idp_common.protocol.oidc_core_claims import session_sid
from idp_common.protocol.w3c_webauthn import RegisteredCredential
from idp_common.state.passkey_ceremonies import Ceremony, PasskeyCeremonies
from idp_common.storage.repos.passkeys import add_passkey
from tests.harness import infra, oidc, records
from tests.harness.passkeys import SoftAuthenticator, SoftCredential, b64url
from tests.harness.stack import Stack
from tests.integration.signin_fixtures import (
    Person,
    RelyingParty,
    audit_rows,
    create_client,
    create_person,
    in_db,
    new_challenge,
    post,
    read_challenge,
    sessions_of,
    signin_client,
    sql,
    totp_now,
)

pytestmark = pytest.mark.integration
RP_ID = "127.0.0.1"
PHR = "urn:idp:acr:phr"
REFUSED = "auth.invalid_credentials"


@pytest.fixture
def authui(stack: Stack) -> str:
    return stack.service_url("authui-api")


# --- helpers -------------------------------------------------------------------------------
def authenticator(stack: Stack) -> SoftAuthenticator:
    """A browser's authenticator at the issuer's origin."""
    return SoftAuthenticator(origin=stack.issuer, rp_id=RP_ID)


def register_passkey(
    stack: Stack, person: Person, device: SoftAuthenticator, *, synced: bool = False
) -> SoftCredential:
    """A new credential on ``device`` for ``person``, stored as registration stores it."""
    credential = SoftCredential(
        credential_id=secrets.token_bytes(32),
        key=ec.generate_private_key(ec.SECP256R1()),
        rp_id=RP_ID,
        user_handle=uuid.UUID(person.id).bytes,
        backup_eligible=synced,
    )
    device.credentials.append(credential)
    new = RegisteredCredential(
        credential_id=credential.credential_id,
        public_key=credential.cose_public_key(),
        sign_count=0,
        aaguid=str(uuid.UUID(int=0)),
        transports=["internal", "hybrid"],
        backup_eligible=synced,
        backed_up=synced,
        user_verified=True,
    )
    in_db(stack, lambda db: add_passkey(db, uuid.UUID(person.id), new, "Test passkey"))
    return credential


def begin_ceremony(stack: Stack, ceremony: Ceremony) -> bytes:
    """A ceremony begun in the stack's Redis as another endpoint would begin it."""

    async def go() -> bytes:
        redis = Redis.from_url(infra.REDIS_URL)
        try:
            store = PasskeyCeremonies(redis, stack.env["SVC_REDIS_PREFIX"], 300)
            return await store.begin(ceremony)
        finally:
            await redis.aclose()

    return infra.run(go())


def live_ceremonies(stack: Stack, subject: str) -> int:
    """How many ceremonies Redis holds for ``subject`` (a sign-in request's id)."""

    async def go() -> int:
        redis = Redis.from_url(infra.REDIS_URL)
        pattern = f"{stack.env['SVC_REDIS_PREFIX']}passkey:*"
        try:
            values = [await redis.get(key) async for key in redis.scan_iter(match=pattern)]
        finally:
            await redis.aclose()
        return sum(1 for value in values if value and json.loads(value)["subject"] == subject)

    return infra.run(go())


def options(client: httpx.Client, challenge: str) -> dict[str, Any]:
    answer = post(client, "/passkey/options", {"challenge": challenge})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def answer(client: httpx.Client, challenge: str, credential: dict[str, Any]) -> httpx.Response:
    return post(client, "/passkey", {"challenge": challenge, "credential": credential})


def refused_with(stack: Stack, response: httpx.Response, rp: RelyingParty, reason: str) -> Any:
    """The one refusal, and the ``login.failed`` row naming ``reason`` (returned)."""
    assert response.status_code == 401, response.text
    assert response.json()["code"] == REFUSED
    assert "set-cookie" not in response.headers
    rows = audit_rows(stack, "login.failed", target=rp.client_id)
    assert [row[4]["reason"] for row in rows] == [reason]
    assert rows[0][2] == 401 and rows[0][4]["method"] == "passkey"
    assert "credential" not in rows[0][4]  # never the response itself
    return rows[0]


def stored(stack: Stack, credential: SoftCredential) -> tuple[Any, ...]:
    rows = sql(
        stack,
        "SELECT sign_count, last_used_at, clone_suspected_at FROM passkeys "
        "WHERE credential_id = :c",
        c=credential.credential_id,
    )
    return tuple(rows[0]) if rows else ()


def password_step(client: httpx.Client, challenge: str, person: Person) -> dict[str, Any]:
    body = {"challenge": challenge, "email": person.email, "password": person.password}
    step = post(client, "/login", body)
    assert step.status_code == 200, step.text
    assert "set-cookie" not in step.headers
    result: dict[str, Any] = step.json()
    return result


# --- the ways in ---------------------------------------------------------------------------
@pytest.mark.parametrize(("synced", "key"), [(False, "hwk"), (True, "swk")])
def test_a_passkey_alone_signs_in(stack: Stack, authui: str, synced: bool, key: str) -> None:
    person = create_person(stack, totp=True)  # a passkey is the whole sign-in: no code
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device, synced=synced)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
        offered = options(client, challenge)
        done = answer(client, challenge, device.get(offered))
    assert read["next"] == "password" and read["passkey"] is True
    assert offered["rpId"] == RP_ID and offered["userVerification"] == "required"
    assert offered.get("allowCredentials", []) == []  # discoverable: names no one
    assert done.status_code == 200, done.text
    assert done.json()["next"] == "done"
    cookie = done.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "done" and saved.user_id == person.id
    assert saved.amr == [key, "user", "mfa"] and saved.acr == PHR
    assert saved.session_sid == session_sid(cookie)
    [session] = sessions_of(stack, person.id)
    assert session.amr == [key, "user", "mfa"] and session.acr == PHR
    [row] = audit_rows(stack, "login.succeeded", target=rp.client_id)
    assert row[0] == person.id and row[4]["amr"] == [key, "user", "mfa"]
    sign_count, last_used_at, flagged = stored(stack, credential)
    assert sign_count == 1 and last_used_at is not None and flagged is None


def test_password_then_passkey_without_user_verification(stack: Stack, authui: str) -> None:
    """A person with a passkey and no authenticator app: the passkey follows the password;
    as a second factor it need not verify the person (a security key without a PIN)."""
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        assert password_step(client, challenge, person) == {"next": "passkey"}
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
        offered = options(client, challenge)
        done = answer(client, challenge, device.get(offered, uv=False))
    assert read["next"] == "passkey" and read["passkey"] is True
    assert offered["userVerification"] == "preferred"
    assert [c["id"] for c in offered["allowCredentials"]] == [b64url(credential.credential_id)]
    assert done.status_code == 200, done.text
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "done"
    assert saved.amr == ["pwd", "hwk", "mfa"] and saved.acr == PHR
    assert stored(stack, credential)[0] == 1


def test_the_code_step_takes_a_passkey_too(stack: Stack, authui: str) -> None:
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        assert password_step(client, challenge, person) == {"next": "totp"}
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
        done = answer(client, challenge, device.get(options(client, challenge)))
    assert read["next"] == "totp" and read["passkey"] is True
    assert done.status_code == 200, done.text
    saved = read_challenge(stack, challenge)
    assert saved is not None
    assert saved.amr == ["pwd", "hwk", "user", "mfa"] and saved.acr == PHR


def test_no_passkey_is_offered_to_a_person_without_one(stack: Stack, authui: str) -> None:
    person = create_person(stack, totp=True)
    rp = create_client(stack, skip_consent=True)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        assert password_step(client, challenge, person) == {"next": "totp"}
        read = client.get(f"/api/v1/auth/challenge/{challenge}").json()
        refused = post(client, "/passkey/options", {"challenge": challenge})
    assert read["passkey"] is False
    assert refused.status_code == 403 and refused.json()["code"] == "auth.passkey_not_offered"


def test_acr_phr_asks_for_the_passkey_and_not_the_code(stack: Stack, authui: str) -> None:
    person = create_person(stack, totp=True)
    assert person.totp_secret is not None
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp, acr_values=[PHR])
    with signin_client(authui) as client:
        assert password_step(client, challenge, person) == {"next": "passkey"}
        code = post(client, "/totp", {"challenge": challenge, "code": totp_now(person.totp_secret)})
        done = answer(client, challenge, device.get(options(client, challenge)))
    assert code.status_code == 409 and code.json()["code"] == "auth.wrong_step"
    assert done.status_code == 200, done.text
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.acr == PHR and saved.amr[0] == "pwd"


# --- the attacks -----------------------------------------------------------------------------
def test_a_replayed_assertion_is_refused(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    first = new_challenge(stack, rp)
    second = new_challenge(stack, rp)
    with signin_client(authui) as client:
        response = device.get(options(client, first))
        accepted = answer(client, first, response)
        again = answer(client, first, response)
        fresh = options(client, second)  # a live ceremony of the second sign-in
        replayed = answer(client, second, response)
        # the replay did not spend the second sign-in's own ceremony
        honest = answer(client, second, device.get(fresh))
    assert accepted.status_code == 200, accepted.text
    assert again.status_code == 409  # that sign-in is over
    refused_with(stack, replayed, rp, "challenge_unknown")
    assert honest.status_code == 200, honest.text
    assert len(sessions_of(stack, person.id)) == 1  # the second continued the first


def test_a_new_options_request_replaces_the_previous_one(stack: Stack, authui: str) -> None:
    """One live ceremony per sign-in request: asking for options again and again (a script,
    or the page's button after its autofill) keeps one key in Redis, and only the newest
    options are answered."""
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        older = [options(client, challenge) for _ in range(20)]
        newest = options(client, challenge)
        live = live_ceremonies(stack, challenge)
        stale = answer(client, challenge, device.get(older[0]))
        accepted = answer(client, challenge, device.get(newest))
    assert live == 1
    refused_with(stack, stale, rp, "challenge_unknown")
    assert accepted.status_code == 200, accepted.text


def test_a_registration_challenge_does_not_sign_in(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    registration = begin_ceremony(stack, Ceremony(purpose="register", subject=person.id))
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        offered = options(client, challenge)
        refused = answer(client, challenge, device.get(offered, challenge=b64url(registration)))
    refused_with(stack, refused, rp, "challenge_unknown")
    assert read_challenge(stack, challenge).step == "password"  # type: ignore[union-attr]
    assert sessions_of(stack, person.id) == []


def test_another_sign_ins_challenge_is_refused(stack: Stack, authui: str) -> None:
    """A response to the options of one sign-in (the attacker's page) posted to another."""
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    register_passkey(stack, person, device)
    theirs = new_challenge(stack, rp)
    mine = new_challenge(stack, rp)
    with signin_client(authui) as client:
        options(client, mine)
        response = device.get(options(client, theirs))
        refused = answer(client, mine, response)
    refused_with(stack, refused, rp, "challenge_unknown")
    assert sessions_of(stack, person.id) == []


@pytest.mark.parametrize(
    ("lie", "reason"),
    [
        ({"origin": "https://id.example.evil"}, "wrong_origin"),
        ({"rp_id": "example.evil"}, "wrong_rp_id"),
        ({"uv": False}, "user_verification_missing"),  # a first factor must verify the person
    ],
)
def test_a_lying_assertion_is_refused(
    stack: Stack, authui: str, lie: dict[str, Any], reason: str
) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        refused = answer(client, challenge, device.get(options(client, challenge), **lie))
    row = refused_with(stack, refused, rp, reason)
    assert row[0] == person.id
    assert stored(stack, credential)[:2] == (0, None)  # nothing recorded
    assert sessions_of(stack, person.id) == []


def test_a_passkey_cannot_claim_another_person(stack: Stack, authui: str) -> None:
    """First factor: the holder's key with the victim's user handle."""
    victim = create_person(stack)
    holder = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, holder, device)
    credential.user_handle = uuid.UUID(victim.id).bytes
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        refused = answer(client, challenge, device.get(options(client, challenge)))
    row = refused_with(stack, refused, rp, "other_person")
    assert row[0] == holder.id
    assert sessions_of(stack, victim.id) == [] and sessions_of(stack, holder.id) == []


def test_a_second_factor_must_be_the_persons_own_passkey(stack: Stack, authui: str) -> None:
    """The attacker knows the victim's password and holds a passkey of their own."""
    victim = create_person(stack)
    attacker = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    victims_device = authenticator(stack)
    register_passkey(stack, victim, victims_device)
    attackers_device = authenticator(stack)
    register_passkey(stack, attacker, attackers_device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        assert password_step(client, challenge, victim) == {"next": "passkey"}
        offered = options(client, challenge)
        refused = answer(client, challenge, attackers_device.get(offered))
    row = refused_with(stack, refused, rp, "other_person")
    assert row[0] == victim.id and row[4]["step"] == "passkey"
    saved = read_challenge(stack, challenge)
    assert saved is not None and saved.step == "passkey"
    assert sessions_of(stack, victim.id) == [] and sessions_of(stack, attacker.id) == []


def test_a_removed_passkey_is_refused(stack: Stack, authui: str) -> None:
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    sql(
        stack,
        "DELETE FROM passkeys WHERE credential_id = :c RETURNING id",
        c=credential.credential_id,
    )
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        refused = answer(client, challenge, device.get(options(client, challenge)))
    row = refused_with(stack, refused, rp, "unknown_passkey")
    assert row[0] is None
    assert sessions_of(stack, person.id) == []


def test_a_disabled_persons_passkey_is_refused(stack: Stack, authui: str) -> None:
    person = create_person(stack, disabled=True)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        refused = answer(client, challenge, device.get(options(client, challenge)))
    refused_with(stack, refused, rp, "disabled")
    assert stored(stack, credential)[0] == 0


def test_a_counter_that_went_back_flags_the_passkey(stack: Stack, authui: str) -> None:
    """A cloned authenticator: its counter is behind the original's."""
    person = create_person(stack)
    rp = create_client(stack, skip_consent=True)
    device = authenticator(stack)
    credential = register_passkey(stack, person, device)
    first = new_challenge(stack, rp)
    cloned = new_challenge(stack, rp)
    later = new_challenge(stack, rp)
    with signin_client(authui) as client:
        accepted = answer(client, first, device.get(options(client, first), sign_count=7))
        refused = answer(client, cloned, device.get(options(client, cloned), sign_count=3))
        after = answer(client, later, device.get(options(client, later), sign_count=8))
    assert accepted.status_code == 200, accepted.text
    assert refused.status_code == 401 and refused.json()["code"] == REFUSED
    sign_count, _, flagged = stored(stack, credential)
    assert sign_count == 7 and flagged is not None
    [clone] = audit_rows(stack, "passkey.clone_suspected", actor=person.id)
    assert clone[2] == 401 and clone[4]["storedCount"] == 7 and clone[4]["presentedCount"] == 3
    reasons = [r[4]["reason"] for r in audit_rows(stack, "login.failed", target=rp.client_id)]
    assert reasons == ["clone_suspected", "clone_suspected"]  # and refused from then on
    assert after.status_code == 401
    assert len(sessions_of(stack, person.id)) == 1  # only the first sign-in's
    # The flagged passkey no longer follows the password, nor is it offered after it.
    challenge = new_challenge(stack, rp)
    with signin_client(authui) as client:
        body = {"challenge": challenge, "email": person.email, "password": person.password}
        signed_in = post(client, "/login", body)
    assert signed_in.status_code == 200 and signed_in.json()["next"] == "done"


# --- through the token endpoint ----------------------------------------------------------------
def test_the_id_token_says_passkey(stack: Stack) -> None:
    person = create_person(stack)
    device = authenticator(stack)
    register_passkey(stack, person, device, synced=True)
    app = records.create_client(stack, scopes=("openid", "profile"), skip_consent=True)
    authorization = oidc.Authorization(app)
    params = {**authorization.params("openid profile"), "acr_values": PHR}
    with oidc.Browser(stack) as browser:
        to_login = browser.get("/oauth2/authorize", params=params)
        assert to_login.status_code in (302, 303), to_login.text
        challenge = oidc.query_of(to_login.headers["location"])["challenge"]
        offered = browser.post("/api/v1/auth/passkey/options", json={"challenge": challenge})
        assert offered.status_code == 200, offered.text
        body = {"challenge": challenge, "credential": device.get(offered.json())}
        done = browser.post("/api/v1/auth/passkey", json=body)
        assert done.status_code == 200 and done.json()["next"] == "done", done.text
        resumed = browser.get(done.json()["redirectTo"])
    assert resumed.status_code in (302, 303), resumed.text
    values = oidc.query_of(resumed.headers["location"])
    assert values["state"] == authorization.state
    tokens = oidc.exchange(stack, authorization, values["code"])
    _, claims = oidc.verified_claims(stack, tokens["id_token"], audience=app.client_id)
    assert claims["sub"] == person.id
    assert claims["amr"] == ["swk", "user", "mfa"] and claims["acr"] == PHR
