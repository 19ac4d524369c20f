"""OpenID Connect Back-Channel Logout 1.0: the logout token and what counts as delivered.

- §2.4: claims ``iss``, ``aud`` (the client id), ``iat``, ``exp``, ``jti``, ``sub`` and/or
  ``sid``, ``events`` holding the back-channel logout event with an empty object, and never
  ``nonce`` (so it can never pass for an ID token). We always send both ``sub`` and ``sid``.
- §2.5: the token is POSTed as the form parameter ``logout_token``.
- §2.8: the application answers 200 (or 204, which the spec counts as delivered too).
- docs/design.md "Tokens and clients": ``typ: logout+jwt``, ``exp`` two minutes after ``iat``.
"""

from __future__ import annotations

from typing import Any, Final

from idp_common.protocol.constants import BACKCHANNEL_LOGOUT_EVENT, LOGOUT_TOKEN_TTL_SECONDS

__all__ = ["LOGOUT_TOKEN_PARAMETER", "is_delivered", "logout_token_claims"]

#: §2.5: the form parameter carrying the token.
LOGOUT_TOKEN_PARAMETER: Final = "logout_token"  # noqa: S105 - a parameter name
#: Spec part 6 rule 5: 200 or 204 means delivered.
_DELIVERED: Final = frozenset({200, 204})


def logout_token_claims(
    *, issuer: str, client_id: str, subject: str, sid: str, now: int, jti: str
) -> dict[str, Any]:
    """The claims of one application's logout token (§2.4); sign with ``typ=logout+jwt``."""
    if not (issuer and client_id and subject and sid and jti):
        raise ValueError("issuer, client_id, subject, sid and jti are all required")
    return {
        "iss": issuer,
        "aud": client_id,
        "iat": now,
        "exp": now + LOGOUT_TOKEN_TTL_SECONDS,
        "jti": jti,
        "sub": subject,
        "sid": sid,
        "events": {BACKCHANNEL_LOGOUT_EVENT: {}},
    }


def is_delivered(status_code: int) -> bool:
    """Spec part 6 rule 5: 200 or 204; anything else, or 0 (no answer), is a failure."""
    return status_code in _DELIVERED
