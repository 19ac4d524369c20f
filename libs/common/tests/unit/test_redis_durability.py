"""The judgement of a Redis server's configuration for security state."""

from __future__ import annotations

from idp_common.state.redis_durability import durability_problems

SHIPPED = {
    "appendonly": "yes",
    "save": "",
    "maxmemory": "268435456",
    "maxmemory-policy": "noeviction",
}


def test_the_shipped_configuration_has_no_problem() -> None:
    assert durability_problems(SHIPPED) == []


def test_a_redis_that_keeps_nothing_is_named() -> None:
    [problem] = durability_problems({**SHIPPED, "appendonly": "no"})
    assert problem.startswith("Redis keeps nothing on disk")


def test_an_evicting_policy_and_no_bound_are_named() -> None:
    problems = durability_problems({**SHIPPED, "maxmemory-policy": "allkeys-lru", "maxmemory": "0"})
    assert len(problems) == 2
    assert "allkeys-lru" in problems[0] and "no maxmemory" in problems[1]


def test_the_machine_s_test_redis_is_reported_as_it_is() -> None:
    machine = {"appendonly": "no", "save": "", "maxmemory": "0", "maxmemory-policy": "noeviction"}
    assert len(durability_problems(machine)) == 2
