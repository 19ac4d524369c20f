"""The face engine with the real models and the shared test images (issue 7).

Acceptance 1 at the engine level: each person's other photo matches their enrolled one,
every other person's photo does not; the group photo, an image without a face, a blurred
face, a tiny face and garbage are refused with their codes. Acceptance 4 at the engine
level: without the optional packages (``tests/harness/without_face`` first on
``PYTHONPATH``) or without a secrets key, the engine is unavailable.

Tests marked ``face`` need the optional stack (``uv sync --group face``).
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar import Litestar
from PIL import Image, ImageFilter

from idp_common.config import Settings
from idp_common.crypto.passwords import WORKERS_ENV
from idp_common.crypto.secretbox import generate_key
from idp_common.face import (
    NO_FACE,
    SEVERAL_FACES,
    TOO_BLURRY,
    TOO_SMALL,
    UNREADABLE_IMAGE,
    FaceEngine,
    FaceRejected,
    FaceUnavailable,
    distance,
    lifespan,
    matches,
)
from idp_common.face.engine import models_dir, pool_size
from tests.harness.faces import FACES

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[4]
BLOCKER = ROOT / "tests" / "harness" / "without_face"
#: The single-face photos and whose face each shows (obama3_480p is obama1 at a lower
#: resolution: a near-duplicate, still a photo of the same person).
PEOPLE = {
    "obama1": "obama",
    "obama2": "obama",
    "obama3_480p": "obama",
    "biden1": "biden",
    "biden2": "biden",
    "kit_harington1": "kit_harington",
    "kit_harington2": "kit_harington",
    "rose_leslie1": "rose_leslie",
    "rose_leslie2": "rose_leslie",
    "astronaut_skimage": "eileen_collins",
}
SETTINGS = Settings(secrets_key=generate_key(), face_workers=2)


def photo(name: str) -> bytes:
    return (FACES / f"{name}.jpg").read_bytes()


def encoded(image: Image.Image, fmt: str = "JPEG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


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


async def rejection(engine: FaceEngine, image: bytes) -> FaceRejected:
    with pytest.raises(FaceRejected) as caught:
        await engine.embed(image)
    return caught.value


@pytest.mark.face
async def test_each_persons_other_photo_matches_and_nobody_elses(
    embeddings: dict[str, bytes],
) -> None:
    threshold = SETTINGS.face_threshold
    wrong = []
    for enrolled, presented in itertools.permutations(sorted(PEOPLE), 2):
        same = PEOPLE[enrolled] == PEOPLE[presented]
        gap = distance(embeddings[enrolled], embeddings[presented])
        if matches(embeddings[enrolled], embeddings[presented], threshold) is not same:
            wrong.append(f"{enrolled} vs {presented}: {gap:.3f} ({'same' if same else 'other'})")
    assert not wrong, wrong
    for embedding in embeddings.values():
        assert len(embedding) == 512


@pytest.mark.face
async def test_the_group_photo_is_refused_with_several_faces(engine: FaceEngine) -> None:
    refused = await rejection(engine, photo("obama_and_biden"))
    assert refused.code == SEVERAL_FACES
    shown = re.fullmatch(
        r"(\d+) faces were found; the image must show only yours\.", refused.message
    )
    assert shown is not None and int(shown.group(1)) >= 2, refused.message


@pytest.mark.face
async def test_an_image_without_a_face_is_refused_with_no_face(engine: FaceEngine) -> None:
    gradient = Image.linear_gradient("L").resize((640, 480)).convert("RGB")
    refused = await rejection(engine, encoded(gradient))
    assert (refused.code, refused.message) == (NO_FACE, "No face was found in the image.")
    # the sky and wall above the two presidents' heads: a real photo, no face in it
    background = Image.open(FACES / "obama_and_biden.jpg").convert("RGB")
    refused = await rejection(engine, encoded(background.crop((0, 0, background.width, 160))))
    assert refused.code == NO_FACE


@pytest.mark.face
@pytest.mark.parametrize("name", ["obama2", "rose_leslie1", "kit_harington2"])
async def test_a_heavily_blurred_face_is_refused_with_too_blurry(
    engine: FaceEngine, name: str
) -> None:
    blurred = Image.open(FACES / f"{name}.jpg").filter(ImageFilter.GaussianBlur(6))
    refused = await rejection(engine, encoded(blurred, quality=95))
    assert refused.code == TOO_BLURRY
    assert "blurry" in refused.message


@pytest.mark.face
async def test_a_tiny_face_is_refused_with_too_small(engine: FaceEngine) -> None:
    # obama2's face is about 224 px wide once the photo is 1024 px high: at 0.3 of that
    # size it is about 67 px, found by the detector but under face_min_size (80)
    original = Image.open(FACES / "obama2.jpg")
    scale = 0.3 * 1024 / max(original.size)
    small = original.resize((round(original.width * scale), round(original.height * scale)))
    refused = await rejection(engine, encoded(small, quality=95))
    assert refused.code == TOO_SMALL
    assert "too small" in refused.message and "80 pixels" in refused.message

    # the same image passes where the deployment accepts smaller faces
    lenient = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1, face_min_size=40))
    try:
        assert len(await lenient.embed(encoded(small, quality=95))) == 512
    finally:
        await lenient.close()


@pytest.mark.face
@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"this is not an image",
        os.urandom(4096),
        b"\xff\xd8\xff\xe0" + os.urandom(2000),  # a JPEG header, then noise
        (FACES / "obama1.jpg").read_bytes()[:5000],  # a truncated JPEG
        encoded(Image.new("RGB", (64, 64)), "GIF"),  # an image, of a format not taken
    ],
    ids=["empty", "text", "random", "jpeg-noise", "truncated", "gif"],
)
async def test_what_is_not_a_usable_image_is_refused_as_unreadable(
    engine: FaceEngine, data: bytes
) -> None:
    refused = await rejection(engine, data)
    assert refused.code == UNREADABLE_IMAGE
    assert refused.message == "The image could not be read; send a JPEG, PNG or WebP photo."


@pytest.mark.face
async def test_more_than_16_megapixels_is_refused_from_the_header(engine: FaceEngine) -> None:
    bomb = encoded(Image.new("L", (4001, 4000)), "PNG")  # 16,004,000 pixels, a few kB
    assert len(bomb) < 200_000
    refused = await rejection(engine, bomb)
    assert refused.code == "face.too_many_pixels"
    assert "4001 x 4000" in refused.message and "16 megapixels" in refused.message


@pytest.mark.face
async def test_a_published_photo_may_be_larger_but_not_a_bomb(engine: FaceEngine) -> None:
    bomb = encoded(Image.new("L", (8000, 5001)), "PNG")  # 40,008,000 pixels
    with pytest.raises(FaceRejected) as refused:
        await engine.fingerprint(bomb, max_pixels=40_000_000)
    assert refused.value.code == "face.too_many_pixels"
    digest, embedding = await engine.fingerprint(
        encoded(Image.new("L", (5000, 4000)), "PNG"), max_pixels=40_000_000
    )
    assert len(digest) == 32 and embedding is None  # no face in it


@pytest.mark.face
@pytest.mark.parametrize(
    ("fmt", "mode"), [("PNG", "RGB"), ("WEBP", "RGB"), ("PNG", "RGBA"), ("JPEG", "L")]
)
async def test_png_webp_alpha_and_grey_images_work_like_the_jpeg(
    engine: FaceEngine, embeddings: dict[str, bytes], fmt: str, mode: str
) -> None:
    image = Image.open(FACES / "kit_harington2.jpg").convert(mode)
    found = await engine.embed(encoded(image, fmt, **({"lossless": True} if fmt == "WEBP" else {})))
    # same pixels: the same face (grey: the same person, a little farther)
    limit = 0.2 if mode == "L" else 0.02
    assert distance(found, embeddings["kit_harington2"]) <= limit
    assert not matches(found, embeddings["rose_leslie1"], SETTINGS.face_threshold)


@pytest.mark.face
async def test_an_exif_rotated_photo_is_turned_upright(
    engine: FaceEngine, embeddings: dict[str, bytes]
) -> None:
    upright = Image.open(FACES / "rose_leslie1.jpg")
    sideways = upright.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: "rotate 90 CW to display", as phones store portraits
    rotated = encoded(sideways, quality=95, exif=exif.tobytes())
    found = await engine.embed(rotated)
    assert distance(found, embeddings["rose_leslie1"]) <= 0.1
    # the same pixels without the tag: HOG finds no sideways face, so the tag mattered
    refused = await rejection(engine, encoded(sideways, quality=95))
    assert refused.code == NO_FACE


@pytest.mark.face
async def test_the_event_loop_keeps_running_while_faces_are_embedded(
    engine: FaceEngine,
) -> None:
    worst = 0.0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal worst
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - before - 0.001)

    ticker = asyncio.create_task(tick())
    began = time.perf_counter()
    names = ["obama1", "biden2", "rose_leslie1", "kit_harington1"] * 2
    await asyncio.gather(*(engine.embed(photo(name)) for name in names))
    elapsed = time.perf_counter() - began
    done.set()
    await ticker
    # one embedding holds its process for 0.2-0.5 s: on the loop, the ticker would see it
    assert elapsed > 0.5
    assert worst < 0.1, f"the event loop stalled {worst * 1000:.0f} ms"


@pytest.mark.face
async def test_a_pool_whose_process_died_is_replaced() -> None:
    before = set(multiprocessing.active_children())
    engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
    await engine.start()
    try:
        spawned = [p for p in multiprocessing.active_children() if p not in before]
        assert len(spawned) == engine.processes == 1
        assert spawned[0].pid is not None
        os.kill(spawned[0].pid, signal.SIGKILL)
        with pytest.raises(FaceUnavailable):
            await engine.embed(photo("obama2"))
        assert engine.available
        assert len(await engine.embed(photo("obama2"))) == 512  # a fresh pool
    finally:
        await engine.close()
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("obama2"))  # closed


@pytest.mark.face
async def test_the_lifespan_starts_the_pool_with_the_app_and_closes_it_after() -> None:
    before = set(multiprocessing.active_children())
    engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
    async with lifespan(engine)(Litestar()):
        spawned = [p for p in multiprocessing.active_children() if p not in before]
        assert len(spawned) == 1  # started, not on the first request
        assert len(await engine.embed(photo("biden2"))) == 512
    spawned[0].join(timeout=10)
    assert not spawned[0].is_alive()
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("biden2"))


@pytest.mark.parametrize(
    ("face_workers", "cores", "serve_workers", "expected"),
    [(0, 2, 2, 1), (0, 2, 1, 2), (0, 8, 2, 4), (0, 1, 4, 1), (0, 4, 0, 4), (3, 2, 2, 3)],
)
def test_pool_size_shares_the_cores_among_the_service_workers(
    face_workers: int, cores: int, serve_workers: int, expected: int
) -> None:
    assert pool_size(face_workers, cores, serve_workers) == expected


def test_the_pool_size_follows_the_serve_workers_and_the_setting() -> None:
    cores = len(os.sched_getaffinity(0))
    automatic = Settings(secrets_key=generate_key())
    assert FaceEngine(automatic, env={WORKERS_ENV: "2"}).processes == max(1, cores // 2)
    assert FaceEngine(automatic, env={}).processes == cores
    assert FaceEngine(SETTINGS, env={WORKERS_ENV: "8"}).processes == 2


async def test_without_a_secrets_key_the_engine_is_unavailable() -> None:
    engine = FaceEngine(Settings(face_workers=1))
    assert engine.available is False
    await engine.start()  # a no-op
    with pytest.raises(FaceUnavailable):
        await engine.embed(photo("obama1"))
    await engine.close()


PROBE = textwrap.dedent(
    """
    import asyncio, json, sys
    from idp_common.config import Settings
    from idp_common.crypto.secretbox import generate_key
    from idp_common.face import FaceEngine, FaceUnavailable

    async def main():
        engine = FaceEngine(Settings(secrets_key=generate_key(), face_workers=1))
        available = engine.available
        imported = sorted(m for m in ("dlib", "numpy", "face_recognition_models")
                          if m in sys.modules)
        refused = None
        if not available:
            await engine.start()
            try:
                await engine.embed(b"an image")
            except FaceUnavailable as exc:
                refused = type(exc).__name__
        await engine.close()
        print(json.dumps({"available": available, "imported": imported, "refused": refused}))

    if __name__ == "__main__":
        asyncio.run(main())
    """
)


def probe(*, hide_face_stack: bool) -> dict[str, object]:
    """Run :data:`PROBE` in a fresh interpreter (nothing imported by other tests)."""
    env = dict(os.environ)
    if hide_face_stack:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(BLOCKER), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        check=False,
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_without_the_optional_packages_the_engine_is_unavailable() -> None:
    assert probe(hide_face_stack=True) == {
        "available": False,
        "imported": [],
        "refused": "FaceUnavailable",
    }


BLOCKED = textwrap.dedent(
    """
    import importlib.util
    for name in ("dlib", "face_recognition_models", "face_recognition_models.models"):
        try:
            __import__(name)
        except ModuleNotFoundError as exc:
            print(exc.name)
    import PIL  # the rest is untouched
    """
)


def test_the_blocker_refuses_exactly_the_face_packages() -> None:
    env = dict(os.environ, PYTHONPATH=str(BLOCKER))
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["dlib", "face_recognition_models", "face_recognition_models"]


@pytest.mark.face
def test_with_the_packages_availability_is_known_without_importing_them() -> None:
    assert probe(hide_face_stack=False) == {"available": True, "imported": [], "refused": None}
