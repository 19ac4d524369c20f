"""Recent sign-in (RFC 9470; contract §5 rule 5): the age rule and the exact refusal."""

from __future__ import annotations

import msgspec
import pytest

from idp_common.errors import PermissionDenied
from idp_common.protocol.constants import RECENT_SIGN_IN_MAX_AGE_SECONDS
from idp_common.state.sessions import BrowserSession
from idp_common.web.guard import Caller, requires
from idp_common.web.recent_auth import (
    CLOCK_SKEW_SECONDS,
    check_recent_sign_in,
    recent_sign_in_guard,
    requires_recent_sign_in,
    sign_in_is_anchored,
    sign_in_is_recent,
    step_up_challenge,
)

NOW = 1_700_000_000
EXACT_HEADER = 'Bearer error="insufficient_user_authentication", max_age=300'


def session_json(user_id: str = "p", auth_time: int = NOW) -> bytes:
    record = BrowserSession(
        sid="s",
        user_id=user_id,
        auth_time=auth_time,
        amr=["pwd"],
        acr="a",
        created_at=auth_time,
        last_seen=auth_time,
    )
    return msgspec.json.encode(record)


def caller(
    *, session: bytes | None = None, changed: float | None = None, **claims: object
) -> Caller:
    """A caller whose token stands on a live session signed in at its ``auth_time``."""
    auth_time = claims.get("auth_time")
    if session is None and isinstance(auth_time, int):
        session = session_json(auth_time=auth_time)
    return Caller(
        subject="p",
        client_id="console",
        scopes=frozenset(),
        auth_time=auth_time,  # type: ignore[arg-type]
        claims=dict(claims),
        session=session,
        credentials_changed_at=changed,
    )


SECRET = ["pwd"]


def test_a_sign_in_counts_only_on_a_live_session_of_the_caller() -> None:
    assert sign_in_is_anchored(caller(auth_time=NOW, amr=SECRET))
    lone = Caller(subject="p", client_id="c", scopes=frozenset(), auth_time=NOW, claims={})
    assert not sign_in_is_anchored(lone)  # no session: ended, or never had one
    assert not sign_in_is_anchored(caller(session=session_json("someone-else"), auth_time=NOW))


def test_an_exchanged_token_never_steps_up() -> None:
    assert not sign_in_is_anchored(caller(auth_time=NOW, act={"sub": "resource-api"}))
    with pytest.raises(PermissionDenied):
        check_recent_sign_in(caller(auth_time=NOW, amr=SECRET, act={"sub": "api"}), now=NOW)


@pytest.mark.parametrize(
    ("changed", "counts"),
    [
        (None, True),
        (NOW - 1.0, True),
        (NOW + 0.9, True),  # the same whole second: auth_time has no finer grain
        (NOW + 1.0, False),
        (NOW + 60.0, False),
    ],
)
def test_a_sign_in_older_than_the_last_credential_change_no_longer_counts(
    changed: float | None, counts: bool
) -> None:
    assert sign_in_is_anchored(caller(auth_time=NOW, changed=changed)) is counts


def test_a_recent_token_on_a_session_signed_in_before_the_change_is_refused() -> None:
    """A session kept across the change (the one a factor was removed from) re-authenticates:
    its sign-in is older than the change even when the token is new."""
    kept = caller(session=session_json(auth_time=NOW - 100), auth_time=NOW, changed=NOW - 50.0)
    assert not sign_in_is_anchored(kept)


@pytest.mark.parametrize(
    ("auth_time", "recent"),
    [
        (NOW, True),
        (NOW - 1, True),
        (NOW - RECENT_SIGN_IN_MAX_AGE_SECONDS, True),
        (NOW - RECENT_SIGN_IN_MAX_AGE_SECONDS - 1, False),
        (NOW - 1000, False),
        (float(NOW - 10), True),
        (NOW + CLOCK_SKEW_SECONDS, True),
        (NOW + CLOCK_SKEW_SECONDS + 1, False),
        (None, False),
        ("1700000000", False),
        (True, False),
        ([NOW], False),
    ],
)
def test_sign_in_is_recent(auth_time: object, recent: bool) -> None:
    assert sign_in_is_recent(auth_time, now=NOW) is recent


