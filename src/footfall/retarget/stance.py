"""Stance width: feet keep the target's own hip width, held still while a foot is planted.

Scaling the source's foot paths by the size ratio keeps the source's (scaled) stance width; a rig
with other hip proportions would stand knock-kneed, so each foot is moved by
``target_hip_offset − size_ratio · source_hip_offset``, turned with the body's heading. The
heading turns while a foot is planted, which would drag it, so the shift is frozen from
touchdown to lift-off and catches up during the swing (eased, over :data:`RELEASE_SECONDS`),
the foot lifted clear of the floor in proportion to the catch-up. One rule for a clip and a
live stream (:class:`PlantedHold`: frame by frame, or over a clip's frames in order), so
``Retargeter.apply`` and ``Retargeter.step`` hold the same feet in the same places.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.jit import helper, kernel
from footfall.ramps import smoothstep_s

#: Seconds over which a released shift catches up with the body.
RELEASE_SECONDS = 0.3
#: Swing clearance added per metre of catch-up, and its cap, m.
CLEARANCE_PER_METRE = 0.5
CLEARANCE_FREE = 0.05
MAX_CLEARANCE = 0.15


class PlantedHold:
    """Values ``(..., 3)`` frozen at touchdown through each planted run; in each swing the
    frozen value blends into the current one over ``fade`` frames (smoothstep), lifted by
    :func:`lift_s` in proportion to the catch-up. Frames come in order, one per call
    (:meth:`__call__`: a live stream) or a clip's frames at once (:meth:`series`); the state
    (held, released values, planted flags, frames since release) is kept between calls, so a
    clip solved in chunks, or a stream, goes on where it stopped. The per-row arithmetic is
    the compiled :func:`_hold_row`."""

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
        self._state(values, planted)
        assert self._rows is not None
        rows = planted.size
        out = np.empty(values.shape)
        if rows == 0:
            return out
        _hold_rows(np.ascontiguousarray(values).reshape(rows, 3),
                   np.ascontiguousarray(planted).reshape(rows), *self._rows, self.fade,
                   out.reshape(rows, 3))
        return out

    def series(self, values: ArrayLike, planted: ArrayLike) -> FloatArray:
        """Held values ``(F, ..., 3)`` for frames ``values (F, ..., 3)``, ``planted (F, ...)``
        in order: :meth:`__call__` on each frame, in one compiled loop."""
        values = np.asarray(values, dtype=np.float64)
        planted = np.asarray(planted, dtype=bool)
        out = np.empty(values.shape)
        frames = planted.shape[0]
        if frames == 0:
            return out
        self._state(values[0], planted[0])
        assert self._rows is not None
        rows = planted[0].size
        if rows == 0:
            return out
        _hold_frames(np.ascontiguousarray(values).reshape(frames, rows, 3),
                     np.ascontiguousarray(planted).reshape(frames, rows), *self._rows,
                     self.fade, out.reshape(frames, rows, 3))
        return out

    def _state(self, values: FloatArray, planted: NDArray[np.bool_]) -> None:
        """The state for one frame's ``values (..., 3)``, made afresh when their shape changes."""
        if self.held is None or self.held.shape != values.shape:
            self.held = values.copy()
            self.released = values.copy()
            self.planted = np.zeros(planted.shape, dtype=bool)
            self.since = np.full(planted.shape, self.fade, dtype=np.int64)
            # the state as the kernel's rows (views, kept while the shape stays)
            rows = planted.size
            self._rows = (self.held.reshape(rows, 3), self.released.reshape(rows, 3),
                          self.planted.reshape(rows), self.since.reshape(rows))


@helper
def lift_s(distance: float, progress: float) -> float:
    """How high (m) a swing is lifted while it catches up ``distance`` m (horizontal) at swing
    ``progress`` (0…1): :data:`CLEARANCE_PER_METRE` per metre beyond :data:`CLEARANCE_FREE` (at
    most :data:`MAX_CLEARANCE`) along a half sine over the swing, so the foot does not scrape
    the floor."""
    height = min(CLEARANCE_PER_METRE * max(distance - CLEARANCE_FREE, 0.0), MAX_CLEARANCE)
    return height * math.sin(math.pi * min(max(progress, 0.0), 1.0))


@helper
def _hold_row(values: FloatArray, planted: BoolArray, held: FloatArray, released: FloatArray,
              was: BoolArray, since: IntArray, fade: int, out: FloatArray, r: int) -> None:
    """One frame of :class:`PlantedHold` for row ``r`` of ``values (R, 3)``, ``planted
    (R,)``; the state ``held``, ``released (R, 3)``, ``was (R,)``, ``since (R,)`` updated in
    place, the held value written to ``out[r]``."""
    down = planted[r]
    if was[r] and not down:  # release: the swing starts from the held value
        for c in range(3):
            released[r, c] = held[r, c]
        since[r] = 0
    touchdown = down and not was[r]
    was[r] = down
    if down and not touchdown:
        for c in range(3):
            out[r, c] = held[r, c]
        return
    since[r] += 1
    progress = min(max(since[r] / max(fade, 1), 0.0), 1.0)
    eased = smoothstep_s(progress)
    gx, gy, gz = (released[r, 0] - values[r, 0], released[r, 1] - values[r, 1],
                  released[r, 2] - values[r, 2])
    out[r, 0] = values[r, 0] + gx * (1.0 - eased)
    out[r, 1] = values[r, 1] + gy * (1.0 - eased)
    out[r, 2] = values[r, 2] + gz * (1.0 - eased)
    if touchdown:
        # Put down where the swing has brought it, its catch-up unfinished or not: holding the
        # current value instead jumped the foot by what was left of the catch-up (a body
        # turning 13° a frame on mixamo_stepping: 18-40 cm in one frame), and the patch hold
        # kept that jump through the stance.
        for c in range(3):
            held[r, c] = out[r, c]
        return
    if since[r] < fade:
        out[r, 1] += lift_s(math.sqrt(gx * gx + gz * gz), progress)


@kernel(error_model="numpy")
def _hold_rows(values: FloatArray, planted: BoolArray, held: FloatArray, released: FloatArray,
               was: BoolArray, since: IntArray, fade: int, out: FloatArray) -> None:
    """One frame of :class:`PlantedHold` for rows ``values (R, 3)``, ``planted (R,)``
    (:func:`_hold_row`)."""
    for r in range(values.shape[0]):
        _hold_row(values, planted, held, released, was, since, fade, out, r)


@kernel(error_model="numpy")
def _hold_frames(values: FloatArray, planted: BoolArray, held: FloatArray, released: FloatArray,
                 was: BoolArray, since: IntArray, fade: int, out: FloatArray) -> None:
    """Frames ``values (F, R, 3)``, ``planted (F, R)`` of :class:`PlantedHold` in order
    (:func:`_hold_row`), into ``out (F, R, 3)``."""
    for f in range(values.shape[0]):
        for r in range(values.shape[1]):
            _hold_row(values[f], planted[f], held, released, was, since, fade, out[f], r)
