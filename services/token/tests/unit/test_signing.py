"""Which algorithm signs an access token (token_service.signing)."""

from __future__ import annotations

import pytest

from token_service.signing import TokenAudiences, access_token_alg, token_audiences

PROVIDER = "https://idp.test/api"


@pytest.mark.parametrize(
    ("pairs", "alg"),
    [
        pytest.param([], "RS256", id="no-api"),
        pytest.param([(PROVIDER, "RS256")], "RS256", id="provider-only"),
        pytest.param([("https://a", "ES256")], "ES256", id="one-api"),
        pytest.param([(PROVIDER, "RS256"), ("https://a", "EdDSA")], "EdDSA", id="with-provider"),
        pytest.param([("https://a", "ES256"), ("https://b", "ES256")], "ES256", id="agree"),
        pytest.param([("https://a", "ES256"), ("https://b", "EdDSA")], "RS256", id="disagree"),
    ],
)
def test_the_granted_apis_choose_the_algorithm(pairs: list[tuple[str, str]], alg: str) -> None:
    assert access_token_alg(pairs, PROVIDER) == alg


def test_token_audiences_keeps_the_order_and_the_choice() -> None:
    found = token_audiences([("https://a", "PS256"), ("https://b", "PS256")], PROVIDER)
    assert found == TokenAudiences(("https://a", "https://b"), "PS256")
    assert TokenAudiences() == ((), "RS256")
