"""``/entity/connections`` (contract §4 "Entity (self-service)", docs/design.md "Sign-in";
issue 5 acceptance 1).

A connection is a remembered consent, or a first-party (``skipConsent``) client holding a
live refresh token of the person. Withdrawing one deletes the consent and revokes that
client's refresh tokens of the person, nothing else; afterwards a ``prompt=none``
authorization of the client through the proxy answers ``consent_required``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import (
    SCOPE_IDP_CONNECTIONS_READ,
    SCOPE_IDP_CONNECTIONS_WRITE,
)
from tests.e2e.test_oidc_flow_authlib import query_of
from tests.harness import records
from tests.harness.records import (
    create_browser_session,
    create_client,
    create_user,
    give_consent,
    issue_session_refresh_token,
    query,
    session_exists,
)
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, assert_guarded, assert_problem
from tests.integration.entity.test_sessions import authorize_url, refresh

pytestmark = pytest.mark.integration
PATH = "/entity/connections"


def consents_of(stack: Stack, user_id: str) -> list[str]:
    rows = query(
        stack,
        "SELECT c.client_id FROM consents k JOIN clients c ON c.id = k.client_pk "
        "WHERE k.user_id = $1::uuid ORDER BY c.client_id",
        user_id,
    )
    return [str(r["client_id"]) for r in rows]


def revoke_all(stack: Stack, client_id: str, user_id: str) -> None:
    query(
        stack,
        "UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1::uuid "
        "AND client_pk = (SELECT id FROM clients WHERE client_id = $2) RETURNING id",
        user_id,
        client_id,
    )


def silent(stack: Stack, cookie: str, client: records.TestClient) -> dict[str, str]:
    answer = httpx.get(
        stack.proxy_url + authorize_url(client, prompt="none"),
        headers={"Cookie": f"svc_session={cookie}"},
        timeout=10,
    )
    return query_of(answer.headers["location"])


def detail(row: dict[str, object]) -> dict[str, Any]:
    value = row["detail"]
    parsed: dict[str, Any] = json.loads(value) if isinstance(value, str) else value  # type: ignore[assignment]
    return parsed


# --- guards -----------------------------------------------------------------------------


def test_list_is_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", PATH, SCOPE_IDP_CONNECTIONS_READ)


def test_withdraw_is_guarded_and_changes_nothing(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    app = create_client(stack)
    give_consent(stack, app.client_id, person.id, ["openid"])
    assert_guarded(entity_api, "DELETE", f"{PATH}/{app.client_id}", SCOPE_IDP_CONNECTIONS_WRITE)
    assert consents_of(stack, person.id) == [app.client_id]


def test_a_machine_token_is_refused(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    app = create_client(stack)
    give_consent(stack, app.client_id, person.id, ["openid"])
    entity_api.claims["sub"] = app.client_id
    assert_problem(entity_api.get(PATH), 404)
    assert_problem(entity_api.delete(f"{PATH}/{app.client_id}"), 404)
    assert consents_of(stack, person.id) == [app.client_id]


# --- list -------------------------------------------------------------------------------


def test_list_shows_consents_and_first_party_clients_holding_tokens(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    approved = create_client(stack)
    give_consent(stack, approved.client_id, person.id, ["openid", "profile"])
    first_party = create_client(stack, skip_consent=True)
    _, session = create_browser_session(stack, person.id)
    issue_session_refresh_token(stack, first_party.client_id, person.id, session.sid)
    # Not connections: revoked tokens only; someone else's consent.
    gone = create_client(stack, skip_consent=True)
    issue_session_refresh_token(stack, gone.client_id, person.id, session.sid)
    revoke_all(stack, gone.client_id, person.id)
    theirs = create_client(stack)
    give_consent(stack, theirs.client_id, create_user(stack).id, ["openid"])

    response = entity_api.get(PATH)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["nextCursor"] is None
    by_id = {c["clientId"]: c for c in body["items"]}
    assert list(by_id) == sorted([approved.client_id, first_party.client_id])
    shown = by_id[approved.client_id]
    assert shown["name"] == f"Test app {approved.client_id}"
    assert shown["firstParty"] is False
    assert [s["value"] for s in shown["scopes"]] == ["openid", "profile"]
    assert all(s["description"] and s["description"] != s["value"] for s in shown["scopes"])
    assert shown["grantedAt"]
    held = by_id[first_party.client_id]
    assert held["firstParty"] is True
    assert [s["value"] for s in held["scopes"]] == ["offline_access", "openid"]
    assert set(held) == {"clientId", "name", "scopes", "grantedAt", "firstParty"}


def test_list_is_empty_without_connections(entity_api: EntityApi) -> None:
    assert entity_api.get(PATH).json() == {"items": [], "nextCursor": None}


def test_list_is_paged(entity_api: EntityApi, stack: Stack, person: records.TestUser) -> None:
    made = [create_client(stack).client_id for _ in range(3)]
    for client_id in made:
        give_consent(stack, client_id, person.id, ["openid"])
    first = entity_api.get(PATH, params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["nextCursor"]
    rest = entity_api.get(PATH, params={"limit": 2, "cursor": first["nextCursor"]}).json()
    assert rest["nextCursor"] is None
    assert [c["clientId"] for c in first["items"] + rest["items"]] == sorted(made)


@pytest.mark.parametrize(
    ("params", "field"),
    [({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"cursor": "%%%"}, "cursor")],
)
def test_list_refuses_bad_paging(entity_api: EntityApi, params: dict[str, Any], field: str) -> None:
    assert_problem(entity_api.get(PATH, params=params), 422, field=field)


# --- withdraw ---------------------------------------------------------------------------


def test_withdrawing_revokes_access_and_asks_for_consent_again(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    app = create_client(stack)
    other = create_client(stack)
    for client in (app, other):
        give_consent(stack, client.client_id, person.id, ["openid", "profile"])
    cookie, session = create_browser_session(stack, person.id)
    token = issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    other_token = issue_session_refresh_token(stack, other.client_id, person.id, session.sid)
    assert "code" in silent(stack, cookie, app)

    response = entity_api.delete(f"{PATH}/{app.client_id}")
    assert response.status_code == 204, response.text
    assert consents_of(stack, person.id) == [other.client_id]
    assert refresh(stack, app, token).json()["error"] == "invalid_grant"
    assert silent(stack, cookie, app)["error"] == "consent_required"
    # Nothing else ends: the browser session and the other application's access.
    assert session_exists(stack, session.sid)
    assert refresh(stack, other, other_token).status_code == 200
    assert "code" in silent(stack, cookie, other)
    assert [c["clientId"] for c in entity_api.get(PATH).json()["items"]] == [other.client_id]
    rows = entity_api.audit_rows(app.client_id)
    assert [(r["action"], r["actor"], r["target_type"], r["status_code"]) for r in rows] == [
        ("connection.withdraw", person.id, "client", 204)
    ]
    assert detail(rows[0]) == {"hadConsent": True, "tokensRevoked": 1}
    # Withdrawn once: now it is not connected.
    assert_problem(entity_api.delete(f"{PATH}/{app.client_id}"), 404)


def test_withdrawing_a_first_party_client_revokes_its_tokens(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    app = create_client(stack, skip_consent=True)
    _, session = create_browser_session(stack, person.id)
    token = issue_session_refresh_token(stack, app.client_id, person.id, session.sid)
    assert entity_api.delete(f"{PATH}/{app.client_id}").status_code == 204
    assert refresh(stack, app, token).json()["error"] == "invalid_grant"
    assert entity_api.get(PATH).json()["items"] == []


def test_withdrawing_what_is_not_connected_is_404_and_changes_nothing(
    entity_api: EntityApi, stack: Stack, person: records.TestUser
) -> None:
    someone = create_user(stack)
    app = create_client(stack)
    give_consent(stack, app.client_id, someone.id, ["openid"])
    _, theirs = create_browser_session(stack, someone.id)
    token = issue_session_refresh_token(stack, app.client_id, someone.id, theirs.sid)

    assert_problem(entity_api.delete(f"{PATH}/{app.client_id}"), 404)
    assert_problem(entity_api.delete(f"{PATH}/no-such-client"), 404)
    assert_problem(entity_api.delete(f"{PATH}/{'x' * 300}"), 404)
    assert consents_of(stack, someone.id) == [app.client_id]
    assert refresh(stack, app, token).status_code == 200
    assert not [
        r for r in entity_api.audit_rows(app.client_id) if r["action"] == "connection.withdraw"
    ]
