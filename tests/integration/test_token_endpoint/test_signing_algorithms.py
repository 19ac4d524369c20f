"""The signing algorithm per API and per client (issue #24), on the running token service.

The harness's stack holds a key for RS256, PS256, ES256 and EdDSA. An API registered with
``accessTokenSigningAlg`` ES256 or EdDSA gets its access tokens signed with it (client
credentials, the code flow and refresh); a client's ``id_token_signed_response_alg``
signs its ID tokens and ``userinfo_signed_response_alg`` turns userinfo into a signed
``application/jwt``. Every token verifies with the published JWKS alone (joserfc, the
algorithm fixed by the test), and a token whose header names another algorithm than its
key's is refused wherever the provider verifies its own tokens.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from joserfc import jws
from joserfc.jwk import RSAKey

from idp_common.crypto.keys import load_key_set
from tests.harness import tokens
from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf

pytestmark = pytest.mark.integration

ES_READ = "es-tokentest:things:read"
ED_READ = "ed-tokentest:things:read"
PS_READ = "ps-tokentest:things:read"


@pytest.fixture(scope="module")
def audiences(stack: Stack) -> dict[str, str]:
    return {
        "ES256": tf.create_api(stack, [ES_READ], alg="ES256"),
        "EdDSA": tf.create_api(stack, [ED_READ], alg="EdDSA"),
        "PS256": tf.create_api(stack, [PS_READ], alg="PS256"),
    }


@pytest.fixture(scope="module")
def machine(stack: Stack, audiences: dict[str, str]) -> tf.AppClient:
    return tf.create_client(
        stack, scopes=[ES_READ, ED_READ, PS_READ], grant_types=["client_credentials"]
    )


@pytest.fixture(scope="module")
def person(stack: Stack, audiences: dict[str, str]) -> tf.Person:
    return tf.create_person(stack, scopes=[ES_READ, ED_READ, PS_READ])


def header_of(token: str) -> dict[str, Any]:
    segment = token.split(".", maxsplit=1)[0]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))  # type: ignore[no-any-return]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def client_credentials(http: httpx.Client, client: tf.AppClient, scope: str) -> httpx.Response:
    return http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "scope": scope},
        headers=client.basic(),
    )


@pytest.mark.parametrize(("alg", "scope"), [("ES256", ES_READ), ("EdDSA", ED_READ)])
def test_client_credentials_token_is_signed_with_the_apis_algorithm(
    http: httpx.Client,
    stack: Stack,
    machine: tf.AppClient,
    audiences: dict[str, str],
    jwks: dict[str, Any],
    alg: str,
    scope: str,
) -> None:
    response = client_credentials(http, machine, scope)
    assert response.status_code == 200, response.text
    token = response.json()["access_token"]
    header, claims = tf.validate_jwt(stack, token, jwks, alg)
    assert header["alg"] == alg
    assert header["typ"] == "at+jwt"
    published = {k["kid"]: k for k in jwks["keys"]}
    assert published[header["kid"]]["alg"] == alg
    assert claims["aud"] == audiences[alg]
    assert claims["scope"] == scope


def test_apis_that_disagree_get_rs256(
    http: httpx.Client, stack: Stack, machine: tf.AppClient, jwks: dict[str, Any]
) -> None:
    """docs/decisions.md: one token, two APIs with different algorithms: the default."""
    response = client_credentials(http, machine, f"{ES_READ} {ED_READ}")
    assert response.status_code == 200, response.text
    header, claims = tf.validate_jwt(stack, response.json()["access_token"], jwks)
    assert header["alg"] == "RS256"
    assert len(claims["aud"]) == 2


@pytest.mark.parametrize(
    ("id_alg", "api_alg", "scope"),
    [("ES256", "ES256", ES_READ), ("EdDSA", "EdDSA", ED_READ), ("PS256", "ES256", ES_READ)],
)
def test_code_flow_and_refresh_sign_with_the_api_and_client_algorithms(
    http: httpx.Client,
    stack: Stack,
    person: tf.Person,
    audiences: dict[str, str],
    jwks: dict[str, Any],
    id_alg: str,
    api_alg: str,
    scope: str,
) -> None:
    app = tf.create_client(stack, scopes=[*tf.OIDC, scope], id_token_alg=id_alg)
    verifier, challenge = tf.pkce_pair()
    code = tf.create_code(
        stack, app, person, scope=f"openid email offline_access {scope}", challenge=challenge
    )
    first = tf.exchange(http, app, code, verifier=verifier)
    assert first.status_code == 200, first.text
    refreshed = tf.refresh(http, app, first.json()["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    for round_trip in (first.json(), refreshed.json()):  # the refresh: the same algorithms
        access_header, access = tf.validate_jwt(stack, round_trip["access_token"], jwks, api_alg)
        assert access_header["alg"] == api_alg
        assert access["aud"] == [f"{stack.issuer}/api", audiences[api_alg]]
        id_header, id_claims = tf.validate_jwt(stack, round_trip["id_token"], jwks, id_alg)
        assert id_header["alg"] == id_alg
        assert id_claims["aud"] == app.client_id
        # OIDC Core §3.1.3.6 (errata 2): the hash of the ID token's alg (SHA-512 for EdDSA)
        hash_name = "sha512" if id_alg == "EdDSA" else "sha256"
        full = hashlib.new(hash_name, round_trip["access_token"].encode()).digest()
        assert id_claims["at_hash"] == b64(full[: len(full) // 2])


@pytest.mark.parametrize("alg", ["ES256", "EdDSA", "PS256"])
def test_userinfo_answers_a_jwt_signed_with_the_clients_algorithm(
    http: httpx.Client, stack: Stack, person: tf.Person, jwks: dict[str, Any], alg: str
) -> None:
    app = tf.create_client(stack, scopes=list(tf.OIDC), userinfo_alg=alg)
    code = tf.create_code(stack, app, person, scope="openid email")
    token = tf.exchange(http, app, code).json()["access_token"]
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/jwt"
    assert response.headers["cache-control"] == "no-store"
    header, claims = tf.validate_jwt(stack, response.text, jwks, alg)
    assert header["alg"] == alg
    assert claims["iss"] == stack.issuer  # OIDC Core §5.3.2
    assert claims["aud"] == app.client_id
    assert claims["sub"] == str(person.id)
    assert claims["email"] == person.email


def test_userinfo_stays_json_without_a_registered_algorithm(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    app = tf.create_client(stack, scopes=list(tf.OIDC), id_token_alg="EdDSA")
    code = tf.create_code(stack, app, person, scope="openid")
    token = tf.exchange(http, app, code).json()["access_token"]
    response = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"sub": str(person.id)}


def test_introspection_and_userinfo_accept_tokens_of_every_algorithm(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    app = tf.create_client(stack, scopes=[*tf.OIDC, ED_READ])
    code = tf.create_code(stack, app, person, scope=f"openid {ED_READ}")
    token = tf.exchange(http, app, code).json()["access_token"]
    assert header_of(token)["alg"] == "EdDSA"
    answer = tf.introspect(http, app, token)
    assert answer.status_code == 200, answer.text
    assert answer.json()["active"] is True
    info = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {token}"})
    assert info.status_code == 200, info.text


def _resign(token: str, key_dir: Path, alg: str) -> str:
    """``token`` with its header's ``alg`` replaced, validly signed with that algorithm by
    the same RSA key its ``kid`` names: the key would verify the signature, the header
    chose the algorithm (RFC 8725 §3.1)."""
    header = header_of(token)
    signing_key = load_key_set(key_dir).find(header["kid"])
    assert signing_key is not None
    pem = Path(signing_key.file_name).read_bytes()
    private = serialization.load_pem_private_key(pem, password=None)
    key = RSAKey.import_key(private)  # type: ignore[arg-type]
    payload = base64.urlsafe_b64decode(token.split(".")[1] + "==")
    forged: str = jws.serialize_compact({**header, "alg": alg}, payload, key, algorithms=[alg])
    return forged


def test_a_header_alg_other_than_the_keys_is_refused(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    app = tf.create_client(stack, scopes=[*tf.OIDC, PS_READ])
    code = tf.create_code(stack, app, person, scope=f"openid {PS_READ}")
    token = tf.exchange(http, app, code).json()["access_token"]
    assert header_of(token)["alg"] == "PS256"
    forged = _resign(token, stack.key_dir, "RS256")
    assert tf.introspect(http, app, forged).json() == {"active": False}
    info = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {forged}"})
    assert info.status_code == 401


@pytest.mark.parametrize("alg", ["PS256", "ES256", "EdDSA"])
def test_the_admin_guard_accepts_every_algorithm_and_refuses_a_mismatch(
    stack: Stack, alg: str
) -> None:
    audit = stack.proxy_url + "/admin/audit"
    token = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["idp:audit:read"], alg=alg)
    assert header_of(token)["alg"] == alg
    accepted = httpx.get(audit, headers={"Authorization": f"Bearer {token}"}, timeout=15)
    assert accepted.status_code == 200, accepted.text
    rs256 = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["idp:audit:read"])
    forged = _resign(rs256, stack.key_dir, "PS256")  # RS256's key, PS256 in the header
    refused = httpx.get(audit, headers={"Authorization": f"Bearer {forged}"}, timeout=15)
    assert refused.status_code == 401
