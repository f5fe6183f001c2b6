"""A clock for the weather client that moves only when something sleeps on it, so tests of
deadlines, retries, backoff and cache expiry read exact times and never the machine's speed.

A sleep jumps the clock forward at once, stopping at the first deadline on the way; that deadline's
scope is cancelled there, as a real deadline would be. Concurrent sleepers are not interleaved in
time: one clock for one call at a time, which is what these tests run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import anyio.lowlevel


class VirtualClock:
    def __init__(self) -> None:
        self.time = 0.0
        self.deadlines: list[tuple[float, anyio.CancelScope]] = []

    def now(self) -> float:
        return self.time

    async def sleep(self, seconds: float) -> None:
        target = self.time + max(0.0, seconds)
        while True:
            due = [at for at, scope in self.deadlines if not scope.cancel_called and at < target]
            self.time = max(self.time, min(due, default=target))
            self._cancel_due()
            await anyio.lowlevel.checkpoint()  # a scope cancelled above raises here
            if self.time >= target:
                return

    def advance(self, seconds: float) -> None:
        """Time passing between calls, with nothing waiting."""
        self.time += seconds
        self._cancel_due()

    @contextmanager
    def deadline(self, at: float) -> Iterator[anyio.CancelScope]:
        with anyio.CancelScope() as scope:
            entry = (at, scope)
            self.deadlines.append(entry)
            try:
                self._cancel_due()
                yield scope
            finally:
                self.deadlines.remove(entry)

    def _cancel_due(self) -> None:
        for at, scope in self.deadlines:
            if at <= self.time:
                scope.cancel()
