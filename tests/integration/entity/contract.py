"""The self-service API in tests: :class:`EntityApi` calls the entity service as one real
person (the token's ``sub``), with every self-service permission and a sign-in that is
``auth_time`` seconds old (now by default), plus the shared checks of
:mod:`tests.harness.api`."""

from __future__ import annotations

from typing import Any

from idp_common.protocol.constants import SELF_SERVICE_SCOPES
from tests.harness.api import (
    MISSING_ID,
    PROBLEM_JSON,
    ApiClient,
    assert_guarded,
    assert_problem,
    fresh_address,
    now,
    signed_in_session,
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
    """The entity service, called by ``person``, signed in with the password ``auth_time``
    seconds ago (now by default). Set ``claims`` (``auth_time``, ``sid``) to shape the
    tokens of later calls, or pass them to :meth:`token`.

    A write's token stands on a browser session of the person signed in when the client
    first wrote (a sensitive change needs a sign-in on a live session), unless ``claims``
    names a ``sid``; :meth:`sign_in_again` starts a new one for the next write. Reads carry
    no session, so a list of the person's sessions holds only those a test made."""

    def __init__(self, stack: Stack, person: TestUser) -> None:
        super().__init__(stack, "entity", person.id, ALL_SELF_SERVICE_SCOPES)
        self.person = person
        self.claims = {"auth_time": now(), "amr": ["pwd"]}
        self.sid: str | None = None

    def sign_in_again(self) -> None:
        """A new sign-in now: the next write stands on a new session."""
        self.sid = None
        self.claims = {**self.claims, "auth_time": now()}

    def write_claims(self) -> dict[str, Any]:
        if "sid" in self.claims:
            return {}
        if self.sid is None:
            self.sid = signed_in_session(self.stack, self.person.id)
        return {"sid": self.sid}
