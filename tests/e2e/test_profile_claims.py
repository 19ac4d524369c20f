"""Claim release of mapped profile fields, end to end (contract §2 "Profile field" rule 2;
docs/design.md "Claim release"): a value mapped to a claim appears in the ID token and at
``/oauth2/userinfo`` exactly when the authorization granted the field's ``claimScope``.

An administrator defines the fields and sets the values through the admin API; a real RP
(Authlib) signs the person in through the proxy, as in ``test_oidc_flow_authlib``.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Any

import httpx
import pytest
from authlib.integrations.httpx_client import OAuth2Client
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from tests.e2e.test_oidc_flow_authlib import sign_in
from tests.harness import records
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi

pytestmark = pytest.mark.e2e


def define(api: AdminApi, **body: Any) -> dict[str, Any]:
    resp = api.post("/admin/profile-fields", json=body)
    assert resp.status_code == 201, resp.text
    created: dict[str, Any] = resp.json()
    return created


def tokens_and_userinfo(
    stack: Stack, app: records.TestClient, person: records.TestUser, scope: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sign in with ``scope``; the validated ID token's claims and the userinfo answer."""
    metadata = httpx.get(stack.proxy_url + "/.well-known/openid-configuration").json()
    jwks = JsonWebKey.import_key_set(httpx.get(metadata["jwks_uri"]).json())
    rp = OAuth2Client(
        app.client_id,
        app.secret,
        scope=scope,
        redirect_uri=app.redirect_uri,
        code_challenge_method="S256",
        timeout=10,
    )
    verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(12)
    url, _ = rp.create_authorization_url(
        metadata["authorization_endpoint"], nonce=nonce, code_verifier=verifier
    )
    with httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=10) as browser:
        callback = sign_in(browser, url, person)
    token = rp.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier
    )
    claims = jwt.decode(
        token["id_token"],
        jwks,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": stack.issuer}},
        claims_params={"nonce": nonce, "client_id": app.client_id},
    )
    claims.validate()
    userinfo = rp.get(metadata["userinfo_endpoint"])
    assert userinfo.status_code == 200, userinfo.text
    return dict(claims), userinfo.json()


def test_mapped_claims_follow_the_granted_claim_scope(stack: Stack) -> None:
    api = AdminApi(stack)
    try:
        suffix = uuid.uuid4().hex[:8]
        dept = define(
            api,
            key=f"department_{suffix}",
            label="Department",
            claimName=f"department_{suffix}",
            claimScope="profile",
        )
        level = define(
            api,
            key=f"level_{suffix}",
            label="Level",
            dataType="integer",
            claimName=f"level_{suffix}",
            claimScope="email",
        )
        hidden = define(api, key=f"hidden_{suffix}", label="Not mapped")
        person = records.create_user(stack)
        values = {dept["key"]: "Research", level["key"]: 7, hidden["key"]: "secret-ish"}
        resp = api.patch(f"/admin/users/{person.id}/profile", json=values)
        assert resp.status_code == 200, resp.text
    finally:
        api.close()
    app = records.create_client(stack, redirect_uri="http://127.0.0.1:9/callback")

    id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
    for answer in (id_claims, userinfo):
        assert answer[dept["claimName"]] == "Research"
        assert level["claimName"] not in answer  # its claimScope (email) was not granted
        assert hidden["key"] not in answer  # an unmapped field is never released

    id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid email")
    for answer in (id_claims, userinfo):
        assert answer[level["claimName"]] == 7  # typed at the edge
        assert dept["claimName"] not in answer

    id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid")
    for answer in (id_claims, userinfo):
        assert dept["claimName"] not in answer
        assert level["claimName"] not in answer


def test_a_group_field_is_released_only_while_the_person_is_a_member(stack: Stack) -> None:
    api = AdminApi(stack)
    suffix = uuid.uuid4().hex[:8]
    person = records.create_user(stack)
    try:
        group = api.post("/admin/groups", json={"name": f"lab-{suffix}"}).json()
        added = api.post(f"/admin/groups/{group['id']}/members", json={"members": [person.id]})
        assert added.status_code == 200, added.text
        badge = define(
            api,
            key=f"badge_{suffix}",
            label="Lab badge",
            groupId=group["id"],
            claimName=f"badge_{suffix}",
            claimScope="profile",
        )
        resp = api.patch(f"/admin/users/{person.id}/profile", json={badge["key"]: "B-42"})
        assert resp.status_code == 200, resp.text
        app = records.create_client(stack, redirect_uri="http://127.0.0.1:9/callback")

        id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
        assert id_claims[badge["claimName"]] == "B-42"
        assert userinfo[badge["claimName"]] == "B-42"

        left = api.delete(f"/admin/groups/{group['id']}/members/{person.id}")
        assert left.status_code == 204, left.text
        id_claims, userinfo = tokens_and_userinfo(stack, app, person, "openid profile")
        assert badge["claimName"] not in id_claims  # the field no longer applies
        assert badge["claimName"] not in userinfo
    finally:
        api.close()
