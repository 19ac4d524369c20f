"""The WebAuthn registration and authentication ceremonies of this deployment, over
py_webauthn (docs/passkeys.md).

The relying party (:class:`RelyingParty`) comes from the settings: its id is the issuer's
host, its one origin the issuer's (:mod:`idp_common.protocol.w3c_webauthn`). Options are
plain JSON-ready dicts (``PublicKeyCredentialCreationOptionsJSON`` /
``...RequestOptionsJSON``, what ``@simplewebauthn/browser`` takes); responses are the
browser's ``PublicKeyCredential.toJSON()``.

Every refusal is :class:`PasskeyRejected` with a closed ``reason`` that the audit log
records (never the response itself). The counter is NOT checked here: py_webauthn would
compare it before the signature, and only a validly signed response may flag a clone, so
the callers apply :func:`~idp_common.protocol.w3c_webauthn.sign_count_regressed` after.

Verifying costs one ECDSA/EdDSA/RSA signature check (well under a millisecond): it runs on
the event loop.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    base64url_to_bytes,
    parse_attestation_object,
    parse_client_data_json,
)
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from webauthn.helpers.exceptions import (
    InvalidAuthenticationResponse,
    InvalidRegistrationResponse,
    WebAuthnException,
)
from webauthn.helpers.options_to_json_dict import options_to_json_dict
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AttestationFormat,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    CredentialDeviceType,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from idp_common.config import Settings
from idp_common.protocol.w3c_webauthn import (
    CREDENTIAL_ID_MAX_BYTES,
    RegisteredCredential,
    expected_origin,
    relying_party_id,
)

__all__ = [
    "Assertion",
    "PasskeyRejected",
    "RelyingParty",
    "authentication_options",
    "ceremony_challenge",
    "credential_id_of",
    "registration_options",
    "user_handle_of",
    "verify_assertion",
    "verify_registration",
]

#: ES256 first (every platform authenticator), EdDSA (security keys), RS256 (Windows Hello).
ALGORITHMS: Final = [
    COSEAlgorithmIdentifier.ECDSA_SHA_256,
    COSEAlgorithmIdentifier.EDDSA,
    COSEAlgorithmIdentifier.RSASSA_PKCS1_v1_5_SHA_256,
]
#: What the browser is told to wait (ms); the server's challenge lives longer
#: (``SVC_PASSKEY_CHALLENGE_TTL``).
TIMEOUT_MS: Final = 120_000
_TRANSPORTS: Final = frozenset(item.value for item in AuthenticatorTransport)
Reason = Literal[
    "malformed",
    "wrong_origin",
    "wrong_rp_id",
    "user_verification_missing",
    "bad_signature",
    "attestation_refused",
    "authenticator_not_allowed",
]


class PasskeyRejected(Exception):
    """The response does not prove what it must; ``reason`` is audited."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


@dataclass(frozen=True)
class RelyingParty:
    rp_id: str
    origin: str
    name: str
    allowed_aaguids: frozenset[str] = frozenset()
    attestation_roots: tuple[bytes, ...] = field(default=())

    @classmethod
    def from_settings(cls, settings: Settings) -> RelyingParty:
        roots: tuple[bytes, ...] = ()
        if settings.passkey_attestation_roots:
            roots = _pem_certificates(Path(settings.passkey_attestation_roots).read_bytes())
        return cls(
            rp_id=relying_party_id(settings.issuer),
            origin=expected_origin(settings.issuer),
            name=relying_party_id(settings.issuer),
            allowed_aaguids=frozenset(str(uuid.UUID(a)) for a in settings.passkey_allowed_aaguids),
            attestation_roots=roots,
        )


@dataclass(frozen=True)
class Assertion:
    credential_id: bytes
    sign_count: int
    backup_eligible: bool
    backed_up: bool
    user_verified: bool


def _pem_certificates(pem: bytes) -> tuple[bytes, ...]:
    marker = b"-----END CERTIFICATE-----"
    parts = [part.strip() + b"\n" + marker for part in pem.split(marker) if b"BEGIN" in part]
    return tuple(part + b"\n" for part in parts)


def _descriptors(credentials: Sequence[tuple[bytes, Sequence[str]]]) -> list[Any]:
    return [
        PublicKeyCredentialDescriptor(
            id=credential_id,
            transports=[AuthenticatorTransport(t) for t in transports if t in _TRANSPORTS],
        )
        for credential_id, transports in credentials
    ]


def registration_options(
    rp: RelyingParty,
    *,
    challenge: bytes,
    user_id: uuid.UUID,
    user_name: str,
    display_name: str,
    exclude: Sequence[tuple[bytes, Sequence[str]]],
) -> dict[str, Any]:
    """Options for ``navigator.credentials.create()``: a discoverable credential (a passkey
    names its person at sign-in), user verification required, attestation ``none`` unless
    the deployment allows only some authenticators (then ``direct``)."""
    options = generate_registration_options(
        rp_id=rp.rp_id,
        rp_name=rp.name,
        user_id=user_id.bytes,
        user_name=user_name,
        user_display_name=display_name or user_name,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        attestation=(
            AttestationConveyancePreference.DIRECT
            if rp.allowed_aaguids
            else AttestationConveyancePreference.NONE
        ),
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.REQUIRED,
        ),
        exclude_credentials=_descriptors(exclude),
        supported_pub_key_algs=ALGORITHMS,
    )
    return dict(options_to_json_dict(options))


