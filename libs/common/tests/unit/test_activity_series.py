"""The activity dashboard's pure rules: which series an audit row counts in, the hours of
a range, which hours a roll-up still needs, and the answer assembled from counted rows."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest

from idp_common.storage.repos.activity import (
    Activity,
    assemble,
    closed_until,
    hour_starts,
    missing_runs,
    series_of,
)

H = timedelta(hours=1)


@pytest.mark.parametrize(
    ("action", "variant", "expected"),
    [
        ("login.succeeded", '["pwd"]', [("signins", "password", "succeeded")]),
        (
            "login.succeeded",
            '["pwd", "otp", "mfa"]',
            [("signins", "password", "succeeded"), ("signins", "totp", "succeeded")],
        ),
        (
            "login.succeeded",
            '["pwd", "face", "mfa"]',
            [("signins", "password", "succeeded"), ("signins", "face", "succeeded")],
        ),
        ("login.succeeded", '["face"]', [("signins", "face", "succeeded")]),
        ("login.succeeded", '["hwk", "user", "mfa"]', [("signins", "passkey", "succeeded")]),
        ("login.succeeded", '["swk", "hwk"]', [("signins", "passkey", "succeeded")]),
        ("login.succeeded", "", [("signins", "other", "succeeded")]),
        ("login.succeeded", "not json", [("signins", "other", "succeeded")]),
        ("login.failed", "", [("signins", "password", "failed")]),
        ("login.failed", "face", [("signins", "face", "failed")]),
        ("login.failed", "passkey", [("signins", "passkey", "failed")]),
        ("totp.failed", "", [("signins", "totp", "failed")]),
        ("login.throttled", "", [("signins", "password", "throttled"), ("throttled",)]),
        ("second_factor.throttled", "code", [("signins", "totp", "throttled"), ("throttled",)]),
        ("second_factor.throttled", "face", [("signins", "face", "throttled"), ("throttled",)]),
        (
            "second_factor.throttled",
            "passkey",
            [("signins", "passkey", "throttled"), ("throttled",)],
        ),
        ("POST backchannel_logout", "true", [("backchannel", "delivered")]),
        ("POST backchannel_logout", "false", [("backchannel", "failed")]),
        ("POST backchannel_logout", "", [("backchannel", "failed")]),
        ("tokens.issued", "authorization_code", [("tokens", "authorization_code")]),
        ("tokens.issued", "client_credentials", [("tokens", "client_credentials")]),
        (
            "tokens.issued",
            "urn:ietf:params:oauth:grant-type:device_code",
            [("tokens", "device_code")],
        ),
        (
            "tokens.issued",
            "urn:ietf:params:oauth:grant-type:token-exchange",
            [("tokens", "token_exchange")],
        ),
        ("tokens.issued", "", []),
        ("second_factor.locked", "", []),  # a state, not an attempt: the failure counted
        ("user.update", "", []),
    ],
)
def test_series_of(action: str, variant: str, expected: list[tuple[str, ...]]) -> None:
    assert list(series_of(action, variant)) == expected


def test_hour_starts_are_utc_hours_oldest_first_ending_with_the_current() -> None:
    now = datetime(2026, 11, 28, 5, 12, 3, 999, tzinfo=UTC)
    hours = hour_starts(now, 24)
    assert len(hours) == 24
    assert hours[-1] == datetime(2026, 11, 28, 5, tzinfo=UTC)
    assert hours[0] == datetime(2026, 11, 27, 6, tzinfo=UTC)
    assert all(b - a == H for a, b in itertools.pairwise(hours))
    assert len(hour_starts(now, 168)) == 168


def test_hour_starts_align_in_utc_whatever_the_offset() -> None:
    india = timezone(timedelta(hours=5, minutes=30))
    now = datetime(2026, 11, 28, 10, 50, tzinfo=india)  # 05:20 UTC
    assert hour_starts(now, 1) == [datetime(2026, 11, 28, 5, tzinfo=UTC)]


def test_an_hour_is_closed_two_minutes_after_it_ends() -> None:
    assert closed_until(datetime(2026, 11, 28, 5, 1, 59, tzinfo=UTC)) == datetime(
        2026, 11, 28, 4, tzinfo=UTC
    )
    assert closed_until(datetime(2026, 11, 28, 5, 2, tzinfo=UTC)) == datetime(
        2026, 11, 28, 5, tzinfo=UTC
    )


def test_missing_runs_groups_consecutive_hours() -> None:
    t = datetime(2026, 11, 28, tzinfo=UTC)
    wanted = [t + H * i for i in range(6)]
    assert missing_runs(wanted, []) == [(t, t + 6 * H)]
    assert missing_runs(wanted, wanted) == []
    assert missing_runs(wanted, [t + H, t + 2 * H, t + 4 * H]) == [
        (t, t + H),
        (t + 3 * H, t + 4 * H),
        (t + 5 * H, t + 6 * H),
    ]


def test_assemble_puts_counts_at_their_hour_and_totals_them() -> None:
    now = datetime(2026, 11, 28, 5, 30, tzinfo=UTC)
    hours = hour_starts(now, 3)
    groups = [
        ("login.succeeded", '["pwd", "otp", "mfa"]', [0], [2]),
        ("login.succeeded", '["pwd"]', [2], [1]),
        ("login.throttled", "", [1], [4]),
        ("second_factor.throttled", "code", [2], [1]),
        ("tokens.issued", "client_credentials", [0, 2], [3, 7]),
        ("tokens.issued", "refresh_token", [-1, 3], [100, 100]),  # outside the range
        ("login.failed", "", [], []),
        ("user.update", "", [0], [9]),  # not a dashboard action
        ("POST backchannel_logout", "true", [1], [1]),
    ]
    answer = assemble("24h", hours, groups, active_sessions=2, now=now)
    body = msgspec.json.decode(msgspec.json.encode(answer))
    assert body["range"] == "24h"
    assert body["hours"] == ["2026-11-28T03:00:00Z", "2026-11-28T04:00:00Z", "2026-11-28T05:00:00Z"]
    assert body["signins"] == [
        {"method": "password", "outcome": "succeeded", "counts": [2, 0, 1], "total": 3},
        {"method": "password", "outcome": "throttled", "counts": [0, 4, 0], "total": 4},
        {"method": "totp", "outcome": "succeeded", "counts": [2, 0, 0], "total": 2},
        {"method": "totp", "outcome": "throttled", "counts": [0, 0, 1], "total": 1},
    ]
    assert body["throttled"] == {"counts": [0, 4, 1], "total": 5}
    # refresh_token had events outside the range only: left out, as login.failed
    assert body["tokens"] == [{"grant": "client_credentials", "counts": [3, 0, 7], "total": 10}]
    assert body["backchannel"] == [{"status": "delivered", "counts": [0, 1, 0], "total": 1}]
    assert body["activeSessions"] == 2
    assert body["generatedAt"] == "2026-11-28T05:30:00Z"


def test_assemble_without_events_has_an_empty_throttled_series() -> None:
    now = datetime(2026, 11, 28, 5, 30, tzinfo=UTC)
    answer: Activity = assemble("7d", hour_starts(now, 168), [], active_sessions=0, now=now)
    assert answer.signins == [] and answer.tokens == [] and answer.backchannel == []
    assert answer.throttled.counts == [0] * 168 and answer.throttled.total == 0
