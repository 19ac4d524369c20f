"""Fixtures of the webhook tests: an administrator's client of the admin service, which
deletes the endpoints it registered when the test ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.stack import Stack
from tests.integration.webhooks.support import WebhookAdmin


@pytest.fixture
def admin_api(stack: Stack) -> Iterator[WebhookAdmin]:
    api = WebhookAdmin(stack)
    try:
        yield api
    finally:
        api.close()
