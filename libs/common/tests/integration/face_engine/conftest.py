"""Fixtures of the face engine tests: the engine with its pool, and the people's embeddings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from idp_common.face import (
    FaceEngine,
)
from idp_common.face.engine import models_dir
from libs.common.tests.integration.face_engine.support import (
    PEOPLE,
    SETTINGS,
    photo,
)


@pytest.fixture(scope="module")
async def engine() -> AsyncIterator[FaceEngine]:
    if models_dir() is None:
        pytest.fail("the face stack is not installed: uv sync --group face, or -m 'not face'")
    engine = FaceEngine(SETTINGS)
    await engine.start()
    assert engine.available, "the model processes did not start (see the log)"
    try:
        yield engine
    finally:
        await engine.close()


@pytest.fixture(scope="module")
async def embeddings(engine: FaceEngine) -> dict[str, bytes]:
    names = sorted(PEOPLE)
    found = await asyncio.gather(*(engine.embed(photo(name)) for name in names))
    return dict(zip(names, found, strict=True))
