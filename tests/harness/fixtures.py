"""pytest fixtures of the harness (registered by the root conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.harness.stack import Stack, running_stack


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The run's stack: five services and the proxy, started once per test session."""
    with running_stack(tmp_path_factory.mktemp("idp")) as running:
        yield running


@pytest.fixture(scope="module")
def private_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack of the module's own, for tests that change what every other test relies on
    (a fuzzer that may empty the administrator role's scopes, for one)."""
    with running_stack(tmp_path_factory.mktemp("idp-private")) as running:
        yield running


@pytest.fixture
def extra_processes(stack: Stack) -> Iterator[Stack]:
    """Lets a test start more services or proxies; they are stopped after the test."""
    before = len(stack.processes)
    yield stack
    for process in stack.processes[before:]:
        process.stop()
    del stack.processes[before:]


@pytest.fixture
def proxy(stack: Stack) -> Iterator[httpx.Client]:
    """A plain HTTP client entering through the proxy; redirects are not followed."""
    with httpx.Client(base_url=stack.proxy_url, timeout=10, follow_redirects=False) as client:
        yield client
