"""A deleted client keeps administering.

The attack: a confidential client holding administration scopes (``idp:users:read`` for
the admin API, ``idp:scim:read`` for SCIM provisioning) takes a client-credentials token.
The administrator deletes the client (``DELETE /admin/clients/{id}``, 204), or cuts a scope
from it (``PUT /admin/clients/{id}/scopes`` without it): its secret stops working at the
token endpoint, but the token it already holds still answered 200 at ``GET /admin/users``
and ``GET /scim/v2/Users`` (same guard) until it expired.

What must hold: a deleted client's token gets 401 ``invalid_token`` at both; a token
holding a scope its client no longer has gets 401 ``invalid_token`` at both too (the token
stops, not only the cut scope), while a token the client takes afterwards, within what it
still holds, works.

The client is registered through the admin API and its tokens come from the token
endpoint; the administrator is the harness's (a real person whose token the test signs
with the stack's key, as every admin API test does).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_SCIM_READ, SCOPE_IDP_USERS_READ
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.interop.resource_support import Client as Machine
from tests.security import token_standing_support as ts

pytestmark = pytest.mark.integration

USERS = "/admin/users"
SCIM_USERS = "/scim/v2/Users"


@pytest.fixture
def admin(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    yield api
    api.close()


def register(admin: AdminApi, scopes: list[str]) -> Machine:
    body = {
        "name": f"Provisioning {uuid.uuid4().hex[:8]}",
        "type": "confidential",
        "grantTypes": ["client_credentials"],
        "redirectUris": [],
    }
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    machine = Machine(created.json()["client_id"], created.json()["client_secret"])
    granted = admin.put(f"/admin/clients/{machine.client_id}/scopes", json={"scopes": scopes})
    assert granted.status_code == 200, granted.text
    return machine


def machine_token(stack: Stack, machine: Machine, scopes: list[str]) -> str:
    answer = httpx.post(
        stack.proxy_url + ts.TOKEN_PATH,
        data={"grant_type": "client_credentials", "scope": " ".join(scopes)},
        auth=(machine.client_id, machine.secret),
        timeout=20,
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def reach(stack: Stack, token: str) -> dict[str, str]:
    """What the admin API and SCIM answer ``token``."""
    return {
        path: ts.outcome(ts.call(stack, "admin", "GET", path, token))
        for path in (USERS, SCIM_USERS)
    }


BOTH = [SCOPE_IDP_USERS_READ, SCOPE_IDP_SCIM_READ]
REFUSED = {USERS: ts.REFUSED, SCIM_USERS: ts.REFUSED}


def test_a_deleted_clients_token_stops(stack: Stack, admin: AdminApi) -> None:
    machine = register(admin, BOTH)
    token = machine_token(stack, machine, BOTH)
    assert reach(stack, token) == {USERS: "200", SCIM_USERS: "200"}

    deleted = admin.delete(f"/admin/clients/{machine.client_id}")
    assert deleted.status_code == 204, deleted.text

    assert reach(stack, token) == REFUSED


def test_a_token_holding_a_scope_cut_from_its_client_stops(stack: Stack, admin: AdminApi) -> None:
    machine = register(admin, BOTH)
    token = machine_token(stack, machine, BOTH)
    assert reach(stack, token) == {USERS: "200", SCIM_USERS: "200"}

    cut = admin.put(
        f"/admin/clients/{machine.client_id}/scopes", json={"scopes": [SCOPE_IDP_SCIM_READ]}
    )
    assert cut.status_code == 200, cut.text

    assert reach(stack, token) == REFUSED
    # What the client still holds, it may still use with a token taken now.
    narrower = machine_token(stack, machine, [SCOPE_IDP_SCIM_READ])
    scim = ts.call(stack, "admin", "GET", SCIM_USERS, narrower)
    assert scim.status_code == 200, scim.text
