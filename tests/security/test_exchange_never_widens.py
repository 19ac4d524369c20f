"""Token exchange turns a DPoP-bound token into a bearer token for the provider's own API.

The attack: an administrator lets a resource API's client exchange tokens for
``{issuer}/api`` (the admin API accepted it in ``tokenExchangeAudiences``: the seeded API
counts as a registered one). A person's access token for that API is DPoP-bound (its
``cnf.jkt`` names the front end's key) and also carries the person's own account scopes.
The resource API exchanges it (``audience={issuer}/api``) and got 200: scope
``idp:account:read idp:account:write``, no ``cnf``, the original ``auth_time``, a plain
Bearer token that read ``/entity/profile`` and passed the recent-sign-in gate of ``POST
/entity/passkeys/registration-options``: the takeover of the stale-token attack, from a
token that was sender-constrained. Exchanging a DPoP-bound token for any other API without
a proof gave a bearer token as well, and no exchanged token ended with the sign-in it came
from.

What must hold:

- the provider's own API is never an exchange audience: the admin API refuses it (422
  naming ``tokenExchangeAudiences[0]``), and if the value is in the database anyway (put
  there directly here, past the admin API) the grant answers 400 ``invalid_target``;
- a DPoP-bound subject token is exchanged only with a DPoP proof (else 400
  ``invalid_request``), and the new token is bound to the proof's key (``token_type``
  ``DPoP``, ``cnf.jkt`` the key's thumbprint);
- the exchanged token stands on the subject token's session: once the person logs out,
  introspection by the exchanging client answers ``active: false`` (it was still active).

An exchanged token never passes a recent-sign-in check: the routes that make that check
are the provider's own API, which no exchanged token can be addressed to once the two
refusals above hold; so these two refusals are what is asserted.

The person's token comes from a real sign-in and a code exchange with a DPoP proof; the
APIs and clients are registered through the admin API, whose administrator is the
harness's (a real person whose token the test signs with the stack's key, as every admin
API test does).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx
import pytest

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE
from tests.harness import records
from tests.harness.api import assert_problem
from tests.harness.dpop import DpopKey
from tests.harness.stack import Stack
from tests.harness.stamps import announce_client_change
from tests.integration.admin.contract import AdminApi
from tests.interop.resource_support import ACCESS_TOKEN_TYPE, EXCHANGE, Api
from tests.interop.resource_support import Client as Machine
from tests.security import token_standing_support as ts

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Setting:
    orders: Api
    billing: Api
    front: records.TestClient
    person: records.TestUser


@pytest.fixture(scope="module")
def admin(stack: Stack) -> Iterator[AdminApi]:
    api = AdminApi(stack)
    yield api
    api.close()


def create_api(admin: AdminApi) -> Api:
    name = f"res{uuid.uuid4().hex[:10]}"
    audience = f"https://{name}.example/api"
    api = admin.post("/admin/apis", json={"name": name, "audience": audience})
    assert api.status_code == 201, api.text
    scope = f"{name}:things:read"
    body = {"value": scope, "description": f"Read things of {name}"}
    added = admin.post(f"/admin/apis/{api.json()['id']}/scopes", json=body)
    assert added.status_code == 201, added.text
    return Api(audience, scope)


def exchange_client(admin: AdminApi, own: Api, audiences: list[str]) -> Machine:
    """A resource API's client: it holds ``own``'s scope (so tokens for ``own`` are its)
    and may exchange them for ``audiences``."""
    body = {
        "name": f"Resource {uuid.uuid4().hex[:8]}",
        "type": "confidential",
        "grantTypes": [EXCHANGE],
        "redirectUris": [],
        "tokenExchangeAudiences": audiences,
    }
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 201, created.text
    machine = Machine(created.json()["client_id"], created.json()["client_secret"])
    path = f"/admin/clients/{machine.client_id}/scopes"
    granted = admin.put(path, json={"scopes": [own.scope]})
    assert granted.status_code == 200, granted.text
    return machine


@pytest.fixture(scope="module")
def setting(stack: Stack, admin: AdminApi) -> Setting:
    orders, billing = create_api(admin), create_api(admin)
    own = (SCOPE_IDP_ACCOUNT_READ, SCOPE_IDP_ACCOUNT_WRITE)
    front = records.create_client(
        stack, scopes=("openid", orders.scope, billing.scope, *own), skip_consent=True
    )
    person = records.create_user(stack, scopes=(orders.scope, billing.scope))
    return Setting(orders, billing, front, person)


def bound_subject(stack: Stack, s: Setting) -> ts.SignedIn:
    """The person's sign-in at the front end: an access token for the orders API (and
    their own account), bound to the front end's key."""
    key = DpopKey.generate()
    scope = f"openid {s.orders.scope} {s.billing.scope} {SCOPE_IDP_ACCOUNT_READ} "
    scope += SCOPE_IDP_ACCOUNT_WRITE
    signed_in = ts.sign_in(stack, s.front, s.person, scope, dpop=key)
    assert signed_in.tokens["token_type"] == "DPoP"
    claims = ts.claims_of(signed_in.access_token)
    assert claims["cnf"] == {"jkt": key.jkt}
    assert s.orders.audience in claims["aud"]
    return signed_in


