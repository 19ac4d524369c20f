"""Is the Redis that holds the security state run the way it must be? (docs/security.md
"Redis", and its attacks 4 and 17).

Sessions, challenges, the access-token revocation list and the throttles live in Redis.
Two settings of the server decide whether they are safe there:

- persistence: without the append-only file (or snapshots) a restart forgets every
  revocation and ends every session;
- eviction: under ``maxmemory`` with an evicting policy (``allkeys-*``, ``volatile-*``)
  a flood of unauthenticated writes (sign-in challenges) pushes revocations and sessions
  out. ``noeviction`` refuses the writes instead (the services answer 503); no
  ``maxmemory`` at all lets the flood take the host's memory.

:func:`durability_problems` judges a server's ``CONFIG GET`` answer (pure);
:func:`warn_about_redis` asks the server once at start-up and logs each problem as a
warning. It never stops a service: the operator may run a managed Redis that refuses
``CONFIG`` (then one line says the settings could not be read).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Final

from redis.asyncio import Redis

__all__ = ["durability_problems", "warn_about_redis"]

log = logging.getLogger("idp.redis")
SETTINGS: Final = ("appendonly", "save", "maxmemory", "maxmemory-policy")
_CHECK_TIMEOUT: Final = 3.0


def durability_problems(config: Mapping[str, str]) -> list[str]:
    """What is unsafe in ``config`` (``CONFIG GET`` names to values) for security state."""
    problems: list[str] = []
    if config.get("appendonly", "no") != "yes":
        snapshots = config.get("save", "").strip()
        kept = f"only RDB snapshots ({snapshots!r})" if snapshots else "nothing on disk"
        problems.append(
            f"Redis keeps {kept}: a restart forgets revocations and ends sessions; "
            "run it with appendonly yes (deploy/redis/idp-redis.conf)"
        )
    policy = config.get("maxmemory-policy", "noeviction")
    if policy != "noeviction":
        problems.append(
            f"Redis evicts keys under memory pressure (maxmemory-policy {policy}): a flood "
            "of sign-in requests can push out sessions and revocations; use noeviction"
        )
    if config.get("maxmemory", "0") in ("0", ""):
        problems.append(
            "Redis has no maxmemory: a flood of sign-in requests can take the host's "
            "memory; set one, with maxmemory-policy noeviction"
        )
    return problems


async def _read_config(redis: Redis) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in SETTINGS:
        answer = await redis.config_get(name)
        for key, value in answer.items():
            text_key = key.decode() if isinstance(key, bytes) else str(key)
            found[text_key] = value.decode() if isinstance(value, bytes) else str(value)
    return found


async def warn_about_redis(redis: Redis) -> list[str]:
    """Log (and return) the problems of the server ``redis`` talks to; never raises."""
    try:
        async with asyncio.timeout(_CHECK_TIMEOUT):
            config = await _read_config(redis)
    except Exception as exc:  # unreachable, CONFIG renamed away, a timeout
        log.warning("cannot read the Redis configuration (%s)", type(exc).__name__)
        return []
    problems = durability_problems(config)
    for problem in problems:
        log.warning("%s", problem)
    return problems
