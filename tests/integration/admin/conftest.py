"""Fixtures of the administration API tests: a client that calls the admin service
directly (from 127.0.0.1, a trusted sender) with a fresh ``X-Forwarded-For`` per request,
so that the per-address limit on failed authentications never mixes tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi


@pytest.fixture
def admin_api(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    try:
        yield api
    finally:
        api.close()
