"""Endless level ground at one height: a clip's own floor, for the clean-up that changes only
stance defects (``footfall ground --terrain level``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from footfall.arrays import FloatArray
from footfall.terrain.hits import RayHits


class LevelGround:
    """Endless level ground at one height (a clip's own floor), answering rays like a terrain."""

    name = "level"
    params: dict[str, Any] = {}
    #: No part of level ground is more worth crossing than another (:class:`BoundedRaySource`).
    focus_x: tuple[float, float] | None = None

    def __init__(self, height: float) -> None:
        self.height_value = float(height)
        self.bounds = ((-1e6, -1e6), (1e6, 1e6))
        self.height_range = (self.height_value, self.height_value)

    def height(self, xz: FloatArray) -> FloatArray:
        """``(...)`` the ground height under points ``(..., 2)``."""
        return np.full(np.shape(xz)[:-1], self.height_value)

    def raycast_down(self, xz: FloatArray) -> RayHits:
        """Downward rays ``(..., 2)`` → :class:`RayHits` ``(...)``, every one a hit."""
        xz = np.asarray(xz, dtype=np.float64)
        point = np.stack([xz[..., 0], np.full(xz.shape[:-1], self.height_value), xz[..., 1]], -1)
        shape = xz.shape[:-1]
        return RayHits(point, np.broadcast_to([0.0, 1.0, 0.0], (*shape, 3)),
                       np.ones(shape, dtype=bool), np.zeros(shape))
