"""Recent sign-in (RFC 9470 "OAuth 2.0 Step Up Authentication Challenge"; contract §5 rule 5;
docs/design.md "The provider's own API and its permissions").

Some writes (email and password change, authenticator enrol and removal, face enrol and
removal) need a sign-in within ``max_age`` seconds (300 by default). When the access
token's ``auth_time`` is older, or missing, or not a number, the answer is 403 with::

    WWW-Authenticate: Bearer error="insufficient_user_authentication", max_age=300

and the client sends the person back to ``/oauth2/authorize?max_age=300`` (RFC 9470 §4).

- :func:`sign_in_is_recent` is the pure rule; :func:`check_recent_sign_in` raises the
  403 for a caller; :func:`requires_recent_sign_in` is the route-decorator helper: the
  route's one permission (:func:`~idp_common.web.guard.requires`) and then the age check,
  both as guards, so both refusals come before the body is read.
- An ``auth_time`` up to :data:`CLOCK_SKEW_SECONDS` in the future is accepted (the
  token service's clock may run a little ahead); further ahead it counts as old.
- Recent is not enough: the sign-in must also have included a secret, the password, a
  one-time code or a passkey (``amr`` holds ``pwd``, ``otp``, ``hwk`` or ``swk``: a
  passkey's private key never leaves its authenticator and answers only this origin). A
  face alone is a still image that anyone holding the person's photo may present
  (docs/face-signin.md), so it never unlocks a credential change. The refusal
  then also names the levels that do in ``acr_values`` (RFC 9470 §3); an authorization
  request carrying them does not offer the face.
- Recent is not enough either when the sign-in no longer counts
  (:func:`sign_in_is_anchored`): the token must stand on a live browser session of the
  person whose sign-in is not older than their last credential change (a password set, a
  factor removed, every session ended by an administrator), and must not have been
  obtained by token exchange. A session the person kept while removing a factor therefore
  signs in again before its next sensitive change.
- Some writes need two factors (``amr`` holds ``mfa``): an administrator changing another
  administrator's credentials (docs/security.md). A passkey verified on its device
  (``hwk``/``swk``, ``user``, ``mfa``) is two factors. Their refusal names ``acr_values``
  ``urn:idp:acr:2fa``.
"""

from __future__ import annotations

import math
import time
from typing import Any, Final

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from idp_common.errors import PermissionDenied
from idp_common.protocol.constants import (
    ACR_ONE_FACTOR,
    ACR_PHISHING_RESISTANT,
    ACR_TWO_FACTOR,
    AMR_MFA,
    AMR_SECRETS,
    ERROR_INSUFFICIENT_USER_AUTHENTICATION,
    RECENT_SIGN_IN_MAX_AGE_SECONDS,
)
from idp_common.state.session_standing import decode_session
from idp_common.web.guard import Caller, current_caller, requires

__all__ = [
    "CLOCK_SKEW_SECONDS",
    "SECRET_LEVELS",
    "TWO_FACTOR_LEVELS",
    "check_recent_sign_in",
    "included_a_secret",
    "included_two_factors",
    "recent_sign_in_guard",
    "requires_recent_sign_in",
    "sign_in_is_anchored",
    "sign_in_is_recent",
    "step_up_challenge",
]

CLOCK_SKEW_SECONDS: Final = 60
MAX_AGE_OPT: Final = "recent_sign_in_max_age"
#: ``acr_values`` of a refusal that needs a secret, and of one that needs two factors.
SECRET_LEVELS: Final = (ACR_ONE_FACTOR, ACR_TWO_FACTOR, ACR_PHISHING_RESISTANT)
TWO_FACTOR_LEVELS: Final = (ACR_TWO_FACTOR,)


def _methods(amr: object) -> frozenset[str]:
    if not isinstance(amr, list | tuple):
        return frozenset()
    return frozenset(m for m in amr if isinstance(m, str))


def included_a_secret(amr: object) -> bool:
    """The sign-in included the password, a one-time code or a passkey (RFC 8176 ``pwd``,
    ``otp``, ``hwk``, ``swk``)."""
    return bool(_methods(amr) & AMR_SECRETS)


