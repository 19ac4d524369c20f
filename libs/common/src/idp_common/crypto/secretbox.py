"""Encryption of secrets stored in the database: TOTP secrets, face templates (docs/design.md §2),
the secrets of ``client_secret_jwt`` clients.

AES-256-GCM (NIST SP 800-38D) from ``cryptography``, one 32-byte key for the deployment.

Sealed value (``bytes``, stored in a ``bytea`` column)::

    version (1 byte, 0x01) | key id (4 bytes) | nonce (12 bytes, random) | ciphertext+tag

- The key id is the first 4 bytes of SHA-256 of the key: a later rotation can keep the old
  key for reading and pick it by id; today one key is accepted and a value sealed under
  another key is refused (:class:`SecretboxError`).
- ``context`` is GCM's associated data: it binds a sealed value to the row it belongs to,
  so a ciphertext copied onto another person's row does not open. The conventions are
  the helpers below (``totp_context(user_id)`` for ``totp_credentials.secret_encrypted``,
  ``face_context(user_id)`` for ``face_templates.template_encrypted``). What is sealed
  for TOTP is the base32 secret as ASCII (what ``pyotp.TOTP`` takes);
  ``client_secret_context(client_pk)`` for ``client_secrets.sealed``, the secret's UTF-8;
  ``webhook_secret_context(endpoint_id)`` for ``webhook_endpoints.secret_sealed``, the
  ``whsec_`` secret's ASCII.
- A random 96-bit nonce per value: safe far beyond the number of values a deployment
  seals under one key (NIST SP 800-38D §8.3 bounds it at 2^32 invocations).

The key: ``SVC_SECRETS_KEY`` (or ``SVC_SECRETS_KEY_FILE``), 32 random bytes in base64 or
base64url (``python -c "from idp_common.crypto.secretbox import generate_key;
print(generate_key())"``), read with the other settings (``Settings.secrets_key_bytes``
decodes it with :func:`parse_key`). Without a key, nothing sealed can be read: the
features that need it answer 503.
Losing the key makes every stored TOTP secret unreadable (people enrol again).
"""

from __future__ import annotations

import binascii
import hashlib
import secrets
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from idp_common.protocol.rfc4648_base64url import base64url_decode, base64url_encode

__all__ = [
    "SECRETS_KEY_ENV",
    "SecretboxError",
    "client_secret_context",
    "face_context",
    "generate_key",
    "key_id",
    "open_sealed",
    "parse_key",
    "seal",
    "totp_context",
    "webhook_secret_context",
]

SECRETS_KEY_ENV: Final = "SVC_SECRETS_KEY"
VERSION: Final = b"\x01"
KEY_BYTES: Final = 32
NONCE_BYTES: Final = 12
_KID_BYTES: Final = 4
_HEADER: Final = 1 + _KID_BYTES + NONCE_BYTES


class SecretboxError(Exception):
    """A value that does not open: wrong key, wrong context, truncated or altered."""


def generate_key() -> str:
    """A fresh key in the form ``SVC_SECRETS_KEY`` takes (base64url, no padding)."""
    return base64url_encode(secrets.token_bytes(KEY_BYTES))


def parse_key(text: str) -> bytes:
    """Decode a base64 or base64url key of exactly 32 bytes; ValueError otherwise."""
    raw = text.strip()
    try:
        key = base64url_decode(raw.replace("+", "-").replace("/", "_"))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{SECRETS_KEY_ENV}: not base64") from exc
    if len(key) != KEY_BYTES:
        raise ValueError(f"{SECRETS_KEY_ENV}: must decode to {KEY_BYTES} bytes, got {len(key)}")
    return key


def key_id(key: bytes) -> bytes:
    return hashlib.sha256(key).digest()[:_KID_BYTES]


def seal(plaintext: bytes, *, key: bytes, context: bytes) -> bytes:
    """Encrypt and authenticate ``plaintext``, bound to ``context``."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, plaintext, context)
    return VERSION + key_id(key) + nonce + sealed


def open_sealed(blob: bytes, *, key: bytes, context: bytes) -> bytes:
    """The plaintext :func:`seal` sealed under ``key`` and ``context``; SecretboxError else."""
    if len(blob) < _HEADER + 16 or blob[:1] != VERSION:
        raise SecretboxError("not a sealed value of a known version")
    if blob[1 : 1 + _KID_BYTES] != key_id(key):
        raise SecretboxError("sealed under another key")
    nonce = blob[1 + _KID_BYTES : _HEADER]
    try:
        return AESGCM(key).decrypt(nonce, blob[_HEADER:], context)
    except InvalidTag as exc:
        raise SecretboxError("does not open (altered, or another context)") from exc


def totp_context(user_id: object) -> bytes:
    """Associated data of a person's TOTP secret (``totp_credentials.secret_encrypted``)."""
    return f"idp:totp:{user_id}".encode()


def client_secret_context(client_pk: object) -> bytes:
    """Associated data of a ``client_secret_jwt`` client's secret (``client_secrets.sealed``,
    bound to the client's row id)."""
    return f"idp:client-secret:{client_pk}".encode()


def webhook_secret_context(endpoint_id: object) -> bytes:
    """Associated data of a webhook endpoint's signing secret (``webhook_endpoints.secret_sealed``,
    bound to the endpoint's id)."""
    return f"idp:webhook-secret:{endpoint_id}".encode()


def face_context(user_id: object) -> bytes:
    """Associated data of a person's face template (``face_templates.template_encrypted``)."""
    return f"idp:face:{user_id}".encode()
