"""Standard Webhooks (https://www.standardwebhooks.com, spec v1.0.0): the secret, the
signature, the headers of a delivery, where one may be sent, and when a failed one is tried
again (docs/webhooks.md).

- Secret: ``whsec_`` + base64 of 32 random bytes (the spec asks for 24 to 64). It is the
  HMAC key once the prefix is removed and the base64 decoded.
- Signature: ``v1,`` + base64(HMAC-SHA256(key, f"{id}.{timestamp}.{body}")), where
  ``timestamp`` is whole seconds since the epoch and ``body`` the exact bytes sent.
- Headers: ``webhook-id`` (the event id: the same on every attempt, so a receiver
  de-duplicates on it), ``webhook-timestamp`` (the attempt's time), ``webhook-signature``.
- Target: ``https``; plain ``http`` only to a loopback or private host when the deployment
  allows private targets (``SVC_WEBHOOK_ALLOW_PRIVATE``); no user name or password in the
  URL, no fragment. Non-global hosts are refused by :func:`target_problem` from the URL
  alone, and again after DNS resolution by :mod:`idp_common.outbound_http` at delivery.
- Retries: ``base * 2**(attempts - 1)`` seconds after the ``attempts``-th failure, capped
  at ``cap``, plus up to 10 % random jitter (so receivers that failed together are not
  retried in lock-step); the caller gives up once the next try would fall outside the
  retry window.

Pure: time and randomness are passed in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Final
from urllib.parse import urlsplit

from idp_common.protocol.rfc6890_special_addresses import host_problem

__all__ = [
    "HEADER_ID",
    "HEADER_SIGNATURE",
    "HEADER_TIMESTAMP",
    "MAX_URL_LENGTH",
    "SECRET_PREFIX",
    "decode_secret",
    "delivery_headers",
    "encode_secret",
    "retry_delay",
    "sign",
    "target_problem",
]

SECRET_PREFIX: Final = "whsec_"  # noqa: S105 - the prefix, not a secret
SECRET_BYTES: Final = 32
HEADER_ID: Final = "webhook-id"
HEADER_TIMESTAMP: Final = "webhook-timestamp"
HEADER_SIGNATURE: Final = "webhook-signature"
SIGNATURE_VERSION: Final = "v1"
MAX_URL_LENGTH: Final = 2000
JITTER: Final = 0.1


def encode_secret(key: bytes) -> str:
    """The secret as shown to the administrator: ``whsec_<base64>``."""
    if not 24 <= len(key) <= 64:
        raise ValueError("a webhook key is 24 to 64 bytes")
    return SECRET_PREFIX + base64.b64encode(key).decode("ascii")


def decode_secret(secret: str) -> bytes:
    """The HMAC key of ``whsec_<base64>``; ValueError when it is not one."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("not a whsec_ secret")
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error as exc:
        raise ValueError("not base64") from exc
    if not key:
        raise ValueError("empty secret")
    return key


def sign(key: bytes, msg_id: str, timestamp: int, body: bytes) -> str:
    """``v1,<base64 HMAC-SHA256 of "{msg_id}.{timestamp}.{body}">``."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode('ascii')}"


def delivery_headers(key: bytes, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers of one attempt."""
    return {
        HEADER_ID: msg_id,
        HEADER_TIMESTAMP: str(timestamp),
        HEADER_SIGNATURE: sign(key, msg_id, timestamp, body),
    }


def _syntax_problem(url: str) -> str | None:
    if len(url) > MAX_URL_LENGTH:
        return f"at most {MAX_URL_LENGTH} characters"
    if any(c.isspace() or ord(c) < 0x20 for c in url):
        return "no whitespace or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        return "not a valid URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "an absolute https URL"
    if parts.username is not None or parts.password is not None:
        return "no user name or password in the URL"
    return "no fragment" if parts.fragment or url.endswith("#") else None


def target_problem(url: str, *, allow_private: bool) -> str | None:
    """Why ``url`` cannot receive webhooks (see the module text), or None."""
    problem = _syntax_problem(url)
    if problem is not None:
        return problem
    parts = urlsplit(url)
    kind = host_problem(parts.hostname or "")
    if kind is not None and not allow_private:
        return (
            f"must not point at a {kind} address: the provider calls it from its own network "
            "(allowed only with SVC_WEBHOOK_ALLOW_PRIVATE)"
        )
    if parts.scheme == "http" and kind is None:
        return "https (plain http only to a loopback or private host, when allowed)"
    return None


def retry_delay(attempts: int, *, base: float, cap: float, random: float) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt (1, 2, ...): exponential
    from ``base``, capped at ``cap``, plus ``random`` (0 to 1) times 10 % jitter."""
    exponent = max(0, attempts - 1)
    delay = cap if exponent >= 63 else min(cap, base * (2**exponent))
    return delay * (1 + JITTER * min(max(random, 0.0), 1.0))
