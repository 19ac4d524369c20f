"""The authorization code grant's decisions (RFC 6749 §4.1.3, RFC 7636 §4.6), without HTTP
or a database: which refusal for which code, and what a good code grants."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from idp_common.protocol.rfc6749_errors import InvalidGrant
from idp_common.protocol.rfc7636_pkce import s256_challenge
from token_service.forms import TokenRequest
from token_service.grants.rfc6749_authorization_code import check_code, judge_code
from token_service.protocol.rfc8707_resource import InvalidTarget, ResourceApi
from token_service.resource_indicators import Targets

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)  # as the records of conftest.py
VERIFIER = "v" * 43
REQUEST = TokenRequest(redirect_uri="https://app.example/cb")


def refusal(code: Any, client: Any, req: TokenRequest = REQUEST, person: Any = None) -> str:
    verdict = judge_code(code, person, client, req, NOW)
    assert verdict.refused and verdict.refusal is not None
    assert verdict.scopes == [] and verdict.refresh_scope is None
    return verdict.refusal.description


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"expires_at": NOW}, "the authorization code has expired"),
        ({"redirect_uri": "https://evil.example/cb"}, "redirect_uri does not match"),
    ],
)
def test_a_code_is_refused_for_its_state(
    make_client: Callable[..., Any],
    make_code: Callable[..., Any],
    make_person: Callable[..., Any],
    changes: dict[str, Any],
    reason: str,
) -> None:
    client = make_client()
    assert refusal(make_code(client, **changes), client, person=make_person()).startswith(reason)


def test_another_clients_code_is_refused(
    make_client: Callable[..., Any], make_code: Callable[..., Any]
) -> None:
    code = make_code(make_client())
    with pytest.raises(InvalidGrant, match="issued to another client"):
        check_code(code, make_client(), REQUEST, NOW)


def test_pkce_rules(make_client: Callable[..., Any], make_code: Callable[..., Any]) -> None:
    public = make_client(type="public")
    with pytest.raises(InvalidGrant, match="PKCE is required"):
        check_code(make_code(public), public, REQUEST, NOW)
    confidential = make_client()
    downgrade = TokenRequest(redirect_uri=REQUEST.redirect_uri, code_verifier=VERIFIER)
    with pytest.raises(InvalidGrant, match="had no challenge"):
        check_code(make_code(confidential), confidential, downgrade, NOW)
    challenged = make_code(
        public, code_challenge=s256_challenge(VERIFIER), code_challenge_method="S256"
    )
    check_code(challenged, public, downgrade, NOW)
    with pytest.raises(InvalidGrant):
        check_code(challenged, public, REQUEST, NOW)


def test_a_person_gone_or_disabled_is_refused(
    make_client: Callable[..., Any], make_code: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client()
    gone = refusal(make_code(client), client, person=None)
    disabled = refusal(make_code(client), client, person=make_person(disabled=True))
    assert gone == disabled == "the person is no longer able to sign in"


def test_a_good_code_grants_the_narrowed_scope_and_a_refresh_token(
    make_client: Callable[..., Any], make_code: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client(scopes=frozenset({"openid", "offline_access"}))
    verdict = judge_code(make_code(client), make_person(), client, REQUEST, NOW)
    assert not verdict.refused
    assert verdict.scopes == ["openid", "offline_access"]  # profile: not the client's
    assert verdict.refresh_scope == "openid offline_access"


def test_no_refresh_token_without_offline_access_or_the_grant_type(
    make_client: Callable[..., Any], make_code: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client(grant_types=frozenset({"authorization_code"}))
    assert judge_code(make_code(client), make_person(), client, REQUEST, NOW).refresh_scope is None
    client = make_client()
    code = make_code(client, scope="openid profile")
    assert judge_code(code, make_person(), client, REQUEST, NOW).refresh_scope is None


def test_an_expired_code_is_refused_a_moment_after(
    make_client: Callable[..., Any], make_code: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    client = make_client()
    code = make_code(client, expires_at=NOW - timedelta(seconds=1))
    assert refusal(code, client, person=make_person()) == "the authorization code has expired"


def test_a_resource_the_code_does_not_reach_refuses_it_with_invalid_target(
    make_client: Callable[..., Any], make_code: Callable[..., Any], make_person: Callable[..., Any]
) -> None:
    """RFC 8707 §2.2: a ``resource`` at the token endpoint must be among the authorized."""
    client = make_client()
    code = make_code(client, scope="openid api:read")
    person = make_person(scopes=frozenset({"api:read"}))
    api = ResourceApi("urn:api", "RS256", frozenset({"api:read"}))
    other = ResourceApi("urn:other", "RS256", frozenset({"other:read"}))
    targets = Targets(["urn:api"], {"urn:api": api})
    verdict = judge_code(code, person, client, REQUEST, NOW, targets)
    assert not verdict.refused
    assert verdict.scopes == ["openid", "api:read"]  # the grant keeps its whole scope
    refused = judge_code(
        code, person, client, REQUEST, NOW, Targets(["urn:other"], {"urn:other": other})
    )
    assert isinstance(refused.refusal, InvalidTarget)
    assert refused.refusal.error == "invalid_target"
