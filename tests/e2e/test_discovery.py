"""Discovery and JWKS through the proxy (contract §4 "Discovery", §5 "Signing keys").

The harness starts the stack with two RS256 key files, an older and a newer one, and one
key each for PS256, ES256 and EdDSA in their sub-directories (issue #24).
"""

from __future__ import annotations

import base64
import hashlib
import json

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from idp_common.crypto.keys import load_key_set
from tests.harness import records, tokens
from tests.harness.stack import Stack

pytestmark = pytest.mark.e2e

PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}
SPEC_ENDPOINTS = {
    "authorization_endpoint": "/oauth2/authorize",
    "token_endpoint": "/oauth2/token",
    "userinfo_endpoint": "/oauth2/userinfo",
    "introspection_endpoint": "/oauth2/introspect",
    "revocation_endpoint": "/oauth2/revoke",
    "pushed_authorization_request_endpoint": "/oauth2/par",  # RFC 9126
    "end_session_endpoint": "/oauth2/logout",
    "jwks_uri": "/.well-known/jwks.json",
}


def b64url_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def thumbprint_of_file(path: str) -> str:
    """RFC 7638 §3, computed here independently of the provider's code."""
    with open(path, "rb") as pem:
        key = serialization.load_pem_private_key(pem.read(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    numbers = key.public_key().public_numbers()
    members = {"e": b64url_uint(numbers.e), "kty": "RSA", "n": b64url_uint(numbers.n)}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True).encode()
    digest = hashlib.sha256(canonical).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_both_metadata_documents_are_identical(proxy: httpx.Client) -> None:
    oidc = proxy.get("/.well-known/openid-configuration")
    rfc8414 = proxy.get("/.well-known/oauth-authorization-server")
    assert oidc.status_code == rfc8414.status_code == 200
    assert oidc.headers["content-type"].startswith("application/json")
    assert oidc.content == rfc8414.content


def test_metadata_lists_issuer_jwks_endpoints_and_the_held_algorithms(
    proxy: httpx.Client, stack: Stack
) -> None:
    metadata = proxy.get("/.well-known/openid-configuration").json()
    assert metadata["issuer"] == stack.issuer
    for member, path in SPEC_ENDPOINTS.items():
        assert metadata[member] == stack.issuer + path, member
    # issue #24: the stack holds a key for each of the four algorithms, RS256 first
    held = ["RS256", "PS256", "ES256", "EdDSA"]
    assert metadata["id_token_signing_alg_values_supported"] == held
    assert metadata["userinfo_signing_alg_values_supported"] == held
    signing_members = [m for m in metadata if m.endswith("_signing_alg_values_supported")]
    assert sorted(signing_members) == [
        "dpop_signing_alg_values_supported",  # issue #25: the proofs' algorithms
        "id_token_signing_alg_values_supported",
        "introspection_endpoint_auth_signing_alg_values_supported",  # client assertions
        "revocation_endpoint_auth_signing_alg_values_supported",
        "token_endpoint_auth_signing_alg_values_supported",
        "userinfo_signing_alg_values_supported",
    ]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["backchannel_logout_supported"] is True


def test_metadata_urls_come_from_the_issuer_not_the_host_header(
    proxy: httpx.Client, stack: Stack
) -> None:
    metadata = proxy.get(
        "/.well-known/openid-configuration", headers={"Host": "evil.example"}
    ).json()
    assert metadata["issuer"] == stack.issuer
    assert metadata["jwks_uri"] == stack.issuer + "/.well-known/jwks.json"


def test_jwks_has_one_public_jwk_per_key_file(proxy: httpx.Client, stack: Stack) -> None:
    files = sorted(stack.key_dir.glob("*.pem"))
    assert len(files) == 2
    keys = proxy.get("/.well-known/jwks.json").json()["keys"]
    rsa = [k for k in keys if k["alg"] == "RS256"]
    assert len(rsa) == len(files)
    assert {k["kid"] for k in rsa} == {thumbprint_of_file(str(f)) for f in files}
    for jwk in rsa:
        assert jwk["kty"] == "RSA"
    for jwk in keys:
        assert jwk["use"] == "sig"
        assert not PRIVATE_MEMBERS & jwk.keys(), jwk.keys()


def test_jwks_lists_every_key_of_every_algorithm_with_its_alg(
    proxy: httpx.Client, stack: Stack
) -> None:
    """Issue #24: RS256 at the top of the key directory, the others in sub-directories."""
    keys = proxy.get("/.well-known/jwks.json").json()["keys"]
    assert [(k["alg"], k["kty"], k.get("crv")) for k in keys] == [
        ("RS256", "RSA", None),
        ("RS256", "RSA", None),
        ("PS256", "RSA", None),
        ("ES256", "EC", "P-256"),
        ("EdDSA", "OKP", "Ed25519"),
    ]
    on_disk = load_key_set(stack.key_dir)
    for alg in ("PS256", "ES256", "EdDSA"):
        (only,) = sorted((stack.key_dir / alg).glob("*.pem"))
        kid = next(k["kid"] for k in keys if k["alg"] == alg)
        found = on_disk.find(kid)
        assert found is not None
        assert found.file_name == str(only)


def test_the_newest_key_file_signs(proxy: httpx.Client, stack: Stack) -> None:
    newest = sorted(stack.key_dir.glob("*.pem"))[-1]
    key_set = load_key_set(stack.key_dir)
    assert key_set.signing_key.kid == thumbprint_of_file(str(newest))
    token = tokens.mint(stack.key_dir, issuer=stack.issuer, scopes=["idp:audit:read"])
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header == {"alg": "RS256", "kid": thumbprint_of_file(str(newest)), "typ": "at+jwt"}
    # ...and the running provider, which read the same directory at start-up, accepts it.
    response = proxy.get("/admin/audit", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200


def test_a_token_signed_by_the_older_key_is_still_accepted(
    proxy: httpx.Client, stack: Stack, tmp_path
) -> None:
    """Rotation: the old key stays published, so tokens it signed stay valid until expiry."""
    older = sorted(stack.key_dir.glob("*.pem"))[0]
    only_old = tmp_path / "old"
    only_old.mkdir()
    (only_old / older.name).write_bytes(older.read_bytes())
    token = tokens.mint(only_old, issuer=stack.issuer, scopes=["idp:audit:read"])
    response = proxy.get("/admin/audit", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200


def test_the_running_token_service_signs_with_the_newest_key(
    proxy: httpx.Client, stack: Stack
) -> None:
    """A token issued by the token endpoint (client_credentials) carries the newest kid."""
    machine = records.create_client(
        stack, scopes=("idp:audit:read",), grant_types=("client_credentials",)
    )
    response = proxy.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(machine.client_id, machine.secret or ""),
    )
    assert response.status_code == 200, response.text
    token = response.json()["access_token"]
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    newest = sorted(stack.key_dir.glob("*.pem"))[-1]
    assert header["kid"] == thumbprint_of_file(str(newest))
    assert header["kid"] in {k["kid"] for k in proxy.get("/.well-known/jwks.json").json()["keys"]}
