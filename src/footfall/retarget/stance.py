"""Stance width: feet keep the target's own hip width, held still while a foot is planted.

Scaling the source's foot paths by the size ratio keeps the source's (scaled) stance width; a rig
with other hip proportions would stand knock-kneed, so each foot is moved by
``target_hip_offset − size_ratio · source_hip_offset``, turned with the body's heading. The
heading turns while a foot is planted, which would drag it, so the shift is frozen from
touchdown to lift-off and catches up during the swing (eased; offline over the whole swing,
live over a fixed time), the foot lifted clear of the floor in proportion to the catch-up.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.footing.runs import value_runs
from footfall.jit import helper, kernel

#: Live only: seconds over which a released shift catches up with the body.
RELEASE_SECONDS = 0.3
#: Swing clearance added per metre of catch-up, and its cap, m.
CLEARANCE_PER_METRE = 0.5
CLEARANCE_FREE = 0.05
MAX_CLEARANCE = 0.15


def _ease(progress: FloatArray) -> FloatArray:
    """Smoothstep ``3p² − 2p³``: the swing catches up slowly while the foot is still near the
    floor (lift-off, touchdown) and fastest mid-swing."""
    return progress * progress * (3.0 - 2.0 * progress)


def hold_while_planted(values: ArrayLike, planted: ArrayLike,
                       pace: ArrayLike | None = None) -> FloatArray:
    """``values (F, ..., 3)`` frozen at touchdown through each planted run (``planted (F, ...)``).

    In each swing the frozen value blends into the current one, reaching it at the next
    touchdown (or at the end): eased in and out over the swing's frames, or — with ``pace
    (F, ...)`` (≥ 0, e.g. how high the foot is) — in proportion to the pace summed so far, so
    the catch-up happens where the pace is high.
    """
    values = np.asarray(values, dtype=np.float64)
    planted = np.asarray(planted, dtype=bool)
    frames = planted.shape[0]
    index = np.arange(frames).reshape((frames,) + (1,) * (planted.ndim - 1))
    previous = np.concatenate([np.zeros_like(planted[:1]), planted[:-1]], axis=0)
    touchdown = planted & ~previous
    last_touchdown = np.maximum.accumulate(np.where(touchdown, index, 0), axis=0)
    held = np.take_along_axis(values, last_touchdown[..., None], axis=0)
    release = ~planted & previous
    last_release = np.maximum.accumulate(np.where(release, index, -1), axis=0)
    next_touchdown = np.minimum.accumulate(np.where(touchdown, index, frames)[::-1], axis=0)[::-1]
    held_at_release = np.take_along_axis(held, np.maximum(last_release - 1, 0)[..., None], axis=0)
    if pace is None:
        span = np.maximum(next_touchdown - last_release, 1)
        progress = np.clip((index - last_release + 1) / span, 0.0, 1.0)
    else:
        step = np.where(planted, 0.0, np.maximum(np.asarray(pace, dtype=np.float64), 1e-6))
        total = np.concatenate([np.zeros_like(step[:1]), np.cumsum(step, axis=0)], axis=0)
        begin = np.take_along_axis(total, np.maximum(last_release, 0), axis=0)
        done = (np.take_along_axis(total, np.broadcast_to(index + 1, last_release.shape), axis=0)
                - begin)
        whole = np.take_along_axis(total, next_touchdown, axis=0) - begin
        progress = np.clip(done / np.maximum(whole, 1e-12), 0.0, 1.0)
    remaining = np.where(last_release >= 0, 1.0 - _ease(progress), 0.0)[..., None]
    gap = held_at_release - values
    swinging = values + gap * remaining
    swinging[..., 1] += swing_lift(gap, progress, last_release >= 0)
    return np.where(planted[..., None], held, swinging)


def keep_through_shuffles(planted: ArrayLike, lift: ArrayLike,
                          clearance: float) -> NDArray[np.bool_]:
    """``planted (F, ...)`` with the swings whose foot never rises ``clearance`` (m, ``lift
    (F, ...)``) counted as planted: a foot shuffling along the floor keeps its stance shift
    until it really lifts (catching up under a skimming foot would add to its slide)."""
    planted = np.asarray(planted, dtype=bool)
    lift = np.asarray(lift, dtype=np.float64)
    out = planted.reshape(planted.shape[0], -1).copy()
    heights = lift.reshape(lift.shape[0], -1)
    for column, height in zip(out.T, heights.T, strict=True):
        for start, end in zip(*value_runs(column), strict=True):
            if not column[start] and height[start:end].max() < clearance:
                column[start:end] = True
    return out.reshape(planted.shape)


def swing_lift(gap: FloatArray, progress: FloatArray, active: ArrayLike) -> FloatArray:
    """Extra foot lift ``(...)`` while a swing catches up a stance gap ``(..., 3)``, metres:
    ``CLEARANCE_PER_METRE`` per metre of catch-up beyond ``CLEARANCE_FREE`` (at most
    ``MAX_CLEARANCE``) along a half sine over the swing, so the foot does not scrape the floor."""
    distance = np.linalg.norm(gap[..., [0, 2]], axis=-1)
    return np.where(active, _lift(distance, progress), 0.0)


class PlantedHold:
    """Live version of :func:`hold_while_planted` (the swing blend lasts ``fade`` frames): one
    frame at a time, its state (held, released values, planted flags, frames since release)
    kept between calls; the per-row arithmetic is the compiled :func:`_hold_rows`."""

    def __init__(self, fade: int = 18) -> None:
        self.fade = fade
        self.reset()

    def reset(self) -> None:
        """Forget the state."""
        self.held: FloatArray | None = None
        self.planted: NDArray[np.bool_] | None = None
        self.released: FloatArray | None = None
        self.since: NDArray[np.int64] | None = None
        self._rows: tuple[FloatArray, FloatArray, NDArray[np.bool_], NDArray[np.int64]] | None
        self._rows = None

    def __call__(self, values: ArrayLike, planted: ArrayLike) -> FloatArray:
        """Held values ``(..., 3)`` for this frame's ``values`` and ``planted (...)``."""
        values = np.asarray(values, dtype=np.float64)
        planted = np.asarray(planted, dtype=bool)
        if self.held is None or self.held.shape != values.shape:
            self.held = values.copy()
            self.released = values.copy()
            self.planted = np.zeros(planted.shape, dtype=bool)
            self.since = np.full(planted.shape, self.fade, dtype=np.int64)
            # the state as the kernel's rows (views, kept while the shape stays)
            rows = planted.size
            self._rows = (self.held.reshape(rows, 3), self.released.reshape(rows, 3),
                          self.planted.reshape(rows), self.since.reshape(rows))
        assert self.planted is not None and self._rows is not None
        rows = planted.size
        out = np.empty(values.shape)
        if rows == 0:
            return out
        _hold_rows(np.ascontiguousarray(values).reshape(rows, 3),
                   np.ascontiguousarray(planted).reshape(rows), *self._rows, self.fade,
                   out.reshape(rows, 3))
        return out


