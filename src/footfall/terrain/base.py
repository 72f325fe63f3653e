"""What the rest of footfall asks of the ground (:class:`RaySource`, :class:`BoundedRaySource`)
and the :class:`Terrain` base every built-in ground (heightfield or mesh) implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol, runtime_checkable

import numpy as np

from footfall.terrain.hits import RayHits, as_points_xz, as_rays, check_max_distance

#: Downward rays start this far above the highest point of the terrain (seed 000 uses y = 5).
RAY_START_MARGIN = 1.0


@runtime_checkable
class RaySource(Protocol):
    """Ground that answers downward rays: all the grounding pipeline, the walkers, the
    post-process and the metrics call (every :class:`Terrain`,
    :class:`~footfall.terrain.level.LevelGround`, :class:`~footfall.terrain.lanes.LaneTerrain`).
    """

    def raycast_down(self, xz: np.ndarray) -> RayHits:
        """Downward rays at ground points ``xz (..., 2)`` (x, z) metres; ``RayHits (...)``."""
        ...

    def height(self, xz: np.ndarray) -> np.ndarray:
        """Ground height ``(...)`` metres under ``xz (..., 2)``; NaN off the ground."""
        ...


@runtime_checkable
class BoundedRaySource(RaySource, Protocol):
    """A :class:`RaySource` with what placing a clip on it needs
    (:func:`footfall.grounding.clip.placement.place_clip`): its extent and the part worth
    crossing."""

    @property
    def bounds(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """((x_min, z_min), (x_max, z_max)) metres."""
        ...

    @property
    def focus_x(self) -> tuple[float, float] | None:
        """The x span (metres) a placed clip is centred on — a flight of stairs going up, from
        its first riser to the landing — or None: the clip then goes where the ground under it
        varies most."""
        ...


class Terrain(ABC):
    """Ground that answers rays.

    Subclasses fill ``name``, ``params``, ``bounds`` ((x_min, z_min), (x_max, z_max)) metres,
    ``height_range`` (y_min, y_max) metres and the drawing triangulation ``vertices (V, 3)``,
    ``faces (T, 3)`` and ``vertex_colors (V, 3)`` (0..1, or None).
    """

    name: str
    params: dict[str, Any]
    bounds: tuple[tuple[float, float], tuple[float, float]]
    height_range: tuple[float, float]
    vertices: np.ndarray
    faces: np.ndarray
    vertex_colors: np.ndarray | None

    @property
    def focus_x(self) -> tuple[float, float] | None:
        """The x span a placed clip is centred on (:class:`BoundedRaySource`): the up flight of
        a scene with stairs (``params`` ``stairs_start`` to ``landing_start``), else None."""
        start, landing = self.params.get("stairs_start"), self.params.get("landing_start")
        return None if start is None or landing is None else (start, landing)

    def raycast_down(self, xz: np.ndarray) -> RayHits:
        """Cast rays straight down at ``xz (..., 2)`` world (x, z) metres from above the terrain:
        :class:`RayHits` ``(...)`` of the topmost surface (vertical faces such as stair risers
        are never hit, so the normal is the ground's); points outside the terrain miss."""
        points, shape = as_points_xz(xz)
        return self._raycast_down(points).reshape(shape)

    def raycast(
        self, origins: np.ndarray, directions: np.ndarray, max_distance: float = np.inf
    ) -> RayHits:
        """Nearest hits :class:`RayHits` ``(...)`` of rays ``origins``, ``directions (..., 3)``
        metres (directions need not be unit; distances, up to ``max_distance``, are metres)."""
        origin, direction, shape = as_rays(origins, directions)
        limit = check_max_distance(max_distance)
        return self._raycast(origin, direction, limit).reshape(shape)

    def height(self, xz: np.ndarray) -> np.ndarray:
        """Exact ground height under ``xz (..., 2)``, ``(...)`` metres; NaN outside the terrain."""
        points, shape = as_points_xz(xz, query="height")
        return self._raycast_down(points).reshape(shape).height

    def contains(self, xz: np.ndarray) -> np.ndarray:
        """``(...)`` bool: the points ``(..., 2)`` lie inside :attr:`bounds` (borders included)."""
        points = np.asarray(xz, dtype=np.float64)
        (x_min, z_min), (x_max, z_max) = self.bounds
        x, z = points[..., 0], points[..., 1]
        return (x >= x_min) & (x <= x_max) & (z >= z_min) & (z <= z_max)

    @property
    def ray_start_height(self) -> float:
        """World y that downward rays start from, metres (max height + margin)."""
        return float(self.height_range[1]) + RAY_START_MARGIN

    def _box_interval(
        self, origin: np.ndarray, direction: np.ndarray, limit: float, pad: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ray parameters ``(K,), (K,)`` where rays ``(K, 3)`` are inside the terrain's box
        (bounds × height range, grown by ``pad`` metres), clipped to ``[0, limit]`` (empty:
        enter > leave)."""
        (x_min, z_min), (x_max, z_max) = self.bounds
        lo = np.array([x_min, self.height_range[0], z_min]) - pad
        hi = np.array([x_max, self.height_range[1], z_max]) + pad
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / direction
            t_lo = (lo - origin) * inv
            t_hi = (hi - origin) * inv
        parallel = direction == 0
        inside = (origin >= lo) & (origin <= hi)
        near = np.where(parallel, np.where(inside, -np.inf, np.inf), np.minimum(t_lo, t_hi))
        far = np.where(parallel, np.where(inside, np.inf, -np.inf), np.maximum(t_lo, t_hi))
        return np.maximum(near.max(axis=1), 0.0), np.minimum(far.min(axis=1), limit)

    @abstractmethod
    def _raycast_down(self, points: np.ndarray) -> RayHits:
        """Downward rays for checked points ``(K, 2)``."""

    @abstractmethod
    def _raycast(self, origin: np.ndarray, direction: np.ndarray, limit: float) -> RayHits:
        """General rays for checked origins ``(K, 3)`` and unit directions ``(K, 3)``."""

    def __repr__(self) -> str:
        (x_min, z_min), (x_max, z_max) = self.bounds
        return (
            f"{type(self).__name__}({self.name!r}, x {x_min:g}..{x_max:g}, z {z_min:g}..{z_max:g},"
            f" {len(self.faces)} faces)"
        )
