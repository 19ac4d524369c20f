"""Fixtures of the token endpoint's tests: a client that calls the token service directly,
the registered applications (confidential, public, machine), a person and the published keys."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.test_token_endpoint.support import (
    ORDERS_READ,
    ORDERS_WRITE,
)


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)


@pytest.fixture(scope="package")
def orders_audience(stack: Stack) -> str:
    return tf.create_api(stack, [ORDERS_READ, ORDERS_WRITE])


@pytest.fixture(scope="package")
def app(stack: Stack, orders_audience: str) -> tf.AppClient:
    return tf.create_client(stack, scopes=[*tf.OIDC, ORDERS_READ, "idp:account:read"])


@pytest.fixture(scope="package")
def spa(stack: Stack) -> tf.AppClient:
    return tf.create_client(stack, public=True)


@pytest.fixture(scope="package")
def machine(stack: Stack, orders_audience: str) -> tf.AppClient:
    return tf.create_client(
        stack, scopes=[ORDERS_READ, ORDERS_WRITE, "openid"], grant_types=["client_credentials"]
    )


@pytest.fixture(scope="package")
def person(stack: Stack, orders_audience: str) -> tf.Person:
    return tf.create_person(stack, scopes=[ORDERS_READ])


@pytest.fixture(scope="package")
def jwks(stack: Stack) -> dict[str, Any]:
    return httpx.get(stack.service_url("token") + "/.well-known/jwks.json").json()  # type: ignore[no-any-return]
