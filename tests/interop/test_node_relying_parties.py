"""openid-client, oauth4webapi and jose (Node) against the stack, for each algorithm.

The library builds the authorization URL (``node/<library>.mjs authorize``), the browser
signs the person in, and the library does the rest (``redeem``): the code exchange with
PKCE, the ID token, the access token as an API validates it, userinfo, a refresh and
client_credentials, reporting what it verified; :func:`assert_result` checks that report.
"""

from __future__ import annotations

import pytest

from tests.harness.stack import Stack
from tests.interop.support import (
    Registration,
    assert_result,
    assert_spent_refresh_refused,
    node_flow,
)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("library", ["openid-client", "oauth4webapi", "jose"])
def test_code_flow_userinfo_refresh_and_client_credentials(
    stack: Stack, registration: Registration, library: str
) -> None:
    result = node_flow(stack, f"{library}.mjs", registration)
    assert_result(result, registration)
    assert_spent_refresh_refused(registration, result["refresh"]["spent"])
