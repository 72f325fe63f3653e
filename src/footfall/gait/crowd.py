"""A crowd on every core: characters split into walkers that step on threads at once.

The compiled kernels release the GIL, so walkers of disjoint characters ground their frames
in parallel threads. Every character's arithmetic is its own, so the joined frames equal those
of one walker of all the characters, bit for bit.

    crowd = Crowd.split(lambda part: StepWalker(skeleton, terrain, len(x[part]),
                                                start_x=x[part], ...), count=10_000)
    frame = crowd.step(1 / 60)   # a GroundedFrame of 10,000 characters
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import fields
from itertools import pairwise
from typing import Any, TypeVar

import numpy as np

from footfall.errors import SettingsError
from footfall.gait.protocol import Walker
from footfall.grounding.pipeline import GroundedFrame
from footfall.memory import keep_freed_memory

FrameT = TypeVar("FrameT", bound=GroundedFrame)


class Crowd:
    """Walkers of disjoint characters stepped together, one thread each.

    Args:
        parts: the walkers; their characters are joined in this order.
        threads: worker threads (default: one per part, at most the machine's CPUs).
        keep_memory: keep freed memory for the next frame (process-wide, glibc only:
            :func:`footfall.memory.keep_freed_memory`), or a big crowd faults its pages in again.
    """

    def __init__(self, parts: Sequence[Walker], threads: int | None = None,
                 keep_memory: bool = True) -> None:
        if not parts:
            raise SettingsError("a crowd needs at least one walker")
        if keep_memory:
            keep_freed_memory()
        self.parts = list(parts)
        workers = threads if threads is not None else min(len(parts), os.cpu_count() or 1)
        if workers < 1:
            raise SettingsError(f"threads must be ≥ 1, got {workers}")
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="footfall-crowd")

    @classmethod
    def split(cls, make: Callable[[slice], Walker], count: int, parts: int | None = None,
              threads: int | None = None, keep_memory: bool = True) -> Crowd:
        """``count`` characters in ``parts`` slices (default: one a CPU) made by ``make(slice)``."""
        parts = parts if parts is not None else min(os.cpu_count() or 1, max(count, 1))
        if count < 1 or parts < 1:
            raise SettingsError(f"a crowd needs ≥ 1 character and part, got {count}, {parts}")
        edges = np.linspace(0, count, min(parts, count) + 1).round().astype(int)
        return cls([make(slice(int(a), int(b))) for a, b in pairwise(edges)], threads, keep_memory)

    @property
    def ik(self) -> np.ndarray:
        """Per-character IK switch ``(K,)`` (a copy; assign a whole array to change it)."""
        return np.concatenate([part.ik for part in self.parts])

    @ik.setter
    def ik(self, values: Any) -> None:
        edges = np.cumsum([0] + [len(part.ik) for part in self.parts])  # each part's characters
        count = int(edges[-1])
        values = np.asarray(values, dtype=bool)
        if values.shape not in ((), (count,)):
            raise SettingsError(f"ik: one switch or {count} (one per character), got shape "
                                f"{values.shape}")
        values = np.broadcast_to(values, (count,))
        for part, (start, stop) in zip(self.parts, pairwise(edges), strict=True):
            part.ik[...] = values[start:stop]

    def step(self, dt: float) -> GroundedFrame:
        """One frame of every walker, joined: ``(K, ...)``."""
        return join(list(self._pool.map(lambda part: part.step(dt), self.parts)), axis=0,
                    pool=self._pool)

    def step_frames(self, dt: float, frames: int) -> GroundedFrame:
        """``frames`` frames of every walker, joined: ``(T, K, ...)``."""
        return join(list(self._pool.map(lambda part: part.step_frames(dt, frames),
                                        self.parts)), axis=1, pool=self._pool)

    def rewind(self, frame: int) -> None:
        """Every walker back to frame ``frame`` of its last :meth:`step_frames` batch."""
        for part in self.parts:
            part.rewind(frame)

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown()


def join(frames: Sequence[FrameT], axis: int, pool: Executor | None = None) -> FrameT:
    """Grounded frames of disjoint characters as one: per-character arrays (``ndim > axis``)
    concatenated on ``axis``, shared values (the clock) from the first; with a ``pool`` each
    frame's share is copied on a worker thread (NumPy releases the GIL while it copies)."""
    values: dict[str, Any] = {}
    shares: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in frames]
    for field in fields(frames[0]):
        parts = [getattr(frame, field.name) for frame in frames]
        first = parts[0]
        if not (isinstance(first, np.ndarray) and first.ndim > axis):
            values[field.name] = first
            continue
        edges = np.cumsum([0] + [part.shape[axis] for part in parts])
        shape = list(first.shape)
        shape[axis] = int(edges[-1])
        out = values[field.name] = np.empty(shape, dtype=np.result_type(*parts))
        for index, part in enumerate(parts):
            window = (slice(None),) * axis + (slice(int(edges[index]), int(edges[index + 1])),)
            shares[index].append((out[window], part))

    def copy(share: list[tuple[np.ndarray, np.ndarray]]) -> None:
        for window, part in share:
            window[...] = part

    if pool is None or len(frames) == 1:
        for share in shares:
            copy(share)
    else:
        list(pool.map(copy, shares))
    return type(frames[0])(**values)
