"""RFC 8693 token exchange: request shape, targets (never the provider's own API),
addressee, sender constraint (RFC 9449), scope and ``act``."""

from __future__ import annotations

from typing import Any

import pytest

from idp_common.protocol.constants import TOKEN_TYPE_URN_ACCESS_TOKEN
from idp_common.protocol.rfc6749_errors import InvalidRequest, InvalidScope, OAuth2Error
from token_service.protocol.rfc8693_token_exchange import (
    OWN_API_REFUSED,
    PROOF_REQUIRED,
    CarriedSignIn,
    actor_claim,
    carried_sign_in,
    check_addressed_to,
    check_allowed_targets,
    check_sender_constraint,
    exchanged_expiry,
    exchanged_scopes,
    parse_exchange,
    token_audiences,
)
from token_service.protocol.rfc8707_resource import InvalidTarget

AT = TOKEN_TYPE_URN_ACCESS_TOKEN
OWN_API = "https://id.example/api"
JKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
OTHER_JKT = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"


def _request(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject_token": "a.b.c",
        "subject_token_type": AT,
        "actor_token": None,
        "actor_token_type": None,
        "requested_token_type": None,
        "audiences": ["urn:billing"],
        "resources": [],
        "scope": None,
    }
    return {**base, **changes}


def test_parse_joins_audience_and_resource_targets() -> None:
    parsed = parse_exchange(
        **_request(
            audiences=["urn:billing", ""],
            resources=["https://orders.example", "urn:billing"],
            scope="a:b:c",
            requested_token_type=AT,
        )
    )
    assert parsed.subject_token == "a.b.c"
    assert parsed.targets == ("urn:billing", "https://orders.example")
    assert parsed.scopes == ["a:b:c"]


@pytest.mark.parametrize(
    ("changes", "error", "description"),
    [
        ({"subject_token": None}, InvalidRequest, "subject_token is required"),
        ({"subject_token_type": None}, InvalidRequest, "subject_token_type is required"),
        ({"subject_token_type": ID_TOKEN_TYPE}, InvalidRequest, f"subject_token_type must be {AT}"),
        ({"actor_token": "x.y.z"}, InvalidRequest, None),
        ({"actor_token_type": AT}, InvalidRequest, None),
        ({"requested_token_type": ID_TOKEN_TYPE}, InvalidRequest, None),
        ({"audiences": []}, InvalidTarget, "name the target API with audience or resource"),
        ({"audiences": [], "resources": ["not-a-uri"]}, InvalidTarget, None),
        ({"audiences": ["x" * 3000]}, InvalidTarget, None),
        ({"audiences": [f"urn:a:{i}" for i in range(11)]}, InvalidTarget, None),
    ],
)
def test_parse_refuses(
    changes: dict[str, Any], error: type[OAuth2Error], description: str | None
) -> None:
    with pytest.raises(error) as caught:
        parse_exchange(**_request(**changes))
    assert type(caught.value) is error
    if description is not None:
        assert caught.value.description == description


def test_targets_must_be_allowed_by_the_administrator() -> None:
    allowed = frozenset({"urn:billing", "urn:x"})
    check_allowed_targets(["urn:billing"], allowed, own_api=OWN_API)
    with pytest.raises(InvalidTarget):
        check_allowed_targets(["urn:billing", "urn:other"], allowed, own_api=OWN_API)
    with pytest.raises(InvalidTarget):
        check_allowed_targets(["urn:billing"], frozenset(), own_api=OWN_API)  # the default


@pytest.mark.parametrize(
    ("targets", "allowed"),
    [
        ([OWN_API], frozenset({OWN_API})),  # stored before the rule: still refused
        (["urn:billing", OWN_API], frozenset({"urn:billing", OWN_API})),
        ([OWN_API], frozenset()),
    ],
)
def test_the_providers_own_api_is_never_a_target(
    targets: list[str], allowed: frozenset[str]
) -> None:
    with pytest.raises(InvalidTarget) as caught:
        check_allowed_targets(targets, allowed, own_api=OWN_API)
    assert caught.value.error == "invalid_target"
    assert caught.value.description == OWN_API_REFUSED
    assert "own API" in OWN_API_REFUSED


def test_an_api_near_the_own_one_is_judged_by_the_list() -> None:
    near = [f"{OWN_API}/", f"{OWN_API}s", "https://id.example/apis"]
    check_allowed_targets(near, frozenset(near), own_api=OWN_API)
    with pytest.raises(InvalidTarget) as caught:
        check_allowed_targets(near, frozenset(), own_api=OWN_API)
    assert caught.value.description != OWN_API_REFUSED


