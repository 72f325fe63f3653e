"""Terrains side by side along z, one lane each, answering rays as one ground: how the stairs
experiment walks every scenario in one batch (:mod:`footfall.gait.experiment`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from footfall.terrain.base import RaySource
from footfall.terrain.hits import RayHits

#: Metres between the centres of two lanes.
LANE_WIDTH = 4.0


class LaneTerrain:
    """Terrains side by side, terrain i in the lane centred on z = i·width, answering its rays."""

    def __init__(self, terrains: Sequence[RaySource], width: float = LANE_WIDTH) -> None:
        self.terrains = list(terrains)
        self.width = float(width)

    def raycast_down(self, xz: np.ndarray) -> RayHits:
        """Downward rays ``(..., 2)`` → :class:`RayHits` ``(...)``."""
        xz = np.asarray(xz, dtype=np.float64)
        shape = xz.shape[:-1]
        flat = xz.reshape(-1, 2)
        out = RayHits.missed(flat.shape[0])  # fresh arrays, filled lane by lane
        lanes = np.floor(flat[:, 1] / self.width + 0.5).astype(int)  # each ray's lane index
        for index, terrain in enumerate(self.terrains):
            rows = np.nonzero(lanes == index)[0]
            if rows.size == 0:
                continue
            hits = terrain.raycast_down(flat[rows] - [0.0, index * self.width])
            out.point[rows] = hits.point + [0.0, 0.0, index * self.width]
            out.normal[rows], out.hit[rows] = hits.normal, hits.hit
            out.distance[rows] = hits.distance
        return out.reshape(shape)

    def height(self, xz: np.ndarray) -> np.ndarray:
        """Ground height ``(...)`` under ``xz (..., 2)``, NaN off the lanes."""
        return self.raycast_down(xz).height
