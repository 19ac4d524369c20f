"""RFC 9126 (pushed authorization requests) and the FAPI 2.0 profile's pure rules."""

from __future__ import annotations

import pytest

from idp_common.protocol.constants import AUTHORIZATION_CODE_TTL_SECONDS
from idp_common.protocol.oidc_authorize import PARAMETER_BOUNDS, parse_request
from idp_common.protocol.rfc6749_errors import InvalidRequest
from idp_common.protocol.rfc9126_par import (
    PUSHABLE_PARAMETERS,
    REQUEST_URI_PREFIX,
    InvalidRequestUri,
    must_push,
    new_request_uri,
    pushed_parameters,
    reference_of,
)
from token_service.protocol.fapi2_security_profile import code_lifetime, pkce_required
from token_service.protocol.rfc8414_metadata import provider_metadata

RANDOM = bytes(range(32))


def test_request_uri_is_a_urn_with_256_random_bits() -> None:
    request_uri, reference = new_request_uri(RANDOM)
    assert request_uri == REQUEST_URI_PREFIX + reference
    assert request_uri.startswith("urn:ietf:params:oauth:request_uri:")
    assert len(reference) == 43
    assert reference_of(request_uri) == reference
    assert new_request_uri(bytes(32))[1] != reference
    with pytest.raises(ValueError, match="32 random bytes"):
        new_request_uri(b"short")


@pytest.mark.parametrize(
    "given",
    [
        "",
        "https://client.example/request.jwt",
        "urn:ietf:params:oauth:request_uri:",
        "urn:ietf:params:oauth:request_uri:" + "a" * 42,
        "urn:ietf:params:oauth:request_uri:" + "a" * 44,
        "urn:ietf:params:oauth:request_uri:" + "a" * 42 + "!",
        "urn:ietf:params:oauth:request_uri:" + "a" * 42 + "\n",
        "URN:IETF:PARAMS:OAUTH:REQUEST_URI:" + "a" * 43,
    ],
)
def test_anything_but_our_own_reference_names_nothing(given: str) -> None:
    assert reference_of(given) is None


def test_pushed_parameters_keep_the_request_and_drop_credentials() -> None:
    form = {
        "response_type": "code",
        "client_id": "app",
        "redirect_uri": "https://app.example/cb",
        "scope": "openid",
        "client_secret": "s3cret",
        "client_assertion": "eyJ...",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "challenge": "abc",
    }
    values = pushed_parameters(form)
    assert values == {
        "response_type": "code",
        "client_id": "app",
        "redirect_uri": "https://app.example/cb",
        "scope": "openid",
    }
    assert "challenge" not in PUSHABLE_PARAMETERS
    assert "request_uri" not in PUSHABLE_PARAMETERS


def test_a_request_uri_cannot_be_pushed() -> None:
    with pytest.raises(InvalidRequest, match="request_uri"):
        pushed_parameters({"response_type": "code", "request_uri": REQUEST_URI_PREFIX + "x"})


def test_a_value_past_its_bound_is_invalid_request() -> None:
    bound = PARAMETER_BOUNDS["state"]
    assert pushed_parameters({"state": "s" * bound})["state"] == "s" * bound
    with pytest.raises(InvalidRequest, match="state"):
        pushed_parameters({"state": "s" * (bound + 1)})


def test_invalid_request_uri_is_its_own_error_code() -> None:
    error = InvalidRequestUri("gone")
    assert error.to_body() == {"error": "invalid_request_uri", "error_description": "gone"}
    assert error.status_code == 400


@pytest.mark.parametrize(
    ("required_by_client", "fapi2", "expected"),
    [(False, False, False), (True, False, True), (False, True, True), (True, True, True)],
)
def test_who_must_push(required_by_client: bool, fapi2: bool, expected: bool) -> None:
    assert must_push(required_by_client=required_by_client, fapi2=fapi2) is expected


def test_fapi2_requires_pkce_of_confidential_clients_too() -> None:
    assert pkce_required(public_client=False, fapi2=True)
    assert pkce_required(public_client=True, fapi2=False)
    assert not pkce_required(public_client=False, fapi2=False)
    values = {"response_type": "code", "scope": "openid"}
    common = {"client_id": "c", "redirect_uri": "https://c.example/cb", "public_client": False}
    assert parse_request(values, **common).code_challenge is None
    with pytest.raises(InvalidRequest, match="code_challenge"):
        parse_request(values, **common, pkce_required=True)
    plain = {**values, "code_challenge": "x" * 43, "code_challenge_method": "plain"}
    with pytest.raises(InvalidRequest, match="S256"):
        parse_request(plain, **common, pkce_required=True)


def test_fapi2_codes_live_at_most_60_seconds_and_shorter_than_others() -> None:
    assert code_lifetime(fapi2=False) == AUTHORIZATION_CODE_TTL_SECONDS == 60
    assert 0 < code_lifetime(fapi2=True) < 60


def test_discovery_names_the_par_endpoint_and_the_iss_parameter() -> None:
    metadata = provider_metadata("https://id.example.com/")
    assert metadata["pushed_authorization_request_endpoint"] == "https://id.example.com/oauth2/par"
    assert metadata["require_pushed_authorization_requests"] is False
    assert metadata["authorization_response_iss_parameter_supported"] is True
