"""The admin API in tests: :class:`AdminApi` (every admin permission by default) and the
shared route checks of :mod:`tests.harness.api`."""

from __future__ import annotations

import uuid

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness.api import (
    MISSING_ID,
    PROBLEM_JSON,
    ApiClient,
    assert_guarded,
    assert_problem,
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
    """The admin service, called by a random administrator subject."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(stack, "admin", str(uuid.uuid4()), ALL_ADMIN_SCOPES)
