"""Garbage-collector settings for a serving worker (docs/operations.md "Runtime").

CPython's cyclic collector walks every tracked container of a generation when it runs. A
service's modules, routes, models and caches are a few hundred thousand such objects that
live as long as the process, so each full collection stalls the event loop for tens of
milliseconds: under load that was the whole 99th-percentile latency of the token
endpoint. Once the application has started:

- ``gc.freeze()`` moves everything alive into the permanent generation, which no
  collection walks again;
- the young-generation threshold is raised from 700 to :data:`YOUNG_THRESHOLD`
  allocations, so the cycles a request leaves behind are collected in one pass every few
  hundred requests instead of every few.

Reference counting still frees every object without a cycle at once; only cycles wait.
"""

from __future__ import annotations

import gc
from typing import Final

YOUNG_THRESHOLD: Final = 50_000
MIDDLE_THRESHOLD: Final = 50
OLD_THRESHOLD: Final = 100


def freeze_startup_objects() -> None:
    """Collect once, freeze what survives, raise the thresholds. Call after startup."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)
