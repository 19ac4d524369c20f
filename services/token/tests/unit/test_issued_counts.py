"""The token service's in-memory counts of issued tokens: summed per (grant, client),
taken for a write, given back when the write failed, bounded."""

from __future__ import annotations

from token_service.issued_counts import IssuedCounts, summary_entries


def test_counts_per_pair_and_take_starts_afresh() -> None:
    counts = IssuedCounts()
    counts.add("client_credentials", "svc")
    counts.add("client_credentials", "svc")
    counts.add("authorization_code", "web")
    assert counts.take() == {("client_credentials", "svc"): 2, ("authorization_code", "web"): 1}
    assert counts.take() == {}


def test_given_back_counts_add_to_what_came_meanwhile() -> None:
    counts = IssuedCounts()
    counts.add("client_credentials", "svc")
    taken = counts.take()
    counts.add("client_credentials", "svc")
    counts.give_back(taken)
    assert counts.take() == {("client_credentials", "svc"): 2}


def test_pairs_past_the_bound_are_dropped_and_counted_as_dropped() -> None:
    counts = IssuedCounts(max_pairs=2)
    counts.add("client_credentials", "a")
    counts.add("client_credentials", "b")
    counts.add("client_credentials", "c")
    counts.add("client_credentials", "a")  # a held pair still counts
    assert counts.take() == {("client_credentials", "a"): 2, ("client_credentials", "b"): 1}
    assert counts.dropped == 1


def test_one_summary_row_per_pair() -> None:
    entries = summary_entries({("refresh_token", "web"): 3, ("client_credentials", "svc"): 5})
    assert [(e.action, e.target, e.detail) for e in entries] == [
        ("tokens.issued", "svc", {"grant": "client_credentials", "clientId": "svc", "count": 5}),
        ("tokens.issued", "web", {"grant": "refresh_token", "clientId": "web", "count": 3}),
    ]
