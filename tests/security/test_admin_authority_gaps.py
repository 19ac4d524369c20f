"""Authority the admin API applies, missing on the paths next to it.

Played as an attacker holding a lesser scope:

- Taking someone out of a group takes away the scopes of the group's roles, as adding
  them gives those scopes. A person holding only ``idp:groups:write`` or ``idp:scim:write``,
  or a SCIM machine client, removed a full administrator from the group that made them
  one (``DELETE /admin/groups/{id}/members/{user}``, SCIM ``PATCH`` remove and ``PUT``
  replacing the members) or deleted that group (``DELETE /admin/groups/{id}``, SCIM
  ``DELETE /Groups/{id}``): 204/200, the administrator was demoted.
- Re-enabling a disabled administrator hands their account back: a help desk holding
  only ``idp:users:write`` re-enabled a disabled full administrator (``PATCH
  /admin/users/{id} {"disabled": false}``), and a SCIM machine client did the same with
  ``active: true``: 200.

What must hold now: taking members out of a group (or deleting a group that has members)
needs what adding them needs, a recent sign-in with a secret and a caller holding every
scope the group gives (403 ``admin.scope_not_held``, audited ``access.denied``, nothing
changed); re-enabling is a change of the person's credentials as disabling is: an
administrator needs a caller signed in with two factors holding every administration
scope they hold (a machine client: 403 ``admin.two_factors_required``). A full
administrator signed in with two factors still can.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from idp_common.protocol.constants import (
    ADMIN_SCOPES,
    SCOPE_IDP_SCIM_READ,
    SCOPE_IDP_SCIM_WRITE,
)
from tests.harness import records
from tests.harness.stack import Stack
from tests.security.admin_callers import Caller, denials, rows

pytestmark = pytest.mark.integration

SCIM = (SCOPE_IDP_SCIM_READ, SCOPE_IDP_SCIM_WRITE)
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
USER = "urn:ietf:params:scim:schemas:core:2.0:User"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"


def person_holding(stack: Stack, *scopes: str) -> Caller:
    return Caller(stack, records.create_user(stack, scopes=scopes).id, scopes)


def full_administrator(stack: Stack) -> Caller:
    """A person holding every administration scope and SCIM's, signed in with two factors."""
    return person_holding(stack, *ADMIN_SCOPES, *SCIM)


def scim_machine(stack: Stack) -> Caller:
    client = records.create_client(stack, scopes=SCIM, grant_types=("client_credentials",))
    return Caller(stack, client.client_id, SCIM)


def administrators_group(stack: Stack) -> tuple[str, str]:
    """A group giving the seeded ``administrator`` role, and its one member (a full
    administrator through it): their ids."""
    victim = records.create_user(stack)
    (group,) = rows(
        stack,
        "WITH g AS (INSERT INTO groups (name, description) VALUES ($1, '') RETURNING id),"
        " r AS (INSERT INTO group_roles (group_id, role_id)"
        "  SELECT g.id, roles.id FROM g, roles WHERE roles.name = 'administrator'),"
        " m AS (INSERT INTO group_members (group_id, user_id) SELECT g.id, $2 FROM g)"
        " SELECT id FROM g",
        f"admins-{uuid.uuid4().hex[:8]}",
        uuid.UUID(victim.id),
    )
    return str(group["id"]), victim.id


def is_member(stack: Stack, group_id: str, user_id: str) -> bool:
    found = rows(
        stack,
        "SELECT 1 FROM group_members WHERE group_id = $1 AND user_id = $2",
        uuid.UUID(group_id),
        uuid.UUID(user_id),
    )
    return bool(found)


def group_exists(stack: Stack, group_id: str) -> bool:
    return bool(rows(stack, "SELECT 1 FROM groups WHERE id = $1", uuid.UUID(group_id)))


def is_disabled(stack: Stack, user_id: str) -> bool:
    (row,) = rows(stack, "SELECT disabled FROM users WHERE id = $1", uuid.UUID(user_id))
    return bool(row["disabled"])


def assert_refused(answer: httpx.Response, code: str, *, scim: bool = False) -> None:
    assert answer.status_code == 403, answer.text
    body = answer.json()
    if scim:
        assert body["schemas"] == [ERROR] and body["status"] == "403", body
    else:
        assert answer.headers["content-type"] == "application/problem+json"
        assert body["code"] == code, body


def remove_by_patch(user_id: str) -> dict[str, Any]:
    return {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "remove", "path": f'members[value eq "{user_id}"]'}],
    }


# --- taking members out of a group -------------------------------------------------------


def test_groups_write_cannot_demote_an_administrator_through_the_admin_api(
    stack: Stack,
) -> None:
    group, victim = administrators_group(stack)
    helpdesk = person_holding(stack, "idp:groups:write")
    removed = helpdesk.call("DELETE", f"/admin/groups/{group}/members/{victim}")
    assert_refused(removed, "admin.scope_not_held")
    assert "idp:users:write" in removed.json()["detail"]
    assert_refused(helpdesk.call("DELETE", f"/admin/groups/{group}"), "admin.scope_not_held")
    assert is_member(stack, group, victim) and group_exists(stack, group)
    assert [d["code"] for d in denials(stack, helpdesk.subject)] == ["admin.scope_not_held"] * 2

    # A full administrator signed in with two factors still can.
    full = person_holding(stack, *ADMIN_SCOPES)
    assert full.call("DELETE", f"/admin/groups/{group}/members/{victim}").status_code == 204
    assert full.call("DELETE", f"/admin/groups/{group}").status_code == 204
    assert not group_exists(stack, group)