def exchange(
    stack: Stack, machine: Machine, subject: str, audience: str, proof_key: DpopKey | None
) -> httpx.Response:
    form = [
        ("grant_type", EXCHANGE),
        ("subject_token", subject),
        ("subject_token_type", ACCESS_TOKEN_TYPE),
        ("audience", audience),
    ]
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if proof_key is not None:
        headers["DPoP"] = proof_key.proof("POST", stack.issuer + ts.TOKEN_PATH)
    return httpx.post(
        stack.proxy_url + ts.TOKEN_PATH,
        content=urlencode(form),
        headers=headers,
        auth=(machine.client_id, machine.secret),
        timeout=20,
    )


def oauth_error(answer: httpx.Response) -> tuple[int, object]:
    """(status, ``error``) of a token endpoint answer (``error`` None on success)."""
    return answer.status_code, answer.json().get("error")


def issued(answer: httpx.Response) -> str:
    """A short account of an answer, for the assertion message: what an issued token is
    (its type, scope, audience, binding), or the error."""
    body = answer.json()
    if "access_token" not in body:
        return answer.text
    claims = ts.claims_of(body["access_token"])
    shown = {name: claims.get(name) for name in ("aud", "scope", "cnf", "auth_time", "act")}
    return f"{answer.status_code} token_type={body['token_type']} {shown}"


def allow_in_database(stack: Stack, machine: Machine, audience: str) -> None:
    """Add ``audience`` to the client's exchange audiences straight in the database (what
    the admin API refuses), and tell the token service's caches that clients changed."""
    records.query(
        stack,
        "UPDATE clients SET token_exchange_audiences = token_exchange_audiences || $2::text"
        " WHERE client_id = $1 RETURNING id",
        machine.client_id,
        audience,
    )
    announce_client_change(stack)


def test_the_admin_api_refuses_the_providers_own_api_as_an_exchange_audience(
    stack: Stack, admin: AdminApi, setting: Setting
) -> None:
    own_api = f"{stack.issuer}/api"
    machine = exchange_client(admin, setting.orders, [setting.billing.audience])
    path = f"/admin/clients/{machine.client_id}"
    changed = admin.patch(path, json={"tokenExchangeAudiences": [own_api]})
    assert changed.status_code == 422, f"{changed.status_code} {changed.text}"
    assert_problem(changed, 422, field="tokenExchangeAudiences[0]")
    assert admin.get(path).json()["tokenExchangeAudiences"] == [setting.billing.audience]

    body = {
        "name": f"Resource {uuid.uuid4().hex[:8]}",
        "type": "confidential",
        "grantTypes": [EXCHANGE],
        "redirectUris": [],
        "tokenExchangeAudiences": [own_api],
    }
    created = admin.post("/admin/clients", json=body)
    assert created.status_code == 422, f"{created.status_code} {created.text}"
    assert_problem(created, 422, field="tokenExchangeAudiences[0]")


def test_the_grant_refuses_the_providers_own_api_as_an_audience(
    stack: Stack, admin: AdminApi, setting: Setting
) -> None:
    machine = exchange_client(admin, setting.orders, [setting.billing.audience])
    allow_in_database(stack, machine, f"{stack.issuer}/api")
    subject = bound_subject(stack, setting).access_token
    own_key = DpopKey.generate()  # the resource API's key: a proof, so only the target is wrong

    answer = exchange(stack, machine, subject, f"{stack.issuer}/api", own_key)

    assert oauth_error(answer) == (400, "invalid_target"), issued(answer)


def test_a_dpop_bound_token_is_not_exchanged_without_a_proof(
    stack: Stack, admin: AdminApi, setting: Setting
) -> None:
    machine = exchange_client(admin, setting.orders, [setting.billing.audience])
    subject = bound_subject(stack, setting).access_token

    answer = exchange(stack, machine, subject, setting.billing.audience, None)

    assert oauth_error(answer) == (400, "invalid_request"), issued(answer)


def test_a_dpop_bound_token_exchanged_with_a_proof_stays_bound_and_ends_with_the_session(
    stack: Stack, admin: AdminApi, setting: Setting
) -> None:
    machine = exchange_client(admin, setting.orders, [setting.billing.audience])
    signed_in = bound_subject(stack, setting)
    own_key = DpopKey.generate()

    answer = exchange(stack, machine, signed_in.access_token, setting.billing.audience, own_key)

    assert answer.status_code == 200, answer.text
    assert answer.json()["token_type"] == "DPoP", issued(answer)
    exchanged = answer.json()["access_token"]
    claims = ts.claims_of(exchanged)
    assert claims.get("cnf") == {"jkt": own_key.jkt}, claims
    assert claims["aud"] == setting.billing.audience
    assert claims["act"] == {"sub": machine.client_id}
    as_machine = (machine.client_id, machine.secret)
    assert ts.introspect(stack, as_machine, exchanged)["active"] is True

    # The exchanged token stands on the person's session, as the token it came from.
    ts.log_out(stack, setting.front, signed_in)
    after = ts.introspect(stack, as_machine, exchanged)
    assert after["active"] is False, f"after the logout, introspection answers {after}"
