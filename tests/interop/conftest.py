"""Fixtures of the interop tests: one administrator, the published keys, and a
registration per algorithm (every test that takes ``registration`` runs once for each of
:data:`ALGORITHMS`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, create_administrator
from tests.harness.stack import Stack
from tests.interop.support import ALGORITHMS, Registration, register


@pytest.fixture(scope="package")
def admin(stack: Stack) -> Iterator[ApiClient]:
    """The administration API at the proxy, for a person holding every admin scope who
    signed in with two factors just now (each call mints a fresh token)."""
    actor = create_administrator(stack, ADMIN_SCOPES)
    api = ApiClient(
        stack, "admin", actor, ADMIN_SCOPES, fresh_sign_in=True, base_url=stack.proxy_url
    )
    api.claims = dict(TWO_FACTOR_SIGN_IN)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="package")
def jwks(stack: Stack) -> dict[str, Any]:
    """The provider's published signing keys."""
    return httpx.get(stack.proxy_url + "/.well-known/jwks.json").json()  # type: ignore[no-any-return]


@pytest.fixture(params=ALGORITHMS)
def alg(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def registration(stack: Stack, admin: ApiClient, alg: str) -> Registration:
    return register(stack, admin, alg)
