"""The chaos run's pure parts: how an answer is judged, recovery time, the row's bounds."""

from __future__ import annotations

from tests.chaos.report import (
    Outcome,
    Row,
    describe_answer,
    fill,
    markdown,
    recovery_seconds,
    text_table,
)


def test_a_json_503_with_retry_after_is_a_clean_refusal() -> None:
    assert describe_answer(503, "application/json", "5") == ("503 json retry-after", False)
    assert describe_answer(503, "application/problem+json; charset=utf-8", "1")[1] is False


def test_a_500_a_503_without_retry_after_and_an_html_error_break_the_contract() -> None:
    assert describe_answer(500, "application/json", None) == ("500 json", True)
    assert describe_answer(503, "application/json", None) == ("503 json", True)
    assert describe_answer(502, "text/html", None) == ("502 html", True)
    assert describe_answer(400, "text/html", None) == ("400 html", True)
    assert describe_answer(400, "application/json", None) == ("400 json", False)


def test_the_proxys_json_502_for_a_request_whose_worker_died_is_no_contract_break() -> None:
    assert describe_answer(502, "application/json", None) == ("502 json", False)
    assert describe_answer(504, "application/problem+json", None) == ("504 json", False)


def test_recovery_is_the_first_normal_answer_after_the_last_failure() -> None:
    outcomes = [
        Outcome("a", 1.0, False, "503"),
        Outcome("a", 12.0, False, "503"),
        Outcome("a", 13.5, True),
        Outcome("b", 11.0, True),
        Outcome("b", 14.0, True),
    ]
    assert recovery_seconds(outcomes, back_at=10.0, until=20.0) == 3.5


def test_no_failure_after_the_return_is_zero_and_a_kind_still_failing_is_none() -> None:
    assert recovery_seconds([Outcome("a", 5.0, False, "x"), Outcome("a", 6.0, True)], 10, 20) == 0
    still_failing = [Outcome("a", 11.0, True), Outcome("a", 12.0, False, "x")]
    assert recovery_seconds(still_failing, 10, 20) is None


def test_a_row_passes_only_within_every_bound() -> None:
    row = fill(Row("f"), [Outcome("a", 1, True), Outcome("a", 2, False, "503 json retry-after")])
    assert (row.sent, row.failed, row.bad, row.breaks) == (2, 1, 0, [])
    assert Row("f", recovery=None).breaks == ["no recovery within 15 s"]
    assert Row("f", recovery=15.5).breaks == ["no recovery within 15 s"]
    assert Row("f", events_lost=1, wrongly_revoked=2, half_ended=3).breaks == [
        "1 events lost",
        "2 families wrongly revoked",
        "3 sessions half-ended",
    ]
    failed = fill(Row("f"), [Outcome("a", 1, False, "500 json", bad=True)])
    assert failed.breaks == ["1 bad answers"]


def test_the_tables_carry_every_row() -> None:
    rows = [Row("1 one", sent=3), Row("2 two", recovery=None, note="n")]
    md = markdown(rows)
    assert md.count("\n| ") == 2 and "not recovered" in md and "- 2 two: n" in md
    text = text_table(rows)
    assert "1 one" in text and "FAIL" in text and "PASS" in text
