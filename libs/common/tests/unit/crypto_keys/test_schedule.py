"""idp_common.crypto.key_schedule and key_retention: which key signs, which are next,
current and retired, when a rotated key may sign and when a retired one may be pruned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from idp_common.crypto.key_schedule import (
    KeyState,
    RotationTimings,
    activation_of,
    key_file_stem,
    key_statuses,
    prunable,
    rotation_activation,
    signer_index,
    signer_window,
)
from idp_common.operations.key_retention import longest_token_lifetime, rotation_timings

T0 = datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC)
DEFAULTS = rotation_timings(access_token_ttl=600, jwks_cache_seconds=300, reload_seconds=10)
SMALL = RotationTimings(jwks_cache_seconds=4, reload_seconds=1, longest_token_seconds=60)


def name(moment: datetime, suffix: str = "") -> str:
    return f"{key_file_stem(moment)}{suffix}.pem"


@pytest.mark.parametrize(
    ("file_name", "expected"),
    [
        ("20261126T100000Z.pem", T0),
        ("20261126T100000Z_001.pem", T0),
        ("/etc/idp/keys/20261126T100000Z.pem", T0),
        ("20261126T100000Z", None),  # no suffix
        ("20261126T100000Z.pem.bak", None),
        ("20261326T100000Z.pem", None),  # month 13
        ("20261126T100000Z-old.pem", None),
        ("a.pem", None),
        ("2026.pem", None),
    ],
)
def test_activation_is_read_from_the_file_name(file_name: str, expected: datetime | None) -> None:
    assert activation_of(file_name) == expected


def test_the_stem_names_the_time_in_utc_and_refuses_a_naive_time() -> None:
    assert key_file_stem(
        datetime(2026, 11, 26, 11, 0, 0, 900_000, timezone(timedelta(hours=1)))
    ) == ("20261126T100000Z")
    with pytest.raises(ValueError, match="timezone"):
        key_file_stem(datetime(2026, 11, 26))


@pytest.mark.parametrize(
    ("activations", "now", "signer"),
    [
        ([0.0], 100.0, 0),
        ([0.0, 50.0], 49.9, 0),
        ([0.0, 50.0], 50.0, 1),  # the activation second itself belongs to the new key
        ([0.0, 50.0, 80.0], 60.0, 1),
        ([0.0, 50.0, 80.0], 90.0, 2),
        ([200.0], 100.0, 0),  # fresh install, the only key ahead: it signs anyway
        ([200.0, 300.0], 100.0, 0),  # none has passed: the oldest signs
        ([None, None], 100.0, 1),  # hand-named: the last by name (contract §5's rule)
        ([0.0, None], 100.0, 1),
        ([None, 200.0], 100.0, 0),  # a hand-named key signs until the timed one's time
        ([None, 200.0], 200.0, 1),
    ],
)
def test_the_signer_is_the_last_key_whose_time_has_passed(
    activations: list[float | None], now: float, signer: int
) -> None:
    assert signer_index(activations, now) == signer


def test_no_key_no_signer() -> None:
    with pytest.raises(ValueError, match="no key"):
        signer_index([], 0.0)


def test_the_signer_window_ends_at_the_next_activation() -> None:
    assert signer_window([0.0, 50.0, 80.0], 60.0) == (1, 50.0, 80.0)
    assert signer_window([0.0, 50.0, 80.0], 10.0) == (0, 0.0, 50.0)
    assert signer_window([None], 10.0)[1:] == (float("-inf"), float("inf"))
    assert signer_window([200.0], 10.0) == (0, float("-inf"), 200.0)


def test_states_of_a_rotation_in_progress() -> None:
    names = [
        name(T0 - timedelta(days=2)),
        name(T0 - timedelta(days=1)),
        name(T0),
        name(T0 + timedelta(minutes=5)),
    ]
    statuses = key_statuses(names, T0 + timedelta(seconds=1), DEFAULTS)
    assert [s.state for s in statuses] == [
        KeyState.RETIRED,
        KeyState.RETIRED,
        KeyState.CURRENT,
        KeyState.NEXT,
    ]
    oldest, previous = statuses[0], statuses[1]
    assert oldest.retired_since == T0 - timedelta(days=1)  # when its successor took over
    assert previous.retired_since == T0
    assert oldest.prunable_from == T0 - timedelta(days=1) + DEFAULTS.retention
    assert previous.prunable_from == T0 + DEFAULTS.retention
    assert statuses[2].retired_since is None and statuses[3].prunable_from is None


def test_a_retired_key_whose_successor_is_named_by_hand_is_never_pruned() -> None:
    statuses = key_statuses(["0-first.pem", "a.pem"], T0, SMALL)
    assert [s.state for s in statuses] == [KeyState.RETIRED, KeyState.CURRENT]
    assert statuses[0].retired_since is None
    assert prunable(statuses, T0 + timedelta(days=3650)) == []


def test_pruning_waits_for_the_whole_retention() -> None:
    names = [name(T0 - timedelta(hours=1)), name(T0)]
    horizon = T0 + SMALL.retention  # T0: when the old key stopped signing
    just_before = horizon - timedelta(seconds=1)
    assert prunable(key_statuses(names, just_before, SMALL), just_before) == []
    due = prunable(key_statuses(names, horizon, SMALL), horizon)
    assert [s.name for s in due] == [names[0]]


def test_current_and_next_keys_are_never_pruned() -> None:
    names = [name(T0), name(T0 + timedelta(seconds=10))]
    far = T0 + timedelta(days=3650)
    assert prunable(key_statuses(names, T0, SMALL), far) == []


def test_retention_covers_every_signed_token_and_the_jwks_cache() -> None:
    # ID tokens are accepted as id_token_hint for 24 h after they expire (logout).
    assert longest_token_lifetime(600) == 600 + 24 * 3600
    assert longest_token_lifetime(1) == 1 + 24 * 3600
    assert DEFAULTS.retention == timedelta(seconds=10 + 600 + 86_400 + 300)
    assert DEFAULTS.lead == timedelta(seconds=310)


@pytest.mark.parametrize(
    ("now", "lead", "expected"),
    [
        (T0, None, T0 + timedelta(seconds=310)),
        (T0 + timedelta(microseconds=1), None, T0 + timedelta(seconds=311)),  # rounded up
        (T0 + timedelta(seconds=0.999), None, T0 + timedelta(seconds=311)),
        (T0, timedelta(seconds=400), T0 + timedelta(seconds=400)),
    ],
)
def test_a_rotated_key_signs_after_the_lead_rounded_up_to_the_second(
    now: datetime, lead: timedelta | None, expected: datetime
) -> None:
    assert rotation_activation(now, DEFAULTS, lead) == expected


def test_a_lead_shorter_than_cache_and_reload_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 310 s"):
        rotation_activation(T0, DEFAULTS, timedelta(seconds=309))


def test_no_names_no_statuses() -> None:
    assert key_statuses([], T0, SMALL) == []
