"""What the walker asks the terrain: ground under the body and footing under each foot.

A miss (off the terrain) keeps the caller's fallback height; stair risers and walls never tilt
a foot or set the slope. With ``flat_floor`` only the body's slope is read: heights stay 0 and
feet level, the flat-floor animation :mod:`footfall.grounding` expects.
"""

from __future__ import annotations

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.terrain.base import RaySource

UP = np.array([0.0, 1.0, 0.0])
# Feet tilt with the ground by at most this much, radians (SPEC §4: ±0.45 rad).
MAX_FOOT_TILT = 0.45


class GroundProbe:
    """Downward rays for the walker (``terrain`` None means the flat floor y = 0)."""

    def __init__(self, terrain: RaySource | None, flat_floor: bool = False) -> None:
        self.terrain = terrain
        self.flat_floor = flat_floor

    def under_body(
        self, position: FloatArray, fallback: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Ground height ``(K,)`` and normal ``(K, 3)`` under root positions ``(K, 3)``."""
        count = position.shape[0]
        if self.terrain is None:
            return np.zeros(count), np.tile(UP, (count, 1))
        hits = self.terrain.raycast_down(position[:, [0, 2]])
        usable = hits.hit & ~hits.steep & np.isfinite(hits.height)
        normal = np.where(usable[:, None], hits.normal, UP)
        if self.flat_floor:
            return np.zeros(count), normal
        return np.where(usable, hits.height, fallback), normal

    def footing(self, points: FloatArray, fallback: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Ground height ``(...)`` (``fallback`` where missed) and foot tilt ``(..., 4)`` (up onto
        the ground normal, at most :data:`MAX_FOOT_TILT`) under points ``(..., 3)``."""
        shape = points.shape[:-1]
        if self.terrain is None or self.flat_floor:
            return np.zeros(shape), quat.identity(shape)
        hits = self.terrain.raycast_down(points[..., [0, 2]])
        found = hits.hit & np.isfinite(hits.height)
        height = np.where(found, hits.height, fallback)
        normal = np.where((found & ~hits.steep)[..., None], hits.normal, UP)
        axis, angle = quat.to_axis_angle(quat.between(np.broadcast_to(UP, normal.shape), normal))
        return height, quat.from_axis_angle(axis, np.minimum(angle, MAX_FOOT_TILT))
