"""Properties of the key schedule (idp_common.crypto.key_schedule): one key signs, the
signer only moves forward, a rotated key never signs before its lead has passed, and no
key is pruned while a token it signed is still accepted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

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
from libs.common.tests.unit.properties.support import FAST

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
#: Offsets in seconds from EPOCH: a few weeks, enough for retentions of a day.
OFFSET = st.integers(min_value=0, max_value=40 * 24 * 3600)
TIMINGS = st.builds(
    RotationTimings,
    jwks_cache_seconds=st.integers(0, 3600),
    reload_seconds=st.integers(1, 120),
    longest_token_seconds=st.integers(1, 2 * 24 * 3600),
)


def names_of(offsets: list[int]) -> list[str]:
    """Key file names for these activation offsets, in file-name order (as loaded)."""
    names = [f"{key_file_stem(EPOCH + timedelta(seconds=o))}.pem" for o in sorted(set(offsets))]
    return sorted(names)


def moments(names: list[str]) -> list[float | None]:
    return [None if (a := activation_of(n)) is None else a.timestamp() for n in names]


KEY_OFFSETS = st.lists(OFFSET, min_size=1, max_size=6)


@FAST
@given(KEY_OFFSETS, OFFSET)
def test_exactly_one_key_is_current_with_retired_before_and_next_after(
    offsets: list[int], at: int
) -> None:
    names = names_of(offsets)
    now = EPOCH + timedelta(seconds=at)
    timings = RotationTimings(300, 10, 600)
    states = [s.state for s in key_statuses(names, now, timings)]
    current = states.index(KeyState.CURRENT)
    assert states.count(KeyState.CURRENT) == 1
    assert all(s is KeyState.RETIRED for s in states[:current])
    assert all(s is KeyState.NEXT for s in states[current + 1 :])
    assert current == signer_index(moments(names), now.timestamp())
    for state, moment in zip(states, moments(names), strict=True):
        assert moment is not None
        if state is KeyState.NEXT:
            assert moment > now.timestamp()  # a next key's time is still ahead


@FAST
@given(KEY_OFFSETS, OFFSET, OFFSET)
def test_the_signer_only_moves_forward_in_time(offsets: list[int], a: int, b: int) -> None:
    activations = moments(names_of(offsets))
    early, late = sorted((a, b))
    start = EPOCH.timestamp()
    assert signer_index(activations, start + early) <= signer_index(activations, start + late)


@FAST
@given(KEY_OFFSETS, OFFSET, st.floats(0, 1))
def test_the_signer_is_the_same_anywhere_in_its_window(
    offsets: list[int], at: int, fraction: float
) -> None:
    activations = moments(names_of(offsets))
    now = EPOCH.timestamp() + at
    index, since, until = signer_window(activations, now)
    assert since <= now < until
    low = max(since, now - 10 * 24 * 3600)
    high = min(until, now + 10 * 24 * 3600)
    probe = low + (high - low) * fraction
    if probe < until:
        assert signer_index(activations, probe) == index


@FAST
@given(KEY_OFFSETS, OFFSET, TIMINGS, st.integers(0, 10**6), st.integers(0, 10_000))
def test_a_rotated_key_never_signs_before_its_lead_has_passed(
    offsets: list[int], at: int, timings: RotationTimings, micros: int, extra: int
) -> None:
    written = EPOCH + timedelta(seconds=at, microseconds=micros)
    lead = timings.lead + timedelta(seconds=extra)
    activation = rotation_activation(written, timings, lead if extra else None)
    assert activation >= written + (lead if extra else timings.lead)
    assert activation - written < (lead if extra else timings.lead) + timedelta(seconds=1)
    new = f"{key_file_stem(activation)}.pem"
    assert activation_of(new) == activation
    existing = [n for n in names_of(offsets) if n < new]  # the rotation writes the newest
    names = [*existing, new]
    activations = moments(names)
    before = activation.timestamp() - 0.001
    if len(names) > 1:
        assert signer_index(activations, before) != len(names) - 1
    assert signer_index(activations, activation.timestamp()) == len(names) - 1


@FAST
@given(
    KEY_OFFSETS,
    TIMINGS,
    st.integers(0, 5),
    st.integers(-200, 200),
    st.just(1.0) | st.floats(0, 1),
)
def test_no_key_is_pruned_while_a_token_it_signed_is_accepted(
    offsets: list[int], timings: RotationTimings, pick: int, delta: int, fraction: float
) -> None:
    """A token signed at ``t`` (by the signer at ``t``, or by a process that had not yet
    re-read the directory: the signer up to one reload interval earlier) is accepted until
    ``t + longest token lifetime``, and resource servers may hold the JWKS one cache
    lifetime more: its key is not prunable before then. ``t`` is drawn near an
    activation time, where keys change hands."""
    names = names_of(offsets)
    activations = moments(names)
    switch = activations[pick % len(activations)]
    assert switch is not None
    signed = switch + delta
    signers = {
        signer_index(activations, signed),
        signer_index(activations, signed - timings.reload_seconds),  # a late reader
    }
    horizon = timings.longest_token_seconds + timings.jwks_cache_seconds
    now = datetime.fromtimestamp(signed + horizon * fraction, UTC)
    due = {s.name for s in prunable(key_statuses(names, now, timings), now)}
    assert not due & {names[i] for i in signers}
