"""Unit tests of idp_common.face.template: sealed face templates and their distance."""

from __future__ import annotations

import math
import struct

import pytest

from idp_common.crypto.secretbox import (
    SecretboxError,
    face_context,
    generate_key,
    parse_key,
    seal,
    totp_context,
)
from idp_common.face import EMBEDDING_SIZE, distance, matches, open_template, seal_template
from idp_common.face.template import PHOTO_COPY_DISTANCE, is_published_photo

KEY = parse_key(generate_key())
USER = "0b7c5d1e-7a0f-4f2b-9d59-4c3e0e9a1f00"


def embedding(*values: float) -> bytes:
    """128 float32 little-endian: ``values`` first, then zeros."""
    padded = list(values) + [0.0] * (EMBEDDING_SIZE - len(values))
    return struct.pack(f"<{EMBEDDING_SIZE}f", *padded)


SAMPLE = embedding(*(math.sin(i) / 4 for i in range(EMBEDDING_SIZE)))


def test_an_embedding_is_128_float32_little_endian() -> None:
    assert EMBEDDING_SIZE == 128
    assert len(SAMPLE) == 512
    assert struct.unpack_from("<f", SAMPLE, 4)[0] == pytest.approx(math.sin(1) / 4)


def test_round_trip_with_a_fresh_nonce_and_no_readable_numbers() -> None:
    first = seal_template(SAMPLE, key=KEY, user_id=USER)
    second = seal_template(SAMPLE, key=KEY, user_id=USER)
    assert first != second
    assert open_template(first, key=KEY, user_id=USER) == SAMPLE
    assert open_template(second, key=KEY, user_id=USER) == SAMPLE
    # nothing of the embedding is stored in clear, not even a few floats
    for start in range(0, len(SAMPLE) - 8, 4):
        assert SAMPLE[start : start + 8] not in first


def test_the_user_id_may_be_any_object_printed_the_same() -> None:
    class Id:
        def __str__(self) -> str:
            return USER

    sealed = seal_template(SAMPLE, key=KEY, user_id=Id())
    assert open_template(sealed, key=KEY, user_id=USER) == SAMPLE


@pytest.mark.parametrize(
    ("key", "user_id"),
    [
        (parse_key(generate_key()), USER),  # another deployment's key
        (KEY, "another-person"),  # copied onto another person's row
    ],
    ids=["another-deployments-key", "another-persons-row"],  # stable across processes
)
def test_a_template_opens_only_with_its_key_and_for_its_person(key: bytes, user_id: str) -> None:
    sealed = seal_template(SAMPLE, key=KEY, user_id=USER)
    with pytest.raises(SecretboxError):
        open_template(sealed, key=key, user_id=user_id)


@pytest.mark.parametrize(
    "plaintext",
    [
        b"\x02" + SAMPLE,  # a template of another model
        SAMPLE,  # no model tag
        b"\x01" + SAMPLE[:-4],  # 127 numbers
    ],
)
def test_a_sealed_value_that_is_no_current_template_is_refused(plaintext: bytes) -> None:
    sealed = seal(plaintext, key=KEY, context=face_context(USER))
    with pytest.raises(SecretboxError):
        open_template(sealed, key=KEY, user_id=USER)


def test_a_totp_secret_does_not_open_as_a_face_template() -> None:
    sealed = seal(b"\x01" + SAMPLE, key=KEY, context=totp_context(USER))
    with pytest.raises(SecretboxError):
        open_template(sealed, key=KEY, user_id=USER)


@pytest.mark.parametrize(
    "bad",
    [
        b"",
        SAMPLE[:-4],
        SAMPLE + b"\x00\x00\x00\x00",
        embedding(math.nan),
        embedding(0.1, math.inf),
    ],
)
def test_only_an_embedding_is_sealed_or_compared(bad: bytes) -> None:
    with pytest.raises(ValueError, match="embedding"):
        seal_template(bad, key=KEY, user_id=USER)
    with pytest.raises(ValueError, match="embedding"):
        distance(bad, SAMPLE)
    with pytest.raises(ValueError, match="embedding"):
        distance(SAMPLE, bad)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (SAMPLE, SAMPLE, 0.0),
        (embedding(), embedding(3.0, 4.0), 5.0),
        (embedding(1.0), embedding(-1.0), 2.0),
        (embedding(*[0.25] * EMBEDDING_SIZE), embedding(), math.sqrt(EMBEDDING_SIZE) / 4),
        (embedding(0.5, 0.5), embedding(0.0, 0.0, 0.5, 0.5), 1.0),
    ],
)
def test_distance_is_euclidean_and_symmetric(a: bytes, b: bytes, expected: float) -> None:
    assert distance(a, b) == pytest.approx(expected, abs=1e-6)
    assert distance(b, a) == distance(a, b)


def test_last_component_counts() -> None:
    a = embedding(*[0.0] * (EMBEDDING_SIZE - 1), 0.75)
    assert distance(a, embedding()) == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("offset", "threshold", "expected"),
    [
        (0.5, 0.5, True),  # at the threshold: a match (distance <= threshold)
        (0.5, 0.4999, False),
        (0.25, 0.5, True),
        (0.75, 0.5, False),
        (0.0, 0.1, True),
    ],
)
def test_matches_up_to_the_threshold_included(
    offset: float, threshold: float, expected: bool
) -> None:
    assert matches(embedding(), embedding(offset), threshold) is expected


def _embedding(*values: float) -> bytes:
    floats = list(values) + [0.0] * (128 - len(values))
    return struct.pack("<128f", *floats)


def test_a_published_photo_is_recognised_by_its_pixels_or_its_face() -> None:
    published = [(b"d" * 32, _embedding(0.5)), (b"e" * 32, None)]
    far = _embedding(0.5 + PHOTO_COPY_DISTANCE + 0.1)
    assert is_published_photo(b"e" * 32, far, published)  # the same pixels
    assert is_published_photo(b"x" * 32, _embedding(0.5 + PHOTO_COPY_DISTANCE / 2), published)
    assert not is_published_photo(b"x" * 32, far, published)
    assert not is_published_photo(b"x" * 32, far, [])
