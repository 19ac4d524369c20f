"""The face engine as the services use it: one per worker, started with the app, and its
errors mapped to problem responses in one place.

- Not installed or no ``SVC_SECRETS_KEY``: 503 ``face.unavailable`` (docs/design.md: the face
  stack is optional; nothing else changes without it).
- An image the engine cannot use: 422 with the engine's code (``face.no_face``,
  ``face.several_faces``, ...), its sentence as ``detail``, naming the field.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Final

from litestar import Litestar, Request

from idp_common.errors import FieldError, InvalidArgument, ServiceUnavailable
from idp_common.face import FaceEngine, FaceRejected, FaceUnavailable

__all__ = [
    "FaceEngine",
    "analyse_image",
    "embed_image",
    "face_engine_of",
    "face_lifespan",
    "require_face",
    "unavailable",
]
from idp_common.face import lifespan as engine_lifespan

UNAVAILABLE: Final = "face.unavailable"
_STATE_KEY: Final = "face_engine"


def face_lifespan(engine: FaceEngine) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """Start ``engine`` with the app (its model processes load once) and expose it."""

    @asynccontextmanager
    async def running(app: Litestar) -> AsyncIterator[None]:
        app.state[_STATE_KEY] = engine
        async with engine_lifespan(engine)(app):
            yield

    return running


def face_engine_of(request: Request[Any, Any, Any]) -> FaceEngine:
    engine: FaceEngine = request.app.state[_STATE_KEY]
    return engine


def unavailable() -> ServiceUnavailable:
    return ServiceUnavailable("face sign-in is not available on this deployment", code=UNAVAILABLE)


def require_face(engine: FaceEngine) -> None:
    if not engine.available:
        raise unavailable()


async def embed_image(engine: FaceEngine, image: bytes, *, field: str) -> bytes:
    """The embedding of the one face in ``image``; 503 or 422 (naming ``field``) otherwise."""
    try:
        return await engine.embed(image)
    except FaceUnavailable:
        raise unavailable() from None
    except FaceRejected as exc:
        raise _rejected(exc, field) from None


async def analyse_image(engine: FaceEngine, image: bytes, *, field: str) -> tuple[bytes, bytes]:
    """(embedding, pixel digest) of ``image``; 503 or 422 (naming ``field``) otherwise."""
    try:
        return await engine.analyse(image)
    except FaceUnavailable:
        raise unavailable() from None
    except FaceRejected as exc:
        raise _rejected(exc, field) from None


def _rejected(exc: FaceRejected, field: str) -> InvalidArgument:
    return InvalidArgument(exc.message, code=exc.code, errors=[FieldError(field, exc.message)])
