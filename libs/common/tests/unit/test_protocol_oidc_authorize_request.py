"""The authorization request after the redirect URI is trusted (OIDC Core §3.1.2.1)."""

from __future__ import annotations

import pytest

from idp_common.protocol.oidc_authorize import (
    AuthorizationRequest,
    UntrustedRequest,
    match_redirect_uri,
    parse_max_age,
    parse_prompt,
    parse_request,
    parse_scopes,
    with_query,
)
from idp_common.protocol.rfc6749_errors import (
    InvalidRequest,
    InvalidScope,
    OAuth2Error,
    RequestNotSupported,
    UnsupportedResponseType,
)

CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
BASE = {"response_type": "code", "scope": "openid profile", "code_challenge": CHALLENGE}


def parse(values: dict[str, str], *, public_client: bool = True) -> AuthorizationRequest:
    return parse_request(
        {"code_challenge_method": "S256", **values},
        client_id="app",
        redirect_uri="https://app.example/cb",
        public_client=public_client,
    )


def test_a_well_formed_request() -> None:
    req = parse({**BASE, "state": "s", "nonce": "n", "prompt": "consent", "max_age": "60"})
    assert req.scopes == ["openid", "profile"] and req.state == "s" and req.nonce == "n"
    assert (req.code_challenge, req.code_challenge_method) == (CHALLENGE, "S256")
    assert req.forces_consent and not req.forces_login and not req.no_interaction
    assert req.max_age == 60


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({**BASE, "request": "x"}, RequestNotSupported),
        ({**BASE, "request_uri": "x"}, RequestNotSupported),
        ({**BASE, "response_type": "token"}, UnsupportedResponseType),
        ({**BASE, "response_mode": "fragment"}, InvalidRequest),
        ({**BASE, "scope": ""}, InvalidScope),
        ({**BASE, "code_challenge": "short"}, InvalidRequest),
        ({"response_type": "code", "scope": "openid"}, InvalidRequest),
    ],
)
def test_refusals_are_rfc6749_errors(values: dict[str, str], error: type[OAuth2Error]) -> None:
    with pytest.raises(error):
        parse(values)


def test_a_confidential_client_may_omit_pkce() -> None:
    req = parse_request(
        {"response_type": "code", "scope": "openid"},
        client_id="app",
        redirect_uri="https://app.example/cb",
        public_client=False,
    )
    assert req.code_challenge is None and req.code_challenge_method is None


def test_scopes_are_deduplicated_in_order_and_checked() -> None:
    assert parse_scopes("openid  email openid") == ["openid", "email"]
    with pytest.raises(InvalidScope):
        parse_scopes('openid "quoted"')


def test_prompt_values() -> None:
    assert parse_prompt(None) == frozenset()
    assert parse_prompt("login consent") == {"login", "consent"}
    for bad in ("none login", "sometimes"):
        with pytest.raises(InvalidRequest):
            parse_prompt(bad)
    assert AuthorizationRequest("a", "u", ["openid"], prompt=frozenset({"none"})).no_interaction


def test_max_age() -> None:
    assert parse_max_age(None) is None and parse_max_age("0") == 0
    for bad in ("-1", "1.5", "12345678901"):
        with pytest.raises(InvalidRequest):
            parse_max_age(bad)
    assert AuthorizationRequest("a", "u", ["openid"], max_age=0).forces_login
    select = AuthorizationRequest("a", "u", ["openid"], prompt=frozenset({"select_account"}))
    assert select.forces_login


def test_the_redirect_uri_must_equal_a_registered_one() -> None:
    registered = ["https://app.example/cb"]
    assert match_redirect_uri(registered, "https://app.example/cb") == "https://app.example/cb"
    for given in (None, "", "https://app.example/cb/", "https://app.example/cb?x=1"):
        with pytest.raises(UntrustedRequest):
            match_redirect_uri(registered, given)


def test_with_query_appends_and_drops_none() -> None:
    assert with_query("https://a/cb", {"code": "c", "state": None}) == "https://a/cb?code=c"
    assert with_query("https://a/cb?x=1", {"state": "a b"}) == "https://a/cb?x=1&state=a+b"
