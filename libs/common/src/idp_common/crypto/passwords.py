"""Password hashing with argon2id (docs/design.md §2 "Sign-in": hashes argon2id).

Parameters: the RFC 9106 §4 "second recommended option" (argon2-cffi's
``profiles.RFC_9106_LOW_MEMORY``): argon2id, t=3 iterations, m=64 MiB, p=4 lanes, 16-byte
salt, 32-byte tag. It is also argon2-cffi's default. The first RFC 9106 option (2 GiB per
hash) would let a few concurrent sign-ins exhaust a service replica's memory; 64 MiB costs
roughly 50-100 ms of CPU per hash on current servers, which bounds an attacker's guessing
rate on a stolen database while keeping a sign-in fast. Stored hashes are PHC strings
(``$argon2id$v=19$m=65536,t=3,p=4$...``) carrying their own parameters, so the parameters
can be raised later: :func:`needs_rehash` tells the caller to store a fresh hash after the
next successful sign-in.

Hashing is CPU-bound and deliberately slow. Code running on the event loop must call
:func:`hash_password_async` and :func:`verify_password_async`, which run in a worker thread
(argon2-cffi releases the GIL while hashing). Verification reuses each thread's argon2
memory instead of mapping 64 MiB afresh (:mod:`idp_common.crypto.argon2_verify`).

Client secrets are *not* hashed here: they are random (at least 256 bits) and stored as a
SHA-256 digest (docs/design.md §2 "Tokens and clients").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeVar

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

from idp_common.crypto.argon2_verify import verify_phc

__all__ = [
    "hash_password",
    "hash_password_async",
    "needs_rehash",
    "verify_password",
    "verify_password_async",
    "verify_password_dummy_async",
]

_HASHER = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)


T = TypeVar("T")
#: Nice value of the hashing threads: the event loop's thread keeps priority on the CPU.
HASHING_NICE = 10


def _lower_thread_priority() -> None:
    """Linux gives each thread its own nice value, inherited by the threads it starts
    (argon2 runs one per lane), so only the hashing lowers its priority."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASHING_NICE)


#: Set by ``idp serve`` for the worker processes it starts: how many share the machine.
WORKERS_ENV = "IDP_SERVE_WORKERS"


def hashing_threads(cores: int, workers: int) -> int:
    """Hashes one worker process runs at once: the machine's cores shared among the
    workers, at least one. argon2 is memory-bound and already runs its lanes in parallel,
    so more concurrent hashes than cores only thrash the caches and starve the event
    loops. Measured with the load benchmark (bench/) on 2 cores and 2 authui-api workers:
    68-69% of the argon2 ceiling with up to 4 hashes at once, 71-72% with 2 (about the
    run-to-run noise, but never worse)."""
    return max(1, cores // max(1, workers))


@cache
def _hashing_pool() -> ThreadPoolExecutor:
    """The worker's hashing threads (:func:`hashing_threads`)."""
    try:
        workers = int(os.environ.get(WORKERS_ENV, "1"))
    except ValueError:
        workers = 1
    return ThreadPoolExecutor(
        max_workers=hashing_threads(os.cpu_count() or 2, workers),
        thread_name_prefix="argon2",
        initializer=_lower_thread_priority,
    )


async def _off_loop(func: Callable[..., T], *args: str) -> T:
    return await asyncio.get_running_loop().run_in_executor(_hashing_pool(), func, *args)


def hash_password(password: str) -> str:
    """Hash ``password`` with argon2id and a fresh random salt; returns a PHC string."""
    return str(_HASHER.hash(password))


def verify_password(hash: str, password: str) -> bool:
    """True when ``password`` matches ``hash``.

    False on a mismatch, and also when ``hash`` is not an argon2 hash (a corrupt or foreign
    stored value): never raises for a wrong password. The comparison is constant-time.
    """
    try:
        return verify_phc(hash, password.encode("utf-8"))
    except (VerificationError, InvalidHashError, ValueError):
        return False


def needs_rehash(hash: str) -> bool:
    """True when ``hash`` was made with other parameters than the current ones.

    An unparseable hash also answers True.
    """
    try:
        return bool(_HASHER.check_needs_rehash(hash))
    except (InvalidHashError, ValueError):
        return True


async def hash_password_async(password: str) -> str:
    """:func:`hash_password` in a worker thread, so the event loop keeps running."""
    return await _off_loop(hash_password, password)


async def verify_password_async(hash: str, password: str) -> bool:
    """:func:`verify_password` in a worker thread, so the event loop keeps running."""
    return await _off_loop(verify_password, hash, password)


@cache
def _dummy_hash() -> str:
    return hash_password("dummy password used to equalise timing")


async def verify_password_dummy_async(password: str) -> bool:
    """Spend the time of a real verification and answer False.

    For a sign-in naming an unknown account, so that the answer takes as long as for a
    known account with a wrong password (docs/design.md §2: the same whether the account
    exists or not).
    """

    def run() -> bool:
        verify_password(_dummy_hash(), password)
        return False

    return await _off_loop(run)
