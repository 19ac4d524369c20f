"""Telling the running services that a row a test wrote directly changed, as the admin API
does after its own writes (``idp_common.state.change_stamp``)."""

from __future__ import annotations

from redis.asyncio import Redis

from idp_common.state.change_stamp import CLIENTS, bump
from tests.harness import infra
from tests.harness.stack import Stack


async def _bump(stack: Stack, name: str) -> None:
    redis = Redis.from_url(stack.env["SVC_REDIS_URL"])
    try:
        await bump(redis, stack.env["SVC_REDIS_PREFIX"], name)
    finally:
        await redis.aclose()


def announce_client_change(stack: Stack) -> None:
    """Every worker reads the clients again at its next request (the clients stamp moves)."""
    infra.run(_bump(stack, CLIENTS))
