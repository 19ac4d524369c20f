"""The self-service API in tests: :class:`EntityApi` calls the entity service as one real
person (the token's ``sub``), with every self-service permission and a sign-in that is
``auth_time`` seconds old (now by default), plus the shared checks of
:mod:`tests.harness.api`."""

from __future__ import annotations

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness.api import (
    MISSING_ID,
    PROBLEM_JSON,
    ApiClient,
    assert_guarded,
    assert_problem,
    fresh_address,
    now,
)
from tests.harness.records import TestUser
from tests.harness.stack import Stack

__all__ = [
    "ALL_SELF_SERVICE_SCOPES",
    "MISSING_ID",
    "PROBLEM_JSON",
    "EntityApi",
    "assert_guarded",
    "assert_problem",
    "fresh_address",
    "now",
]

ALL_SELF_SERVICE_SCOPES = tuple(SELF_SERVICE_SCOPES)


class EntityApi(ApiClient):
    """The entity service, called by ``person``. Set ``claims`` (``auth_time``, ``sid``)
    to shape the tokens of later calls, or pass them to :meth:`token`."""

    def __init__(self, stack: Stack, person: TestUser) -> None:
        super().__init__(stack, "entity", person.id, ALL_SELF_SERVICE_SCOPES)
        self.person = person
        self.claims = {"auth_time": now(), "amr": ["pwd"]}
