"""verify_phc answers as argon2-cffi's PasswordHasher.verify, in memory its thread keeps."""

from __future__ import annotations

import threading

import pytest
from argon2 import PasswordHasher, Type, low_level
from argon2.exceptions import InvalidHashError, VerifyMismatchError
from argon2.low_level import ffi

from idp_common.crypto import argon2_verify
from idp_common.crypto.argon2_verify import verify_phc

SMALL = {"time_cost": 1, "memory_cost": 1024, "parallelism": 2}


@pytest.mark.parametrize("kind", [Type.ID, Type.I, Type.D])
@pytest.mark.parametrize(
    "params",
    [SMALL, {"time_cost": 2, "memory_cost": 2048, "parallelism": 1, "hash_len": 16}],
)
def test_same_answers_as_password_hasher(kind: Type, params: dict[str, int]) -> None:
    hasher = PasswordHasher(type=kind, **params)
    for password in ("correct horse", "", "pässwörd ✓", "x" * 300):
        stored = hasher.hash(password)
        assert hasher.verify(stored, password)
        assert verify_phc(stored, password.encode())
        with pytest.raises(VerifyMismatchError):
            hasher.verify(stored, password + "!")
        assert not verify_phc(stored, (password + "!").encode())


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "not a hash",
        "$argon2id$v=19$m=1024,t=1,p=2$c2FsdHNhbHQ",
        "$argon2id$v=19$m=1024,t=1,p=2$!!!$aGFzaA",
        "$argon2id$v=19$m=1024,t=1,p=2$c2FsdA$aGFzaGhhc2hoYXNoaGFzaA",
    ],
)
def test_a_malformed_hash_is_refused(bad: str) -> None:
    with pytest.raises(InvalidHashError):
        verify_phc(bad, b"password")


def test_the_memory_is_kept_per_thread_and_wiped_after_each_use() -> None:
    stored = PasswordHasher(**SMALL).hash("secret")
    seen: list[tuple[int, int, bool]] = []

    def verify_twice() -> None:
        for _ in range(2):
            assert verify_phc(stored, b"secret")
            scratch = argon2_verify._SCRATCH
            memory = bytes(ffi.buffer(scratch.buffer, scratch.size))
            seen.append((int(ffi.cast("uintptr_t", scratch.buffer)), scratch.size, any(memory)))

    thread = threading.Thread(target=verify_twice)
    thread.start()
    thread.join()
    (first, size, dirty_1), (second, _, dirty_2) = seen
    assert first == second  # the same area the second time
    assert size == SMALL["memory_cost"] * 1024
    assert not dirty_1 and not dirty_2  # libargon2 cleared it


def test_the_constants_are_libargon2s() -> None:
    library = low_level.lib  # type: ignore[attr-defined]
    assert argon2_verify._ARGON2_DEFAULT_FLAGS == library.ARGON2_DEFAULT_FLAGS
    assert argon2_verify._ARGON2_OK == library.ARGON2_OK
    assert argon2_verify._ARGON2_MEMORY_ALLOCATION_ERROR == library.ARGON2_MEMORY_ALLOCATION_ERROR
