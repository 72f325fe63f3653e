"""Walk paths: where the body goes as a function of the distance it has walked.

A path lives in its own ground frame: it starts at the origin facing +Z (a character's
forward), and a positive turn is to the left (+X, the character's left, a positive yaw). The
walker (:mod:`.walker`) advances the distance from its phase clock (step length × step rate)
and asks the path where the body, and each foot a given distance further on, will be and which
way they face; a walk is curved as it is generated, never bent afterwards.

- ``straight``: no turn.
- ``circle``: a circle of ``radius`` to one ``side`` (+1 left, −1 right), round and round.
- ``eight``: a full circle to ``side``, then a full circle to the other side, the two circles
  touching at the start, where the walk crosses itself facing its start heading.

Distances and radii in metres (rig units), headings in radians; every function broadcasts over
the distances' shape ``(...)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.errors import SettingsError

PATHS = ("straight", "circle", "eight")
#: Largest radius a curved path takes, metres: a kilometre-wide circle is a straight walk.
MAX_RADIUS = 1000.0


@dataclass(frozen=True)
class WalkPath:
    """A walk's path (see the module docstring): ``kind`` one of :data:`PATHS`, ``radius``
    metres (circle, eight), ``side`` +1 turns left first, −1 right."""

    kind: str = "straight"
    radius: float = math.inf
    side: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in PATHS:
            raise SettingsError(f"unknown path {self.kind!r}; valid paths: {', '.join(PATHS)}")
        if self.side not in (1.0, -1.0):
            raise SettingsError(f"path side must be +1 (left) or -1 (right), got {self.side!r}")
        if self.kind != "straight" and not 0.0 < self.radius <= MAX_RADIUS:
            raise SettingsError(f"path radius must be > 0 and ≤ {MAX_RADIUS:g} m, "
                                f"got {self.radius!r}")

    @property
    def straight(self) -> bool:
        """The path never turns."""
        return self.kind == "straight"

    @property
    def loop_length(self) -> float:
        """Length of one circle of the path, metres (inf when straight)."""
        return math.inf if self.straight else 2.0 * math.pi * self.radius

    def pose(self, distance: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Where the path is ``distance (...)`` metres from its start: ground offset ``(..., 2)``
        as (x, z) in the path's frame and heading ``(...)`` radians (0 at the start; the
        heading is continuous, growing by 2π per circle to the left)."""
        distance = np.asarray(distance, dtype=np.float64)
        if self.straight:
            return np.stack([np.zeros_like(distance), distance], axis=-1), np.zeros_like(distance)
        loop = np.floor(distance / self.loop_length)
        along = distance - loop * self.loop_length  # [0, loop length) along this circle
        # The circle's side: always ``side`` for a circle; for an eight, ``side`` on even
        # circles and the other side on odd ones.
        odd = np.mod(loop, 2.0) == 1.0
        side = np.where(odd & (self.kind == "eight"), -self.side, self.side)
        angle = along / self.radius  # turned so far on this circle, radians
        # (1 − cos a) written as 2 sin²(a/2): no cancellation for short arcs of large circles.
        offset = np.stack([side * 2.0 * self.radius * np.sin(0.5 * angle) ** 2,
                           self.radius * np.sin(angle)], axis=-1)
        if self.kind == "circle":
            heading = self.side * (angle + 2.0 * math.pi * loop)
        else:  # back to 0 after each pair of circles: +2π after the first, 0 after the second
            heading = np.where(odd, self.side * 2.0 * math.pi, 0.0) + side * angle
        return offset, heading

    def relative(self, distance: ArrayLike, ahead: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The move from ``distance`` to ``distance + ahead`` (``(...)``, broadcast, metres;
        ``ahead`` may be negative): ground offset ``(..., 2)`` as (x, z) in the frame of the
        heading at ``distance`` (+Z forward, +X left) and the turn ``(...)`` radians."""
        distance, ahead = np.broadcast_arrays(np.asarray(distance, dtype=np.float64),
                                              np.asarray(ahead, dtype=np.float64))
        if self.straight:  # exact: a straight walk advances by ``ahead`` and nothing else
            return np.stack([np.zeros_like(ahead), ahead], axis=-1), np.zeros_like(ahead)
        here, heading = self.pose(distance)
        there, heading_there = self.pose(distance + ahead)
        move = there - here
        cos, sin = np.cos(heading), np.sin(heading)
        local = np.stack([move[..., 0] * cos - move[..., 1] * sin,
                          move[..., 0] * sin + move[..., 1] * cos], axis=-1)
        return local, heading_there - heading

    def centre_offset(self) -> FloatArray:
        """``(2,)`` (x, z) in the path's frame of the point the path is centred on: a circle's
        centre; an eight's crossing (its start); a straight path's start."""
        return np.array([self.side * self.radius if self.kind == "circle" else 0.0, 0.0])

    def start_for(self, centre: ArrayLike, heading: float = math.pi / 2) -> FloatArray:
        """``(3,)`` world start of a walk facing ``heading`` (radians, π/2 faces +X) whose path
        is centred on the world point ``centre (3,)`` (:meth:`centre_offset`)."""
        start = np.asarray(centre, dtype=np.float64).copy()
        offset = self.centre_offset()
        start[[0, 2]] -= to_world(offset, heading)
        return start

    def bounds(self, start: ArrayLike, heading: float = math.pi / 2
               ) -> tuple[tuple[float, float], tuple[float, float]]:
        """``((x_min, z_min), (x_max, z_max))`` world box of the body's path from ``start
        (3,)`` facing ``heading``: infinite for a straight path."""
        if self.straight:
            return (-math.inf, -math.inf), (math.inf, math.inf)
        start_xz = np.asarray(start, dtype=np.float64)[[0, 2]]
        sides = [self.side] if self.kind == "circle" else [self.side, -self.side]
        centres = np.stack([start_xz + to_world(np.array([s * self.radius, 0.0]), heading)
                            for s in sides])
        low, high = centres.min(axis=0) - self.radius, centres.max(axis=0) + self.radius
        return (float(low[0]), float(low[1])), (float(high[0]), float(high[1]))


def to_world(offset: FloatArray, heading: ArrayLike) -> FloatArray:
    """Ground offsets ``(..., 2)`` (x, z) in a frame facing ``heading (...)`` radians turned
    into the world's (yaw about +Y: forward +Z goes to (sin h, cos h), left +X to (cos h,
    −sin h))."""
    heading = np.asarray(heading, dtype=np.float64)
    cos, sin = np.cos(heading), np.sin(heading)
    return np.stack([offset[..., 0] * cos + offset[..., 1] * sin,
                     -offset[..., 0] * sin + offset[..., 1] * cos], axis=-1)
