"""Per-run resources on the shared local servers: databases, Redis keys, NATS streams."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import uuid
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import asyncpg
import nats
from nats.js.errors import NotFoundError
from redis.asyncio import Redis

T = TypeVar("T")
PG_ADMIN_URL = os.environ.get(
    "IDP_TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("IDP_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
NATS_URL = os.environ.get("IDP_TEST_NATS_URL", "nats://127.0.0.1:4222")


def run_id() -> str:
    return uuid.uuid4().hex[:10]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def closed_port() -> int:
    """A port nothing listens on (bound then released; good enough on loopback)."""
    return free_port()


def database_url(name: str) -> str:
    base = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    return f"{base}/{name}"


async def create_database(name: str) -> str:
    conn = await asyncpg.connect(PG_ADMIN_URL)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return database_url(name)


async def drop_database(name: str) -> None:
    conn = await asyncpg.connect(PG_ADMIN_URL)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def delete_redis_prefix(prefix: str) -> int:
    redis = Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in redis.scan_iter(match=f"{prefix}*", count=500)]
        return int(await redis.delete(*keys)) if keys else 0
    finally:
        await redis.aclose()


async def delete_nats_stream(stream: str) -> None:
    try:
        client = await nats.connect(NATS_URL, connect_timeout=2, max_reconnect_attempts=0)
    except Exception:  # NATS down: nothing of ours to remove
        return
    try:
        await client.jetstream().delete_stream(stream)
    except NotFoundError:
        pass
    finally:
        await client.close()


def s3_server_command(port: int) -> list[str]:
    """moto's standalone S3-compatible server on 127.0.0.1 (in memory, any credentials)."""
    return [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]


def s3_env(port: int, run: str) -> dict[str, str]:
    """Settings pointing the services at that server, with a bucket of this run."""
    return {
        "SVC_S3_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "SVC_S3_BUCKET": f"idp-t-{run}",
        "AWS_ACCESS_KEY_ID": "idp-test",
        "AWS_SECRET_ACCESS_KEY": "idp-test-secret",
        "AWS_EC2_METADATA_DISABLED": "true",  # never wait for an instance role
    }


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code, in a thread of its own so that it never
    touches the event loop pytest-asyncio keeps for the session."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
