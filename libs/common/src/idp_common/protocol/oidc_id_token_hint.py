"""The ``id_token_hint`` of ``/oauth2/authorize`` (OIDC Core 1.0 §3.1.2.1) and of
``/oauth2/logout`` (OIDC RP-Initiated Logout 1.0 §2): one check for both endpoints.

A hint is accepted only when it is an ID token this provider issued to the client:

- signed by one of the provider's keys, RS256 (:func:`idp_common.crypto.jwt.verify_signature`);
- header ``typ`` ``JWT`` or absent (RFC 8725 §3.11 explicit typing; case-insensitive,
  ``application/`` optional). An access token (``at+jwt``, RFC 9068 §2.1), a logout token
  (``logout+jwt``, Back-Channel Logout 1.0 §2.4) or any other type is refused, and so is a
  token with ``events`` (a logout token signed without its type);
- ``iss`` the issuer, character for character; ``sub`` a non-empty string;
- ``aud`` the client: containing ``client_id`` when the request names one; otherwise the
  token names its client itself (one audience, or ``azp`` among several);
- ``exp`` present; it may have passed, because the application may hold an expired ID
  token (RP-Initiated Logout 1.0 §2: "even when the exp time has passed", for "a current
  session or ... a recent session"), but by at most :data:`EXPIRED_GRACE_SECONDS`, 24
  hours, the idle lifetime of a browser session: a hint older than that cannot belong to a
  session that is still alive, so it is no hint of a recent session (a grace of ten years
  let a years-old hint pass: docs/security.md, attack 16). ``/oauth2/authorize`` uses it
  only to check that the session belongs to the hinted person; the same bound applies
  there;
- ``iat`` and ``nbf``, when present, not later than ``now`` plus :data:`CLOCK_SKEW_SECONDS`.

Errors raise :class:`InvalidIdTokenHint`, whose ``reason`` is short and safe to show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from idp_common.crypto.jwt import (
    InvalidToken,
    numeric_date,
    token_type,
    typ_matches,
    verify_signature,
)
from idp_common.crypto.keys import KeySet
from idp_common.protocol.constants import JWT_TYP_ID_TOKEN

__all__ = [
    "CLOCK_SKEW_SECONDS",
    "EXPIRED_GRACE_SECONDS",
    "IdTokenHint",
    "InvalidIdTokenHint",
    "verify_id_token_hint",
]

#: How long after its ``exp`` an ID token is still accepted as a hint: a browser
#: session's idle lifetime (``idp_common.state.sessions.SESSION_IDLE_SECONDS``).
EXPIRED_GRACE_SECONDS: Final = 24 * 3600
#: How far in the future ``iat`` and ``nbf`` may be (clocks of several hosts).
CLOCK_SKEW_SECONDS: Final = 60


class InvalidIdTokenHint(Exception):
    """The hint cannot be accepted. ``reason`` is short and safe to show to the caller."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class IdTokenHint(msgspec.Struct, frozen=True, kw_only=True):
    """What an accepted hint says: the person, the client it was issued to, the session."""

    subject: str
    client_id: str
    sid: str | None
    expired: bool


def verify_id_token_hint(
    token: str,
    keys: KeySet,
    *,
    issuer: str,
    now: int,
    client_id: str | None = None,
    grace: int = EXPIRED_GRACE_SECONDS,
) -> IdTokenHint:
    """Check ``token`` as an id_token_hint (see the module text); ``client_id``: the client
    the request names, if it names one."""
    try:
        claims = verify_signature(token, keys)
        typ = token_type(token)
    except InvalidToken as exc:
        raise InvalidIdTokenHint(exc.reason) from exc
    if not (typ is None or typ_matches(typ, JWT_TYP_ID_TOKEN)) or "events" in claims:
        raise InvalidIdTokenHint("not an ID token")
    if claims.get("iss") != issuer:
        raise InvalidIdTokenHint("wrong issuer")
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise InvalidIdTokenHint("no subject")
    audience = _audience(claims, client_id)
    expired = _check_times(claims, now=now, grace=grace)
    sid = claims.get("sid")
    return IdTokenHint(
        subject=subject,
        client_id=audience,
        sid=sid if isinstance(sid, str) else None,
        expired=expired,
    )


def _audience(claims: Mapping[str, Any], client_id: str | None) -> str:
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not audiences:
        raise InvalidIdTokenHint("wrong audience")
    if not all(isinstance(item, str) and item for item in audiences):
        raise InvalidIdTokenHint("wrong audience")
    if client_id is not None:
        if client_id not in audiences:
            raise InvalidIdTokenHint("wrong audience")
        return client_id
    if len(audiences) == 1:
        return str(audiences[0])
    azp = claims.get("azp")  # OIDC Core §2: the party the token was issued to
    if isinstance(azp, str) and azp in audiences:
        return azp
    raise InvalidIdTokenHint("the audience names no single client")


def _number(claims: Mapping[str, Any], name: str) -> float | None:
    try:
        return numeric_date(claims, name, required=False)
    except InvalidToken as exc:
        raise InvalidIdTokenHint(exc.reason) from exc


def _check_times(claims: Mapping[str, Any], *, now: int, grace: int) -> bool:
    """Raise unless the times are acceptable; True when ``exp`` has passed."""
    exp = _number(claims, "exp")
    if exp is None:
        raise InvalidIdTokenHint("missing exp")
    if exp <= now - grace:
        raise InvalidIdTokenHint("expired too long ago")
    for name in ("iat", "nbf"):
        moment = _number(claims, name)
        if moment is not None and moment > now + CLOCK_SKEW_SECONDS:
            raise InvalidIdTokenHint(f"{name} is in the future")
    return exp <= now
