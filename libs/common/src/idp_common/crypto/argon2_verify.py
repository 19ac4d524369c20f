"""Verifying an argon2 PHC string in a memory area each thread keeps.

libargon2 allocates the whole memory of a hash (64 MiB with our parameters) with
``malloc`` and frees it afterwards; that size is always served by a fresh ``mmap``, so
every verification page-faults 16,384 new pages and unmaps them again: about a quarter of
a sign-in's CPU time went to the kernel. argon2-cffi's ``PasswordHasher`` has no way to
change that, but libargon2's context takes allocation callbacks
(``argon2_context.allocate_cbk``/``free_cbk``): here they hand out one buffer per
thread, kept from one verification to the next. libargon2 still wipes the memory after
each hash (``clear_internal_memory``), so nothing of a password outlives its
verification in it.

The result is the same as ``PasswordHasher.verify``: the stored parameters, salt and
type are used as they are, and the tag is compared in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import threading
from typing import Any, Final

from argon2 import extract_parameters
from argon2.exceptions import InvalidHashError
from argon2.low_level import core, ffi

__all__ = ["verify_phc"]

_ARGON2_OK: Final = 0
_ARGON2_DEFAULT_FLAGS: Final = 0  # argon2.h ARGON2_DEFAULT_FLAGS
_ARGON2_MEMORY_ALLOCATION_ERROR: Final = -22


class _Scratch(threading.local):
    """The current thread's argon2 memory (grown to the largest hash it has verified)."""

    buffer: Any = None
    size: int = 0


_SCRATCH = _Scratch()


def _allocate_memory(memory: Any, size: int) -> int:
    try:
        if _SCRATCH.size < size:
            _SCRATCH.buffer = None
            _SCRATCH.buffer = ffi.new("uint8_t[]", size)
            _SCRATCH.size = size
    except MemoryError:
        _SCRATCH.size = 0
        return _ARGON2_MEMORY_ALLOCATION_ERROR
    memory[0] = _SCRATCH.buffer
    return _ARGON2_OK


def _keep_memory(_memory: Any, _size: int) -> None:
    """Nothing to free: the buffer stays with its thread (libargon2 has wiped it)."""


_allocate = ffi.callback("int(uint8_t **, size_t)", _allocate_memory)
_keep = ffi.callback("void(uint8_t *, size_t)", _keep_memory)


def _b64(segment: str) -> bytes:
    try:
        return base64.b64decode(segment + "=" * (-len(segment) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidHashError("bad base64 in the hash") from exc


def verify_phc(phc: str, password: bytes) -> bool:
    """True when ``password`` matches the PHC string ``phc``; raises ``InvalidHashError``
    when ``phc`` is not one."""
    params = extract_parameters(phc)
    fields = phc.split("$")
    salt, expected = _b64(fields[-2]), _b64(fields[-1])
    if len(expected) != params.hash_len or not salt:
        raise InvalidHashError("inconsistent hash")
    out = ffi.new("uint8_t[]", len(expected))
    pwd = ffi.new("uint8_t[]", password)
    salt_c = ffi.new("uint8_t[]", salt)
    ctx = ffi.new("argon2_context *")
    ctx.out, ctx.outlen = out, len(expected)
    ctx.pwd, ctx.pwdlen = pwd, len(password)
    ctx.salt, ctx.saltlen = salt_c, len(salt)
    ctx.secret, ctx.secretlen = ffi.NULL, 0
    ctx.ad, ctx.adlen = ffi.NULL, 0
    ctx.t_cost, ctx.m_cost = params.time_cost, params.memory_cost
    ctx.lanes = ctx.threads = params.parallelism
    ctx.version = params.version
    ctx.allocate_cbk, ctx.free_cbk = _allocate, _keep
    ctx.flags = _ARGON2_DEFAULT_FLAGS
    result = core(ctx, params.type.value)
    if result != _ARGON2_OK:
        raise InvalidHashError(f"argon2 error {result}")
    return hmac.compare_digest(bytes(ffi.buffer(out, len(expected))), expected)
