"""A real relying party (Authlib) signs a person in through the proxy, end to end.

discovery → authorize → sign-in API (password, consent) → code → tokens; the ID token is
validated against the JWKS (signature, iss, aud, nonce, at_hash, sid); userinfo answers;
refresh rotates (and the spent token is refused); logout ends the session, after which
``prompt=none`` gets ``login_required``. The "browser" is an httpx client with a cookie
jar that does what the hosted page's script does.
"""

from __future__ import annotations

import hashlib
import secrets
from base64 import urlsafe_b64encode
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from authlib.integrations.httpx_client import OAuth2Client
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from tests.harness import records
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e
SCOPE = "openid profile email offline_access"


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def sign_in(browser: httpx.Client, authorize_url: str, person: records.TestUser) -> str:
    """What the hosted page does; returns the client's redirect URI with the code."""
    to_login = browser.get(authorize_url)
    assert to_login.status_code == 302, to_login.text
    challenge = query_of(to_login.headers["location"])["challenge"]
    shown = browser.get(f"/api/v1/auth/challenge/{challenge}")
    assert shown.status_code == 200, shown.text
    assert shown.json()["next"] == "password"
    step = browser.post(
        "/api/v1/auth/login",
        json={"challenge": challenge, "email": person.email, "password": person.password},
    )
    assert step.status_code == 200, step.text
    assert "svc_session" in browser.cookies
    if step.json()["next"] == "consent":
        descriptions = [
            s["description"]
            for s in browser.get(f"/api/v1/auth/challenge/{challenge}").json()["scopes"]
        ]
        assert all(descriptions)
        step = browser.post("/api/v1/auth/consent", json={"challenge": challenge, "approve": True})
        assert step.status_code == 200, step.text
    assert step.json()["next"] == "done"
    back = browser.get(step.json()["redirectTo"])
    assert back.status_code == 302, back.text
    return str(back.headers["location"])


def test_sign_in_tokens_userinfo_refresh_logout(stack: Stack) -> None:
    app = records.create_client(stack, redirect_uri="http://127.0.0.1:9/callback")
    person = records.create_user(stack)
    browser = httpx.Client(base_url=stack.proxy_url, follow_redirects=False, timeout=10)
    rp_http = {"timeout": 10}
    metadata = httpx.get(stack.proxy_url + "/.well-known/openid-configuration").json()
    # Inside this machine the issuer's host is the proxy itself.
    assert metadata["issuer"] == stack.issuer
    jwks = JsonWebKey.import_key_set(httpx.get(metadata["jwks_uri"]).json())

    rp = OAuth2Client(
        app.client_id,
        app.secret,
        scope=SCOPE,
        redirect_uri=app.redirect_uri,
        code_challenge_method="S256",
        **rp_http,
    )
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(12)
    authorize_url, state = rp.create_authorization_url(
        metadata["authorization_endpoint"], nonce=nonce, code_verifier=verifier
    )

    callback = sign_in(browser, authorize_url, person)
    assert callback.startswith(app.redirect_uri + "?")
    assert query_of(callback)["state"] == state
    assert query_of(callback)["iss"] == stack.issuer  # RFC 9207

    token = rp.fetch_token(
        metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier
    )
    assert token["token_type"].lower() == "bearer"
    claims = jwt.decode(
        token["id_token"],
        jwks,
        claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": stack.issuer}},
        claims_params={
            "nonce": nonce,
            "client_id": app.client_id,
            "access_token": token["access_token"],
        },
    )
    claims.validate()  # signature already checked by decode; iss, aud, exp, nonce, at_hash
    assert claims["sub"] == person.id
    assert claims["at_hash"]
    cookie = browser.cookies["svc_session"]
    expected_sid = urlsafe_b64encode(hashlib.sha256(cookie.encode()).digest()).rstrip(b"=")
    assert claims["sid"] == expected_sid.decode()
    assert claims["amr"] == ["pwd"]
    assert isinstance(claims["auth_time"], int)

    userinfo = rp.get(metadata["userinfo_endpoint"])
    assert userinfo.status_code == 200
    assert userinfo.json()["sub"] == person.id
    assert userinfo.json()["email"] == person.email

    first_refresh = token["refresh_token"]
    refreshed = rp.refresh_token(metadata["token_endpoint"], refresh_token=first_refresh)
    assert refreshed["refresh_token"] != first_refresh
    assert refreshed["access_token"] != token["access_token"]
    reuse = httpx.post(
        metadata["token_endpoint"],
        auth=(app.client_id, app.secret or ""),
        data={"grant_type": "refresh_token", "refresh_token": first_refresh},
    )
    assert reuse.status_code == 400
    assert reuse.json()["error"] == "invalid_grant"

    logout = browser.post(
        "/oauth2/logout",
        data={
            "id_token_hint": token["id_token"],
            "post_logout_redirect_uri": app.post_logout_redirect_uri,
            "state": "bye",
        },
    )
    assert logout.status_code == 303
    assert logout.headers["location"] == app.post_logout_redirect_uri + "?state=bye"
    silent, _ = rp.create_authorization_url(
        metadata["authorization_endpoint"],
        nonce="n2",
        code_verifier=secrets.token_urlsafe(48),
        prompt="none",
    )
    again = browser.get(silent)
    assert query_of(again.headers["location"])["error"] == "login_required"
    # The reuse above revoked the family: the newest refresh token no longer works either.
    latest = httpx.post(
        metadata["token_endpoint"],
        auth=(app.client_id, app.secret or ""),
        data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
    )
    assert latest.json()["error"] == "invalid_grant"
