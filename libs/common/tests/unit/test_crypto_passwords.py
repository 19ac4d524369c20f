"""Unit tests of idp_common.crypto.passwords (argon2id, RFC 9106 low-memory profile)."""

from __future__ import annotations

import asyncio

import pytest
from argon2 import PasswordHasher

from idp_common.crypto.passwords import (
    hash_password,
    hash_password_async,
    hashing_threads,
    needs_rehash,
    verify_password,
    verify_password_async,
    verify_password_dummy_async,
)

PASSWORD = "correct horse battery staple"
# Hashed once per module: each hash costs tens of milliseconds by design.
HASH = hash_password(PASSWORD)


def test_hash_is_argon2id_with_rfc9106_low_memory_parameters() -> None:
    assert HASH.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert PASSWORD not in HASH


def test_each_hash_has_its_own_salt() -> None:
    assert hash_password(PASSWORD) != HASH


@pytest.mark.parametrize(
    ("stored", "candidate", "expected"),
    [
        pytest.param(HASH, PASSWORD, True, id="right"),
        pytest.param(HASH, PASSWORD + " ", False, id="wrong"),
        pytest.param(HASH, "", False, id="empty"),
        pytest.param(HASH, PASSWORD.upper(), False, id="case"),
        pytest.param("not-a-hash", PASSWORD, False, id="garbage-hash"),
        pytest.param("", PASSWORD, False, id="empty-hash"),
        pytest.param("$2b$12$abcdefghijklmnopqrstuv", PASSWORD, False, id="foreign-hash"),
    ],
)
def test_verify(stored: str, candidate: str, expected: bool) -> None:
    assert verify_password(stored, candidate) is expected


def test_unicode_password() -> None:
    secret = "pässwörd-密码-🔑"
    assert verify_password(hash_password(secret), secret)


def test_needs_rehash() -> None:
    assert needs_rehash(HASH) is False
    weaker = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORD)
    assert verify_password(weaker, PASSWORD) is True  # old hashes still verify
    assert needs_rehash(weaker) is True
    assert needs_rehash("garbage") is True


async def test_async_variants() -> None:
    stored = await hash_password_async(PASSWORD)
    assert await verify_password_async(stored, PASSWORD) is True
    assert await verify_password_async(stored, "nope") is False


async def test_async_hashing_leaves_the_event_loop_free() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        await hash_password_async(PASSWORD)
    finally:
        task.cancel()
    assert ticks > 1


async def test_dummy_verification_always_fails() -> None:
    assert await verify_password_dummy_async(PASSWORD) is False
    assert await verify_password_dummy_async("dummy password used to equalise timing") is False


@pytest.mark.parametrize(
    ("cores", "workers", "threads"),
    [(2, 1, 2), (2, 2, 1), (2, 4, 1), (8, 2, 4), (1, 1, 1), (4, 0, 4)],
)
def test_hashing_threads_share_the_cores_among_workers(
    cores: int, workers: int, threads: int
) -> None:
    assert hashing_threads(cores, workers) == threads
