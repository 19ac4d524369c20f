"""Fixtures of the sign-in page's language and brand tests: the built page, an
application with a consent screen, an administrator of the admin API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.e2e.test_signin_page_i18n.support import DIST
from tests.harness import records
from tests.harness.api import TWO_FACTOR_SIGN_IN, ApiClient, create_administrator
from tests.harness.callback_app import callback_server
from tests.harness.stack import Stack


@pytest.fixture(autouse=True)
def _built_page() -> None:
    if not DIST.is_file():
        pytest.fail("web/auth is not built: cd web/auth && npm ci && npm run build")


@pytest.fixture
def app(stack: Stack) -> Iterator[records.TestClient]:
    """A third-party application (it asks for consent) with a real redirect target."""
    with callback_server() as (redirect_uri, _):
        yield records.create_client(stack, skip_consent=False, redirect_uri=redirect_uri)


@pytest.fixture
def first_party(stack: Stack) -> Iterator[records.TestClient]:
    """An application that skips consent."""
    with callback_server() as (redirect_uri, _):
        yield records.create_client(stack, skip_consent=True, redirect_uri=redirect_uri)


@pytest.fixture(scope="module")
def admin(stack: Stack) -> Iterator[ApiClient]:
    """The admin API through the proxy, as an administrator fresh from a 2FA sign-in."""
    actor = create_administrator(stack, ADMIN_SCOPES)
    api = ApiClient(
        stack, "admin", actor, ADMIN_SCOPES, fresh_sign_in=True, base_url=stack.proxy_url
    )
    api.claims = dict(TWO_FACTOR_SIGN_IN)
    try:
        yield api
    finally:
        api.close()
