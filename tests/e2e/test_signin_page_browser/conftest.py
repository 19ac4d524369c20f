"""Fixtures of the hosted sign-in page's browser tests: the built page, a registered
application and person, the application's callback."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator

import pytest

from tests.e2e.test_signin_page_browser.support import (
    DIST,
    SCOPES,
    Registered,
    register,
)
from tests.harness import infra
from tests.harness.callback_app import callback_server
from tests.harness.stack import Stack


@pytest.fixture(autouse=True)
def _built_page() -> None:
    if not DIST.is_file():
        pytest.fail("web/auth is not built: cd web/auth && npm ci && npm run build")


@pytest.fixture
def registered(stack: Stack, client_app: tuple[str, list[str]]) -> Registered:
    """A confidential client allowed ``openid profile email`` and a person with a password."""
    run = uuid.uuid4().hex[:8]
    data = Registered(
        client_id=f"browser-{run}",
        client_secret=secrets.token_urlsafe(32),
        redirect_uri=client_app[0],
        email=f"browser-{run}@example.test",
        password=f"correct horse {run}",
        scope_descriptions={},
    )
    infra.run(register(stack, data))
    assert set(data.scope_descriptions) == set(SCOPES)
    return data


@pytest.fixture
def client_app() -> Iterator[tuple[str, list[str]]]:
    """A tiny HTTP server standing for the application: ``(redirect_uri, paths seen)``."""
    with callback_server() as running:
        yield running
