"""RFC 7636 PKCE pairs for the tests' authorization requests."""

from __future__ import annotations

import base64
import hashlib
import secrets


def pkce_challenge(verifier: str) -> str:
    """RFC 7636 ``S256`` of ``verifier``."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return digest.rstrip(b"=").decode()


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, pkce_challenge(verifier)