@pytest.mark.parametrize(
    ("claims", "proved"),
    [
        ({}, None),  # a bearer subject token, no proof: stays as it was
        ({}, JKT),  # a bearer subject token with a proof: the new token is bound to it
        ({"cnf": {"jkt": JKT}}, JKT),
        ({"cnf": {"jkt": JKT}}, OTHER_JKT),  # the exchanging API's own key, not the person's
        ({"cnf": {"x5t#S256": "abc"}}, None),  # not a DPoP binding
        ({"cnf": "junk"}, None),
    ],
)
def test_sender_constraint_holds(claims: dict[str, Any], proved: str | None) -> None:
    check_sender_constraint(claims, proved)


def test_a_bound_subject_token_needs_a_proof() -> None:
    with pytest.raises(InvalidRequest) as caught:
        check_sender_constraint({"cnf": {"jkt": JKT}}, None)
    assert type(caught.value) is InvalidRequest
    assert caught.value.description == PROOF_REQUIRED
    assert "DPoP proof" in PROOF_REQUIRED


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ({"aud": "a"}, ["a"]),
        ({"aud": ["a", "b", 3]}, ["a", "b"]),
        ({}, []),
        ({"aud": 7}, []),
    ],
)
def test_token_audiences(claims: dict[str, Any], expected: list[str]) -> None:
    assert token_audiences(claims) == expected


def test_subject_token_addressed_to_the_client_or_an_api_it_represents() -> None:
    check_addressed_to(["https://idp/api", "client-1"], "client-1", set())
    check_addressed_to(["https://idp/api", "urn:orders"], "client-1", {"urn:orders"})
    with pytest.raises(InvalidRequest) as caught:
        check_addressed_to(["https://idp/api", "urn:orders"], "client-1", {"urn:billing"})
    assert caught.value.error == "invalid_request"
    with pytest.raises(InvalidRequest):
        check_addressed_to([], "client-1", {"urn:billing"})


@pytest.mark.parametrize(
    ("requested", "subject", "target", "expected"),
    [
        ([], ["o:r", "b:r", "openid"], {"b:r", "b:w"}, ["b:r"]),  # omitted: the subject's
        (["b:r", "b:w"], ["o:r", "b:r"], {"b:r", "b:w"}, ["b:r"]),  # b:w never held: dropped
        (["b:r", "b:r"], ["b:r"], {"b:r"}, ["b:r"]),
    ],
)
def test_exchanged_scopes_never_widen(
    requested: list[str], subject: list[str], target: set[str], expected: list[str]
) -> None:
    assert exchanged_scopes(requested, subject, target) == expected


@pytest.mark.parametrize(
    ("requested", "subject", "target"),
    [
        (["b:w"], ["b:r"], {"b:r", "b:w"}),  # asked only for what the subject lacks
        ([], ["o:r"], {"b:r"}),  # the subject holds nothing of the target
    ],
)
def test_exchanged_scopes_empty_is_invalid_scope(
    requested: list[str], subject: list[str], target: set[str]
) -> None:
    with pytest.raises(InvalidScope):
        exchanged_scopes(requested, subject, target)


def test_actor_claim_nests_a_prior_act() -> None:
    assert actor_claim("svc-a", None) == {"sub": "svc-a"}
    assert actor_claim("svc-a", {}) == {"sub": "svc-a"}
    assert actor_claim("svc-b", {"sub": "svc-a"}) == {"sub": "svc-b", "act": {"sub": "svc-a"}}
    assert actor_claim("svc-b", "junk") == {"sub": "svc-b"}


def test_exchanged_expiry_never_outlives_the_subject_token() -> None:
    assert exchanged_expiry(1000, 600, 5000) == 1600
    assert exchanged_expiry(1000, 600, 1200) == 1200


def test_the_sign_in_and_the_session_are_carried() -> None:
    claims = {
        "auth_time": 1764240000,
        "acr": "urn:idp:acr:1fa",
        "amr": ["pwd", 7],
        "sid": "a-session",
        "scope": "x",
    }
    assert carried_sign_in(claims) == CarriedSignIn(
        auth_time=1764240000, acr="urn:idp:acr:1fa", amr=["pwd"], sid="a-session"
    )


@pytest.mark.parametrize(
    "claims",
    [
        {},  # a client's own token: no sign-in, no session
        {"auth_time": True, "acr": 1, "amr": "pwd", "sid": ""},
        {"auth_time": "1764240000", "sid": 42},
    ],
)
def test_nothing_is_carried_that_is_not_of_its_type(claims: dict[str, Any]) -> None:
    assert carried_sign_in(claims) == CarriedSignIn(None, None, None, None)
