"""Token exchange (RFC 8693) through the proxy.

A person signs in to a front end (Authlib's code flow) whose access token reaches the
orders API; the orders API's own client exchanges it for a token addressed to the billing
API, acting for the person: ``sub`` kept, ``aud`` the billing API, ``act`` the orders
client, the scope narrowed, no refresh token. Which audiences a client may exchange for is
the administrator's ``tokenExchangeAudiences`` (default none): any other is
``invalid_target``. A subject token that is revoked, expired, signed by someone else or not
addressed to the exchanging client is ``invalid_request`` (RFC 8693 §2.2.2).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.harness import tokens
from tests.harness.api import ApiClient, assert_problem
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.interop.resource_support import (
    ACCESS_TOKEN_TYPE,
    EXCHANGE,
    Client,
    ExchangeSetting,
    code_flow,
    create_client,
    exchange_setting,
    sent,
    token_request,
)

pytestmark = pytest.mark.e2e
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"


@pytest.fixture(scope="module")
def setting(stack: Stack, admin: ApiClient) -> ExchangeSetting:
    return exchange_setting(stack, admin)


def _person_token(stack: Stack, s: ExchangeSetting) -> dict[str, Any]:
    scope = f"openid {s.orders.scope} {s.billing.scope}"
    return code_flow(stack, s.front, s.person, scope)[1]


def _exchange(
    stack: Stack, client: Client, subject: str, *targets: tuple[str, str], **extra: str
) -> httpx.Response:
    form = [
        ("grant_type", EXCHANGE),
        ("subject_token", subject),
        ("subject_token_type", extra.pop("subject_token_type", ACCESS_TOKEN_TYPE)),
        *targets,
        *extra.items(),
    ]
    return token_request(stack, client, form)


def _error(response: httpx.Response, error: str) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == error, body
    return body


def test_exchange_for_another_api_acts_for_the_person(
    stack: Stack, admin: ApiClient, setting: ExchangeSetting, jwks: dict[str, Any]
) -> None:
    s = setting
    subject = _person_token(stack, s)
    subject_claims = tf.validate_jwt(stack, subject["access_token"], jwks)[1]
    assert s.orders.audience in subject_claims["aud"]

    answer = sent(
        _exchange(
            stack, s.orders_service, subject["access_token"], ("audience", s.billing.audience)
        ),
        200,
    )
    assert answer["issued_token_type"] == ACCESS_TOKEN_TYPE
    assert answer["token_type"] == "Bearer"
    assert answer["scope"] == s.billing.scope
    assert "refresh_token" not in answer and "id_token" not in answer
    header, claims = tf.validate_jwt(stack, answer["access_token"], jwks)
    assert header["typ"] == "at+jwt"
    assert claims["aud"] == s.billing.audience
    assert claims["sub"] == s.person.id == subject_claims["sub"]
    assert claims["act"] == {"sub": s.orders_service.client_id}
    assert claims["client_id"] == s.orders_service.client_id
    assert claims["scope"] == s.billing.scope
    assert claims["exp"] <= subject_claims["exp"]
    assert claims["jti"] != subject_claims["jti"]

    # ``resource`` names the target as well as ``audience``
    by_resource = _exchange(
        stack, s.orders_service, subject["access_token"], ("resource", s.billing.audience)
    )
    assert sent(by_resource, 200)["scope"] == s.billing.scope
    # asking for a scope of another API than the target leaves nothing: invalid_scope
    wrong_scope = _exchange(
        stack,
        s.orders_service,
        subject["access_token"],
        ("audience", s.billing.audience),
        scope=s.orders.scope,
    )
    _error(wrong_scope, "invalid_scope")

    exchanged = [
        row
        for row in admin.audit_rows(s.person.id)
        if row["action"] == "token.exchanged"
        and json.loads(str(row["detail"]))["subject_jti"] == subject_claims["jti"]
    ]
    assert len(exchanged) == 2  # the two that succeeded; the invalid_scope one was refused
    assert {row["actor"] for row in exchanged} == {s.orders_service.client_id}


def test_exchange_to_an_audience_the_client_may_not_reach(
    stack: Stack, admin: ApiClient, setting: ExchangeSetting
) -> None:
    s = setting
    subject = _person_token(stack, s)["access_token"]
    for audience in (s.orders.audience, s.other.audience, "urn:no-such-api"):
        refused = _exchange(stack, s.orders_service, subject, ("audience", audience))
        _error(refused, "invalid_target")
    # neither audience nor resource: the target is missing
    _error(_exchange(stack, s.orders_service, subject), "invalid_target")
    # a client without the grant
    front = _exchange(stack, s.front, subject, ("audience", s.billing.audience))
    assert front.status_code == 400 and front.json()["error"] == "unauthorized_client"
    # another client with the grant and the audience allowed, but the token is not its own
    stranger = create_client(
        admin, grants=[EXCHANGE], scopes=[s.other.scope], exchange_audiences=[s.billing.audience]
    )
    _error(_exchange(stack, stranger, subject, ("audience", s.billing.audience)), "invalid_request")


def _minted(stack: Stack, s: ExchangeSetting, **claims: Any) -> str:
    return tokens.mint(
        stack.key_dir,
        issuer=stack.issuer,
        scopes=[s.orders.scope, s.billing.scope],
        subject=s.person.id,
        # as the front application's token: its client holds these scopes
        **{"aud": [f"{stack.issuer}/api", s.orders.audience], "client_id": s.front.client_id}
        | claims,
    )


def _foreign(stack: Stack, s: ExchangeSetting) -> str:
    key = RSAKey.generate_key(2048, parameters={"kid": "foreign"})
    now = int(time.time())
    claims = {
        "iss": stack.issuer,
        "sub": s.person.id,
        "aud": [f"{stack.issuer}/api", s.orders.audience],
        "client_id": s.front.client_id,
        "scope": f"{s.orders.scope} {s.billing.scope}",
        "iat": now,
        "exp": now + 600,
        "jti": uuid.uuid4().hex,
    }
    return jwt.encode({"alg": "RS256", "typ": "at+jwt", "kid": "foreign"}, claims, key)


def test_exchange_refuses_an_unusable_subject_token(
    stack: Stack, setting: ExchangeSetting, jwks: dict[str, Any]
) -> None:
    s = setting
    target = ("audience", s.billing.audience)
    assert sent(_exchange(stack, s.orders_service, _minted(stack, s), target), 200)

    person_token = _person_token(stack, s)["access_token"]
    revoked = httpx.post(
        stack.proxy_url + "/oauth2/revoke",
        data={"token": person_token},
        auth=s.front.auth,
    )
    assert revoked.status_code == 200, revoked.text
    past = int(time.time()) - 3600
    for bad in (
        person_token,  # revoked
        _minted(stack, s, now=past, ttl=600),  # expired
        _minted(stack, s, iss="https://other.example"),  # another issuer
        _foreign(stack, s),  # signed by a key that is not the provider's
        _minted(stack, s, aud=[f"{stack.issuer}/api", s.billing.audience]),  # not for orders
        "not-a-token",
    ):
        body = _error(_exchange(stack, s.orders_service, bad, target), "invalid_request")
        assert "subject_token" in body["error_description"]

    good = _minted(stack, s)
    id_type = _exchange(stack, s.orders_service, good, target, subject_token_type=ID_TOKEN_TYPE)
    _error(id_type, "invalid_request")
    actor = _exchange(stack, s.orders_service, good, target, actor_token=good)
    _error(actor, "invalid_request")


def test_admin_refuses_an_exchange_audience_that_names_no_api(
    admin: ApiClient, setting: ExchangeSetting
) -> None:
    s = setting
    service = create_client(
        admin, grants=[EXCHANGE], scopes=[s.orders.scope], exchange_audiences=[s.billing.audience]
    )
    path = f"/admin/clients/{service.client_id}"
    body = {"tokenExchangeAudiences": [s.billing.audience, "urn:no-such-api"]}
    assert_problem(admin.patch(path, json=body), 400, field="tokenExchangeAudiences[1]")
    assert sent(admin.get(path), 200)["tokenExchangeAudiences"] == [s.billing.audience]
    create = {
        "name": "Exchange to nowhere",
        "type": "confidential",
        "grantTypes": [EXCHANGE],
        "tokenExchangeAudiences": ["urn:no-such-api"],
    }
    assert_problem(
        admin.post("/admin/clients", json=create), 400, field="tokenExchangeAudiences[0]"
    )
    both = [s.billing.audience, s.other.audience]
    changed = sent(admin.patch(path, json={"tokenExchangeAudiences": both}), 200)
    assert sorted(changed["tokenExchangeAudiences"]) == sorted(both)
