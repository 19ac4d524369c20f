"""Base64url without padding (RFC 4648 §5; RFC 7515 §2 "Base64url Encoding").

The one encoding of JWT segments, JWK members, PKCE challenges, ``sid``/``at_hash``
claims, generated keys and paging cursors.

- :func:`base64url_encode`: the ``=`` padding is left off.
- :func:`base64url_decode`: padding is optional; a character outside the alphabet raises
  ``ValueError`` (``binascii.Error``) when ``strict``, and is skipped otherwise (the
  lenient reading of opaque values the provider wrote itself, such as cursors).
"""

from __future__ import annotations

import base64
import re
from typing import Final

__all__ = ["base64url_decode", "base64url_encode"]

_ALPHABET: Final = re.compile(r"[A-Za-z0-9_-]*")


def base64url_encode(raw: bytes) -> str:
    """``raw`` in base64url, without ``=`` padding."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def base64url_decode(text: str, *, strict: bool = False) -> bytes:
    """The bytes of base64url ``text``, padded or not (see the module for ``strict``)."""
    if strict and not _ALPHABET.fullmatch(text):
        raise ValueError("not base64url")
    padded = text + "=" * (-len(text) % 4)
    return base64.b64decode(padded.encode("ascii"), altchars=b"-_", validate=strict)
