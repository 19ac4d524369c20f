"""Property-based run over the token service's OpenAPI document (issue #21): no 5xx and
every answer matches its declared schema (:mod:`tests.harness.fuzz`).

The generated requests carry real credentials and values for a share of them, so they
reach the grants and lookups rather than stop at ``invalid_client``: HTTP Basic of a
confidential client at ``/oauth2/token``, ``/introspect`` and ``/revoke``; a real access
token at ``/oauth2/userinfo``; the client's id, redirect URI and PKCE challenge, and a
signed-in browser session, at ``/oauth2/authorize``; real codes, refresh and access
tokens in the forms. ``/oauth2/logout`` gets a session of its own (the first request
that ends it leaves the others signed out, which is fine).

It runs on the shared stack's token service, each operation from a caller address of
its own (``X-Forwarded-For``), so that its requests stay within the per-address limits
(``SVC_TOKEN_PER_IP`` a minute per endpoint) and fill no other test's. It changes only
what it was given: its client's tokens, its person's sessions and codes. No stateful
phase: the document has no links (no OAuth operation has a path parameter to fill).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests.harness import records
from tests.harness.fuzz import Operation, Operations, assert_clean, run_schemathesis
from tests.harness.oidc import Authorization, Browser, exchange
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

GRANTS = ("authorization_code", "refresh_token", "client_credentials")
OIDC = ("openid", "profile", "email", "offline_access")
API_SCOPE = "idp:audit:read"
MAX_EXAMPLES = 15


@dataclass
class Given:
    """The real values the run starts with."""

    app: records.TestClient
    secret: str
    tokens: dict[str, Any]
    pending: list[Authorization]  # each with a code issued for it, not yet exchanged
    codes: list[str]
    cookie: str  # the signed-in browser's session
    logout_cookie: str  # another session of the person, for logout to end


def given(stack: Stack) -> Given:
    # an API scope too, so that client_credentials can succeed
    app = records.create_client(stack, grant_types=GRANTS, scopes=(*OIDC, API_SCOPE))
    assert app.secret is not None
    person = records.create_user(stack)
    with Browser(stack) as browser:
        first = Authorization(app)
        tokens = exchange(stack, first, browser.sign_in(first, person))
        pending = [Authorization(app) for _ in range(3)]
        codes = [browser.reach(authorization) for authorization in pending]
        cookie = browser.session_cookie
    logout_cookie, _ = records.create_browser_session(stack, person.id)
    return Given(app, app.secret, tokens, pending, codes, cookie, logout_cookie)


def _browser_values(values: dict[str, list[str]]) -> dict[str, list[str]]:
    """The same values in the query (GET) and in the form (POST)."""
    return {f"{where}.{name}": v for where in ("query", "body") for name, v in values.items()}


def _operations(g: Given) -> list[Operation]:
    app, basic = g.app, (g.app.client_id, g.secret)
    access, refresh = g.tokens["access_token"], g.tokens["refresh_token"]
    authorize = {k: [v] for k, v in g.pending[0].params().items()}
    return [
        Operation(
            "^/oauth2/token$",
            basic=basic,
            values={
                "body.grant_type": GRANTS,
                "body.code": g.codes,
                "body.code_verifier": [a.verifier for a in g.pending],
                "body.redirect_uri": [app.redirect_uri],
                "body.refresh_token": [refresh],
                "body.scope": ["openid", "openid profile", "offline_access", API_SCOPE],
            },
        ),
        Operation(
            "^/oauth2/(introspect|revoke)$",
            basic=basic,
            values={"body.token": [access, refresh, g.tokens["id_token"]]},
        ),
        Operation(
            "^/oauth2/userinfo$",
            headers={"Authorization": f"Bearer {access}"},
            values={"body.access_token": [access]},
        ),
        Operation(
            "^/oauth2/authorize$",
            headers={"Cookie": f"svc_session={g.cookie}"},
            values=_browser_values({**authorize, "prompt": ["none", "login", "consent"]}),
        ),
        Operation(  # RFC 9126: a pushed authorization request, client_secret_basic
            "^/oauth2/par$",
            basic=basic,
            values={f"body.{name}": v for name, v in authorize.items()},
        ),
        Operation(
            "^/oauth2/logout$",
            headers={"Cookie": f"svc_session={g.logout_cookie}"},
            values=_browser_values(
                {
                    "client_id": [app.client_id],
                    "post_logout_redirect_uri": [app.post_logout_redirect_uri],
                    "id_token_hint": [g.tokens["id_token"]],
                }
            ),
        ),
    ]


def token_operations(stack: Stack) -> Operations:
    """Each operation from an address of its own: a limit is per address and endpoint."""
    return Operations(
        [
            replace(op, headers={**op.headers, "X-Forwarded-For": f"198.18.21.{number}"})
            for number, op in enumerate(_operations(given(stack)), start=1)
        ]
    )


def test_no_server_error_and_every_answer_matches_its_schema(stack: Stack, tmp_path: Path) -> None:
    run = run_schemathesis(
        stack.service_url("token"),
        None,
        tmp_path,
        max_examples=MAX_EXAMPLES,
        phases=("examples", "coverage", "fuzzing"),
        operations=token_operations(stack),
        address=None,
    )
    assert_clean(run)
