"""Attack 8: one administration write scope was full administration.

Every ``/admin/*`` route checked only its own permission. So a person (or a machine
client) holding only ``idp:users:write`` could write their own grants and give themselves
``idp:roles:write``, the ``administrator`` role, anything; ``idp:roles:write`` could add
any scope to a role they hold; ``idp:groups:write`` could join a group of administrators;
``idp:clients:write`` could give a machine client every scope (or take over one that had
them by rotating its secret); and ``idp:users:write`` could reset the password of a full
administrator and sign in as them.

What must hold now: nobody gives a scope they do not hold (directly, through a role, a
group, or as a machine client its own scopes): 403 ``admin.scope_not_held`` naming the
scopes, an ``access.denied`` audit row, and nothing stored. Changing another
administrator's credentials needs a recent sign-in with two factors (a 1-factor token gets
the RFC 9470 step-up challenge) and a caller holding every administration scope that
administrator holds. A full administrator signed in with two factors still can.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.harness import records
from tests.harness.stack import Stack
from tests.security.admin_callers import Caller, denials, rows

pytestmark = pytest.mark.integration

ONE_FACTOR = {"amr": ["pwd"], "acr": "urn:idp:acr:1fa"}


def person_with(stack: Stack, *scopes: str, **claims: Any) -> Caller:
    person = records.create_user(stack, scopes=scopes)
    return Caller(stack, person.id, scopes, **claims)


def direct_scopes(stack: Stack, user_id: str) -> list[str]:
    found = rows(
        stack,
        "SELECT s.value FROM user_scopes us JOIN scopes s ON s.id = us.scope_id"
        " WHERE us.user_id = $1 ORDER BY s.value",
        uuid.UUID(user_id),
    )
    return [str(r["value"]) for r in found]


def admin_role_id(stack: Stack) -> str:
    return str(rows(stack, "SELECT id FROM roles WHERE name = 'administrator'")[0]["id"])


def assert_not_held(answer: httpx.Response, *missing: str) -> None:
    assert answer.status_code == 403, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    body = answer.json()
    assert body["code"] == "admin.scope_not_held", body
    for scope in missing:
        assert scope in body["detail"], body


def test_users_write_cannot_grant_itself_more(stack: Stack) -> None:
    me = person_with(stack, "idp:users:write")
    path = f"/admin/users/{me.subject}"
    answer = me.call("PUT", f"{path}/scopes", {"scopes": ["idp:users:write", "idp:roles:write"]})
    assert_not_held(answer, "idp:roles:write")
    assert direct_scopes(stack, me.subject) == ["idp:users:write"]
    assert_not_held(me.call("PUT", f"{path}/roles", {"roles": [admin_role_id(stack)]}))
    assert rows(stack, "SELECT 1 FROM user_roles WHERE user_id = $1", uuid.UUID(me.subject)) == []
    logged = denials(stack, me.subject)
    assert len(logged) == 2 and all(r["status_code"] == 403 for r in logged)
    assert "idp:roles:write" in str(logged[0]["detail"])
    # Keeping a grant it already has, and giving what it holds, still work.
    assert me.call("PUT", f"{path}/scopes", {"scopes": ["idp:users:write"]}).status_code == 200


def test_roles_write_cannot_widen_its_own_role(stack: Stack) -> None:
    me = person_with(stack)
    (role,) = rows(
        stack,
        "WITH r AS (INSERT INTO roles (name, description) VALUES ($1, '') RETURNING id),"
        " s AS (INSERT INTO role_scopes (role_id, scope_id)"
        "  SELECT r.id, scopes.id FROM r, scopes WHERE scopes.value = 'idp:roles:write'),"
        " u AS (INSERT INTO user_roles (user_id, role_id) SELECT $2, r.id FROM r)"
        " SELECT id FROM r",
        f"role-managers-{uuid.uuid4().hex[:8]}",
        uuid.UUID(me.subject),
    )
    me.scopes = ("idp:roles:write",)
    wider = {"scopes": ["idp:roles:write", "idp:users:write", "idp:audit:read"]}
    assert_not_held(
        me.call("PUT", f"/admin/roles/{role['id']}/scopes", wider),
        "idp:audit:read",
        "idp:users:write",
    )
    held = rows(
        stack,
        "SELECT s.value FROM role_scopes rs JOIN scopes s ON s.id = rs.scope_id"
        " WHERE rs.role_id = $1",
        role["id"],
    )
    assert [r["value"] for r in held] == ["idp:roles:write"]


def test_groups_write_cannot_join_or_widen_an_administrators_group(stack: Stack) -> None:
    me = person_with(stack, "idp:groups:write")
    (group,) = rows(
        stack,
        "WITH g AS (INSERT INTO groups (name, description) VALUES ($1, '') RETURNING id),"
        " r AS (INSERT INTO group_roles (group_id, role_id) SELECT g.id, $2 FROM g)"
        " SELECT id FROM g",
        f"admins-{uuid.uuid4().hex[:8]}",
        uuid.UUID(admin_role_id(stack)),
    )
    joined = me.call("POST", f"/admin/groups/{group['id']}/members", {"members": [me.subject]})
    assert_not_held(joined, "idp:users:write")
    member = rows(stack, "SELECT 1 FROM group_members WHERE user_id = $1", uuid.UUID(me.subject))
    assert member == []

    (mine,) = rows(
        stack,
        "WITH g AS (INSERT INTO groups (name, description) VALUES ($1, '') RETURNING id),"
        " m AS (INSERT INTO group_members (group_id, user_id) SELECT g.id, $2 FROM g)"
        " SELECT id FROM g",
        f"mine-{uuid.uuid4().hex[:8]}",
        uuid.UUID(me.subject),
    )
    widened = me.call("PUT", f"/admin/groups/{mine['id']}/roles", {"roles": [admin_role_id(stack)]})
    assert_not_held(widened)
    assert rows(stack, "SELECT 1 FROM group_roles WHERE group_id = $1", mine["id"]) == []


def test_clients_write_cannot_arm_a_machine_client(stack: Stack) -> None:
    me = person_with(stack, "idp:clients:write")
    machine = records.create_client(stack, scopes=(), grant_types=("client_credentials",))
    every = {"scopes": list(ADMIN_SCOPES)}
    armed = me.call("PUT", f"/admin/clients/{machine.client_id}/scopes", every)
    assert_not_held(armed, "idp:users:write")
    scoped = rows(
        stack,
        "SELECT count(*) AS n FROM client_scopes cs JOIN clients c ON c.id = cs.client_pk"
        " WHERE c.client_id = $1",
        machine.client_id,
    )
    assert scoped == [{"n": 0}]
    # Nor take over a client that already holds what it does not: its secret stays.
    strong = records.create_client(
        stack, scopes=("idp:users:write",), grant_types=("client_credentials",)
    )
    before = secret_digests(stack, strong.client_id)
    assert_not_held(me.call("POST", f"/admin/clients/{strong.client_id}/rotate-secret"))
    assert secret_digests(stack, strong.client_id) == before


def secret_digests(stack: Stack, client_id: str) -> list[dict[str, object]]:
    return rows(
        stack,
        "SELECT digest FROM client_secrets cs JOIN clients c ON c.id = cs.client_pk"
        " WHERE c.client_id = $1",
        client_id,
    )


def test_a_machine_client_gives_only_its_own_scopes(stack: Stack) -> None:
    machine = records.create_client(
        stack, scopes=("idp:users:write",), grant_types=("client_credentials",)
    )
    caller = Caller(stack, machine.client_id, ("idp:users:write",))
    person = records.create_user(stack)
    answer = caller.call("PUT", f"/admin/users/{person.id}/scopes", {"scopes": ["idp:audit:read"]})
    assert_not_held(answer, "idp:audit:read")
    assert direct_scopes(stack, person.id) == []


def password_hash(stack: Stack, user_id: str) -> object:
    found = rows(
        stack, "SELECT hash FROM password_credentials WHERE user_id = $1", uuid.UUID(user_id)
    )
    return found[0]["hash"] if found else None


def test_an_administrators_password_needs_two_factors_and_a_stronger_caller(
    stack: Stack,
) -> None:
    victim = records.create_user(stack, scopes=tuple(ADMIN_SCOPES))
    hash_before = password_hash(stack, victim.id)
    body = {"password": "a brand new passphrase 42"}
    path = f"/admin/users/{victim.id}/reset-password"

    helpdesk = person_with(stack, "idp:users:write")
    assert_not_held(helpdesk.call("POST", path, body), "idp:roles:write")

    one_factor = person_with(stack, *ADMIN_SCOPES, **ONE_FACTOR)
    refused = one_factor.call("POST", path, body)
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == "auth.insufficient_user_authentication"
    challenge = refused.headers["www-authenticate"]
    assert 'error="insufficient_user_authentication"' in challenge
    assert "urn:idp:acr:2fa" in challenge
    for verb, target in (("DELETE", "totp"), ("DELETE", "face")):
        assert one_factor.call(verb, f"/admin/users/{victim.id}/{target}").status_code == 403
    changed = one_factor.call("PATCH", f"/admin/users/{victim.id}", {"email": "mine@example.com"})
    assert changed.status_code == 403, changed.text
    assert one_factor.call("DELETE", f"/admin/users/{victim.id}").status_code == 403
    assert password_hash(stack, victim.id) == hash_before
    assert rows(stack, "SELECT email FROM users WHERE id = $1", uuid.UUID(victim.id)) == [
        {"email": victim.email}
    ]
    assert len(denials(stack, one_factor.subject)) == 5

    # The same change by a full administrator who signed in with two factors.
    full = person_with(stack, *ADMIN_SCOPES)
    assert full.call("POST", path, body).status_code == 204
    assert password_hash(stack, victim.id) != hash_before
