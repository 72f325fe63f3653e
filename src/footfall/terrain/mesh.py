"""Triangle-mesh terrain whose rays test only the triangles of the grid cells they cross.

The ground plane (x, z) is cut into a uniform grid of cells sized from the triangle density;
each cell lists the triangles whose x/z bounding box touches it (borders included). A downward
ray reads its one cell; a general ray walks the cells it crosses (2D DDA) and stops at the first
that holds its nearest hit (kernels in :mod:`footfall.terrain.grid_rays`). Written by hand
because trimesh's ray queries loop over rays in Python (``benchmarks/bench_rays.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain import grid_rays
from footfall.terrain.base import Terrain
from footfall.terrain.grid_rays import EDGE_EPS
from footfall.terrain.hits import RayHits
from footfall.terrain.palette import ground_colors

#: Triangles whose x/z footprint is smaller than this (m²·2) are vertical: downward rays skip them.
VERTICAL_EPS = 1e-12
#: Automatic cells are this many typical triangle footprints wide, never larger than 1 m (seed 000)
#: and never so small that the grid passes MAX_CELLS.
CELL_PER_TRIANGLE = 2.0
MAX_CELL_SIZE = 1.0
MAX_CELLS = 1 << 18
#: Farthest a vertex may lie from the origin on any axis, metres (keeps every product finite).
MAX_COORDINATE = 1e6


class MeshTerrain(Terrain):
    """Ground given as a triangle mesh (stairs with vertical risers, loaded files).

    vertices: ``(V, 3)`` metres, Y up. faces: ``(T, 3)`` vertex indices (any winding).
    cell_size: grid cell edge in metres, one value or (x, z) (None: twice the median triangle
    footprint, at most 1 m). vertex_colors: ``(V, 3)`` 0..1 (None: from height and slope).
    """

    def __init__(
        self,
        vertices: np.ndarray,
        faces: np.ndarray,
        *,
        name: str = "mesh",
        params: dict[str, Any] | None = None,
        vertex_colors: np.ndarray | None = None,
        cell_size: float | tuple[float, float] | None = None,
    ) -> None:
        vertices = np.asarray(vertices, dtype=np.float64)
        faces = np.asarray(faces)
        _check_mesh(vertices, faces, name)
        self.name = name
        self.params = dict(params or {})
        self.vertices = vertices
        self.faces = faces.astype(np.int64)
        corners = vertices[self.faces]  # (T, 3, 3)
        if vertex_colors is None:
            vertex_colors = ground_colors(vertices, _vertex_normals(vertices, self.faces, corners))
        self.vertex_colors = np.asarray(vertex_colors, dtype=np.float64)
        if self.vertex_colors.shape != vertices.shape:
            raise TerrainError(
                f"{name}: vertex_colors must have shape {vertices.shape}; "
                f"got {self.vertex_colors.shape}"
            )
        lo, hi = corners.min(axis=(0, 1)), corners.max(axis=(0, 1))
        self.bounds = ((float(lo[0]), float(lo[2])), (float(hi[0]), float(hi[2])))
        self.height_range = (float(lo[1]), float(hi[1]))
        usable = self._build_triangles(corners)
        self._build_grid(corners, cell_size, np.flatnonzero(usable))

    # ----------------------------------------------------------------------------- building
    def _build_triangles(self, corners: np.ndarray) -> np.ndarray:
        """Per-triangle edges, unit normals, downward-ray planes; returns ``(T,)``: has an area."""
        count = len(corners)
        origin = corners[:, 0]
        edge1 = corners[:, 1] - origin
        edge2 = corners[:, 2] - origin
        normal = np.cross(edge1, edge2)
        length = np.linalg.norm(normal, axis=1)
        usable = length > 1e-15
        normal[usable] /= length[usable, None]
        normal[~usable] = (0.0, 1.0, 0.0)
        normal[normal[:, 1] < 0] *= -1  # face up; general rays flip them against the ray
        self._normal = np.ascontiguousarray(normal)  # (T, 3); reordered by _build_grid
        self._triangles = np.ascontiguousarray(np.hstack([origin, edge1, edge2]))  # (T, 9)
        # Downward rays: solve p − origin = u·edge1 + v·edge2 in x/z once per triangle, so a ray
        # costs u, v, y = three affine functions of (x, z). Vertical triangles get u ≡ −1 (miss).
        det = edge1[:, 0] * edge2[:, 2] - edge1[:, 2] * edge2[:, 0]
        flat = np.abs(det) > VERTICAL_EPS
        inv = np.zeros(count)
        inv[flat] = 1.0 / det[flat]
        u_x, u_z = edge2[:, 2] * inv, -edge2[:, 0] * inv
        v_x, v_z = -edge1[:, 2] * inv, edge1[:, 0] * inv
        u_0 = -(u_x * origin[:, 0] + u_z * origin[:, 2])
        v_0 = -(v_x * origin[:, 0] + v_z * origin[:, 2])
        u_0[~flat] = -1.0
        y_x = u_x * edge1[:, 1] + v_x * edge2[:, 1]
        y_z = u_z * edge1[:, 1] + v_z * edge2[:, 1]
        y_0 = origin[:, 1] + u_0 * edge1[:, 1] + v_0 * edge2[:, 1]
        #: (T, 9) u_x, u_z, u_0, v_x, v_z, v_0, y_x, y_z, y_0: one triangle per row.
        self._plane = np.stack([u_x, u_z, u_0, v_x, v_z, v_0, y_x, y_z, y_0], axis=1)
        return usable

    def _build_grid(
        self, corners: np.ndarray, cell_size: float | tuple[float, float] | None, keep: np.ndarray
    ) -> None:
        """List each non-degenerate triangle (numbers ``keep``) in all cells its x/z box touches."""
        (x_min, z_min), (x_max, z_max) = self.bounds
        span_x, span_z = max(x_max - x_min, 1e-9), max(z_max - z_min, 1e-9)
        size: np.ndarray
        if cell_size is None:
            size = np.array(_automatic_cell_size(corners, (span_x, span_z)))
        else:
            size = np.broadcast_to(np.asarray(cell_size, dtype=np.float64), (2,))
            if not (np.isfinite(size).all() and (size > 0).all()):
                raise TerrainError(f"{self.name}: cell_size must be positive; got {cell_size}")
        self.cell_count = (
            max(1, int(np.ceil(span_x / size[0] - 1e-9))),
            max(1, int(np.ceil(span_z / size[1] - 1e-9))),
        )
        if self.cell_count[0] * self.cell_count[1] > MAX_CELLS:
            raise TerrainError(
                f"{self.name}: cell_size {cell_size} makes more than {MAX_CELLS} cells"
            )
        self.cell_size = (span_x / self.cell_count[0], span_z / self.cell_count[1])
        self._grid_origin = np.array([x_min, z_min])

        footprint = corners[keep][:, :, [0, 2]]  # (N, 3, 2)
        first = self._cell_of(footprint.min(axis=1), -EDGE_EPS)
        last = self._cell_of(footprint.max(axis=1), EDGE_EPS)
        extent = last - first + 1  # (N, 2) cells along x and z per triangle
        per_triangle = extent[:, 0] * extent[:, 1]
        triangle = np.repeat(keep, per_triangle)
        local = np.arange(per_triangle.sum()) - np.repeat(
            np.cumsum(per_triangle) - per_triangle, per_triangle
        )
        width = np.repeat(extent[:, 0], per_triangle)
        cell_x = np.repeat(first[:, 0], per_triangle) + local % width
        cell_z = np.repeat(first[:, 1], per_triangle) + local // width
        cell = cell_z * self.cell_count[0] + cell_x
        order = np.argsort(cell, kind="stable")
        cell, triangle = cell[order], triangle[order]
        counts = np.bincount(cell, minlength=self.cell_count[0] * self.cell_count[1])
        # Storage rows sorted by each triangle's first cell, so the triangles a ray tests sit
        # together in memory (large meshes do not fit in cache). The lists still run in
        # increasing triangle number (the stable sort): the kernels' tie rule depends on that.
        stored = keep[np.argsort(first[:, 1] * self.cell_count[0] + first[:, 0], kind="stable")]
        row = np.zeros(len(corners), dtype=np.int64)
        row[stored] = np.arange(len(stored))
        self._plane = np.ascontiguousarray(self._plane[stored])
        self._normal = np.ascontiguousarray(self._normal[stored])
        self._triangles = np.ascontiguousarray(self._triangles[stored])
        # Compressed rows: cell c tests storage rows _cell_list[_cell_start[c]:_cell_start[c+1]].
        self._cell_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._cell_list = row[triangle]
        self.cell_capacity = max(1, int(counts.max(initial=0)))  # most a downward ray tests

    def _cell_of(self, xz: np.ndarray, slack: float = 0.0) -> np.ndarray:
        """Integer cell (ix, iz) ``(..., 2)`` of points ``(..., 2)``, clipped to the grid."""
        scaled = (xz - self._grid_origin) / np.asarray(self.cell_size) + slack
        # Clip before the cast: far points (rays that miss the box) must not overflow int64.
        index = np.clip(np.floor(scaled), 0, np.asarray(self.cell_count) - 1)
        return index.astype(np.int64)

    # ------------------------------------------------------------------------------ queries
    def _raycast_down(self, points: np.ndarray) -> RayHits:
        count = len(points)
        out = RayHits(np.empty((count, 3)), np.empty((count, 3)), np.empty(count, dtype=bool),
                      np.empty(count))
        (x_min, z_min), (x_max, z_max) = self.bounds
        grid_rays.down_hits(
            np.ascontiguousarray(points), np.array([x_min, z_min, x_max, z_max]),
            self._grid_origin, np.asarray(self.cell_size), np.asarray(self.cell_count),
            self._cell_start, self._cell_list, self._plane, self._normal,
            self.ray_start_height, out.point, out.normal, out.hit, out.distance,
        )
        return out

    def _raycast(self, origin: np.ndarray, direction: np.ndarray, limit: float) -> RayHits:
        count = len(origin)
        t_enter, t_leave = self._box_interval(origin, direction, limit, pad=1e-9)
        active = t_enter <= t_leave
        start = origin + direction * np.where(active, t_enter, 0.0)[:, None]
        cell = self._cell_of(start[:, [0, 2]])
        size = np.asarray(self.cell_size)
        planar = direction[:, [0, 2]]
        step = np.sign(planar).astype(np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            boundary = self._grid_origin + (cell + (step > 0)) * size
            t_next = np.where(step != 0, (boundary - origin[:, [0, 2]]) / planar, np.inf)
            t_delta = np.where(step != 0, size / np.abs(planar), np.inf)
        out = RayHits(np.empty((count, 3)), np.empty((count, 3)), np.empty(count, dtype=bool),
                      np.empty(count))
        grid_rays.walk_hits(
            np.ascontiguousarray(origin), np.ascontiguousarray(direction), active, t_leave,
            limit, cell, step, t_next, t_delta, np.asarray(self.cell_count), self._cell_start,
            self._cell_list, self._triangles, self._normal,
            out.point, out.normal, out.hit, out.distance,
        )
        return out


def _vertex_normals(vertices: np.ndarray, faces: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Area-weighted, up-facing unit normals ``(V, 3)`` (up where a vertex has no area)."""
    face_normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    face_normal[face_normal[:, 1] < 0] *= -1
    normal = np.zeros_like(vertices)
    np.add.at(normal, faces.ravel(), np.repeat(face_normal, 3, axis=0))
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    return np.where(length > 1e-15, normal / np.maximum(length, 1e-15), (0.0, 1.0, 0.0))


