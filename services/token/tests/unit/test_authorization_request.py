"""The validation shared by ``/oauth2/authorize`` and ``/oauth2/par``
(``token_service.authorization_request``): who must push, PKCE for FAPI 2.0 clients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from idp_common.protocol.oidc_authorize import UntrustedRequest
from idp_common.protocol.rfc6749_errors import (
    InvalidRequest,
    UnauthorizedClient,
    UnsupportedResponseType,
)
from idp_common.storage.repos.clients import ClientRecord
from token_service.authorization_request import client_request, trusted_redirect_uri

MakeClient = Callable[..., ClientRecord]
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
REDIRECT = "https://app.example/cb"


def values(**changes: str | None) -> dict[str, str]:
    base: dict[str, str | None] = {
        "response_type": "code",
        "client_id": "app",
        "redirect_uri": REDIRECT,
        "scope": "openid",
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        **changes,
    }
    return {k: v for k, v in base.items() if v is not None}


def test_the_redirect_uri_must_be_registered(make_client: MakeClient) -> None:
    client = make_client()
    assert trusted_redirect_uri(client, values()) == REDIRECT
    for changes in ({"redirect_uri": None}, {"redirect_uri": REDIRECT + "/"}):
        with pytest.raises(UntrustedRequest):
            trusted_redirect_uri(client, values(**changes))


@pytest.mark.parametrize(
    "flags",
    [{"require_pushed_authorization_requests": True}, {"security_profile": "fapi2"}],
)
def test_a_client_that_must_push(make_client: MakeClient, flags: dict[str, Any]) -> None:
    client = make_client(**flags)
    with pytest.raises(InvalidRequest, match="push"):
        client_request(client, values(), REDIRECT, pushed=False)
    req = client_request(client, values(), REDIRECT, pushed=True)
    assert req.code_challenge == CHALLENGE


def test_others_may_push_or_not(make_client: MakeClient) -> None:
    client = make_client()
    for pushed in (False, True):
        assert client_request(client, values(), REDIRECT, pushed=pushed).scopes == ["openid"]


def test_pkce_is_required_of_a_fapi2_client(make_client: MakeClient) -> None:
    plain = make_client()
    fapi = make_client(security_profile="fapi2")
    bare = values(code_challenge=None, code_challenge_method=None)
    assert client_request(plain, bare, REDIRECT, pushed=True).code_challenge is None
    with pytest.raises(InvalidRequest, match="code_challenge"):
        client_request(fapi, bare, REDIRECT, pushed=True)
    with pytest.raises(InvalidRequest, match="S256"):
        client_request(fapi, values(code_challenge_method="plain"), REDIRECT, pushed=True)


def test_the_code_flow_and_response_type_still_apply(make_client: MakeClient) -> None:
    machine = make_client(grant_types=frozenset({"client_credentials"}))
    with pytest.raises(UnauthorizedClient):
        client_request(machine, values(), REDIRECT, pushed=True)
    with pytest.raises(UnsupportedResponseType):
        client_request(make_client(), values(response_type="token"), REDIRECT, pushed=True)
