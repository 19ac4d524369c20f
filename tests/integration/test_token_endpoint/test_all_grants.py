"""What every grant of ``POST /oauth2/token`` shares: client authentication (RFC 6749
2.3), the form's rules, the RFC 6749 5.2 error objects and the per-address limit."""

from __future__ import annotations

import httpx
import pytest

from tests.harness.stack import Stack
from tests.integration import token_fixtures as tf
from tests.integration.test_token_endpoint.support import (
    assert_error,
)

pytestmark = pytest.mark.integration


def test_wrong_secret_over_basic_is_401_with_challenge(
    http: httpx.Client, app: tf.AppClient
) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "authorization_code", "code": "x", "redirect_uri": tf.REDIRECT},
        headers=app.basic("wrong-secret"),
    )
    assert_error(response, 401, "invalid_client")
    assert response.headers["www-authenticate"] == 'Basic realm="idp"'


def test_wrong_secret_over_post_is_401_without_challenge(
    http: httpx.Client, app: tf.AppClient
) -> None:
    response = http.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": "x",
            "client_id": app.client_id,
            "client_secret": "wrong",
        },
    )
    assert_error(response, 401, "invalid_client")
    assert "www-authenticate" not in response.headers


@pytest.mark.parametrize(
    "form",
    [
        {"grant_type": "client_credentials", "client_id": "nobody-here"},
        {"grant_type": "client_credentials"},
    ],
)
def test_unknown_or_missing_client(http: httpx.Client, form: dict[str, str]) -> None:
    assert_error(http.post("/oauth2/token", data=form), 401, "invalid_client")


def test_confidential_client_without_secret(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "refresh_token", "client_id": app.client_id}
    )
    assert_error(response, 401, "invalid_client")


def test_two_authentication_methods_refused(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "client_credentials", "client_secret": app.secret or ""},
        headers=app.basic(),
    )
    assert_error(response, 400, "invalid_request")


def test_basic_credentials_are_form_urlencoded(
    http: httpx.Client, stack: Stack, person: tf.Person
) -> None:
    client = tf.create_client(stack)
    code = tf.create_code(stack, client, person, scope="openid")
    # RFC 6749 §2.3.1: the secret is form-urlencoded before base64 ("-" and "_" are kept;
    # percent-encoding an unreserved character must decode to the same secret).
    encoded = "".join(f"%{ord(c):02X}" if c in "-_" else c for c in client.secret or "")
    response = http.post(
        "/oauth2/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": tf.REDIRECT},
        headers=client.basic(encoded),
    )
    assert response.status_code == 200, response.text


def test_unsupported_grant_type(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post("/oauth2/token", data={"grant_type": "password"}, headers=app.basic())
    assert_error(response, 400, "unsupported_grant_type")


def test_grant_not_allowed_for_client(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", data={"grant_type": "client_credentials"}, headers=app.basic()
    )
    assert_error(response, 400, "unauthorized_client")


def test_duplicated_parameter(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token",
        content=b"grant_type=authorization_code&code=a&code=b&redirect_uri=x",
        headers={**app.basic(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    body = assert_error(response, 400, "invalid_request")
    assert body["error_description"] == "parameter code is repeated"


def test_unknown_parameters_are_ignored(
    http: httpx.Client, stack: Stack, app: tf.AppClient, person: tf.Person
) -> None:
    code = tf.create_code(stack, app, person, scope="openid")
    response = http.post(
        "/oauth2/token",
        content=(
            f"grant_type=authorization_code&code={code}&redirect_uri={tf.REDIRECT}"
            "&foo=1&foo=2&refresh_token="
        ).encode(),
        headers={**app.basic(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 200, response.text


def test_json_body_refused(http: httpx.Client, app: tf.AppClient) -> None:
    response = http.post(
        "/oauth2/token", json={"grant_type": "client_credentials"}, headers=app.basic()
    )
    assert_error(response, 400, "invalid_request")


def test_121st_request_in_a_minute_is_429(stack: Stack, machine: tf.AppClient) -> None:
    limit = 120
    with httpx.Client(
        base_url=stack.service_url("token"),
        timeout=15,
        headers={"X-Forwarded-For": tf.fresh_address()},
    ) as client:
        form = {"grant_type": "client_credentials"}
        for _ in range(limit):
            response = client.post("/oauth2/token", data=form, headers=machine.basic())
            assert response.status_code == 200, response.text
        response = client.post("/oauth2/token", data=form, headers=machine.basic())
    body = assert_error(response, 429, "temporarily_unavailable")
    assert body["error_description"]
    assert 1 <= int(response.headers["retry-after"]) <= 60