def authentication_options(
    rp: RelyingParty,
    *,
    challenge: bytes,
    allow: Sequence[tuple[bytes, Sequence[str]]] = (),
    user_verification: bool = True,
) -> dict[str, Any]:
    """Options for ``navigator.credentials.get()``: no ``allowCredentials`` for a
    discoverable sign-in (the authenticator offers the person's passkeys), the person's
    credentials for a second factor."""
    options = generate_authentication_options(
        rp_id=rp.rp_id,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        allow_credentials=_descriptors(allow),
        user_verification=(
            UserVerificationRequirement.REQUIRED
            if user_verification
            else UserVerificationRequirement.PREFERRED
        ),
    )
    return dict(options_to_json_dict(options))


def _bytes_field(value: object, limit: int) -> bytes | None:
    if not isinstance(value, str) or not value or len(value) > limit * 2:
        return None
    try:
        decoded = base64url_to_bytes(value)
    except (ValueError, TypeError):
        return None
    return decoded if 0 < len(decoded) <= limit else None


def ceremony_challenge(credential: Mapping[str, Any]) -> bytes | None:
    """The challenge the browser signed (from ``clientDataJSON``), to find its ceremony;
    None when the response carries none that can be read."""
    response = credential.get("response")
    if not isinstance(response, Mapping):
        return None
    raw = _bytes_field(response.get("clientDataJSON"), 8192)
    if raw is None:
        return None
    try:
        return parse_client_data_json(raw).challenge
    except (WebAuthnException, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None


def credential_id_of(credential: Mapping[str, Any]) -> bytes | None:
    return _bytes_field(credential.get("rawId") or credential.get("id"), CREDENTIAL_ID_MAX_BYTES)


def user_handle_of(credential: Mapping[str, Any]) -> bytes | None:
    response = credential.get("response")
    if not isinstance(response, Mapping):
        return None
    return _bytes_field(response.get("userHandle"), 64)


def _reason(message: str) -> Reason:
    text = message.lower()
    if "origin" in text:
        return "wrong_origin"
    if "rp id" in text:
        return "wrong_rp_id"
    if "verif" in text and "user" in text:
        return "user_verification_missing"
    if "certificate" in text or "attestation" in text:
        return "attestation_refused"
    if "signature" in text:
        return "bad_signature"
    return "malformed"


def verify_registration(
    rp: RelyingParty, credential: Mapping[str, Any], *, challenge: bytes
) -> RegisteredCredential:
    """The new credential, once the response is proven for ``challenge`` at this origin
    and RP id, with user verification, an allowed algorithm and, under an AAGUID
    allow-list, a verified attestation from an allowed authenticator."""
    roots = (
        {fmt: list(rp.attestation_roots) for fmt in AttestationFormat}
        if rp.attestation_roots
        else None
    )
    try:
        verified = verify_registration_response(
            credential=dict(credential),
            expected_challenge=challenge,
            expected_rp_id=rp.rp_id,
            expected_origin=rp.origin,
            require_user_verification=True,
            supported_pub_key_algs=ALGORITHMS,
            pem_root_certs_bytes_by_fmt=roots,
        )
    except InvalidRegistrationResponse as exc:
        raise PasskeyRejected(_reason(str(exc))) from None
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise PasskeyRejected("malformed") from exc
    if rp.allowed_aaguids:
        if verified.fmt == AttestationFormat.NONE:
            raise PasskeyRejected("attestation_refused")
        # py_webauthn checks a certificate chain only when there is one: a self attestation
        # (no x5c) names whatever AAGUID its maker likes, so with roots it is refused.
        statement = parse_attestation_object(verified.attestation_object).att_stmt
        if rp.attestation_roots and not statement.x5c:
            raise PasskeyRejected("attestation_refused")
        if verified.aaguid not in rp.allowed_aaguids:
            raise PasskeyRejected("authenticator_not_allowed")
    if len(verified.credential_id) > CREDENTIAL_ID_MAX_BYTES:
        raise PasskeyRejected("malformed")
    response = credential.get("response")
    reported = response.get("transports") if isinstance(response, Mapping) else None
    transports = [t for t in reported or [] if isinstance(t, str) and t in _TRANSPORTS]
    return RegisteredCredential(
        credential_id=verified.credential_id,
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        aaguid=verified.aaguid,
        transports=sorted(set(transports)),
        backup_eligible=verified.credential_device_type == CredentialDeviceType.MULTI_DEVICE,
        backed_up=verified.credential_backed_up,
        user_verified=verified.user_verified,
    )


def verify_assertion(
    rp: RelyingParty,
    credential: Mapping[str, Any],
    *,
    challenge: bytes,
    public_key: bytes,
    require_user_verification: bool,
) -> Assertion:
    """The assertion's facts once its signature by ``public_key`` over ``challenge`` at
    this origin and RP id is proven (user verification when required). The counter is
    the caller's to compare."""
    try:
        verified = verify_authentication_response(
            credential=dict(credential),
            expected_challenge=challenge,
            expected_rp_id=rp.rp_id,
            expected_origin=rp.origin,
            credential_public_key=public_key,
            credential_current_sign_count=0,
            require_user_verification=require_user_verification,
        )
    except InvalidAuthenticationResponse as exc:
        raise PasskeyRejected(_reason(str(exc))) from None
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise PasskeyRejected("malformed") from exc
    return Assertion(
        credential_id=verified.credential_id,
        sign_count=verified.new_sign_count,
        backup_eligible=verified.credential_device_type == CredentialDeviceType.MULTI_DEVICE,
        backed_up=verified.credential_backed_up,
        user_verified=verified.user_verified,
    )
