"""The face engine: a pool of model processes, and the service-side object that feeds it.

dlib holds the GIL while it detects and embeds (0.1-0.4 s for each image), so the model
runs in separate processes: a thread would stall the event loop. The pool is made with
the "spawn" start method: forking a process that runs an event loop copies its loop, its
sockets and the locks other threads held. Each process loads the models once, in the
pool's initializer (:func:`idp_common.face.model.load`).

The service process never imports dlib: :attr:`FaceEngine.available` looks for the
packages with ``importlib.util.find_spec``, and the functions submitted to the pool import
:mod:`idp_common.face.model` inside the pool processes only.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar

from idp_common.crypto.passwords import WORKERS_ENV
from idp_common.face.errors import FaceUnavailable
from idp_common.face.header import MAX_PIXELS, check_pixel_count

if TYPE_CHECKING:
    from litestar import Litestar

    from idp_common.config import Settings

__all__ = ["FaceEngine", "lifespan", "models_dir", "pool_size"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: The optional install group "face" (``uv sync --group face``).
PACKAGES: Final = ("dlib", "face_recognition_models")
MODEL_FILES: Final = (
    "shape_predictor_5_face_landmarks.dat",
    "dlib_face_recognition_resnet_model_v1.dat",
)
#: Spawning a process and reading the models takes 1-2 s; a loaded machine, a few times more.
START_TIMEOUT: Final = 120.0


def models_dir() -> Path | None:
    """The folder of the model files when the optional packages are installed, else None.

    Nothing is imported: ``face_recognition_models`` itself imports ``pkg_resources``.
    """
    try:
        if importlib.util.find_spec(PACKAGES[0]) is None:
            return None
        spec = importlib.util.find_spec(PACKAGES[1])
    except (ImportError, ValueError):  # a finder that refuses the name, a broken package
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "models"
    return folder if all((folder / name).is_file() for name in MODEL_FILES) else None


def pool_size(face_workers: int, cores: int, serve_workers: int) -> int:
    """Model processes of one service worker: ``face_workers``, or when 0 the machine's
    cores shared among the service's workers (at least one), as the argon2 threads are."""
    if face_workers > 0:
        return face_workers
    return max(1, cores // max(1, serve_workers))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # a container's CPU set, where there is one
    except AttributeError:
        return os.cpu_count() or 1


def _serve_workers(env: Mapping[str, str]) -> int:
    try:
        return int(env.get(WORKERS_ENV, "1"))
    except ValueError:
        return 1


# What the pool runs. The import is inside on purpose: these functions are pickled by
# name, so this module is what the service imports, and dlib loads in the pool only.


def _load_in_pool(models: str) -> None:
    from idp_common.face import model  # noqa: PLC0415 (dlib: in the pool processes only)

    model.load(models)


def _ready_in_pool() -> int:
    from idp_common.face import model  # noqa: PLC0415 (dlib: in the pool processes only)

    # Long enough that one loaded process cannot take the whole round of start() alone.
    time.sleep(0.02)
    return model.ready()


def _embed_in_pool(image: bytes, min_size: int) -> bytes:
    from idp_common.face import model  # noqa: PLC0415 (dlib: in the pool processes only)

    return model.embed(image, min_size)


def _analyse_in_pool(image: bytes, min_size: int) -> tuple[bytes, bytes]:
    from idp_common.face import model  # noqa: PLC0415 (dlib: in the pool processes only)

    return model.analyse(image, min_size)


def _fingerprint_in_pool(image: bytes, min_size: int) -> tuple[bytes, bytes | None]:
    from idp_common.face import model  # noqa: PLC0415 (dlib: in the pool processes only)

    return model.fingerprint(image, min_size)


class FaceEngine:
    """Embeds faces in a pool of model processes (one pool per service worker).

    :meth:`start` at start-up (see :func:`lifespan`), :meth:`embed` per request,
    :meth:`close` at shutdown. A pool whose process died (killed, out of memory, a crash
    inside dlib) is replaced on the next request; the request that saw it fail gets
    :class:`FaceUnavailable`.
    """

    def __init__(self, settings: Settings, *, env: Mapping[str, str] | None = None) -> None:
        self._min_size = settings.face_min_size
        self._has_key = settings.secrets_key_bytes is not None
        self._models = models_dir() if self._has_key else None
        self.processes = pool_size(
            settings.face_workers, _cores(), _serve_workers(os.environ if env is None else env)
        )
        self._pool: ProcessPoolExecutor | None = None
        self._failed = False
        self._closed = False

    @property
    def available(self) -> bool:
        """The optional packages are installed, a secrets key is set, and the model
        processes did not fail to start."""
        return self._has_key and self._models is not None and not self._failed

    def _new_pool(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_load_in_pool,
            initargs=(str(self._models),),
        )
        return self._pool

    async def start(self) -> None:
        """Start the pool and wait until every process has loaded the models.

        A no-op when not available. When the processes cannot start (a broken install),
        the error is logged and the engine becomes unavailable: the service runs on and its
        face routes answer 503.
        """
        if not self.available or self._pool is not None or self._closed:
            return
        began = time.monotonic()
        pool = self._new_pool()
        loop = asyncio.get_running_loop()
        seen: set[int] = set()
        try:
            async with asyncio.timeout(START_TIMEOUT):
                # Submitting spawns a process per task until there are ``processes``; a
                # process takes tasks only after its initializer ran, so a reply from each
                # of them means all have their models.
                while len(seen) < self.processes:
                    rounds = [
                        loop.run_in_executor(pool, _ready_in_pool) for _ in range(self.processes)
                    ]
                    seen.update(await asyncio.gather(*rounds))
        except (BrokenProcessPool, TimeoutError, OSError, RuntimeError):
            log.exception("face: the model processes did not start; face sign-in is off")
            self._failed = True
            self._pool = None
            await asyncio.to_thread(pool.shutdown, wait=False, cancel_futures=True)
            return
        log.info(
            "face: %d model process(es) ready in %.1f s", self.processes, time.monotonic() - began
        )

    async def close(self) -> None:
        """Stop the pool (the requests still waiting for it are cancelled)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    async def embed(self, image: bytes) -> bytes:
        """The embedding of the one face in ``image``: 128 float32 little-endian.

        Raises :class:`FaceRejected` (the image cannot be used, with the reason) or
        :class:`FaceUnavailable`. Started lazily when :meth:`start` was not awaited.
        """
        return await self._run(_embed_in_pool, image)

    async def analyse(self, image: bytes) -> tuple[bytes, bytes]:
        """(embedding, pixel digest) of ``image``, as :meth:`embed` (see
        :func:`idp_common.face.model.analyse`)."""
        return await self._run(_analyse_in_pool, image)

    async def fingerprint(
        self, image: bytes, *, max_pixels: int = MAX_PIXELS
    ) -> tuple[bytes, bytes | None]:
        """(pixel digest, embedding or None) of a published photo
        (:func:`idp_common.face.model.fingerprint`); a published photo may be larger
        than what sign-in accepts, hence ``max_pixels``."""
        return await self._run(_fingerprint_in_pool, image, max_pixels)

    async def _run(
        self, work: Callable[[bytes, int], _T], image: bytes, max_pixels: int = MAX_PIXELS
    ) -> _T:
        if not self.available or self._closed:
            raise FaceUnavailable("face sign-in is not available")
        # On the loop, from the header, before any decoding (docs/security.md, attack 14).
        check_pixel_count(image, max_pixels)
        pool = self._pool or self._new_pool()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, work, image, self._min_size)
        except BrokenProcessPool:
            log.error("face: a model process stopped; the pool is replaced")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise FaceUnavailable("the face model processes stopped") from None


def lifespan(engine: FaceEngine) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """A Litestar lifespan that starts the engine's pool and closes it at shutdown."""

    @asynccontextmanager
    async def run(_app: Litestar) -> AsyncIterator[None]:
        await engine.start()
        try:
            yield
        finally:
            await engine.close()

    return run
