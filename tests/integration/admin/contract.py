"""The admin API in tests: :class:`AdminApi` (every admin permission by default) and the
shared route checks of :mod:`tests.harness.api`."""

from __future__ import annotations

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness.api import (
    MISSING_ID,
    PROBLEM_JSON,
    TWO_FACTOR_SIGN_IN,
    ApiClient,
    assert_guarded,
    assert_problem,
    create_administrator,
    fresh_address,
)
from tests.harness.stack import Stack

__all__ = [
    "ALL_ADMIN_SCOPES",
    "MISSING_ID",
    "PROBLEM_JSON",
    "AdminApi",
    "assert_guarded",
    "assert_problem",
    "fresh_address",
]

ALL_ADMIN_SCOPES = tuple(ADMIN_SCOPES)


class AdminApi(ApiClient):
    """The admin service, called by an administrator of its own: a real person holding
    every admin permission, whose tokens say they signed in just now with a password and
    a one-time code (so grants, credential changes and the guard's checks of the person
    all pass). ``base_url``: another admin process."""

    def __init__(self, stack: Stack, *, base_url: str | None = None) -> None:
        actor = create_administrator(stack, ALL_ADMIN_SCOPES)
        super().__init__(
            stack, "admin", actor, ALL_ADMIN_SCOPES, fresh_sign_in=True, base_url=base_url
        )
        self.claims = dict(TWO_FACTOR_SIGN_IN)