@pytest.mark.parametrize("attacker", ["scim-person", "scim-machine"])
def test_scim_cannot_demote_an_administrator(stack: Stack, attacker: str) -> None:
    caller = person_holding(stack, *SCIM) if attacker == "scim-person" else scim_machine(stack)
    group, victim = administrators_group(stack)
    path = f"/scim/v2/Groups/{group}"
    patched = caller.call("PATCH", path, remove_by_patch(victim))
    assert_refused(patched, "admin.scope_not_held", scim=True)
    replaced = caller.call(
        "PUT", path, {"schemas": [GROUP], "displayName": f"emptied-{uuid.uuid4().hex[:6]}"}
    )
    assert_refused(replaced, "admin.scope_not_held", scim=True)
    assert_refused(caller.call("DELETE", path), "admin.scope_not_held", scim=True)
    bulk = caller.call(
        "POST",
        "/scim/v2/Bulk",
        {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
            "Operations": [{"method": "DELETE", "path": f"/Groups/{group}"}],
        },
    )
    assert bulk.status_code == 200, bulk.text
    assert bulk.json()["Operations"][0]["status"] == "403", bulk.json()
    assert is_member(stack, group, victim) and group_exists(stack, group)
    assert [d["code"] for d in denials(stack, caller.subject)] == ["admin.scope_not_held"] * 4


def test_scim_still_manages_groups_that_give_nothing_and_full_administrators_all(
    stack: Stack,
) -> None:
    machine = scim_machine(stack)
    person = records.create_user(stack)
    created = machine.call(
        "POST",
        "/scim/v2/Groups",
        {
            "schemas": [GROUP],
            "displayName": f"readers-{uuid.uuid4().hex[:6]}",
            "members": [{"value": person.id}],
        },
    )
    assert created.status_code == 201, created.text
    plain = created.json()["id"]
    left = machine.call("PATCH", f"/scim/v2/Groups/{plain}", remove_by_patch(person.id))
    assert left.status_code == 200, left.text
    assert machine.call("DELETE", f"/scim/v2/Groups/{plain}").status_code == 204

    group, victim = administrators_group(stack)
    full = full_administrator(stack)
    demoted = full.call("PATCH", f"/scim/v2/Groups/{group}", remove_by_patch(victim))
    assert demoted.status_code == 200, demoted.text
    assert not is_member(stack, group, victim)
    assert full.call("DELETE", f"/scim/v2/Groups/{group}").status_code == 204


# --- re-enabling a disabled administrator ------------------------------------------------


def disabled_administrator(stack: Stack) -> str:
    victim = records.create_user(stack, scopes=tuple(ADMIN_SCOPES))
    rows(stack, "UPDATE users SET disabled = true WHERE id = $1 RETURNING id", uuid.UUID(victim.id))
    return victim.id


def test_a_lesser_administrator_cannot_re_enable_a_disabled_administrator(stack: Stack) -> None:
    victim = disabled_administrator(stack)
    path = f"/admin/users/{victim}"
    helpdesk = person_holding(stack, "idp:users:write")
    refused = helpdesk.call("PATCH", path, {"disabled": False})
    assert_refused(refused, "admin.scope_not_held")
    assert "idp:roles:write" in refused.json()["detail"]
    machine = records.create_client(
        stack, scopes=("idp:users:write",), grant_types=("client_credentials",)
    )
    robot = Caller(stack, machine.client_id, ("idp:users:write",))
    assert_refused(robot.call("PATCH", path, {"disabled": False}), "admin.two_factors_required")
    assert is_disabled(stack, victim)
    assert len(denials(stack, helpdesk.subject)) == 1

    full = person_holding(stack, *ADMIN_SCOPES)
    enabled = full.call("PATCH", path, {"disabled": False})
    assert enabled.status_code == 200, enabled.text
    assert not is_disabled(stack, victim)


def test_scim_cannot_re_enable_a_disabled_administrator(stack: Stack) -> None:
    victim = disabled_administrator(stack)
    machine = scim_machine(stack)
    path = f"/scim/v2/Users/{victim}"
    patch = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "path": "active", "value": True}],
    }
    assert_refused(machine.call("PATCH", path, patch), "admin.two_factors_required", scim=True)
    current = machine.call("GET", path)
    assert current.status_code == 200, current.text
    replaced = {**current.json(), "active": True}
    assert_refused(machine.call("PUT", path, replaced), "admin.two_factors_required", scim=True)
    assert is_disabled(stack, victim)
    codes = [d["code"] for d in denials(stack, machine.subject)]
    assert codes == ["admin.two_factors_required"] * 2

    full = full_administrator(stack)
    enabled = full.call("PATCH", path, patch)
    assert enabled.status_code == 200, enabled.text
    assert not is_disabled(stack, victim)
