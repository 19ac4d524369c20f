"""Fixtures of the webhook event tests: an administrator, and a person acting on their own
account."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.records import TestUser, create_user
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import EntityApi


@pytest.fixture
def admin_api(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    try:
        yield api
    finally:
        api.close()


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
