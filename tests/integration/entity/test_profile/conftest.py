"""Fixtures of the ``/entity/profile`` tests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi


@pytest.fixture
def admin(stack: Stack) -> Any:
    api = AdminApi(stack)
    try:
        yield api
    finally:
        api.close()
