"""Request parameters given at most once; an empty value counts as absent (RFC 6749 §3.1)."""

from __future__ import annotations

from idp_common.protocol.rfc6749_parameters import group_pairs, single_values


def test_group_pairs_keeps_known_names_in_order() -> None:
    pairs = [("code", "a"), ("x", "1"), ("code", "b"), ("state", "")]
    assert group_pairs(pairs, {"code", "state"}) == {"code": ["a", "b"], "state": [""]}


def test_single_values() -> None:
    params = {"code": ["a", "b"], "state": [""], "nonce": ["n"], "scope": ["", "openid"]}
    values, repeated = single_values(params)
    assert values == {"nonce": "n", "scope": "openid"}
    assert repeated == ["code"]


def test_nothing_given() -> None:
    assert single_values({}) == ({}, [])
