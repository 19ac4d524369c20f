"""Unit tests of the throttles' arithmetic (authui_service.throttle)."""

from __future__ import annotations

from authui_service.throttle import FIRST_FACTOR, SECOND_FACTOR, delay_after, wait_left


def test_the_first_failures_cost_nothing() -> None:
    assert [delay_after(n) for n in range(5)] == [0, 0, 0, 0, 0]
    assert [delay_after(n, SECOND_FACTOR) for n in range(5)] == [0, 0, 0, 0, 0]


def test_the_first_factor_delay_doubles_from_a_second_and_is_capped() -> None:
    assert [delay_after(n) for n in range(5, 11)] == [1, 2, 4, 8, 16, 32]
    assert delay_after(15) == FIRST_FACTOR.cap_seconds == 900
    assert delay_after(10_000) == FIRST_FACTOR.cap_seconds


def test_the_second_factor_delay_doubles_from_a_minute_up_to_a_day() -> None:
    assert [delay_after(n, SECOND_FACTOR) for n in range(5, 9)] == [60, 120, 240, 480]
    assert delay_after(16, SECOND_FACTOR) == SECOND_FACTOR.cap_seconds == 86_400


def test_history_outlives_the_longest_delay() -> None:
    for policy in (FIRST_FACTOR, SECOND_FACTOR):
        assert policy.keep_seconds > 2 * policy.cap_seconds


def test_wait_left() -> None:
    assert wait_left(4, last_failure=100.0, now=100.0) == 0
    assert wait_left(7, last_failure=100.0, now=100.5) == 4  # 4 s delay, 3.5 s left -> 4
    assert wait_left(7, last_failure=100.0, now=104.0) == 0
    assert wait_left(5, last_failure=100.0, now=130.0, policy=SECOND_FACTOR) == 30
