"""The worker's copy of people's and clients' facts (``token_standing._Facts``): misses of
one key at once share one load, a caller that goes away does not fail the others, and a
load under way when the stamp moves is answered but not kept."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from idp_common.state.change_stamp import StampWatch
from idp_common.storage.repos.standing import ClientStanding
from idp_common.web.token_standing import _Client, _Facts, _shape


class _Stamp:
    def __init__(self) -> None:
        self.value: bytes | None = b"1"

    def observe(self, current: bytes | None) -> bool:
        moved = current != self.value
        self.value = current
        return moved


def _facts() -> _Facts[str, int]:
    return _Facts(cast("StampWatch", _Stamp()), seconds=60)


class _Loader:
    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()

    async def __call__(self) -> int:
        self.calls += 1
        await self.release.wait()
        return self.calls


async def test_fifty_misses_of_one_key_at_once_load_it_once() -> None:
    facts, load = _facts(), _Loader()
    waiting = [asyncio.ensure_future(facts.get("person", load)) for _ in range(50)]
    await asyncio.sleep(0)
    load.release.set()
    assert await asyncio.gather(*waiting) == [1] * 50
    assert await facts.get("person", load) == 1
    assert load.calls == 1


async def test_the_first_caller_going_away_does_not_fail_the_others() -> None:
    facts, load = _facts(), _Loader()
    first = asyncio.ensure_future(facts.get("person", load))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(facts.get("person", load))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    load.release.set()
    assert await second == 1
    assert first.cancelled()


async def test_a_failed_load_reaches_every_waiter_and_is_not_kept() -> None:
    facts = _facts()
    attempts: list[int] = []

    async def failing() -> int:
        attempts.append(1)
        await asyncio.sleep(0)
        raise ConnectionError("database away")

    results: list[Any] = await asyncio.gather(
        facts.get("person", failing), facts.get("person", failing), return_exceptions=True
    )
    assert [type(r) for r in results] == [ConnectionError, ConnectionError]
    assert attempts == [1]

    async def working() -> int:
        return 7

    assert await facts.get("person", working) == 7


async def test_a_load_under_way_when_the_stamp_moves_is_answered_not_kept() -> None:
    facts, load = _facts(), _Loader()
    facts.observe(b"1")
    pending = asyncio.ensure_future(facts.get("person", load))
    await asyncio.sleep(0)
    facts.observe(b"2")  # the person changed while their facts were being read
    load.release.set()
    assert await pending == 1
    assert await facts.get("person", load) == 2


def test_a_kept_client_judges_each_scope_string_as_a_set_comparison_would() -> None:
    client = _Client(ClientStanding(disabled=False, scopes=frozenset({"openid", "email"})))
    strings = ["openid", "email openid", "openid profile", ""] + [f"s{i}" for i in range(100)]
    for _ in range(2):  # the second pass answers from what the first remembered
        assert [client.holds(s) for s in strings] == [True, True, False, True] + [False] * 100
    assert client.holds("openid email")


def test_the_shape_of_a_token_names_the_person_and_session_it_stands_on() -> None:
    person = {"jti": "j", "client_id": "app", "sub": "p-1", "sid": "s-1"}
    assert _shape(person) == ("j", "app", "p-1", "s-1")
    assert _shape({**person, "sid": ""}) == ("j", "app", "p-1", None)
    # a client's own token: its sub is its client_id, no person and no session
    assert _shape({**person, "sub": "app"}) == ("j", "app", None, None)
    assert _shape({**person, "jti": None}) == "without jti"
    assert _shape({**person, "client_id": 7}) == "without client_id"
