"""What a ray query answers (:class:`RayHits`) and the input checks every terrain shares.

Misses are ordinary answers (see :class:`RayHits`), so callers mix hits and misses without
special cases; queries raise only for bad input (NaN/inf, wrong shapes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from footfall.errors import TerrainError

#: Faces whose normal has a smaller y than this are walls or stair risers, not ground to stand on.
STEEP_NORMAL_Y = 0.5

UP = np.array([0.0, 1.0, 0.0])


@dataclass(frozen=True)
class RayHits:
    """Results of K rays; every field has the rays' leading shape ``(...)``.

    point: ``(..., 3)`` world hit point, metres (NaN where missed).
    normal: ``(..., 3)`` unit face normal facing up/against the ray ((0, 1, 0) where missed).
    hit: ``(...)`` bool.
    distance: ``(...)`` metres along the (unit) ray from its origin (inf where missed).
    """

    point: np.ndarray
    normal: np.ndarray
    hit: np.ndarray
    distance: np.ndarray

    @property
    def height(self) -> np.ndarray:
        """Hit height (world y), ``(...)`` metres, NaN where missed."""
        return self.point[..., 1]

    @property
    def steep(self) -> np.ndarray:
        """``(...)`` bool: the face hit has normal.y < 0.5 (riser, wall): feet ignore it."""
        return self.hit & (self.normal[..., 1] < STEEP_NORMAL_Y)

    def reshape(self, shape: tuple[int, ...]) -> RayHits:
        """The same hits with leading shape ``shape``."""
        return RayHits(
            self.point.reshape(*shape, 3),
            self.normal.reshape(*shape, 3),
            self.hit.reshape(shape),
            self.distance.reshape(shape),
        )

    @staticmethod
    def missed(count: int) -> RayHits:
        """``count`` rays that hit nothing."""
        return RayHits(
            np.full((count, 3), np.nan),
            np.tile(UP, (count, 1)),
            np.zeros(count, dtype=bool),
            np.full(count, np.inf),
        )


def _as_float_array(value: object, query: str, name: str) -> np.ndarray:
    """``value`` as a float64 array, or a TerrainError naming the query and argument."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TerrainError(
            f"{query}: {name} must be an array of numbers (metres); got {type(value).__name__} "
            f"({str(error).splitlines()[0][:80]})"
        ) from None


def _position(row: int, shape: tuple[int, ...]) -> str:
    """``[i, j]``: where flat row ``row`` sits in the caller's leading shape ("" for one ray)."""
    if not shape:
        return ""
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(row, shape)) + "]"


def _require_finite(
    flat: np.ndarray, shape: tuple[int, ...], query: str, label: str, argument: str
) -> None:
    """TerrainError naming the first ray (its number, its ``[i, j]`` in ``argument``) of the
    rows ``flat (K, n)`` that holds NaN or inf; ``shape``: the caller's leading shape."""
    if np.isfinite(flat).all():  # one flat pass; the row-wise search (20× slower) only on failure
        return
    row = int(np.flatnonzero(~np.isfinite(flat).all(axis=1))[0])
    kind = "NaN" if np.isnan(flat[row]).any() else "infinite"
    raise TerrainError(
        f"{query}: ray {row} has {kind} {label} {flat[row].tolist()} "
        f"({argument}{_position(row, shape)}); rays need finite numbers"
    )


def as_points_xz(xz: object, query: str = "raycast_down") -> tuple[np.ndarray, tuple[int, ...]]:
    """Check points ``xz (..., 2)`` (errors name ``query``); return them flat ``(K, 2)``, shape."""
    points = _as_float_array(xz, query, "xz")
    if points.ndim == 0 or points.shape[-1] != 2:
        raise TerrainError(f"{query}: xz must have shape (..., 2) as (x, z); got {points.shape}")
    shape = points.shape[:-1]
    flat = points.reshape(-1, 2)
    _require_finite(flat, shape, query, "point", "xz")
    return flat, shape


def as_rays(origins: object, directions: object) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Check the rays of ``raycast``; return flat origins ``(K, 3)``, unit directions ``(K, 3)``
    and the shape (errors name the argument and the ray's position in it)."""
    query = "raycast"
    origin = _as_float_array(origins, query, "origins")
    direction = _as_float_array(directions, query, "directions")
    for label, array in (("origins", origin), ("directions", direction)):
        if array.ndim == 0 or array.shape[-1] != 3:
            raise TerrainError(f"{query}: ray {label} must have shape (..., 3); got {array.shape}")
    try:
        origin, direction = np.broadcast_arrays(origin, direction)
    except ValueError as error:
        raise TerrainError(
            f"{query}: ray origins {origin.shape} and directions {direction.shape} do not "
            "broadcast"
        ) from error
    shape = origin.shape[:-1]
    origin = origin.reshape(-1, 3)
    direction = direction.reshape(-1, 3)
    _require_finite(origin, shape, query, "origin", "origins")
    _require_finite(direction, shape, query, "direction", "directions")
    length = np.linalg.norm(direction, axis=1)
    if (length < 1e-12).any():
        row = int(np.flatnonzero(length < 1e-12)[0])
        raise TerrainError(
            f"{query}: ray {row} has a zero direction (directions{_position(row, shape)})"
        )
    return origin, direction / length[:, None], shape


def check_max_distance(max_distance: float, query: str = "raycast") -> float:
    """Validate a ray length limit (positive, not NaN; inf allowed)."""
    try:
        value = float(max_distance)
    except (TypeError, ValueError):
        value = np.nan
    if np.isnan(value) or value <= 0:
        raise TerrainError(f"{query}: max_distance must be a positive number of metres; "
                           f"got {max_distance!r}")
    return value