@helper
def lift_s(distance: float, progress: float) -> float:
    """:func:`swing_lift` for a catch-up of ``distance`` m (horizontal) at swing ``progress``."""
    height = min(CLEARANCE_PER_METRE * max(distance - CLEARANCE_FREE, 0.0), MAX_CLEARANCE)
    return height * math.sin(math.pi * min(max(progress, 0.0), 1.0))


@kernel(error_model="numpy")
def _hold_rows(values: FloatArray, planted: BoolArray, held: FloatArray, released: FloatArray,
               was: BoolArray, since: IntArray, fade: int, out: FloatArray) -> None:
    """One frame of :class:`PlantedHold` for rows ``values (R, 3)``, ``planted (R,)``; the
    state ``held``, ``released (R, 3)``, ``was (R,)``, ``since (R,)`` updated in place."""
    for r in range(values.shape[0]):
        down = planted[r]
        if was[r] and not down:  # release: the swing starts from the held value
            for c in range(3):
                released[r, c] = held[r, c]
            since[r] = 0
        if down and not was[r]:  # touchdown
            for c in range(3):
                held[r, c] = values[r, c]
        was[r] = down
        if down:
            for c in range(3):
                out[r, c] = held[r, c]
            continue
        since[r] += 1
        progress = min(max(since[r] / max(fade, 1), 0.0), 1.0)
        eased = progress * progress * (3.0 - 2.0 * progress)  # as ``_ease``
        gx, gy, gz = (released[r, 0] - values[r, 0], released[r, 1] - values[r, 1],
                      released[r, 2] - values[r, 2])
        out[r, 0] = values[r, 0] + gx * (1.0 - eased)
        out[r, 1] = values[r, 1] + gy * (1.0 - eased)
        out[r, 2] = values[r, 2] + gz * (1.0 - eased)
        if since[r] < fade:
            out[r, 1] += lift_s(math.sqrt(gx * gx + gz * gz), progress)


@numba.vectorize(["float64(float64, float64)"], cache=True)
def _lift(distance: float, progress: float) -> float:  # pragma: no cover (compiled)
    """:func:`lift_s` over arrays."""
    return lift_s(distance, progress)
