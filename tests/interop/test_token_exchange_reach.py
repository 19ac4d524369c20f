"""Token exchange never widens reach (RFC 8693, RFC 9449), through the proxy.

- The provider's own API (``{issuer}/api``) is never an exchange audience: the
  administration API refuses it in ``tokenExchangeAudiences`` (422 naming the entry,
  nothing written), and the token endpoint answers ``invalid_target`` for it even when the
  database holds it (a value stored before the rule).
- A DPoP-bound subject token (``cnf.jkt``) is exchanged only with a DPoP proof: without
  one ``invalid_request``; with one the new token is ``token_type: DPoP`` and bound to the
  proof's key, the exchanging API's own (the person's key is never needed).
- The new token carries the subject token's ``sid``, so it ends with the person's session.

Every refusal is audited as ``token.exchange_refused`` with its reason.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from authlib.common.security import generate_token  # type: ignore[import-untyped]
from sqlalchemy import update

from idp_common.storage.db.models import Client as ClientRow
from tests.harness import infra, records
from tests.harness.api import ApiClient, assert_problem
from tests.harness.dpop import DpopKey
from tests.harness.stack import Stack
from tests.harness.stamps import announce_client_change
from tests.integration import token_fixtures as tf
from tests.interop.resource_support import (
    ACCESS_TOKEN_TYPE,
    EXCHANGE,
    TIMEOUT,
    Client,
    ExchangeSetting,
    code_flow,
    create_client,
    exchange_setting,
    sent,
)
from tests.security.hostile_support import unchanged_database

pytestmark = pytest.mark.e2e
TOKEN = "/oauth2/token"
OWN_API_CODE = "admin.exchange_audience_own_api"
REFUSED = "token.exchange_refused"


@pytest.fixture(scope="module")
def setting(stack: Stack, admin: ApiClient) -> ExchangeSetting:
    return exchange_setting(stack, admin)


def _own_api(stack: Stack) -> str:
    return f"{stack.issuer}/api"


def _scope(s: ExchangeSetting) -> str:
    return f"openid {s.orders.scope} {s.billing.scope}"


def _person_token(stack: Stack, s: ExchangeSetting) -> dict[str, Any]:
    """A bearer access token from a real sign-in (a browser session: ``sid``)."""
    return code_flow(stack, s.front, s.person, _scope(s))[1]


def _bound_person_token(stack: Stack, s: ExchangeSetting, key: DpopKey) -> dict[str, Any]:
    """The person's front end signs in and redeems the code with a proof of ``key``: its
    access token is DPoP-bound (``cnf.jkt``)."""
    proof = {"DPoP": key.proof("POST", stack.issuer + TOKEN)}
    body = code_flow(stack, s.front, s.person, _scope(s), token_headers=proof)[1]
    assert body["token_type"] == "DPoP"
    assert tf.unverified_claims(body["access_token"])["cnf"] == {"jkt": key.jkt}
    return body


def _exchange(
    stack: Stack,
    client: Client,
    subject: str,
    *targets: tuple[str, str],
    proof_key: DpopKey | None = None,
) -> httpx.Response:
    form = [
        ("grant_type", EXCHANGE),
        ("subject_token", subject),
        ("subject_token_type", ACCESS_TOKEN_TYPE),
        *targets,
    ]
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if proof_key is not None:
        headers["DPoP"] = proof_key.proof("POST", stack.issuer + TOKEN)
    return httpx.post(
        stack.proxy_url + TOKEN,
        content=urlencode(form),
        headers=headers,
        auth=client.auth,
        timeout=TIMEOUT,
    )


def _error(response: httpx.Response, error: str) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == error, body
    return body


def _refusals(stack: Stack, client: Client) -> list[dict[str, Any]]:
    rows = records.query(
        stack,
        "SELECT detail FROM audit_events WHERE action = $1 AND actor = $2 ORDER BY id",
        REFUSED,
        client.client_id,
    )
    return [json.loads(str(row["detail"])) for row in rows]


def _store_exchange_audiences(stack: Stack, client: Client, audiences: list[str]) -> None:
    """Write the client's ``token_exchange_audiences`` straight into the database, as data
    stored before the rule would hold them, and tell the token workers (their cache)."""

    async def work(db: Any) -> None:
        await db.execute(
            update(ClientRow)
            .where(ClientRow.client_id == client.client_id)
            .values(token_exchange_audiences=audiences)
        )

    infra.run(tf._db(stack, work))
    announce_client_change(stack)


def _assert_own_api_problem(response: httpx.Response, field: str) -> None:
    assert_problem(response, 422, field=field)
    body = response.json()
    assert body["code"] == OWN_API_CODE, body
    [named] = [e for e in body["errors"] if e["field"] == field]
    assert "own API" in named["message"], named
    assert field in body["detail"], body


# --- the administration API -----------------------------------------------------------------
def test_admin_refuses_the_own_api_on_create_and_writes_nothing(
    stack: Stack, admin: ApiClient, setting: ExchangeSetting
) -> None:
    s = setting
    name = f"Own API exchange {generate_token(8)}"
    for audiences, field in (
        ([_own_api(stack)], "tokenExchangeAudiences[0]"),
        ([s.billing.audience, _own_api(stack)], "tokenExchangeAudiences[1]"),
    ):
        create = {
            "name": name,
            "type": "confidential",
            "grantTypes": [EXCHANGE],
            "tokenExchangeAudiences": audiences,
        }
        with unchanged_database(stack):
            _assert_own_api_problem(admin.post("/admin/clients", json=create), field)
    stored = records.query(stack, "SELECT client_id FROM clients WHERE name = $1", name)
    assert stored == []


def test_admin_refuses_the_own_api_on_update_and_writes_nothing(
    stack: Stack, admin: ApiClient, setting: ExchangeSetting
) -> None:
    s = setting
    service = create_client(
        admin, grants=[EXCHANGE], scopes=[s.orders.scope], exchange_audiences=[s.billing.audience]
    )
    path = f"/admin/clients/{service.client_id}"
    for audiences, field in (
        ([_own_api(stack)], "tokenExchangeAudiences[0]"),
        ([s.billing.audience, _own_api(stack)], "tokenExchangeAudiences[1]"),
    ):
        body = {"tokenExchangeAudiences": audiences, "name": "Renamed in the same request"}
        with unchanged_database(stack):
            _assert_own_api_problem(admin.patch(path, json=body), field)
    read = sent(admin.get(path), 200)
    assert read["tokenExchangeAudiences"] == [s.billing.audience]
    assert read["name"] != "Renamed in the same request"
    # an audience that names no API keeps its own answer (400)
    unknown = {"tokenExchangeAudiences": ["urn:no-such-api"]}
    assert_problem(admin.patch(path, json=unknown), 400, field="tokenExchangeAudiences[0]")


# --- the token endpoint ---------------------------------------------------------------------
def test_grant_refuses_the_own_api_even_when_the_database_holds_it(
    stack: Stack, admin: ApiClient, setting: ExchangeSetting
) -> None:
    s = setting
    service = create_client(
        admin, grants=[EXCHANGE], scopes=[s.orders.scope], exchange_audiences=[s.billing.audience]
    )
    _store_exchange_audiences(stack, service, [s.billing.audience, _own_api(stack)])
    subject = _person_token(stack, s)["access_token"]
    for target in (("audience", _own_api(stack)), ("resource", _own_api(stack))):
        body = _error(_exchange(stack, service, subject, target), "invalid_target")
        assert "own API" in body["error_description"], body
    # the other audience the client holds still works: only the own API is refused
    assert sent(_exchange(stack, service, subject, ("audience", s.billing.audience)), 200)

    refused = [d for d in _refusals(stack, service) if d["reason"] == "invalid_target"]
    assert len(refused) == 2
    assert all("own API" in d["description"] for d in refused), refused
    assert all(d["targets"] == [_own_api(stack)] for d in refused), refused


def test_a_bound_subject_token_needs_a_proof(stack: Stack, setting: ExchangeSetting) -> None:
    s = setting
    person_key = DpopKey.generate()
    subject = _bound_person_token(stack, s, person_key)["access_token"]
    before = len(_refusals(stack, s.orders_service))

    refused = _exchange(stack, s.orders_service, subject, ("audience", s.billing.audience))
    body = _error(refused, "invalid_request")
    assert "DPoP" in body["error_description"], body

    [row] = _refusals(stack, s.orders_service)[before:]
    assert row["reason"] == "invalid_request"
    assert "DPoP" in row["description"]
    assert row["subject_jti"] == tf.unverified_claims(subject)["jti"]


def test_a_bound_subject_token_exchanged_with_a_proof_is_bound_to_the_proof_key(
    stack: Stack, setting: ExchangeSetting, jwks: dict[str, Any]
) -> None:
    s = setting
    person_key, service_key = DpopKey.generate(), DpopKey.generate("EdDSA")
    subject = _bound_person_token(stack, s, person_key)["access_token"]

    answer = sent(
        _exchange(
            stack,
            s.orders_service,
            subject,
            ("audience", s.billing.audience),
            proof_key=service_key,  # the exchanging API's own key, not the person's
        ),
        200,
    )
    assert answer["token_type"] == "DPoP"
    assert answer["issued_token_type"] == ACCESS_TOKEN_TYPE
    claims = tf.validate_jwt(stack, answer["access_token"], jwks)[1]
    assert claims["cnf"] == {"jkt": service_key.jkt}
    assert service_key.jkt != person_key.jkt
    assert claims["aud"] == s.billing.audience
    assert claims["act"] == {"sub": s.orders_service.client_id}


def test_a_bearer_subject_token_exchanged_with_a_proof_is_bound(
    stack: Stack, setting: ExchangeSetting, jwks: dict[str, Any]
) -> None:
    s = setting
    service_key = DpopKey.generate()
    subject = _person_token(stack, s)["access_token"]
    target = ("audience", s.billing.audience)

    bound = sent(_exchange(stack, s.orders_service, subject, target, proof_key=service_key), 200)
    assert bound["token_type"] == "DPoP"
    assert tf.validate_jwt(stack, bound["access_token"], jwks)[1]["cnf"] == {"jkt": service_key.jkt}
    bearer = sent(_exchange(stack, s.orders_service, subject, target), 200)
    assert bearer["token_type"] == "Bearer"
    assert "cnf" not in tf.validate_jwt(stack, bearer["access_token"], jwks)[1]


def test_the_exchanged_token_carries_the_subject_tokens_session(
    stack: Stack, setting: ExchangeSetting, jwks: dict[str, Any]
) -> None:
    s = setting
    subject = _person_token(stack, s)["access_token"]
    subject_claims = tf.validate_jwt(stack, subject, jwks)[1]
    assert isinstance(subject_claims.get("sid"), str) and subject_claims["sid"]

    answer = sent(
        _exchange(stack, s.orders_service, subject, ("audience", s.billing.audience)), 200
    )
    claims = tf.validate_jwt(stack, answer["access_token"], jwks)[1]
    assert claims["sid"] == subject_claims["sid"]
    assert claims["sub"] == subject_claims["sub"]
