"""The serving worker's collector settings (idp_common.web.gc_tuning)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from idp_common.web.gc_tuning import YOUNG_THRESHOLD, freeze_startup_objects


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
def test_startup_objects_are_frozen_and_young_collections_are_rarer() -> None:
    kept = [object() for _ in range(10)]  # alive at "startup"
    freeze_startup_objects()
    assert gc.get_freeze_count() > len(kept)
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD > 700


@pytest.mark.usefixtures("restored_gc")
def test_cycles_made_after_startup_are_still_collected() -> None:
    freeze_startup_objects()

    class Node:
        other: object

    a, b = Node(), Node()
    a.other, b.other = b, a
    del a, b
    assert gc.collect() >= 2
