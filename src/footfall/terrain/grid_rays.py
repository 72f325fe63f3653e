"""Compiled ray kernels over a mesh's uniform x/z grid of triangle lists (numba, one per query).

The grid is stored as compressed rows: the triangles of cell ``c`` (``c = iz · nx + ix``) are
``cell_list[cell_start[c]:cell_start[c + 1]]``, in increasing triangle order. One loop iteration
a ray, so no (rays × triangles-per-cell) temporaries. One thread: numba's ``parallel=True``
made every call wait for descheduled workers on a loaded machine, for no gain.

Tie rules: a later candidate replaces the best only when strictly better, so on an edge or
vertex shared by several triangles the first one in the cell's list wins, and for a general ray
an earlier cell wins over a later one.
"""

from __future__ import annotations

import numpy as np

from footfall.jit import helper, kernel
from footfall.quat import Vec3, cross_s, dot_s

#: Barycentric slack so rays exactly on a triangle edge or vertex count as hits.
EDGE_EPS = 1e-9
#: General rays more parallel to a triangle than this (|det|) miss it.
PARALLEL_EPS = 1e-14
#: A general ray stops walking once its best hit lies before the next cell border + this, metres.
CELL_EXIT_SLACK = 1e-12
#: Downward rays are cast in cell order from SORT_RAYS to SORT_RAYS_MAX rays a batch, when the
#: grid has at most SORT_CELLS_PER_RAY cells a ray (the sort walks every cell once). Above the
#: cap the scattered reads and writes of a sorted order cost more than the sort saves.
SORT_RAYS = 1024
SORT_RAYS_MAX = 65536
SORT_CELLS_PER_RAY = 16


@helper
def grid_cell(
    value: float, grid_origin: float, cell_size: float, cell_count: int
) -> int:
    """Cell index along one axis of a coordinate (metres), clipped to ``0 .. cell_count − 1``."""
    scaled = np.floor((value - grid_origin) / cell_size)
    if scaled < 0.0:
        return 0
    if scaled > cell_count - 1:
        return cell_count - 1
    return int(scaled)


@kernel(nogil=True)
def down_hits(
    points: np.ndarray,
    bounds: np.ndarray,
    grid_origin: np.ndarray,
    cell_size: np.ndarray,
    cell_count: np.ndarray,
    cell_start: np.ndarray,
    cell_list: np.ndarray,
    plane: np.ndarray,
    normals: np.ndarray,
    start_height: float,
    point_out: np.ndarray,
    normal_out: np.ndarray,
    hit_out: np.ndarray,
    distance_out: np.ndarray,
) -> None:
    """Topmost hit of downward rays; fills the ``*_out`` arrays (the fields of ``RayHits``).

    points: ``(K, 2)`` world (x, z), metres. bounds: ``(4,)`` x_min, z_min, x_max, z_max
    (points outside miss). grid_origin, cell_size: ``(2,)`` metres; cell_count: ``(2,)``.
    plane: ``(T, 9)`` per triangle u, v and y as affine functions of (x, z)
    (``u = p0·x + p1·z + p2``, ``v = p3·x + p4·z + p5``, ``y = p6·x + p7·z + p8``; vertical
    triangles have u ≡ −1). normals: ``(T, 3)`` unit, facing up. start_height: y the rays start
    from, metres. Outputs: point ``(K, 3)``, normal ``(K, 3)``, hit ``(K,)``, distance ``(K,)``.

    Large batches are cast in cell order (a counting sort, see :data:`SORT_RAYS`): rays in a row
    then test the same triangles, which stay in cache. Each ray's answer is its own, in any order.
    """
    x_min, z_min, x_max, z_max = bounds[0], bounds[1], bounds[2], bounds[3]
    count_x, count_z = cell_count[0], cell_count[1]
    count = points.shape[0]
    cells = count_x * count_z
    ray_cell = np.empty(count, dtype=np.int64)  # the ray's cell; ``cells``: off the terrain
    for ray in range(count):
        x, z = points[ray, 0], points[ray, 1]
        cell = cells
        if x >= x_min and x <= x_max and z >= z_min and z <= z_max:
            cell = (grid_cell(z, grid_origin[1], cell_size[1], count_z) * count_x
                    + grid_cell(x, grid_origin[0], cell_size[0], count_x))
        ray_cell[ray] = cell
    order = np.arange(count)
    if SORT_RAYS <= count <= SORT_RAYS_MAX and cells <= SORT_CELLS_PER_RAY * count:
        first = np.zeros(cells + 2, dtype=np.int64)  # counting sort: slots of each cell
        for ray in range(count):
            first[ray_cell[ray] + 2] += 1
        for cell in range(2, cells + 2):
            first[cell] += first[cell - 1]
        for ray in range(count):
            slot = ray_cell[ray] + 1
            order[first[slot]] = ray
            first[slot] += 1
    for k in range(count):
        ray = order[k]
        x, z = points[ray, 0], points[ray, 1]
        cell = ray_cell[ray]
        best_y = -np.inf
        best = -1
        if cell < cells:
            for slot in range(cell_start[cell], cell_start[cell + 1]):
                triangle = cell_list[slot]
                u = plane[triangle, 0] * x + plane[triangle, 1] * z + plane[triangle, 2]
                v = plane[triangle, 3] * x + plane[triangle, 4] * z + plane[triangle, 5]
                if u >= -EDGE_EPS and v >= -EDGE_EPS and u + v <= 1.0 + EDGE_EPS:
                    y = plane[triangle, 6] * x + plane[triangle, 7] * z + plane[triangle, 8]
                    if y > best_y:
                        best_y = y
                        best = triangle
        if best >= 0:
            hit_out[ray] = True
            point_out[ray, 0], point_out[ray, 1], point_out[ray, 2] = x, best_y, z
            for axis in range(3):
                normal_out[ray, axis] = normals[best, axis]
            distance_out[ray] = start_height - best_y
        else:
            hit_out[ray] = False
            point_out[ray, 0] = point_out[ray, 1] = point_out[ray, 2] = np.nan
            normal_out[ray, 0], normal_out[ray, 1], normal_out[ray, 2] = 0.0, 1.0, 0.0
            distance_out[ray] = np.inf


