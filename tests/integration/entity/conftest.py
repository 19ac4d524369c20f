"""Fixtures of the self-service API tests: a fresh person and a client acting as them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.records import TestUser, create_user
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi


@pytest.fixture
def person(stack: Stack) -> TestUser:
    return create_user(stack)


@pytest.fixture
def entity_api(stack: Stack, person: TestUser) -> Iterator[EntityApi]:
    api = EntityApi(stack, person)
    try:
        yield api
    finally:
        api.close()
