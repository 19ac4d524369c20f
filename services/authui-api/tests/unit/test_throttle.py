"""Unit tests of the per-account throttle's arithmetic (authui_service.throttle)."""

from __future__ import annotations

from authui_service.throttle import MAX_DELAY_SECONDS, delay_after, wait_left


def test_the_first_failures_cost_nothing() -> None:
    assert [delay_after(n) for n in range(5)] == [0, 0, 0, 0, 0]


def test_the_delay_doubles_and_is_capped() -> None:
    assert [delay_after(n) for n in range(5, 11)] == [1, 2, 4, 8, 16, 32]
    assert delay_after(15) == MAX_DELAY_SECONDS
    assert delay_after(60) == MAX_DELAY_SECONDS


def test_wait_left() -> None:
    assert wait_left(4, last_failure=100.0, now=100.0) == 0
    assert wait_left(7, last_failure=100.0, now=100.5) == 4  # 4 s delay, 3.5 s left -> 4
    assert wait_left(7, last_failure=100.0, now=104.0) == 0
