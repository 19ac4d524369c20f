"""Which signing algorithm an API or a client may be registered for."""

from __future__ import annotations

import pytest

from admin_service.protocol.jws_algorithms import signing_alg_problem

ALL = frozenset({"RS256", "PS256", "ES256", "EdDSA"})


@pytest.mark.parametrize("alg", sorted(ALL))
def test_a_held_algorithm_is_accepted(alg: str) -> None:
    assert signing_alg_problem(alg, ALL) is None


def test_an_algorithm_without_a_key_names_the_command_that_adds_one() -> None:
    assert signing_alg_problem("ES256", {"RS256"}) == (
        "no ES256 signing key; generate one with idp keys generate --alg ES256"
    )


@pytest.mark.parametrize("alg", ["none", "None", "HS256", "HS512", "hs384"])
def test_none_and_hmac_are_never_accepted(alg: str) -> None:
    problem = signing_alg_problem(alg, ALL | {alg})
    assert problem is not None
    assert problem.startswith(f"{alg} is never accepted")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("RS512", "RS512"),
        ("es256", "es256"),
        ("Ed25519", "Ed25519"),
        ("", "this value"),
        ("<script>", "this value"),
        ("x" * 40, "this value"),
        (256, "this value"),
    ],
)
def test_other_values_are_unsupported(value: object, shown: str) -> None:
    assert signing_alg_problem(value, ALL) == (
        f"unsupported algorithm {shown}; one of RS256, PS256, ES256, EdDSA"
    )
