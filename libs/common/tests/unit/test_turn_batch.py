"""TurnBatch: calls of one event-loop turn reach ``send`` together, each gets its answer."""

from __future__ import annotations

import asyncio

import pytest

from idp_common.state.turn_batch import TurnBatch


class Recorder:
    """A ``send`` that doubles its items and remembers each batch it was given."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []

    async def __call__(self, items: list[int]) -> list[int]:
        self.batches.append(list(items))
        await asyncio.sleep(0)
        return [item * 2 for item in items]


async def test_calls_of_one_turn_are_sent_together_in_order() -> None:
    send = Recorder()
    batch: TurnBatch[int, int] = TurnBatch(send)
    results = await asyncio.gather(*(batch.submit(n) for n in range(5)))
    assert results == [0, 2, 4, 6, 8]
    assert send.batches == [[0, 1, 2, 3, 4]]


async def test_calls_awaited_one_after_another_are_separate_batches() -> None:
    send = Recorder()
    batch: TurnBatch[int, int] = TurnBatch(send)
    assert await batch.submit(1) == 2
    assert await batch.submit(2) == 4
    assert send.batches == [[1], [2]]


async def test_calls_made_while_a_batch_is_in_flight_form_the_next_batch() -> None:
    send = Recorder()
    batch: TurnBatch[int, int] = TurnBatch(send)
    first = asyncio.ensure_future(batch.submit(1))
    await asyncio.sleep(0)  # the first batch is flushed and waiting on its send
    second = asyncio.ensure_future(batch.submit(2))
    assert await asyncio.gather(first, second) == [2, 4]
    assert send.batches == [[1], [2]]


async def test_an_error_of_send_reaches_every_caller_of_the_batch() -> None:
    async def failing(items: list[int]) -> list[int]:
        raise ConnectionError("server gone")

    batch: TurnBatch[int, int] = TurnBatch(failing)
    results = await asyncio.gather(*(batch.submit(n) for n in range(3)), return_exceptions=True)
    assert [type(r) for r in results] == [ConnectionError] * 3


async def test_an_answer_of_the_wrong_length_is_an_error_for_every_caller() -> None:
    async def short(items: list[int]) -> list[int]:
        return items[:-1]

    batch: TurnBatch[int, int] = TurnBatch(short)
    results = await asyncio.gather(*(batch.submit(n) for n in range(3)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)


async def test_a_cancelled_caller_leaves_the_others_their_answers() -> None:
    send = Recorder()
    batch: TurnBatch[int, int] = TurnBatch(send)
    calls = [asyncio.ensure_future(batch.submit(n)) for n in range(3)]
    await asyncio.sleep(0)
    calls[1].cancel()
    done = await asyncio.gather(*calls, return_exceptions=True)
    assert done[0] == 0 and done[2] == 4
    assert isinstance(done[1], asyncio.CancelledError)


async def test_after_an_error_the_next_batch_works() -> None:
    fail = True

    async def flaky(items: list[int]) -> list[int]:
        if fail:
            raise ConnectionError("once")
        return items

    batch: TurnBatch[int, int] = TurnBatch(flaky)
    with pytest.raises(ConnectionError):
        await batch.submit(1)
    fail = False
    assert await batch.submit(7) == 7
