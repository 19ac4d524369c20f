"""Pure rules of Web Authentication Level 3 (W3C) as this provider applies them to
passkeys (docs/passkeys.md). No storage, no HTTP; the ceremonies' parsing and
signature checks are py_webauthn's (:mod:`idp_common.passkeys.ceremony`).

- :func:`relying_party_id`: the RP ID is the issuer's host (§5.1.3 steps 8-9: a
  registrable domain suffix of the origin; the host itself is the strictest choice).
- :func:`expected_origin`: the one origin whose ceremonies count, the issuer's, compared
  exactly (§7.1 step 9, §7.2 step 13): the sign-in page and the console are served there.
- :func:`sign_count_regressed`: §7.2 step 21: a counter that did not grow, when either
  side is not zero, is a sign that the credential was cloned.
- :func:`passkey_amr`: what RFC 8176 ``amr`` a passkey sign-in carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from idp_common.protocol.constants import (
    AMR_HARDWARE_KEY,
    AMR_MFA,
    AMR_PASSWORD,
    AMR_SOFTWARE_KEY,
    AMR_USER_VERIFIED,
)

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: WebAuthn user handles are at most 64 bytes (§5.4.3); ours are the person's UUID.
USER_HANDLE_MAX_BYTES: Final = 64
#: A credential id is at most 1023 bytes (§5.8.3, the CTAP limit).
CREDENTIAL_ID_MAX_BYTES: Final = 1023


@dataclass(frozen=True)
class RegisteredCredential:
    """What a verified registration gives and a passkey row keeps (§7.1 steps 23-26):
    ``backup_eligible`` is the BE flag (a synced passkey), ``backed_up`` BS."""

    credential_id: bytes
    public_key: bytes  # COSE_Key
    sign_count: int
    aaguid: str
    transports: list[str]
    backup_eligible: bool
    backed_up: bool
    user_verified: bool


def relying_party_id(issuer: str) -> str:
    """The host of ``issuer`` in lower case (``https://id.example.com/x`` → ``id.example.com``)."""
    host = urlsplit(issuer).hostname
    if not host:
        raise ValueError("the issuer has no host")
    return host.lower()


def expected_origin(issuer: str) -> str:
    """The RFC 6454 serialised origin of ``issuer``: scheme, host, and a port other than
    the scheme's default (what a browser writes into ``clientDataJSON.origin``)."""
    parts = urlsplit(issuer)
    scheme = parts.scheme.lower()
    host = relying_party_id(issuer)
    port = parts.port
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def sign_count_regressed(stored: int, presented: int) -> bool:
    """§7.2 step 21: the authenticator's counter should grow at every use; when either the
    stored or the presented value is not zero and it did not grow, two copies of the
    credential may exist. Authenticators that keep no counter (synced passkeys) send 0
    every time: with 0 stored too, nothing can be said."""
    if stored == 0 and presented == 0:
        return False
    return presented <= stored


def passkey_amr(*, backup_eligible: bool, user_verified: bool, after_password: bool) -> list[str]:
    """RFC 8176 ``amr`` of a sign-in in which a passkey was verified.

    ``hwk`` for a device-bound key, ``swk`` for one that may be synced (backup eligible:
    the key material leaves the authenticator); ``user`` when the authenticator verified the
    person. ``mfa`` when two factors were used: the password and the key, or the key and
    the person's verification on the authenticator (something held and something known
    or been: NIST SP 800-63B's multi-factor cryptographic authenticator)."""
    key = AMR_SOFTWARE_KEY if backup_eligible else AMR_HARDWARE_KEY
    methods = [AMR_PASSWORD] if after_password else []
    methods.append(key)
    if user_verified:
        methods.append(AMR_USER_VERIFIED)
    if after_password or user_verified:
        methods.append(AMR_MFA)
    return methods
