"""The key set a process holds, re-read from ``SVC_KEY_DIR`` while it runs.

Every process (each service, each Granian worker) reads the directory at start-up, then
every ``SVC_KEY_RELOAD_SECONDS`` in a background task, so a key written by
``idp keys rotate`` is published, then signs, and a pruned key disappears, without a
restart. Which key signs is decided by the clock at signing time
(:meth:`idp_common.crypto.keys.KeySet.signing_key_at`), not by the moment of the read.

- The directory's top level holds the RS256 keys, its sub-directories ``PS256/``,
  ``ES256/`` and ``EdDSA/`` those of the other algorithms
  (:mod:`idp_common.crypto.keys`): all are re-read together, so each algorithm's key
  appears, signs and goes on its own schedule.
- A read is cheap when nothing changed: the name, inode, size and change times of each
  key file (of every algorithm) are compared first (following links: a Kubernetes Secret
  volume swaps a link to a new directory when the Secret changes), and the files are
  parsed only when that differs.
- A read that fails (a file unreadable, half-copied, not a key; the directory gone)
  keeps the set held so far whole: a set missing a key would stop validating the tokens
  it signed elsewhere. One warning names the file; it is repeated only when the problem
  changes, and a line says when the directory reads well again. The task never ends on
  an error.
- Every reader goes through :meth:`KeyRing.current` (``Resources.keys``), so token
  issuance, the JWKS, the bearer guard, ``id_token_hint`` checks and logout tokens see
  the same set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from idp_common.background import in_background
from idp_common.crypto.key_files import KeySetError, key_files
from idp_common.crypto.keys import KeySet, key_locations, load_key_set

__all__ = ["Fingerprint", "KeyRing", "directory_fingerprint"]

log = logging.getLogger("idp.keys")

#: Per key file: name (``ES256/…`` for another algorithm's), device, inode, size,
#: modification and status-change times (ns; the latter moves on chmod, so a file made
#: readable again is read again).
Fingerprint = tuple[tuple[str, int, int, int, int, int], ...]


def directory_fingerprint(directory: Path) -> Fingerprint:
    """What changes when a key file (of any algorithm) is added, removed or replaced."""
    entries = []
    paths = [path for _, location in key_locations(directory) for path in key_files(location)]
    for path in paths:
        try:
            status = path.stat()
        except OSError as exc:  # removed between the listing and now
            raise KeySetError(f"{path}: cannot read key file ({exc.strerror})") from exc
        entries.append(
            (
                str(path.relative_to(directory)),
                status.st_dev,
                status.st_ino,
                status.st_size,
                status.st_mtime_ns,
                status.st_ctime_ns,
            )
        )
    return tuple(entries)


class KeyRing:
    """The key set of one process, replaced whole when the directory changes."""

    def __init__(
        self, directory: Path, key_set: KeySet, fingerprint: Fingerprint, *, reload_seconds: float
    ) -> None:
        self.directory = directory
        self.reload_seconds = reload_seconds
        self._current = key_set
        self._fingerprint = fingerprint
        self._failed_fingerprint: Fingerprint | None = None
        self._problem: str | None = None

    @classmethod
    def open(cls, directory: str | Path, *, reload_seconds: float) -> KeyRing:
        """Read the directory now; :class:`KeySetError` when it cannot be used (no key,
        no start)."""
        path = Path(directory)
        fingerprint = directory_fingerprint(path)
        return cls(path, load_key_set(path), fingerprint, reload_seconds=reload_seconds)

    def current(self) -> KeySet:
        """The set last read whole."""
        return self._current

    def reload(self) -> bool:
        """Re-read the directory if it changed; True when a new set was taken."""
        try:
            fingerprint = directory_fingerprint(self.directory)
            if fingerprint in (self._fingerprint, self._failed_fingerprint):
                return False
            try:
                key_set = load_key_set(self.directory)
            except KeySetError:
                self._failed_fingerprint = fingerprint
                raise
        except KeySetError as exc:
            self._warn(str(exc))
            return False
        self._take(key_set, fingerprint)
        return True

    def _take(self, key_set: KeySet, fingerprint: Fingerprint) -> None:
        self._current = key_set
        self._fingerprint = fingerprint
        self._failed_fingerprint = None
        if self._problem is not None:
            log.info("signing keys: %s reads well again", self.directory)
            self._problem = None
        names = ", ".join(f"{k.alg} {Path(k.file_name).name} (kid {k.kid})" for k in key_set.keys)
        log.info("signing keys: re-read %s: %s", self.directory, names)

    def _warn(self, problem: str) -> None:
        if problem != self._problem:
            log.warning(
                "signing keys: %s; keeping the %d key(s) read before",
                problem,
                len(self._current.keys),
            )
            self._problem = problem

    async def run(self) -> None:
        """Re-read every ``reload_seconds`` (on a fixed cadence, so a change is seen at
        most one interval later) until cancelled."""
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            deadline += self.reload_seconds
            await asyncio.sleep(max(0.0, deadline - loop.time()))
            deadline = max(deadline, loop.time() - self.reload_seconds)  # no burst after a stall
            try:
                await asyncio.to_thread(self.reload)
            except Exception as exc:  # the loop outlives any surprise
                self._warn(f"{self.directory}: re-reading failed ({type(exc).__name__}: {exc})")

    @asynccontextmanager
    async def reloading(self, _app: object) -> AsyncIterator[None]:
        """A lifespan: the background re-reading, for as long as the app runs."""
        async with in_background(self.run(), name="key-ring-reload"):
            yield
