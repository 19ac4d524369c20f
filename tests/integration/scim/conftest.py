"""Fixtures of the SCIM tests: the admin API (to define profile fields and clients), a
machine token with both SCIM scopes, and httpx at ``/scim/v2`` through the proxy."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.scim.support import machine_token, scim_http


@pytest.fixture(scope="module")
def admin_api(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="module")
def token(stack: Stack, admin_api: AdminApi) -> str:
    return machine_token(stack, admin_api)


@pytest.fixture
def scim(stack: Stack, token: str) -> Iterator[httpx.Client]:
    with scim_http(stack, token) as client:
        yield client
