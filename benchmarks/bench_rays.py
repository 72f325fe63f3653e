"""Rays per second on the demo course mesh: the compiled cell-grid kernels against the NumPy
mesh of an earlier commit and trimesh, all timed in this run.

  footfall  — MeshTerrain.raycast_down / raycast (numba kernels, footfall.terrain.grid_rays);
  base      — MeshTerrain of ``--base`` (default: the commit before the kernels), read with
              ``git show`` into a temporary directory and imported from there;
  trimesh   — trimesh's ray query, mesh.ray.intersects_location (timed on a subset: it is slow).
Every side must give the same hits (checked). Also the kernels' first-run compile time in a fresh
process with an empty numba cache, and the load time from that cache in a second one.

Run:  PYTHONPATH=src .venv/bin/python benchmarks/bench_rays.py [--base COMMIT]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import trimesh

from footfall.terrain import scene

BASE_COMMIT = "83863030e9d9147cff5926eb5b96aff55f4b5781"  # last commit with the NumPy mesh rays
BATCHES = (1_000, 60_000, 1_000_000)
TRIMESH_RAYS = 2_000
SLANTED_RAYS = 60_000
ROOT = Path(__file__).resolve().parents[1]

COMPILE_SNIPPET = """
import time
import numpy as np
start = time.perf_counter()
from footfall.terrain import scene
terrain = scene("course")
built = time.perf_counter()
terrain.raycast_down(np.zeros((4, 2)))
down = time.perf_counter()
terrain.raycast(np.zeros((4, 3)), np.ones((4, 3)))
walk = time.perf_counter()
print(f"{built - start:.3f} {down - built:.3f} {walk - down:.3f}")
"""


def interleaved_best(fast, slow, batches: list, slow_repeats: int) -> tuple[float, float]:
    """Fastest seconds of ``fast(batch)`` and ``slow(batch)``, timed alternately over fresh
    batches (load drift hits both sides alike; a repeated small batch would teach the branch
    predictor its answers)."""
    fast_s = slow_s = np.inf
    for index, batch in enumerate(batches):
        start = time.perf_counter()
        fast(batch)
        fast_s = min(fast_s, time.perf_counter() - start)
        if index < slow_repeats:
            start = time.perf_counter()
            slow(batch)
            slow_s = min(slow_s, time.perf_counter() - start)
    return fast_s, slow_s


def best_time(function, repeats: int) -> float:
    """Fastest of ``repeats`` runs, seconds."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def repeats_for(count: int) -> int:
    """More repeats for small batches so the best time is stable."""
    return 50 if count <= 1_000 else 5 if count <= 100_000 else 2


def load_base_mesh(commit: str, folder: Path) -> ModuleType:
    """footfall/terrain/mesh.py as of ``commit``, imported from ``folder``."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:src/footfall/terrain/mesh.py"],
        check=True, capture_output=True, text=True,
    ).stdout
    path = folder / "base_mesh.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("base_mesh", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_times() -> list[float]:
    """Seconds to build the course, compile the downward kernel and compile the walk kernel, in a
    fresh process with an empty numba cache; then the same with that cache filled."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=path)
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, check=True,
                                  capture_output=True, text=True)
            out.extend(float(value) for value in done.stdout.split())
    return out


def same_hits(a, b, tolerance: float = 0.0) -> bool:
    """Both RayHits give the same hits and normals, points and distances within ``tolerance``
    metres (exactly when 0; NaN/inf where missed on both)."""
    return (np.array_equal(a.hit, b.hit) and np.array_equal(a.normal, b.normal) and all(
        np.allclose(getattr(a, field), getattr(b, field), rtol=0.0, atol=tolerance,
                    equal_nan=True)
        for field in ("point", "distance")
    ))