def test_max_age_is_a_parameter() -> None:
    assert sign_in_is_recent(NOW - 50, now=NOW, max_age=60)
    assert not sign_in_is_recent(NOW - 61, now=NOW, max_age=60)


def test_the_challenge_is_exactly_the_spec_s() -> None:
    assert step_up_challenge() == EXACT_HEADER
    assert step_up_challenge(60) == 'Bearer error="insufficient_user_authentication", max_age=60'


def test_a_fresh_caller_passes() -> None:
    check_recent_sign_in(caller(auth_time=NOW - 10, amr=["pwd"]), now=NOW)
    check_recent_sign_in(caller(auth_time=NOW - 10, amr=["face", "otp", "mfa"]), now=NOW)
    check_recent_sign_in(caller(auth_time=NOW - 10, amr=["swk", "user", "mfa"]), now=NOW)


@pytest.mark.parametrize(
    "claims", [{"auth_time": NOW - 1000, "amr": ["pwd"]}, {"amr": ["pwd", "otp", "mfa"]}]
)
def test_an_old_or_missing_auth_time_is_refused_with_the_header(claims: dict[str, int]) -> None:
    with pytest.raises(PermissionDenied) as refused:
        check_recent_sign_in(caller(**claims), now=NOW)
    assert refused.value.status_code == 403
    assert refused.value.headers == {"WWW-Authenticate": EXACT_HEADER}
    assert refused.value.code == "auth.insufficient_user_authentication"


def test_the_route_helper_adds_the_age_check_after_the_permission() -> None:
    plain = requires("idp:account:write")
    spec = requires_recent_sign_in("idp:account:write")
    assert spec["guards"] == [*plain["guards"], recent_sign_in_guard]
    assert spec["security"] == plain["security"]
    assert spec["opt"]["permission"] == "idp:account:write"


def test_the_route_helper_leaves_the_age_to_the_deployment_unless_given() -> None:
    assert requires_recent_sign_in("idp:account:write")["opt"]["recent_sign_in_max_age"] is None
    assert requires_recent_sign_in("idp:account:write", 60)["opt"]["recent_sign_in_max_age"] == 60


@pytest.mark.parametrize("amr", [["face"], [], None, "pwd", [1]])
def test_a_fresh_sign_in_without_a_secret_is_refused_naming_the_levels(amr: object) -> None:
    with pytest.raises(PermissionDenied) as refused:
        check_recent_sign_in(caller(auth_time=NOW - 10, amr=amr), now=NOW)
    assert refused.value.headers == {
        "WWW-Authenticate": EXACT_HEADER
        + ', acr_values="urn:idp:acr:1fa urn:idp:acr:2fa urn:idp:acr:phr"'
    }


@pytest.mark.parametrize(
    ("amr", "passes"),
    [
        (["pwd", "otp", "mfa"], True),
        (["face", "otp", "mfa"], True),
        (["pwd"], False),
        (["face", "mfa"], False),  # two factors, but neither a secret: not enough
        (["hwk", "user", "mfa"], True),  # a passkey verified on its device
        (["pwd", "swk", "mfa"], True),
        (["hwk"], False),  # a security key without user verification: one factor
    ],
)
def test_two_factors_when_asked(amr: list[str], passes: bool) -> None:
    fresh = caller(auth_time=NOW - 10, amr=amr)
    if passes:
        check_recent_sign_in(fresh, now=NOW, two_factors=True)
        return
    with pytest.raises(PermissionDenied) as refused:
        check_recent_sign_in(fresh, now=NOW, two_factors=True)
    assert refused.value.headers["WWW-Authenticate"].endswith(', acr_values="urn:idp:acr:2fa"')
