"""Recent sign-in (RFC 9470 "OAuth 2.0 Step Up Authentication Challenge"; spec §5 rule 5;
DESIGN.md "The provider's own API and its permissions").

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
"""

from __future__ import annotations

import time
from typing import Any, Final

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from idp_common.errors import PermissionDenied
from idp_common.protocol.constants import (
    ERROR_INSUFFICIENT_USER_AUTHENTICATION,
    RECENT_SIGN_IN_MAX_AGE_SECONDS,
)
from idp_common.web.guard import Caller, current_caller, requires

__all__ = [
    "CLOCK_SKEW_SECONDS",
    "check_recent_sign_in",
    "recent_sign_in_guard",
    "requires_recent_sign_in",
    "sign_in_is_recent",
    "step_up_challenge",
]

CLOCK_SKEW_SECONDS: Final = 60
MAX_AGE_OPT: Final = "recent_sign_in_max_age"


def sign_in_is_recent(
    auth_time: object, *, now: float, max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS
) -> bool:
    """True when ``auth_time`` (epoch seconds) lies within ``max_age`` seconds before
    ``now``. None, a non-number (a bool included) or a time too far ahead is not recent."""
    if isinstance(auth_time, bool) or not isinstance(auth_time, int | float):
        return False
    age = now - auth_time
    return -CLOCK_SKEW_SECONDS <= age <= max_age


def step_up_challenge(max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS) -> str:
    """The ``WWW-Authenticate`` value of the refusal (RFC 9470 §3, spec §5 rule 5)."""
    return f'Bearer error="{ERROR_INSUFFICIENT_USER_AUTHENTICATION}", max_age={max_age}'


def check_recent_sign_in(
    caller: Caller, *, now: float, max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS
) -> None:
    """Raise the 403 step-up refusal unless ``caller`` signed in recently enough."""
    if sign_in_is_recent(caller.auth_time, now=now, max_age=max_age):
        return
    raise PermissionDenied(
        f"this change needs a sign-in within the last {max_age} seconds; sign in again",
        code="auth.insufficient_user_authentication",
        headers={"WWW-Authenticate": step_up_challenge(max_age)},
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