def trimesh_points(mesh: trimesh.Trimesh, origins: np.ndarray, directions: np.ndarray
                   ) -> np.ndarray:
    """Nearest hit point ``(K, 3)`` of trimesh's ray query (NaN where missed)."""
    locations, ray_index, _ = mesh.ray.intersects_location(origins, directions,
                                                           multiple_hits=False)
    points = np.full((len(origins), 3), np.nan)
    points[ray_index] = locations
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE_COMMIT, help="commit whose NumPy mesh to compare")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores shared)")

    built, down_compile, walk_compile, _, down_cached, walk_cached = compile_times()
    print(f"first run, empty cache: downward kernel {down_compile:.2f} s, walk kernel "
          f"{walk_compile:.2f} s, total {down_compile + walk_compile:.2f} s "
          f"(cached: {down_cached:.2f} s + {walk_cached:.2f} s; course built in {built:.2f} s)")

    terrain = scene("course")
    with tempfile.TemporaryDirectory() as folder:
        base_module = load_base_mesh(args.base, Path(folder))
        base = base_module.MeshTerrain(terrain.vertices, terrain.faces, name="course")
    mesh = trimesh.Trimesh(terrain.vertices, terrain.faces, process=False)
    (x_min, z_min), (x_max, z_max) = terrain.bounds
    print(f"mesh: course, {len(terrain.faces)} triangles, {terrain.cell_count[0]}×"
          f"{terrain.cell_count[1]} cells, ≤ {terrain.cell_capacity} triangles per cell; "
          f"base {args.base[:10]}")
    rng = np.random.default_rng(0)
    terrain.raycast_down(np.zeros((4, 2)))  # compile (or load) before timing
    terrain.raycast(np.zeros((4, 3)), np.ones((4, 3)))

    print(f"{'downward rays':>14} {'footfall':>10} {'base':>10} {'trimesh':>10}"
          f"   M rays/s; ratios footfall / base, / trimesh")
    for count in BATCHES:
        batches = [np.column_stack([rng.uniform(x_min, x_max, count),
                                    rng.uniform(z_min, z_max, count)])
                   for _ in range(repeats_for(count))]
        fast_s, base_s = interleaved_best(terrain.raycast_down, base.raycast_down, batches, 5)
        points = batches[0]
        assert same_hits(terrain.raycast_down(points), base.raycast_down(points)), "base differs"

        subset = points[:TRIMESH_RAYS]
        top = terrain.ray_start_height
        origins = np.column_stack([subset[:, 0], np.full(len(subset), top), subset[:, 1]])
        directions = np.tile([0.0, -1.0, 0.0], (len(subset), 1))
        trimesh_points(mesh, origins[:10], directions[:10])  # build the R-tree first
        trimesh_s = best_time(lambda o=origins, d=directions: trimesh_points(mesh, o, d), 1)
        agree = np.isclose(trimesh_points(mesh, origins, directions)[:, 1],
                           terrain.raycast_down(subset).height, atol=1e-6, equal_nan=True).mean()
        assert agree > 0.99, f"trimesh agrees on only {agree:.1%} of the heights"

        rate = count / fast_s / 1e6
        base_rate = count / base_s / 1e6
        trimesh_rate = len(subset) / trimesh_s / 1e6
        print(f"{count:>14,} {rate:>10.2f} {base_rate:>10.3f} "
              f"{trimesh_rate:>10.4f}   {rate / base_rate:6.1f}×  {rate / trimesh_rate:6.0f}×"
              f"   (trimesh: {len(subset)} rays, {agree:.1%} same height)")

    count = SLANTED_RAYS
    origins = np.column_stack([rng.uniform(x_min, x_max, count), rng.uniform(0.8, 1.5, count),
                               rng.uniform(z_min, z_max, count)])
    directions = np.column_stack([rng.uniform(-1, 1, count), -np.ones(count),
                                  rng.uniform(-0.3, 0.3, count)])
    fast_s, base_s = interleaved_best(lambda o: terrain.raycast(o, directions),
                                      lambda o: base.raycast(o, directions), [origins] * 3, 2)
    hits = terrain.raycast(origins, directions)
    assert same_hits(hits, base.raycast(origins, directions), 1e-12), "base differs (slanted)"
    subset = slice(0, TRIMESH_RAYS)
    trimesh_s = best_time(lambda: trimesh_points(mesh, origins[subset], directions[subset]), 1)
    agree = np.isclose(trimesh_points(mesh, origins[subset], directions[subset]),
                       hits.point[subset], atol=1e-6, equal_nan=True).all(axis=1).mean()
    rate, base_rate = count / fast_s / 1e6, count / base_s / 1e6
    trimesh_rate = TRIMESH_RAYS / trimesh_s / 1e6
    print(f"{'slanted ' + format(count, ','):>14} {rate:>10.2f} {base_rate:>10.3f} "
          f"{trimesh_rate:>10.4f}   {rate / base_rate:6.1f}×  {rate / trimesh_rate:6.0f}×"
          f"   (trimesh: {TRIMESH_RAYS} rays, {agree:.1%} same point)")
    dense_course(base_module, rng)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def dense_course(base_module: ModuleType, rng: np.random.Generator) -> None:
    """60,000 downward rays on the fine course (≥ 100,000 triangles), footfall vs base."""
    terrain = scene("course", resolution=0.005, z_segments=24)
    base = base_module.MeshTerrain(terrain.vertices, terrain.faces, name="course")
    (x_min, z_min), (x_max, z_max) = terrain.bounds
    batches = [np.column_stack([rng.uniform(x_min, x_max, 60_000),
                                rng.uniform(z_min, z_max, 60_000)]) for _ in range(3)]
    fast_s, base_s = interleaved_best(terrain.raycast_down, base.raycast_down, batches, 2)
    assert same_hits(terrain.raycast_down(batches[0]), base.raycast_down(batches[0]))
    rate, base_rate = 60_000 / fast_s / 1e6, 60_000 / base_s / 1e6
    print(f"fine course ({len(terrain.faces):,} triangles, ≤ {terrain.cell_capacity} per cell), "
          f"60,000 downward rays: footfall {rate:.2f}, base {base_rate:.3f} M rays/s, "
          f"{rate / base_rate:.1f}×")


if __name__ == "__main__":
    main()
