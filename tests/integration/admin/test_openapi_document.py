"""The admin service's OpenAPI document (issue 4: "each route in the service's OpenAPI
document with its permission, request and response shapes; /docs outside production").

Every route of contract §4 "Admin: ..." (and docs/design.md's ``DELETE
/admin/users/{user_id}/sessions``) is documented with exactly one permission of the
``idp:<resource>:read|write`` family (``read`` for GET, ``write`` otherwise), a request body
schema where it takes one, and a response schema for its success answer.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

SPEC_ROUTES = {
    ("GET", "/admin/apis"),
    ("POST", "/admin/apis"),
    ("GET", "/admin/apis/{api_id}"),
    ("PATCH", "/admin/apis/{api_id}"),
    ("DELETE", "/admin/apis/{api_id}"),
    ("GET", "/admin/apis/{api_id}/scopes"),
    ("POST", "/admin/apis/{api_id}/scopes"),
    ("GET", "/admin/scopes/{scope_id}"),
    ("PATCH", "/admin/scopes/{scope_id}"),
    ("DELETE", "/admin/scopes/{scope_id}"),
    ("GET", "/admin/audit"),
    ("GET", "/admin/clients"),
    ("POST", "/admin/clients"),
    ("GET", "/admin/clients/{client_id}"),
    ("PATCH", "/admin/clients/{client_id}"),
    ("DELETE", "/admin/clients/{client_id}"),
    ("POST", "/admin/clients/{client_id}/rotate-secret"),
    ("PUT", "/admin/clients/{client_id}/scopes"),
    ("GET", "/admin/groups"),
    ("POST", "/admin/groups"),
    ("GET", "/admin/groups/{group_id}"),
    ("PATCH", "/admin/groups/{group_id}"),
    ("DELETE", "/admin/groups/{group_id}"),
    ("GET", "/admin/groups/{group_id}/members"),
    ("POST", "/admin/groups/{group_id}/members"),
    ("DELETE", "/admin/groups/{group_id}/members/{user_id}"),
    ("PUT", "/admin/groups/{group_id}/roles"),
    ("GET", "/admin/profile-fields"),
    ("POST", "/admin/profile-fields"),
    ("GET", "/admin/profile-fields/presets"),
    ("GET", "/admin/profile-fields/{field_id}"),
    ("PATCH", "/admin/profile-fields/{field_id}"),
    ("DELETE", "/admin/profile-fields/{field_id}"),
    ("GET", "/admin/roles"),
    ("POST", "/admin/roles"),
    ("GET", "/admin/roles/{role_id}"),
    ("PATCH", "/admin/roles/{role_id}"),
    ("DELETE", "/admin/roles/{role_id}"),
    ("PUT", "/admin/roles/{role_id}/scopes"),
    ("GET", "/admin/users"),
    ("POST", "/admin/users"),
    ("GET", "/admin/users/{user_id}"),
    ("PATCH", "/admin/users/{user_id}"),
    ("DELETE", "/admin/users/{user_id}"),
    ("GET", "/admin/users/{user_id}/effective-scopes"),
    ("GET", "/admin/users/{user_id}/profile"),
    ("PATCH", "/admin/users/{user_id}/profile"),
    ("POST", "/admin/users/{user_id}/reset-password"),
    ("PUT", "/admin/users/{user_id}/roles"),
    ("PUT", "/admin/users/{user_id}/scopes"),
    ("DELETE", "/admin/users/{user_id}/totp"),
    ("GET", "/admin/users/{user_id}/passkeys"),
    ("DELETE", "/admin/users/{user_id}/passkeys/{passkey_id}"),
    ("DELETE", "/admin/users/{user_id}/sessions"),
}
PERMISSION = re.compile(
    r"^idp:(apis|clients|groups|roles|users|profile-fields|audit):(read|write)$"
)
#: Which permission family guards each path prefix (scopes belong to APIs).
RESOURCE_OF_PREFIX = {
    "/admin/apis": "apis",
    "/admin/scopes": "apis",
    "/admin/audit": "audit",
    "/admin/clients": "clients",
    "/admin/groups": "groups",
    "/admin/profile-fields": "profile-fields",
    "/admin/roles": "roles",
    "/admin/users": "users",
}
BODY_ROUTES = {(m, p) for m, p in SPEC_ROUTES if m in ("POST", "PUT", "PATCH")} - {
    ("POST", "/admin/clients/{client_id}/rotate-secret"),
    ("POST", "/admin/users/{user_id}/reset-password"),
}


@pytest.fixture(scope="module")
def document(stack: Stack) -> dict[str, Any]:
    response = httpx.get(stack.service_url("admin") + "/openapi.json", timeout=10)
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (method.upper(), path): op
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    }


def test_every_spec_route_is_documented(document: dict[str, Any]) -> None:
    documented = {key for key in operations(document) if key[1].startswith("/admin")}
    assert SPEC_ROUTES - documented == set()


@pytest.mark.parametrize(("method", "path"), sorted(SPEC_ROUTES))
def test_route_names_its_one_permission(document: dict[str, Any], method: str, path: str) -> None:
    op = operations(document)[(method, path)]
    requirements = op.get("security") or []
    assert len(requirements) == 1 and len(requirements[0]) == 1, requirements
    (permissions,) = requirements[0].values()
    assert len(permissions) == 1, permissions
    permission = permissions[0]
    match = PERMISSION.match(permission)
    assert match, permission
    prefix = next(p for p in RESOURCE_OF_PREFIX if path.startswith(p))
    assert match.group(1) == RESOURCE_OF_PREFIX[prefix]
    assert match.group(2) == ("read" if method == "GET" else "write")
    assert permission in op.get("description", ""), "the description names the permission"


@pytest.mark.parametrize(("method", "path"), sorted(SPEC_ROUTES))
def test_route_documents_its_shapes(document: dict[str, Any], method: str, path: str) -> None:
    op = operations(document)[(method, path)]
    successes = {code: r for code, r in op["responses"].items() if code.startswith("2")}
    assert successes, op["responses"]
    for code, answer in successes.items():
        if code != "204":
            assert answer.get("content"), f"{code} has no schema"
    if (method, path) in BODY_ROUTES:
        content = op.get("requestBody", {}).get("content", {})
        assert "application/json" in content and content["application/json"].get("schema")


def test_docs_page_outside_production(stack: Stack) -> None:
    response = httpx.get(stack.service_url("admin") + "/docs", timeout=10)
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]
