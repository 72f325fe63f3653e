"""Downward rays per second on a ≥ 100,000-triangle course mesh: chunked cells vs the whole mesh.

Three ways to answer the same downward rays on the same mesh, timed in one run:
  chunked  — footfall's MeshTerrain.raycast_down (each ray tests only its grid cell's triangles);
  whole    — the same vectorised NumPy test against every triangle of the mesh (the baseline);
  trimesh  — trimesh's ray query, mesh.ray.intersects_location (R-tree candidates).
All three must agree on the heights (checked). Run:  .venv/bin/python benchmarks/bench_rays.py
"""

from __future__ import annotations

import time

import numpy as np
import trimesh

from footfall.terrain import scene

RAYS = 20_000
WHOLE_RAYS = 400  # the whole-mesh baseline is slow; time a subset and report per ray
TRIMESH_RAYS = 2_000
WHOLE_BATCH = 16
GENERAL_RAYS = 2_000  # rays per vectorised whole-mesh batch (keeps memory under ~100 MB)


def best_time(function, repeats: int = 3) -> float:
    """Fastest of ``repeats`` runs, seconds."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def whole_mesh_heights(terrain, points: np.ndarray) -> np.ndarray:
    """Topmost hit of downward rays testing all triangles: the same per-triangle maths as the
    chunked path (x/z barycentric plane coefficients), vectorised over rays × triangles."""
    plane = terrain._down[:, :-1]  # (9, T) without the padding triangle
    heights = np.empty(len(points))
    for start in range(0, len(points), WHOLE_BATCH):
        x = points[start : start + WHOLE_BATCH, 0, None]
        z = points[start : start + WHOLE_BATCH, 1, None]
        u = plane[0] * x + plane[1] * z + plane[2]
        v = plane[3] * x + plane[4] * z + plane[5]
        y = plane[6] * x + plane[7] * z + plane[8]
        inside = (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9)
        heights[start : start + WHOLE_BATCH] = np.where(inside, y, -np.inf).max(axis=1)
    return heights


def main() -> None:
    terrain = scene("course", resolution=0.005, z_segments=24)
    triangles = len(terrain.faces)
    assert triangles >= 100_000, triangles
    rng = np.random.default_rng(0)
    points = np.column_stack([rng.uniform(-2, 30, RAYS), rng.uniform(-2, 2, RAYS)])
    top = terrain.ray_start_height

    chunked_s = best_time(lambda: terrain.raycast_down(points))
    chunked = terrain.raycast_down(points).height

    whole_points = points[:WHOLE_RAYS]
    whole_s = best_time(lambda: whole_mesh_heights(terrain, whole_points), repeats=1)
    whole = whole_mesh_heights(terrain, whole_points)
    np.testing.assert_allclose(whole, chunked[:WHOLE_RAYS], atol=1e-9)

    mesh = trimesh.Trimesh(terrain.vertices, terrain.faces, process=False)
    trimesh_points = points[:TRIMESH_RAYS]
    origins = np.column_stack(
        [trimesh_points[:, 0], np.full(TRIMESH_RAYS, top), trimesh_points[:, 1]]
    )
    directions = np.tile([0.0, -1.0, 0.0], (TRIMESH_RAYS, 1))
    mesh.ray.intersects_location(origins[:10], directions[:10])  # build the R-tree first

    def trimesh_query():
        return mesh.ray.intersects_location(origins, directions, multiple_hits=False)

    trimesh_s = best_time(trimesh_query, repeats=1)
    locations, ray_index, _ = trimesh_query()
    trimesh_height = np.full(TRIMESH_RAYS, np.nan)
    trimesh_height[ray_index] = locations[:, 1]
    agree = np.isclose(trimesh_height, chunked[:TRIMESH_RAYS], atol=1e-6)

    chunked_rate = RAYS / chunked_s
    whole_rate = WHOLE_RAYS / whole_s
    trimesh_rate = TRIMESH_RAYS / trimesh_s
    print(
        f"mesh: course, {triangles} triangles, {terrain.cell_count[0]}×{terrain.cell_count[1]}"
        f" cells, ≤ {terrain.cell_capacity} triangles tested per ray"
    )
    print(f"chunked (footfall)  {chunked_rate:14,.0f} rays/s   ({RAYS} rays)")
    print(f"whole mesh (numpy)  {whole_rate:14,.0f} rays/s   ({WHOLE_RAYS} rays)")
    print(
        f"trimesh ray query   {trimesh_rate:14,.0f} rays/s   ({TRIMESH_RAYS} rays,"
        f" {agree.mean():.1%} same height)"
    )
    print(f"chunked / whole mesh = {chunked_rate / whole_rate:,.0f}×")
    print(f"chunked / trimesh    = {chunked_rate / trimesh_rate:,.0f}×")
    general_rays(terrain, mesh, rng)


def general_rays(terrain, mesh: trimesh.Trimesh, rng: np.random.Generator) -> None:
    """Slanted rays (cell walk) vs trimesh on the same mesh; heights must agree."""
    count = GENERAL_RAYS
    origins = np.column_stack(
        [rng.uniform(0, 27, count), rng.uniform(0.8, 1.5, count), rng.uniform(-1, 1, count)]
    )
    directions = np.column_stack(
        [rng.uniform(-1, 1, count), -np.ones(count), rng.uniform(-0.3, 0.3, count)]
    )
    walk_s = best_time(lambda: terrain.raycast(origins, directions))
    hits = terrain.raycast(origins, directions)
    trimesh_s = best_time(
        lambda: mesh.ray.intersects_location(origins, directions, multiple_hits=False), repeats=1
    )
    locations, ray_index, _ = mesh.ray.intersects_location(origins, directions, multiple_hits=False)
    other = np.full((count, 3), np.nan)
    other[ray_index] = locations
    agree = np.isclose(other, hits.point, atol=1e-6).all(axis=1).mean()
    print(f"slanted rays, cell walk (footfall) {count / walk_s:12,.0f} rays/s   ({count} rays)")
    print(
        f"slanted rays, trimesh              {count / trimesh_s:12,.0f} rays/s"
        f"   ({agree:.1%} same point)"
    )
    print(f"cell walk / trimesh  = {trimesh_s / walk_s:,.1f}×")


if __name__ == "__main__":
    main()
