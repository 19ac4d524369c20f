"""The size bounds of authorization request parameters (docs/security.md, attack 4)."""

from __future__ import annotations

import pytest

from idp_common.protocol.oidc_authorize import (
    ALL_PARAMETERS,
    PARAMETER_BOUNDS,
    ParameterTooLong,
    UntrustedRequest,
    parse_acr_values,
    refuse_repeated,
    requires_phishing_resistance,
    session_meets_acr,
    single_values,
)
from idp_common.protocol.rfc6749_errors import InvalidRequest, OAuth2Error


def test_every_accepted_parameter_has_a_bound() -> None:
    assert set(ALL_PARAMETERS) == set(PARAMETER_BOUNDS)
    assert all(bound > 0 for bound in PARAMETER_BOUNDS.values())


@pytest.mark.parametrize("name", sorted(PARAMETER_BOUNDS))
def test_a_value_at_its_bound_passes_and_one_more_character_is_refused(name: str) -> None:
    bound = PARAMETER_BOUNDS[name]
    values, repeated = single_values({name: ["a" * bound]})
    assert values == {name: "a" * bound} and repeated == []
    with pytest.raises(ParameterTooLong) as caught:
        single_values({name: ["a" * (bound + 1)]})
    assert caught.value.name == name
    assert caught.value.description == f"the {name} parameter is longer than {bound} characters"
    assert "aaaa" not in str(caught.value)  # the value itself is never repeated


def test_an_oversized_value_is_refused_even_when_repeated() -> None:
    with pytest.raises(ParameterTooLong):
        single_values({"state": ["ok", "s" * 5000]})


def test_an_oversized_value_is_untrusted_not_sent_to_the_client() -> None:
    """The error page, not a redirect: a too-long value says nothing good of the request."""
    assert issubclass(ParameterTooLong, UntrustedRequest)
    assert not issubclass(ParameterTooLong, OAuth2Error)


def test_unknown_parameters_are_ignored_whatever_their_size() -> None:
    assert single_values({"unknown": ["x" * 100_000], "state": ["s"]}) == ({"state": "s"}, [])


def test_repeated_parameters() -> None:
    with pytest.raises(UntrustedRequest, match="client_id parameter is repeated"):
        single_values({"client_id": ["a", "b"]})
    values, repeated = single_values({"state": ["a", "b"], "nonce": ["n"], "prompt": [""]})
    assert values == {"nonce": "n"} and repeated == ["state"]
    with pytest.raises(InvalidRequest, match="the state parameter is repeated"):
        refuse_repeated(repeated)


def test_acr_values_keep_the_known_levels_in_order() -> None:
    assert parse_acr_values(None) == ()
    assert parse_acr_values("urn:idp:acr:2fa  other urn:idp:acr:1fa urn:idp:acr:2fa") == (
        "urn:idp:acr:2fa",
        "urn:idp:acr:1fa",
    )
    assert session_meets_acr("urn:idp:acr:face", ())
    assert not session_meets_acr("urn:idp:acr:face", ("urn:idp:acr:1fa", "urn:idp:acr:2fa"))
    assert session_meets_acr("urn:idp:acr:2fa", ("urn:idp:acr:1fa", "urn:idp:acr:2fa"))


def test_levels_are_ordered_weakest_first() -> None:
    """A phishing-resistant session meets a request for two factors; a
    two-factor one does not meet a request for ``phr``."""
    assert session_meets_acr("urn:idp:acr:phr", ("urn:idp:acr:2fa",))
    assert session_meets_acr("urn:idp:acr:phr", ("urn:idp:acr:1fa", "urn:idp:acr:2fa"))
    assert not session_meets_acr("urn:idp:acr:2fa", ("urn:idp:acr:phr",))
    assert not session_meets_acr("urn:idp:acr:face", ("urn:idp:acr:1fa",))
    assert session_meets_acr("urn:idp:acr:1fa", ("urn:idp:acr:face",))
    assert requires_phishing_resistance(("urn:idp:acr:phr",))
    assert not requires_phishing_resistance(("urn:idp:acr:2fa", "urn:idp:acr:phr"))
    assert not requires_phishing_resistance(())
