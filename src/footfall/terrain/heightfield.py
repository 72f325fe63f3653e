"""Heightfield terrain: ground given as y = h(x, z), from a formula or a bilinear grid.

Downward rays evaluate h and its analytic gradient exactly (no triangles); general rays march
along the ray in small steps until the sign of (ray y − h) changes, then bisect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.base import Terrain
from footfall.terrain.hits import RayHits, as_points_xz
from footfall.terrain.palette import ground_colors

#: h(x, z) -> y, all ``(K,)`` metres.
HeightFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: (x, z) -> (dh/dx, dh/dz), each ``(K,)``.
GradientFunction = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

#: Samples marched per block for general rays, and bisection steps once a crossing is bracketed.
MARCH_BLOCK = 256
BISECTIONS = 60
#: Drawing triangulation: at most this many vertices along an axis.
MAX_DRAW_SAMPLES = 641


class HeightfieldTerrain(Terrain):
    """Ground y = h(x, z) over the rectangle ``bounds`` ((x_min, z_min), (x_max, z_max)).

    height_fn, gradient_fn: the surface and its exact partial derivatives (vectorised).
    height_range: (y_min, y_max) bounding h (None: estimated from the drawing samples ± 5 cm).
    march_step: metres between samples when marching general rays (features thinner than this
    may be stepped over by grazing rays). draw_spacing: metres between drawing vertices.
    """

    def __init__(
        self,
        height_fn: HeightFunction,
        gradient_fn: GradientFunction,
        bounds: tuple[tuple[float, float], tuple[float, float]],
        *,
        name: str = "heightfield",
        params: dict[str, Any] | None = None,
        height_range: tuple[float, float] | None = None,
        march_step: float = 0.01,
        draw_spacing: float = 0.05,
    ) -> None:
        (x_min, z_min), (x_max, z_max) = bounds
        if not (
            np.isfinite([x_min, z_min, x_max, z_max]).all() and x_max > x_min and z_max > z_min
        ):
            raise TerrainError(f"{name}: bounds must be finite with min < max; got {bounds}")
        if not (np.isfinite(march_step) and march_step > 0):
            raise TerrainError(f"{name}: march_step must be positive; got {march_step}")
        self.name = name
        self.params = dict(params or {})
        self.bounds = ((float(x_min), float(z_min)), (float(x_max), float(z_max)))
        self._height_fn = height_fn
        self._gradient_fn = gradient_fn
        self.march_step = float(march_step)
        self._triangulate(draw_spacing)
        if height_range is None:
            y = self.vertices[:, 1]
            height_range = (float(y.min()) - 0.05, float(y.max()) + 0.05)
        self.height_range = (float(height_range[0]), float(height_range[1]))

    @classmethod
    def from_grid(
        cls,
        heights: np.ndarray,
        bounds: tuple[tuple[float, float], tuple[float, float]],
        *,
        name: str = "heightmap",
        params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> HeightfieldTerrain:
        """Bilinear heightfield through samples ``heights (Nz, Nx)`` metres; ``heights[j, i]``
        sits at x = x_min + i·(x_max − x_min)/(Nx − 1), z likewise with j."""
        grid = np.asarray(heights, dtype=np.float64)
        if grid.ndim != 2 or min(grid.shape) < 2:
            raise TerrainError(
                f"{name}: height grid must be (Nz, Nx) with both ≥ 2; got {grid.shape}"
            )
        if not np.isfinite(grid).all():
            raise TerrainError(f"{name}: height grid holds NaN or inf")
        (x_min, z_min), (x_max, z_max) = bounds
        spacing = ((x_max - x_min) / (grid.shape[1] - 1), (z_max - z_min) / (grid.shape[0] - 1))
        origin = (x_min, z_min)

        def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
            return _bilinear(grid, origin, spacing, x, z)[0]

        def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _bilinear(grid, origin, spacing, x, z)[1:]

        kwargs.setdefault("height_range", (float(grid.min()), float(grid.max())))
        kwargs.setdefault("draw_spacing", max(spacing))
        return cls(height, gradient, bounds, name=name, params=params, **kwargs)

    # ------------------------------------------------------------------------------ queries
    def height(self, xz: np.ndarray) -> np.ndarray:
        """Exact h(x, z) for ``xz (..., 2)``, ``(...)`` metres; NaN outside :attr:`bounds`."""
        points, shape = as_points_xz(xz, query="height")
        inside = self.contains(points)
        values = np.asarray(self._height_fn(points[:, 0], points[:, 1]), float)
        return np.where(inside, values, np.nan).reshape(shape)

    def normal(self, xz: np.ndarray) -> np.ndarray:
        """Unit surface normal ``(K, 3)`` (facing up) at ground points ``(K, 2)``."""
        points = np.asarray(xz, dtype=np.float64).reshape(-1, 2)
        dx, dz = self._gradient_fn(points[:, 0], points[:, 1])
        normal = np.stack(
            np.broadcast_arrays(-np.asarray(dx, float), 1.0, -np.asarray(dz, float)), -1
        )
        return normal / np.linalg.norm(normal, axis=-1, keepdims=True)

    def _raycast_down(self, points: np.ndarray) -> RayHits:
        count = len(points)
        hit = self.contains(points)
        height = np.asarray(self._height_fn(points[:, 0], points[:, 1]), float)
        point = np.full((count, 3), np.nan)
        point[hit, 0], point[hit, 2], point[hit, 1] = points[hit, 0], points[hit, 1], height[hit]
        normal = np.tile((0.0, 1.0, 0.0), (count, 1))
        if hit.any():
            normal[hit] = self.normal(points[hit])
        distance = np.where(hit, self.ray_start_height - np.where(hit, height, 0.0), np.inf)
        return RayHits(point, normal, hit, distance)

    def _raycast(self, origin: np.ndarray, direction: np.ndarray, limit: float) -> RayHits:
        count = len(origin)
        # Padded so rays touching the bounding box's faces are marched too.
        t_enter, t_leave = self._box_interval(origin, direction, limit, pad=1e-6)
        searching = np.flatnonzero(t_enter <= t_leave)
        best_t = np.full(count, np.inf)

        block = 0
        while searching.size:
            steps = self.march_step * (block * MARCH_BLOCK + np.arange(MARCH_BLOCK + 1))
            t = np.minimum(t_enter[searching, None] + steps, t_leave[searching, None])
            gap = self._gap(origin[searching], direction[searching], t)
            sign = np.sign(gap)
            crossing = (sign[:, :-1] == 0) | (
                (sign[:, :-1] * sign[:, 1:] < 0) & (t[:, 1:] > t[:, :-1])
            )
            found = crossing.any(axis=1)
            first = np.argmax(crossing, axis=1)
            rows = np.flatnonzero(found)
            if rows.size:
                rays = searching[rows]
                best_t[rays] = self._bisect(
                    origin[rays], direction[rays], t[rows, first[rows]], t[rows, first[rows] + 1]
                )
            exhausted = t[:, -1] >= t_leave[searching]
            searching = searching[~found & ~exhausted]
            block += 1

        hit = np.isfinite(best_t)
        point = np.full((count, 3), np.nan)
        point[hit] = origin[hit] + direction[hit] * best_t[hit, None]
        normal = np.tile((0.0, 1.0, 0.0), (count, 1))
        if hit.any():
            facing = self.normal(point[hit][:, [0, 2]])
            flip = np.einsum("ij,ij->i", facing, direction[hit]) > 0
            facing[flip] *= -1
            normal[hit] = facing
        return RayHits(point, normal, hit, best_t)

    def _gap(self, origin: np.ndarray, direction: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Ray y minus ground height at parameters ``t (K, N)`` of rays ``(K, 3)``."""
        x, y, z = origin.T[..., None] + direction.T[..., None] * t
        x = np.clip(x, self.bounds[0][0], self.bounds[1][0])
        z = np.clip(z, self.bounds[0][1], self.bounds[1][1])
        ground = np.asarray(self._height_fn(x.ravel(), z.ravel()), float).reshape(t.shape)
        return y - ground

    def _bisect(
        self, origin: np.ndarray, direction: np.ndarray, t_lo: np.ndarray, t_hi: np.ndarray
    ) -> np.ndarray:
        """Ray parameters ``(K,)`` where ray y = ground, bracketed in [t_lo, t_hi]."""
        gap_lo = self._gap(origin, direction, t_lo[:, None])[:, 0]
        for _ in range(BISECTIONS):
            middle = 0.5 * (t_lo + t_hi)
            gap = self._gap(origin, direction, middle[:, None])[:, 0]
            same = np.sign(gap) == np.sign(gap_lo)
            t_lo = np.where(same, middle, t_lo)
            gap_lo = np.where(same, gap, gap_lo)
            t_hi = np.where(same, t_hi, middle)
        return np.where(gap_lo == 0, t_lo, 0.5 * (t_lo + t_hi))

    # ---------------------------------------------------------------------------- drawing
    def _triangulate(self, spacing: float) -> None:
        """Fill ``vertices``, ``faces`` and ``vertex_colors`` with a regular grid for drawing."""
        (x_min, z_min), (x_max, z_max) = self.bounds
        count_x = int(np.clip(np.ceil((x_max - x_min) / spacing) + 1, 2, MAX_DRAW_SAMPLES))
        count_z = int(np.clip(np.ceil((z_max - z_min) / spacing) + 1, 2, MAX_DRAW_SAMPLES))
        x, z = np.meshgrid(np.linspace(x_min, x_max, count_x), np.linspace(z_min, z_max, count_z))
        xz = np.stack([x.ravel(), z.ravel()], axis=1)
        y = np.asarray(self._height_fn(xz[:, 0], xz[:, 1]), float)
        self.vertices = np.stack([xz[:, 0], y, xz[:, 1]], axis=1)
        self.faces = grid_faces(count_x, count_z)
        self.vertex_colors = ground_colors(self.vertices, self.normal(xz))


