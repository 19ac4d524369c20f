"""Proof Key for Code Exchange (RFC 7636), ``S256`` only (docs/design.md "Tokens and clients").

- §4.1: ``code_verifier`` = 43 to 128 characters of ``[A-Z] / [a-z] / [0-9] / "-" / "." /
  "_" / "~"``.
- §4.2: ``code_challenge`` = BASE64URL(SHA256(ASCII(code_verifier))) for ``S256``; the
  ``plain`` method is refused (it protects nothing once the challenge leaks).
- §4.6: the server recomputes the challenge from the verifier and compares; here in
  constant time.

:func:`verify_pkce` is the token endpoint's check (raises ``InvalidGrant``);
:func:`requested_challenge` is the authorization endpoint's check of the request
(raises ``InvalidRequest``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Final

from idp_common.protocol.constants import CODE_CHALLENGE_METHOD_S256
from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.protocol.rfc6749_errors import InvalidGrant, InvalidRequest

__all__ = ["requested_challenge", "s256_challenge", "verify_pkce"]

_VERIFIER: Final = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
#: An S256 challenge is the base64url of 32 bytes: exactly 43 characters, no padding.
_S256_CHALLENGE: Final = re.compile(r"[A-Za-z0-9\-_]{43}")


def s256_challenge(verifier: str) -> str:
    """BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) (RFC 7636 §4.2)."""
    return base64url_encode(hashlib.sha256(verifier.encode("ascii")).digest())


def requested_challenge(
    challenge: str | None, method: str | None, *, required: bool
) -> tuple[str, str] | None:
    """Authorization request check (RFC 7636 §4.3): ``(challenge, "S256")``, or None when
    the request has no challenge and ``required`` (a public client) is false.

    A missing method means ``plain`` (§4.3) and is refused like ``plain`` itself.
    """
    if challenge is None:
        if required:
            raise InvalidRequest("PKCE code_challenge is required")
        if method is not None:
            raise InvalidRequest("code_challenge_method without code_challenge")
        return None
    if method != CODE_CHALLENGE_METHOD_S256:
        raise InvalidRequest("code_challenge_method must be S256")
    if not _S256_CHALLENGE.fullmatch(challenge):
        raise InvalidRequest("code_challenge is not a base64url SHA-256")
    return challenge, CODE_CHALLENGE_METHOD_S256


def verify_pkce(verifier: str | None, challenge: str, method: str | None) -> None:
    """Raise ``InvalidGrant`` unless ``verifier`` matches the stored S256 ``challenge``."""
    if method != CODE_CHALLENGE_METHOD_S256:
        raise InvalidGrant("unsupported code_challenge_method")
    if not verifier:
        raise InvalidGrant("code_verifier is required")
    if not _VERIFIER.fullmatch(verifier):
        raise InvalidGrant("code_verifier is malformed")
    if not hmac.compare_digest(s256_challenge(verifier).encode(), challenge.encode("utf-8")):
        raise InvalidGrant("code_verifier does not match the code_challenge")
