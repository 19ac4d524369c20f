"""A software WebAuthn authenticator for the tests that speak the passkey API over HTTP
(issue #26): it makes the JSON a browser's ``PublicKeyCredential.toJSON()`` gives, with
real ES256 keys and signatures, and can be told to lie the ways an attacker would (another
origin or RP id, no user verification, a counter that went back, another challenge).

The browser tests use Chromium's own virtual authenticator instead (CDP ``WebAuthn``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any, Final

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP: Final = 0x01
UV: Final = 0x04
BE: Final = 0x08
BS: Final = 0x10
AT: Final = 0x40
ZERO_AAGUID: Final = bytes(16)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftCredential:
    credential_id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0
    backup_eligible: bool = False

    def cose_public_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )


@dataclass
class SoftAuthenticator:
    """``origin`` is what clientDataJSON says unless a call overrides it; ``counter``
    False makes an authenticator that keeps no counter (a synced passkey's 0)."""

    origin: str
    rp_id: str
    counter: bool = True
    credentials: list[SoftCredential] = field(default_factory=list)

    def _flags(self, *, uv: bool, backup_eligible: bool, attested: bool = False) -> int:
        flags = UP | (UV if uv else 0)
        if backup_eligible:
            flags |= BE | BS
        return flags | (AT if attested else 0)

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps(
            {
                "type": kind,
                "challenge": challenge,
                "origin": origin or self.origin,
                "crossOrigin": False,
            }
        ).encode()

    def create(
        self,
        options: dict[str, Any],
        *,
        uv: bool = True,
        backup_eligible: bool = False,
        origin: str | None = None,
        rp_id: str | None = None,
        challenge: str | None = None,
        self_attested: bool = False,
        aaguid: bytes = ZERO_AAGUID,
    ) -> dict[str, Any]:
        """A registration response to ``options`` (PublicKeyCredentialCreationOptionsJSON),
        attestation ``none``, or ``packed`` self attestation (signed by the new key, no
        certificate: the AAGUID is the authenticator's own claim); the new credential is
        kept for :meth:`get`."""
        rp = rp_id or options["rp"]["id"]
        credential = SoftCredential(
            credential_id=secrets.token_bytes(32),
            key=ec.generate_private_key(ec.SECP256R1()),
            rp_id=rp,
            user_handle=unb64url(options["user"]["id"]),
            backup_eligible=backup_eligible,
        )
        self.credentials.append(credential)
        attested = (
            aaguid
            + struct.pack(">H", len(credential.credential_id))
            + credential.credential_id
            + credential.cose_public_key()
        )
        auth_data = (
            hashlib.sha256(rp.encode()).digest()
            + bytes([self._flags(uv=uv, backup_eligible=backup_eligible, attested=True)])
            + struct.pack(">I", 0)
            + attested
        )
        client_data = self._client_data(
            "webauthn.create", challenge or options["challenge"], origin
        )
        statement: dict[str, Any] = {}
        if self_attested:
            signed = auth_data + hashlib.sha256(client_data).digest()
            statement = {"alg": -7, "sig": credential.key.sign(signed, ec.ECDSA(hashes.SHA256()))}
        fmt = "packed" if self_attested else "none"
        attestation = cbor2.dumps({"fmt": fmt, "attStmt": statement, "authData": auth_data})
        return {
            "id": b64url(credential.credential_id),
            "rawId": b64url(credential.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal", "hybrid"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self,
        options: dict[str, Any],
        *,
        credential: SoftCredential | None = None,
        uv: bool = True,
        origin: str | None = None,
        rp_id: str | None = None,
        sign_count: int | None = None,
        challenge: str | None = None,
    ) -> dict[str, Any]:
        """An assertion for ``options`` (PublicKeyCredentialRequestOptionsJSON) by
        ``credential`` (default: the newest one made), counter moved on by one unless
        ``sign_count`` says what to send."""
        held = credential or self.credentials[-1]
        if sign_count is None:
            if self.counter:
                held.sign_count += 1
            sign_count = held.sign_count
        rp = rp_id or options.get("rpId") or held.rp_id
        auth_data = (
            hashlib.sha256(rp.encode()).digest()
            + bytes([self._flags(uv=uv, backup_eligible=held.backup_eligible)])
            + struct.pack(">I", sign_count)
        )
        client_data = self._client_data("webauthn.get", challenge or options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = held.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(held.credential_id),
            "rawId": b64url(held.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(held.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
