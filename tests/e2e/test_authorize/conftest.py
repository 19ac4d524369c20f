"""Fixtures of the ``/oauth2/authorize`` tests: the applications and a person."""

from __future__ import annotations

import pytest

from tests.harness import records
from tests.harness.stack import Stack


@pytest.fixture(scope="package")
def app(stack: Stack) -> records.TestClient:
    return records.create_client(stack)


@pytest.fixture(scope="package")
def first_party(stack: Stack) -> records.TestClient:
    return records.create_client(stack, skip_consent=True, public=True)


@pytest.fixture(scope="package")
def person(stack: Stack) -> records.TestUser:
    return records.create_user(stack)
