"""The event loop's worst delay: a ticker that should wake every millisecond records how
late it wakes."""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from dataclasses import dataclass, field

#: Delays from this size on are kept with their moment, to compare with the control's.
STALL_S = 0.002


@dataclass
class Ticker:
    """How late a 1 ms sleep wakes up, while it runs; the larger delays with their moment
    (``time.monotonic``: one clock for every process of the machine)."""

    delays: list[float] = field(default_factory=list)
    stalls: list[tuple[float, float]] = field(default_factory=list)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, seconds: float = math.inf) -> None:
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            due = time.monotonic() + 0.001
            await asyncio.sleep(0.001)
            woke = time.monotonic()
            self.delays.append(max(0.0, woke - due))
            if woke - due >= STALL_S:
                self.stalls.append((due, woke))

    def stop(self) -> None:
        self._stop.set()

    def worst_ms(self) -> float:
        return max(self.delays, default=0.0) * 1000

    def p99_ms(self) -> float:
        if len(self.delays) < 2:
            return self.worst_ms()
        return statistics.quantiles(self.delays, n=100)[98] * 1000

    def own_worst_ms(self, control: list[tuple[float, float]]) -> float:
        """The worst delay during which the control process was not held up as well."""
        own = [
            woke - due
            for due, woke in self.stalls
            if not any(due < c_woke and c_due < woke for c_due, c_woke in control)
        ]
        return max(own, default=STALL_S) * 1000