def grid_faces(count_x: int, count_z: int) -> np.ndarray:
    """Two up-facing triangles per quad of a row-major ``(count_z, count_x)`` vertex grid."""
    i, j = np.meshgrid(np.arange(count_x - 1), np.arange(count_z - 1))
    a = (j * count_x + i).ravel()
    b, c, d = a + 1, a + count_x, a + count_x + 1
    # (a, c, b): with x right and z down the rows this winding faces +Y.
    return np.concatenate([np.stack([a, c, b], 1), np.stack([b, c, d], 1)]).astype(np.int64)


def _bilinear(
    grid: np.ndarray,
    origin: tuple[float, float],
    spacing: tuple[float, float],
    x: np.ndarray,
    z: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear height and its exact x/z derivatives ``(K,)`` from a ``(Nz, Nx)`` grid."""
    fx = (np.asarray(x, float) - origin[0]) / spacing[0]
    fz = (np.asarray(z, float) - origin[1]) / spacing[1]
    i = np.clip(np.floor(fx).astype(np.int64), 0, grid.shape[1] - 2)
    j = np.clip(np.floor(fz).astype(np.int64), 0, grid.shape[0] - 2)
    u, v = fx - i, fz - j
    h00, h10 = grid[j, i], grid[j, i + 1]
    h01, h11 = grid[j + 1, i], grid[j + 1, i + 1]
    height = h00 * (1 - u) * (1 - v) + h10 * u * (1 - v) + h01 * (1 - u) * v + h11 * u * v
    d_u = (h10 - h00) * (1 - v) + (h11 - h01) * v
    d_v = (h01 - h00) * (1 - u) + (h11 - h10) * u
    return height, d_u / spacing[0], d_v / spacing[1]
