"""Fixtures of the branding tests: an administrator's client of the admin service, and the
provider's brand put back to nothing once a test that changed it ends (the stack is shared
by the whole session)."""

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


@pytest.fixture
def provider_brand(admin_api: AdminApi) -> Iterator[AdminApi]:
    """The admin client; the provider's brand is cleared after the test."""
    try:
        yield admin_api
    finally:
        cleared = {"productName": None, "primaryColor": None, "termsUri": None, "privacyUri": None}
        admin_api.put("/admin/branding", json=cleared)
        admin_api.delete("/admin/branding/logo")