def _automatic_cell_size(corners: np.ndarray, span: tuple[float, float]) -> tuple[float, float]:
    """Cell edges (x, z) metres from the median x/z footprint of the triangles ``(T, 3, 3)``."""
    footprint = np.ptp(corners[:, :, [0, 2]], axis=1)  # (T, 2)
    size = []
    for axis in range(2):
        extent = footprint[:, axis][footprint[:, axis] > 0]
        typical = float(np.median(extent)) if extent.size else MAX_CELL_SIZE
        size.append(min(CELL_PER_TRIANGLE * typical, MAX_CELL_SIZE))
    cells = (span[0] / size[0]) * (span[1] / size[1])
    grow = max(1.0, float(np.sqrt(cells / MAX_CELLS)))
    return size[0] * grow, size[1] * grow


def _check_mesh(vertices: np.ndarray, faces: np.ndarray, name: str) -> None:
    if vertices.ndim != 2 or vertices.shape[1] != 3:
        raise TerrainError(f"{name}: vertices must have shape (V, 3); got {vertices.shape}")
    if faces.ndim != 2 or faces.shape[1] != 3 or len(faces) == 0:
        raise TerrainError(f"{name}: faces must have shape (T, 3) with T > 0; got {faces.shape}")
    if not np.issubdtype(faces.dtype, np.integer):
        raise TerrainError(f"{name}: faces must be integer vertex indices; got {faces.dtype}")
    if faces.min() < 0 or faces.max() >= len(vertices):
        raise TerrainError(
            f"{name}: face indices must lie in 0..{len(vertices) - 1}; "
            f"got {faces.min()}..{faces.max()}"
        )
    bad = ~np.isfinite(vertices).all(axis=1)
    if bad.any():
        raise TerrainError(f"{name}: vertex {int(np.flatnonzero(bad)[0])} is not finite")
    far = ~(np.abs(vertices) <= MAX_COORDINATE).all(axis=1)
    if far.any():
        raise TerrainError(f"{name}: vertex {int(np.flatnonzero(far)[0])} lies beyond "
                           f"±{MAX_COORDINATE:g} m")
