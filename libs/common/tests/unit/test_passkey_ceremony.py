"""The ceremonies over py_webauthn with a software authenticator: what passes, and each
refusal's audited reason."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from idp_common.passkeys.ceremony import (
    PasskeyRejected,
    RelyingParty,
    authentication_options,
    ceremony_challenge,
    credential_id_of,
    registration_options,
    user_handle_of,
    verify_assertion,
    verify_registration,
)
from idp_common.protocol.w3c_webauthn import RegisteredCredential
from tests.harness.passkeys import SoftAuthenticator

RP = RelyingParty(rp_id="id.example.com", origin="https://id.example.com", name="id.example.com")
CHALLENGE = b"c" * 32
PERSON = uuid.UUID("12345678-1234-5678-1234-567812345678")


def _registered(
    authenticator: SoftAuthenticator, **kwargs: Any
) -> tuple[dict[str, Any], RegisteredCredential]:
    options = registration_options(
        RP,
        challenge=CHALLENGE,
        user_id=PERSON,
        user_name="ann@example.com",
        display_name="Ann",
        exclude=[],
    )
    response = authenticator.create(options, **kwargs)
    return response, verify_registration(RP, response, challenge=CHALLENGE)


def test_registration_gives_the_credential_and_its_flags() -> None:
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    response, registered = _registered(authenticator, backup_eligible=True)
    assert registered.credential_id == authenticator.credentials[0].credential_id
    assert registered.backup_eligible and registered.backed_up and registered.user_verified
    assert registered.transports == ["hybrid", "internal"]
    assert ceremony_challenge(response) == CHALLENGE


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"origin": "https://evil.example"}, "wrong_origin"),
        ({"rp_id": "evil.example"}, "wrong_rp_id"),
        ({"uv": False}, "user_verification_missing"),
    ],
)
def test_registration_refusals(kwargs: dict[str, Any], reason: str) -> None:
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    options = registration_options(
        RP, challenge=CHALLENGE, user_id=PERSON, user_name="a", display_name="", exclude=[]
    )
    with pytest.raises(PasskeyRejected) as caught:
        verify_registration(RP, authenticator.create(options, **kwargs), challenge=CHALLENGE)
    assert caught.value.reason == reason


def test_allow_list_refuses_attestation_none() -> None:
    strict = RelyingParty(
        rp_id=RP.rp_id, origin=RP.origin, name="x", allowed_aaguids=frozenset({str(uuid.uuid4())})
    )
    options = registration_options(
        strict, challenge=CHALLENGE, user_id=PERSON, user_name="a", display_name="", exclude=[]
    )
    assert options["attestation"] == "direct"
    response = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id).create(options)
    with pytest.raises(PasskeyRejected) as caught:
        verify_registration(strict, response, challenge=CHALLENGE)
    assert caught.value.reason == "attestation_refused"


def test_assertion_verifies_and_reports_the_counter() -> None:
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    _, registered = _registered(authenticator)
    options = authentication_options(RP, challenge=CHALLENGE)
    response = authenticator.get(options)
    assert credential_id_of(response) == registered.credential_id
    assert user_handle_of(response) == PERSON.bytes
    verified = verify_assertion(
        RP,
        response,
        challenge=CHALLENGE,
        public_key=registered.public_key,
        require_user_verification=True,
    )
    assert verified.sign_count == 1
    assert verified.user_verified


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"origin": "https://id.example.com:8443"}, "wrong_origin"),
        ({"rp_id": "example.com"}, "wrong_rp_id"),
        ({"uv": False}, "user_verification_missing"),
    ],
)
def test_assertion_refusals(kwargs: dict[str, Any], reason: str) -> None:
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    _, registered = _registered(authenticator)
    response = authenticator.get(authentication_options(RP, challenge=CHALLENGE), **kwargs)
    with pytest.raises(PasskeyRejected) as caught:
        verify_assertion(
            RP,
            response,
            challenge=CHALLENGE,
            public_key=registered.public_key,
            require_user_verification=True,
        )
    assert caught.value.reason == reason


def test_another_key_is_a_bad_signature() -> None:
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    _, first = _registered(authenticator)
    _registered(authenticator)
    response = authenticator.get(authentication_options(RP, challenge=CHALLENGE))  # the second key
    with pytest.raises(PasskeyRejected) as caught:
        verify_assertion(
            RP,
            response,
            challenge=CHALLENGE,
            public_key=first.public_key,
            require_user_verification=True,
        )
    assert caught.value.reason == "bad_signature"


def test_unreadable_responses_have_no_challenge() -> None:
    assert ceremony_challenge({}) is None
    assert ceremony_challenge({"response": {"clientDataJSON": "!!"}}) is None
    assert credential_id_of({"id": ""}) is None


ALLOWED = uuid.UUID("01020304-0506-0708-0102-030405060708")
ROOT = Path(__file__).parent / "config" / "attestation-root.pem"


def _strict(*, roots: bool) -> RelyingParty:
    return RelyingParty(
        rp_id=RP.rp_id,
        origin=RP.origin,
        name="x",
        allowed_aaguids=frozenset({str(ALLOWED)}),
        attestation_roots=(ROOT.read_bytes(),) if roots else (),
    )


def test_allow_list_takes_an_attested_allowed_authenticator() -> None:
    strict = _strict(roots=False)
    options = registration_options(
        strict, challenge=CHALLENGE, user_id=PERSON, user_name="a", display_name="", exclude=[]
    )
    authenticator = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id)
    response = authenticator.create(options, self_attested=True, aaguid=ALLOWED.bytes)
    assert verify_registration(strict, response, challenge=CHALLENGE).aaguid == str(ALLOWED)
    other = authenticator.create(options, self_attested=True, aaguid=uuid.uuid4().bytes)
    with pytest.raises(PasskeyRejected) as caught:
        verify_registration(strict, other, challenge=CHALLENGE)
    assert caught.value.reason == "authenticator_not_allowed"


def test_with_roots_a_self_attestation_is_refused_whatever_aaguid_it_claims() -> None:
    strict = _strict(roots=True)
    options = registration_options(
        strict, challenge=CHALLENGE, user_id=PERSON, user_name="a", display_name="", exclude=[]
    )
    response = SoftAuthenticator(origin=RP.origin, rp_id=RP.rp_id).create(
        options, self_attested=True, aaguid=ALLOWED.bytes
    )
    with pytest.raises(PasskeyRejected) as caught:
        verify_registration(strict, response, challenge=CHALLENGE)
    assert caught.value.reason == "attestation_refused"
