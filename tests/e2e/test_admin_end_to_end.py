"""Issue 4 acceptance 4, end to end through the proxy.

An administrator signs in through the console client (public, PKCE) and, with the access
token that gives, creates through ``/admin/*``: an API with two scopes, a role holding them,
a group with that role, a person in the group, a client allowed those scopes and a profile
field mapped to a claim under one of them. ``effective-scopes`` shows the path group → role.
The person then signs in through the new client with a real OIDC library (Authlib): the
claim is in the ID token and at userinfo when its scope was granted, absent when not.
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from idp_common.protocol.constants import ADMIN_SCOPES
from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.e2e.test_profile_claims import tokens_and_userinfo
from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
PASSWORD = "a long and unusual passphrase 7"


def administrator_token(stack: Stack) -> str:
    """The console's code flow (PKCE, public client) for a person holding the admin scopes."""
    admin = records.create_user(stack, scopes=tuple(ADMIN_SCOPES))
    verifier, challenge = records.pkce_pair()
    redirect_uri = f"{stack.issuer}/console/callback"
    scope = "openid " + " ".join(ADMIN_SCOPES)
    authorize = str(
        httpx.URL(
            stack.proxy_url + "/oauth2/authorize",
            params={
                "response_type": "code",
                "client_id": "console",
                "redirect_uri": redirect_uri,
                "scope": scope,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": "s",
            },
        )
    )
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=10) as browser:
        callback = sign_in(browser, authorize, admin)
        code = parse_qs(urlsplit(callback).query)["code"][0]
        answer = browser.post(
            "/oauth2/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri,
                "client_id": "console",
                "code_verifier": verifier,
            },
        )
    assert answer.status_code == 200, answer.text
    granted = set(answer.json()["scope"].split())
    assert set(ADMIN_SCOPES) <= granted
    token: str = answer.json()["access_token"]
    return token


class Admin:
    def __init__(self, stack: Stack, token: str) -> None:
        self.http = httpx.Client(
            base_url=stack.proxy_url, headers={"Authorization": f"Bearer {token}"}, timeout=20
        )

    def send(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code == status, f"{method} {path}: {response.text}"
        return response.json() if response.content else None


def test_administrator_builds_an_application_and_its_claim_reaches_the_tokens(
    stack: Stack,
) -> None:
    s = uuid.uuid4().hex[:8]
    admin = Admin(stack, administrator_token(stack))

    api = admin.send("POST", "/admin/apis", {"name": f"hr{s}", "audience": f"urn:hr:{s}"}, 201)
    read = f"hr{s}:badge:read"
    write = f"hr{s}:records:write"
    for value in (read, write):
        admin.send(
            "POST", f"/admin/apis/{api['id']}/scopes", {"value": value, "description": value}, 201
        )
    role = admin.send("POST", "/admin/roles", {"name": f"hr-staff-{s}"}, 201)
    admin.send("PUT", f"/admin/roles/{role['id']}/scopes", {"scopes": [read, write]})
    group = admin.send("POST", "/admin/groups", {"name": f"hr-team-{s}"}, 201)
    admin.send("PUT", f"/admin/groups/{group['id']}/roles", {"roles": [role["id"]]})
    user = admin.send(
        "POST",
        "/admin/users",
        {
            "email": f"ada-{s}@example.com",
            "username": f"ada{s}",
            "displayName": "Ada",
            "password": PASSWORD,
        },
        201,
    )
    admin.send("POST", f"/admin/groups/{group['id']}/members", {"members": [user["id"]]})
    redirect_uri = "http://127.0.0.1:9/callback"
    client = admin.send(
        "POST",
        "/admin/clients",
        {
            "name": f"HR app {s}",
            "type": "confidential",
            "redirectUris": [redirect_uri],
            "postLogoutRedirectUris": [],
            "grantTypes": ["authorization_code", "refresh_token"],
            "skipConsent": True,
        },
        201,
    )
    client_id = client["client_id"]
    admin.send(
        "PUT", f"/admin/clients/{client_id}/scopes", {"scopes": ["openid", "profile", read, write]}
    )
    claim = f"hr_badge_{s}"
    admin.send(
        "POST",
        "/admin/profile-fields",
        {"key": f"badge_{s}", "label": "Badge", "claimName": claim, "claimScope": read},
        201,
    )
    admin.send("PATCH", f"/admin/users/{user['id']}/profile", {f"badge_{s}": "HR-0042"})

    explained = admin.send("GET", f"/admin/users/{user['id']}/effective-scopes")["items"]
    sources = {item["scope"]: item["sources"] for item in explained}
    for value in (read, write):
        assert {
            "kind": "group",
            "groupId": group["id"],
            "groupName": group["name"],
            "roleId": role["id"],
            "roleName": role["name"],
        } in sources[value]

    app = records.TestClient(client_id, client["client_secret"], redirect_uri, redirect_uri)
    person = records.TestUser(user["id"], user["email"], PASSWORD)

    id_claims, userinfo = tokens_and_userinfo(stack, app, person, f"openid {read}")
    assert id_claims[claim] == "HR-0042"
    assert userinfo[claim] == "HR-0042"

    id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
    assert claim not in id_claims
    assert claim not in userinfo
    assert userinfo["name"] == "Ada"  # the profile scope itself was granted
