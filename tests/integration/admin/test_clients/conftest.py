"""Fixtures of the ``/admin/clients`` tests."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf


@pytest.fixture
def http(stack: Stack) -> Iterator[httpx.Client]:
    yield from tf.token_http(stack)
