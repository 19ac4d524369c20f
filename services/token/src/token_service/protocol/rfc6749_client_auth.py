"""Client authentication at the token, introspection and revocation endpoints.

RFC 6749 §2.3.1 and OIDC Core §9 methods (docs/design.md "Tokens and clients"):

- ``client_secret_basic``: ``Authorization: Basic base64(id ":" secret)`` where id and
  secret are each ``application/x-www-form-urlencoded`` first (§2.3.1, so ``:`` and
  non-ASCII characters survive);
- ``client_secret_post``: ``client_id`` and ``client_secret`` form fields;
- ``none``: a public client sends only ``client_id`` (§3.2.1, RFC 7636).

§2.3: a client MUST NOT use more than one method in one request: Basic plus a
``client_secret`` field is refused. A ``client_id`` field beside Basic is tolerated only
when it names the same client. An ``Authorization`` header of another scheme (e.g.
``Bearer``) is not client authentication and is ignored here.

Secrets are stored as SHA-256 digests and compared with ``hmac.compare_digest``
(docs/design.md: a random secret of at least 256 bits needs no slow hash).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote_plus

from idp_common.protocol.constants import (
    CLIENT_AUTH_NONE,
    CLIENT_AUTH_SECRET_BASIC,
    CLIENT_AUTH_SECRET_POST,
)
from idp_common.protocol.rfc6749_errors import InvalidClient, InvalidRequest

__all__ = ["ClientCredentials", "parse_client_credentials", "secret_matches"]

MAX_CLIENT_ID_LENGTH: Final = 255
MAX_SECRET_LENGTH: Final = 512
#: Compared against when the client has no digest, so that timing does not tell.
_DUMMY_DIGEST: Final = hashlib.sha256(b"no client secret").digest()


@dataclass(frozen=True)
class ClientCredentials:
    """What the request presented. ``secret`` is None for the ``none`` method."""

    client_id: str
    secret: str | None
    method: str

    @property
    def used_basic(self) -> bool:
        return self.method == CLIENT_AUTH_SECRET_BASIC


def _parse_basic(value: str) -> ClientCredentials:
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise InvalidClient("malformed Basic credentials", basic=True) from exc
    raw_id, sep, raw_secret = decoded.partition(":")
    if not sep:
        raise InvalidClient("malformed Basic credentials", basic=True)
    client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
    if not client_id or len(client_id) > MAX_CLIENT_ID_LENGTH or len(secret) > MAX_SECRET_LENGTH:
        raise InvalidClient("malformed Basic credentials", basic=True)
    return ClientCredentials(client_id, secret, CLIENT_AUTH_SECRET_BASIC)


def parse_client_credentials(
    authorization: str | None, client_id: str | None, client_secret: str | None
) -> ClientCredentials:
    """The credentials of one request; raises ``InvalidClient`` / ``InvalidRequest``.

    ``authorization`` is the ``Authorization`` header; ``client_id``/``client_secret`` the
    form fields (empty treated as absent, RFC 6749 §3.1).
    """
    scheme, _, value = (authorization or "").strip().partition(" ")
    if scheme.lower() == "basic":
        if client_secret:
            raise InvalidRequest("more than one client authentication method used")
        credentials = _parse_basic(value)
        if client_id and client_id != credentials.client_id:
            raise InvalidRequest("client_id does not match the Basic credentials")
        return credentials
    if not client_id:
        raise InvalidClient("client authentication required")
    if len(client_id) > MAX_CLIENT_ID_LENGTH:
        raise InvalidClient("unknown client")
    if client_secret:
        if len(client_secret) > MAX_SECRET_LENGTH:
            raise InvalidClient("client authentication failed")
        return ClientCredentials(client_id, client_secret, CLIENT_AUTH_SECRET_POST)
    return ClientCredentials(client_id, None, CLIENT_AUTH_NONE)


def secret_matches(secret: str, stored_digest: bytes | None) -> bool:
    """``hmac.compare_digest(sha256(secret), stored)``; False when nothing is stored."""
    presented = hashlib.sha256(secret.encode("utf-8")).digest()
    if stored_digest is None:
        hmac.compare_digest(presented, _DUMMY_DIGEST)
        return False
    return hmac.compare_digest(presented, stored_digest)
