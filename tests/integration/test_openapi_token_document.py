"""The token service's OpenAPI document says what its OAuth endpoints take and answer
(issue #21): the fuzzer (test_openapi_fuzz_token.py) generates requests from it and checks
the answers against it, so a document that declares no form body, or a 200 of type
"string", would leave the endpoints untested and every real answer a mismatch.

Real answers of a real sign-in are validated against the schemas the document declares.
"""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]  # schemathesis brings it; no stubs
import pytest

from tests.harness import records
from tests.harness.oidc import Authorization, Browser, exchange
from tests.harness.stack import Stack

pytestmark = pytest.mark.integration

FORM = "application/x-www-form-urlencoded"


def _document(stack: Stack) -> dict[str, Any]:
    response = httpx.get(stack.service_url("token") + "/openapi.json", timeout=10)
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _answer_schema(document: dict[str, Any], path: str, method: str, status: int) -> Any:
    answers = document["paths"][path][method]["responses"]
    assert str(status) in answers, (path, method, sorted(answers))
    return answers[str(status)]["content"]["application/json"]["schema"]


def _matches(document: dict[str, Any], schema: Any, body: Any) -> None:
    jsonschema.validate(body, {**schema, "components": document.get("components", {})})


def test_the_form_endpoints_declare_their_form_and_required_fields(stack: Stack) -> None:
    paths = _document(stack)["paths"]
    for path in ("/oauth2/token", "/oauth2/introspect", "/oauth2/revoke"):
        body = paths[path]["post"].get("requestBody", {})
        assert list(body.get("content", {})) == [FORM], (path, body)
    token_form = paths["/oauth2/token"]["post"]["requestBody"]["content"][FORM]["schema"]
    grants = {variant["properties"]["grant_type"]["const"] for variant in token_form["oneOf"]}
    assert grants == {
        "authorization_code",
        "refresh_token",
        "client_credentials",
        "urn:ietf:params:oauth:grant-type:device_code",
        "urn:ietf:params:oauth:grant-type:token-exchange",
    }
    for path in ("/oauth2/introspect", "/oauth2/revoke"):
        schema = paths[path]["post"]["requestBody"]["content"][FORM]["schema"]
        assert schema["required"] == ["token"], path
    query = {p["name"]: p for p in paths["/oauth2/authorize"]["get"]["parameters"]}
    assert query["client_id"]["required"] and query["client_id"]["in"] == "query"
    assert "302" in paths["/oauth2/authorize"]["get"]["responses"]
    assert "302" in paths["/oauth2/logout"]["get"]["responses"]


def test_real_answers_match_the_declared_schemas(stack: Stack) -> None:
    document = _document(stack)
    app = records.create_client(stack)
    assert app.secret is not None
    person = records.create_user(stack)
    with Browser(stack) as browser:
        authorization = Authorization(app)
        tokens = exchange(stack, authorization, browser.sign_in(authorization, person))
    _matches(document, _answer_schema(document, "/oauth2/token", "post", 200), tokens)

    token_service = stack.service_url("token")
    with httpx.Client(base_url=token_service, timeout=10) as client:
        userinfo = client.get(
            "/oauth2/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}
        )
        assert userinfo.status_code == 200, userinfo.text
        _matches(
            document, _answer_schema(document, "/oauth2/userinfo", "get", 200), userinfo.json()
        )
        for token in (tokens["access_token"], tokens["refresh_token"], "unknown"):
            answer = client.post(
                "/oauth2/introspect", data={"token": token}, auth=(app.client_id, app.secret)
            )
            assert answer.status_code == 200, answer.text
            schema = _answer_schema(document, "/oauth2/introspect", "post", 200)
            _matches(document, schema, answer.json())
        refused = client.post(
            "/oauth2/token", data={"grant_type": "password"}, auth=(app.client_id, app.secret)
        )
        assert refused.status_code == 400, refused.text
        schema = _answer_schema(document, "/oauth2/token", "post", 400)
        _matches(document, schema, refused.json())


def test_the_par_endpoint_declares_its_form_and_answers(stack: Stack) -> None:
    """RFC 9126: the pushed request's form, and a real 201 and 400 matching their schemas."""
    document = _document(stack)
    operation = document["paths"]["/oauth2/par"]["post"]
    form = operation["requestBody"]["content"][FORM]["schema"]
    assert {"response_type", "redirect_uri", "scope"} <= set(form["required"])
    assert {"client_assertion", "code_challenge", "state"} <= set(form["properties"])
    app = records.create_client(stack)
    assert app.secret is not None
    pushed = {
        "response_type": "code",
        "redirect_uri": app.redirect_uri,
        "scope": "openid",
        "client_id": app.client_id,
    }
    with httpx.Client(base_url=stack.service_url("token"), timeout=10) as client:
        created = client.post("/oauth2/par", data=pushed, auth=(app.client_id, app.secret))
        refused = client.post(
            "/oauth2/par", data={**pushed, "scope": ""}, auth=(app.client_id, app.secret)
        )
    assert created.status_code == 201, created.text
    _matches(document, _answer_schema(document, "/oauth2/par", "post", 201), created.json())
    assert refused.status_code == 400, refused.text
    _matches(document, _answer_schema(document, "/oauth2/par", "post", 400), refused.json())


def test_the_device_authorization_endpoint_declares_its_form_and_answers(stack: Stack) -> None:
    """RFC 8628 §3.1, §3.2: the form, and a real 200 and 400 matching their schemas."""
    document = _document(stack)
    operation = document["paths"]["/oauth2/device_authorization"]["post"]
    form = operation["requestBody"]["content"][FORM]["schema"]
    assert {"client_id", "scope", "client_assertion"} <= set(form["properties"])
    app = records.create_client(
        stack, public=True, grant_types=("urn:ietf:params:oauth:grant-type:device_code",)
    )
    asked = {"client_id": app.client_id, "scope": "openid"}
    with httpx.Client(base_url=stack.service_url("token"), timeout=10) as client:
        started = client.post("/oauth2/device_authorization", data=asked)
        refused = client.post("/oauth2/device_authorization", data={**asked, "scope": "nope"})
    assert started.status_code == 200, started.text
    path = "/oauth2/device_authorization"
    _matches(document, _answer_schema(document, path, "post", 200), started.json())
    assert refused.status_code == 400, refused.text
    _matches(document, _answer_schema(document, path, "post", 400), refused.json())
