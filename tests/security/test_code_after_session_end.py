"""A code issued in a session that has since ended buys no tokens.

Found by the races of issue #21: ending a session revoked its refresh tokens, but an
authorization code issued in it a moment before (still within its 60 s) could be
exchanged afterwards, and the refresh token it bought carried the ended session's sid
and outlived the logout or password change that should have ended it. Ending a session
now withdraws its unused codes in the same transaction, before its refresh tokens are
revoked: an exchange racing the end either commits first (and its refresh token is then
revoked with the others) or finds no code.
"""

from __future__ import annotations

import httpx
import pytest

from tests.harness import records
from tests.harness.oidc import Authorization, Browser
from tests.harness.rows import query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi

pytestmark = pytest.mark.integration


def test_a_code_of_an_ended_session_is_refused(stack: Stack) -> None:
    person = records.create_user(stack)
    app = records.create_client(stack, skip_consent=True)
    authorization = Authorization(app)
    with Browser(stack) as browser:
        code = browser.sign_in(authorization, person)

    admin = AdminApi(stack)
    try:
        ended = admin.delete(f"/admin/users/{person.id}/sessions")
    finally:
        admin.close()
    assert ended.status_code in (200, 204), ended.text

    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app.redirect_uri,
        "code_verifier": authorization.verifier,
    }
    answer = httpx.post(
        stack.proxy_url + "/oauth2/token", data=form, auth=(app.client_id, app.secret), timeout=20
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_grant"
    live = query(
        stack,
        "SELECT id FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL",
        person.id,
    )
    assert live == []