def included_two_factors(amr: object) -> bool:
    """The sign-in used two factors (RFC 8176 ``mfa``) and one of them was a secret."""
    methods = _methods(amr)
    return AMR_MFA in methods and bool(methods & AMR_SECRETS)


def sign_in_is_recent(
    auth_time: object, *, now: float, max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS
) -> bool:
    """True when ``auth_time`` (epoch seconds) lies within ``max_age`` seconds before
    ``now``. None, a non-number (a bool included) or a time too far ahead is not recent."""
    if isinstance(auth_time, bool) or not isinstance(auth_time, int | float):
        return False
    age = now - auth_time
    return -CLOCK_SKEW_SECONDS <= age <= max_age


def sign_in_is_anchored(caller: Caller) -> bool:
    """The token's sign-in still counts: it stands on a live browser session of the caller
    (the guard found it) whose sign-in, like the token's, is not older than the person's
    last credential change, and the token was not obtained by exchange (``act``: a resource
    API acting for the person cannot step up on their behalf)."""
    if "act" in caller.claims or caller.session is None:
        return False
    session = decode_session(caller.session)
    if session.user_id != caller.subject:
        return False
    if caller.credentials_changed_at is None:
        return True
    # whole seconds, as auth_time is: a sign-in within the second of the change counts
    changed = math.floor(caller.credentials_changed_at)
    token_time = caller.auth_time if isinstance(caller.auth_time, int) else 0
    return session.auth_time >= changed and token_time >= changed


def step_up_challenge(
    max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS, acr_values: tuple[str, ...] = ()
) -> str:
    """The ``WWW-Authenticate`` value of the refusal (RFC 9470 §3, contract §5 rule 5)."""
    challenge = f'Bearer error="{ERROR_INSUFFICIENT_USER_AUTHENTICATION}", max_age={max_age}'
    if acr_values:
        challenge += f', acr_values="{" ".join(acr_values)}"'
    return challenge


def check_recent_sign_in(
    caller: Caller,
    *,
    now: float,
    max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS,
    two_factors: bool = False,
) -> None:
    """Raise the 403 step-up refusal unless ``caller`` signed in within ``max_age`` seconds
    with a secret (and, with ``two_factors``, with two factors)."""
    amr = caller.claims.get("amr")
    strong = included_two_factors(amr) if two_factors else included_a_secret(amr)
    recent = sign_in_is_recent(caller.auth_time, now=now, max_age=max_age)
    if recent and strong and sign_in_is_anchored(caller):
        return
    # Only an old sign-in of the right kind: exactly the contract's challenge. The wrong kind
    # of sign-in: the challenge also names the levels that will do (RFC 9470 §3).
    levels: tuple[str, ...] = ()
    if not strong:
        levels = TWO_FACTOR_LEVELS if two_factors else SECRET_LEVELS
    if two_factors:
        detail = (
            f"this change needs a sign-in with two factors within the last {max_age} "
            "seconds; sign in again with your password and authenticator code, or a passkey"
        )
    else:
        detail = (
            f"this change needs a sign-in with your password, a one-time code or a passkey "
            f"within the last {max_age} seconds; sign in again"
        )
    raise PermissionDenied(
        detail,
        code="auth.insufficient_user_authentication",
        headers={"WWW-Authenticate": step_up_challenge(max_age, levels)},
    )


async def recent_sign_in_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Runs after the bearer guard (which sets the caller). The route's own ``max_age``
    wins; else ``SVC_RECENT_SIGN_IN_MAX_AGE`` (300 s by default)."""
    max_age: int | None = handler.opt.get(MAX_AGE_OPT)
    if max_age is None:
        max_age = connection.app.state.resources.settings.recent_sign_in_max_age
    check_recent_sign_in(current_caller(connection), now=time.time(), max_age=max_age)


def requires_recent_sign_in(permission: str, max_age: int | None = None) -> dict[str, Any]:
    """Route-decorator arguments: ``permission`` (as :func:`requires`), then a sign-in
    within ``max_age`` seconds (None: the deployment's setting)."""
    spec = requires(permission)
    return {
        **spec,
        "guards": [*spec["guards"], recent_sign_in_guard],
        "opt": {**spec["opt"], MAX_AGE_OPT: max_age},
    }