@helper
def triangle_distance(
    origin: Vec3, direction: Vec3, corner: Vec3, edge1: Vec3, edge2: Vec3
) -> float:
    """Ray parameter (Möller–Trumbore) of one ray against one triangle; inf where missed
    (behind the origin, parallel). Edges and vertices count as hits (``EDGE_EPS``)."""
    p = cross_s(direction, edge2)
    det = dot_s(edge1, p)
    if not abs(det) > PARALLEL_EPS:
        return np.inf
    inv = 1.0 / det
    s = (origin[0] - corner[0], origin[1] - corner[1], origin[2] - corner[2])
    u = dot_s(s, p) * inv
    q = cross_s(s, edge1)
    v = dot_s(direction, q) * inv
    t = dot_s(edge2, q) * inv
    if u >= -EDGE_EPS and v >= -EDGE_EPS and u + v <= 1.0 + EDGE_EPS and t >= 0.0:
        return t
    return np.inf


@kernel(nogil=True)
def walk_hits(
    origin: np.ndarray,
    direction: np.ndarray,
    active: np.ndarray,
    t_leave: np.ndarray,
    limit: float,
    start_cell: np.ndarray,
    step: np.ndarray,
    t_next_start: np.ndarray,
    t_delta: np.ndarray,
    cell_count: np.ndarray,
    cell_start: np.ndarray,
    cell_list: np.ndarray,
    triangles: np.ndarray,
    normals: np.ndarray,
    point_out: np.ndarray,
    normal_out: np.ndarray,
    hit_out: np.ndarray,
    distance_out: np.ndarray,
) -> None:
    """Nearest hit of general rays, walking the grid cells each crosses in order (2D DDA).

    origin, direction: ``(K, 3)`` metres, unit directions. active: ``(K,)`` the ray meets the
    terrain's box; t_leave: ``(K,)`` where it leaves the box; limit: longest ray, metres.
    start_cell: ``(K, 2)`` (ix, iz) where the ray enters; step: ``(K, 2)`` −1/0/+1 per axis;
    t_next_start: ``(K, 2)`` ray parameter of the next x / z cell border (inf: never);
    t_delta: ``(K, 2)`` parameter per cell along x / z. triangles: ``(T, 9)`` corner, edge1,
    edge2; normals: ``(T, 3)`` unit, facing up (flipped here to face against the ray).
    Outputs as :func:`down_hits` (distance = ray parameter, inf where missed).
    """
    count_x, count_z = cell_count[0], cell_count[1]
    walk_limit = count_x + count_z + 2
    for ray in range(origin.shape[0]):
        o = (origin[ray, 0], origin[ray, 1], origin[ray, 2])
        d = (direction[ray, 0], direction[ray, 1], direction[ray, 2])
        best_t = np.inf
        best = -1
        if active[ray]:
            cell_x, cell_z = start_cell[ray, 0], start_cell[ray, 1]
            next_x, next_z = t_next_start[ray, 0], t_next_start[ray, 1]
            for _ in range(walk_limit):
                cell = cell_z * count_x + cell_x
                for slot in range(cell_start[cell], cell_start[cell + 1]):
                    tri = cell_list[slot]
                    t = triangle_distance(
                        o,
                        d,
                        (triangles[tri, 0], triangles[tri, 1], triangles[tri, 2]),
                        (triangles[tri, 3], triangles[tri, 4], triangles[tri, 5]),
                        (triangles[tri, 6], triangles[tri, 7], triangles[tri, 8]),
                    )
                    if t <= limit and t < best_t:
                        best_t = t
                        best = tri
                t_exit = min(next_x, next_z)
                if best_t <= t_exit + CELL_EXIT_SLACK or t_exit > t_leave[ray]:
                    break
                if next_x <= next_z:
                    cell_x += step[ray, 0]
                    next_x += t_delta[ray, 0]
                else:
                    cell_z += step[ray, 1]
                    next_z += t_delta[ray, 1]
                if cell_x < 0 or cell_z < 0 or cell_x >= count_x or cell_z >= count_z:
                    break
        if best >= 0:
            hit_out[ray] = True
            facing = (normals[best, 0], normals[best, 1], normals[best, 2])
            sign = -1.0 if dot_s(facing, d) > 0.0 else 1.0
            for axis in range(3):
                point_out[ray, axis] = o[axis] + d[axis] * best_t
                normal_out[ray, axis] = facing[axis] * sign
            distance_out[ray] = best_t
        else:
            hit_out[ray] = False
            point_out[ray, 0] = point_out[ray, 1] = point_out[ray, 2] = np.nan
            normal_out[ray, 0], normal_out[ray, 1], normal_out[ray, 2] = 0.0, 1.0, 0.0
            distance_out[ray] = np.inf
