"""CPU ceilings of this machine, measured in the same run as the endpoints.

- RS256: ``idp_common.crypto.jwt.sign_jwt`` (joserfc) with the run's 2048-bit key, in one
  process and in one process per core; ``verify_jwt`` likewise (userinfo and
  introspection verify one signature per request).
- argon2id: ``idp_common.crypto.passwords.verify_password`` with the module's parameters
  (a sign-in costs one verification, the same work as one hash). The ceiling is
  cores ÷ time of one verification, as the issue defines it; the throughput of one
  process per core is measured too. The ceiling divides the cores by the CPU time of one
  verification: a libargon2 built with threads hashes the p=4 lanes in parallel, and its
  wall time would then undercount the cost.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from idp_common.crypto.jwt import TYP_ACCESS_TOKEN, access_token_claims, sign_jwt, verify_jwt
from idp_common.crypto.keys import load_key_set
from idp_common.crypto.passwords import hash_password, verify_password

ISSUER = "http://127.0.0.1/bench"


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _claims(now: int) -> dict[str, object]:
    return access_token_claims(
        issuer=ISSUER,
        subject=str(uuid.uuid4()),
        audience=f"{ISSUER}/api",
        client_id="bench",
        scope=["openid", "profile", "email"],
        now=now,
        jti=uuid.uuid4().hex,
    )


def sign_rate(key_dir: str, seconds: float) -> float:
    """RS256 signatures per second in this process."""
    keys = load_key_set(Path(key_dir))
    sign_jwt(_claims(int(time.time())), keys, typ=TYP_ACCESS_TOKEN)
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        sign_jwt(_claims(int(time.time())), keys, typ=TYP_ACCESS_TOKEN)
        count += 1
    return count / elapsed


def verify_rate(key_dir: str, seconds: float) -> float:
    """RS256 verifications (with the claim checks) per second in this process."""
    keys = load_key_set(Path(key_dir))
    now = int(time.time())
    token = sign_jwt(_claims(now), keys, typ=TYP_ACCESS_TOKEN)
    audience = f"{ISSUER}/api"
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        verify_jwt(token, keys, issuer=ISSUER, audience=audience, now=now, typ=TYP_ACCESS_TOKEN)
        count += 1
    return count / elapsed


def argon2_rate(stored: str, password: str, seconds: float) -> float:
    """argon2id verifications per second in this process."""
    count, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        verify_password(stored, password)
        count += 1
    return count / elapsed


@dataclass
class Ceilings:
    cores: int
    sign_single: float
    sign_all: float
    verify_single: float
    verify_all: float
    argon2_seconds: float  # median wall time of one verification, one process
    argon2_cpu_seconds: float  # median CPU time of one verification (all its lane threads)
    argon2_all: float  # verifications/s, one process per core
    #: the median CPU time measured again after the sign-ins (bench/scenarios.py), if it was
    argon2_cpu_again: float | None = None

    @property
    def argon2_cpu_used(self) -> float:
        """The lower of the two CPU times: the machine's CPU time per hash moved by up to a
        third between runs, and the lower time gives the higher, harder ceiling."""
        again = self.argon2_cpu_again
        return self.argon2_cpu_seconds if again is None else min(again, self.argon2_cpu_seconds)

    @property
    def argon2_ceiling(self) -> float:
        """cores ÷ hash time = sign-ins per second, with the hash's CPU time.

        When libargon2 hashes the p=4 lanes in parallel threads, one hash's wall time is
        shorter than the CPU time it costs, and cores ÷ wall time would name a rate no
        machine reaches.
        """
        return self.cores / self.argon2_cpu_used

    @property
    def argon2_wall_ceiling(self) -> float:
        return self.cores / self.argon2_seconds


def _pool_sum(fn: Callable[..., float], args: tuple[object, ...], n: int) -> float:
    with ProcessPoolExecutor(max_workers=n, mp_context=get_context("fork")) as pool:
        futures = [pool.submit(fn, *args) for _ in range(n)]
        return sum(f.result() for f in futures)


def argon2_times(stored: str, password: str, samples: int = 7) -> tuple[float, float]:
    """Median wall and CPU seconds of one verification in this process (after one to warm)."""
    verify_password(stored, password)
    times, cpu_times = [], []
    for _ in range(samples):
        start, cpu_start = time.perf_counter(), time.process_time()
        verify_password(stored, password)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    return statistics.median(times), statistics.median(cpu_times)


def argon2_cpu_now() -> float:
    """The median CPU seconds of one verification, measured now."""
    password = uuid.uuid4().hex
    return argon2_times(hash_password(password), password)[1]


def measure(key_dir: Path, seconds: float = 2.0) -> Ceilings:
    n = cores()
    password = uuid.uuid4().hex
    stored = hash_password(password)
    wall, cpu = argon2_times(stored, password)
    return Ceilings(
        cores=n,
        sign_single=sign_rate(str(key_dir), seconds),
        sign_all=_pool_sum(sign_rate, (str(key_dir), seconds), n),
        verify_single=verify_rate(str(key_dir), seconds),
        verify_all=_pool_sum(verify_rate, (str(key_dir), seconds), n),
        argon2_seconds=wall,
        argon2_cpu_seconds=cpu,
        argon2_all=_pool_sum(argon2_rate, (stored, password, seconds + 1), n),
    )
