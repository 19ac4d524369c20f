"""Fixtures of the race tests: a token service of two worker processes, so that concurrent
requests for one token or one code really run in parallel (two processes, two database
connections), not only interleaved on one event loop.

It lives for one module only: after a burst its two workers keep up to 2 x 26 idle
database connections for minutes, and the machine's PostgreSQL (100 connections) is shared
by the whole suite; stopping it closes them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.stack import Stack


@pytest.fixture(scope="module")
def token_url(stack: Stack) -> Iterator[str]:
    """The URL of a second token service of the stack, with ``--workers 2``."""
    process = stack.start_service("token", workers=2)
    try:
        stack.wait_until_up(process)
        yield process.url
    finally:
        process.stop()
        if process in stack.processes:
            stack.processes.remove(process)
