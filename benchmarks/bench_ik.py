"""Two-bone IK solves per second: the compiled kernel against the commit before it, same run.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_ik.py [--base REV]``  (about a minute).

The base version (default :data:`BASE`, the last commit with the NumPy solver) is extracted from
git into a temporary directory (``git archive``) and imported beside the working tree's
``footfall`` (each keeps its own modules), so both are timed on the same machine in the same
minute. Printed:

* first-run compile time of the kernels in a fresh process with an empty numba cache
  (``NUMBA_CACHE_DIR`` a new temporary directory), and the start-up with that cache filled;
* agreement: the largest difference between the two versions' results on random bunny legs
  mixed with degenerate limbs (target on the root, straight limb, pole on the axis, zero bone,
  near half turns), with and without per-limb weights;
* batches of 1, 4, 1,000 and 1,000,000 legs: time per call and M solves/s, both versions,
  best wall time of several runs (and best CPU time, less disturbed on a shared machine);
* the per-frame calls of the live retargeter: four limbs with per-limb position weights, and
  ``knee_from_source`` on two legs.

Ratios use the best wall times measured in this run; the load average is printed at the end.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
#: Last commit with the NumPy two-bone solver (before the compiled kernel).
BASE = "8386303"
SIZES = (1, 4, 1_000, 1_000_000)
TARGET_PER_SECOND = 10e6

COMPILE_SNIPPET = """
import time
import numpy as np
start, start_cpu = time.perf_counter(), time.process_time()
from footfall.ik import knee_from_source, solve_two_bone
imported, imported_cpu = time.perf_counter(), time.process_time()
legs = [np.zeros(3), [0, -0.19, 0.05], [0, -0.37, 0.0], [0, -0.3, 0.1], [0, -0.2, 1]]
solve_two_bone(*legs)
solve_two_bone(*legs, position_weight=np.array(0.5), pole_weight=0.5)
knee_from_source(*legs[:3], legs[0], legs[3], 0.19, 0.18)
done, done_cpu = time.perf_counter(), time.process_time()
print(f"{imported - start:.2f} {done - imported:.2f} {imported_cpu - start_cpu:.2f} "
      f"{done_cpu - imported_cpu:.2f}")
"""


def load_version(rev: str, directory: Path) -> types.ModuleType:
    """``footfall.ik`` of commit ``rev``, imported from ``directory`` beside the current one."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src/footfall"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(directory, filter="data")
    current = {name: module for name, module in sys.modules.items()
               if name == "footfall" or name.startswith("footfall.")}
    for name in current:
        del sys.modules[name]
    sys.path.insert(0, str(directory / "src"))
    try:
        import footfall.ik as base
    finally:
        sys.path.pop(0)
        for name in [n for n in sys.modules if n == "footfall" or n.startswith("footfall.")]:
            del sys.modules[name]
        sys.modules.update(current)
    return base


def random_legs(count: int, seed: int = 0) -> list[np.ndarray]:
    """Bunny legs (thigh 0.19 m, shin 0.18 m) hanging roughly down with a bent knee, targets
    around the foot, poles ahead: ``[root, mid, tip, target, pole]``, each ``(count, 3)``."""
    rng = np.random.default_rng(seed)
    root = rng.uniform(-5, 5, size=(count, 3)) + [0, 0.53, 0]
    thigh_direction = rng.normal([0, -1, 0.3], 0.3, size=(count, 3))
    thigh_direction /= np.linalg.norm(thigh_direction, axis=-1, keepdims=True)
    shin_direction = rng.normal([0, -1, -0.3], 0.3, size=(count, 3))
    shin_direction /= np.linalg.norm(shin_direction, axis=-1, keepdims=True)
    mid = root + 0.19 * thigh_direction
    tip = mid + 0.18 * shin_direction
    target = root + rng.uniform([-0.2, -0.42, -0.2], [0.2, -0.1, 0.2], size=(count, 3))
    pole = root + rng.normal([0, -0.2, 1.0], 0.2, size=(count, 3))
    return [root, mid, tip, target, pole]


DEGENERATE = [  # root, mid, tip, target, pole
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, 0, 0], [0, 0, 1]),
    ([0, 0, 0], [0, -0.5, 0], [0, -1, 0], [0, -0.7, 0.1], [0, -3, 0]),
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, -0.8, 0], [0, -2, 0]),
    ([0, 0, 0], [0, 0, 0], [0, -1, 0], [0, -0.5, 0.3], [0, 0, 1]),
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, 0.6, 0.2], [0, 0.5, -1]),
    ([0, 0, 0], [0, 0.5, 0.05], [0, 0.95, 0], [0, -0.7, 0.1], [0, -0.3, 1]),
]


def compile_times() -> tuple[list[float], float]:
    """Fresh-cache (import, first calls) wall and CPU seconds ``[wall, wall, cpu, cpu]`` and
    the cached start-up wall seconds, each in a new process."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        runs = [[float(v) for v in subprocess.run(
            [sys.executable, "-c", COMPILE_SNIPPET], env=env, check=True, capture_output=True,
            text=True).stdout.split()] for _ in range(2)]
    return runs[0], runs[1][0] + runs[1][1]


def agreement(new: types.ModuleType, base: types.ModuleType) -> tuple[float, float, float]:
    """Largest |new − base| of positions and rotations (metres, quaternion components) over
    random and degenerate limbs with and without weights, and of ``knee_from_source``."""
    legs = random_legs(20_000, seed=1)
    for i, case in enumerate(DEGENERATE * 10):
        for array, value in zip(legs, case, strict=True):
            array[i] = value
    rng = np.random.default_rng(2)
    count = len(legs[0])
    position, rotation = 0.0, 0.0
    for weights in ({}, {"position_weight": rng.uniform(0, 1, count)},
                    {"pole_weight": rng.uniform(0, 1, count), "max_reach": 0.95}):
        for points in (legs, legs[:4], [legs[0][:1], *legs[1:]]):
            a, b = new.solve_two_bone(*points, **weights), base.solve_two_bone(*points, **weights)
            position = max(position, *(float(np.abs(getattr(a, f) - getattr(b, f)).max())
                                       for f in ("mid", "tip", "residual")))
            rotation = max(rotation, *(float(np.abs(getattr(a, f) - getattr(b, f)).max())
                                       for f in ("upper_rotation", "lower_rotation")))
            assert (a.clamped == b.clamped).all()
    knee_args = (legs[0], legs[1], legs[2], legs[0] + 0.1, legs[3], 0.2, 0.17)
    knee = float(np.abs(new.knee_from_source(*knee_args) - base.knee_from_source(*knee_args)).max())
    return position, rotation, knee


def per_call(action: Callable[[], object], calls: int, runs: int = 5) -> tuple[float, float]:
    """(best wall, best CPU) seconds per call of ``action``: ``runs`` runs of ``calls`` calls
    after a warm-up call."""
    action()
    wall = cpu = math.inf
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            action()
        wall = min(wall, (time.perf_counter() - start) / calls)
        cpu = min(cpu, (time.process_time() - start_cpu) / calls)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE, help=f"commit to compare with (default {BASE})")
    args = parser.parse_args()

    (fresh_import, fresh_calls, import_cpu, calls_cpu), cached = compile_times()
    print(f"first run, empty numba cache: import {fresh_import:.2f} s + compile on first calls "
          f"{fresh_calls:.2f} s = {fresh_import + fresh_calls:.2f} s wall, "
          f"{import_cpu + calls_cpu:.2f} s CPU (target ≤ 10 s); with the cache filled "
          f"{cached:.2f} s")

    import footfall.ik as new

    with tempfile.TemporaryDirectory() as directory:
        base = load_version(args.base, Path(directory))
        assert base.solve_two_bone is not new.solve_two_bone
        position, rotation, knee = agreement(new, base)
        print(f"agreement with {args.base}: positions {position:.1e} m, rotations {rotation:.1e}, "
              f"knee_from_source {knee:.1e} m (max |new − base|)")

        legs = random_legs(max(SIZES))
        print(f"\n{'legs':>9}{'new µs/call':>13}{'base µs/call':>14}{'new M/s':>9}"
              f"{'base M/s':>10}{'× base':>8}{'new CPU M/s':>13}{'base CPU M/s':>14}")
        rates = {}
        for size in SIZES:
            points = [a[:size] for a in legs]
            calls = max(1, 20_000 // size)
            runs = 3 if size >= 100_000 else 5
            times = {name: per_call(lambda m=module, p=points: m.solve_two_bone(*p), calls, runs)
                     for name, module in (("new", new), ("base", base))}
            (new_wall, new_cpu), (base_wall, base_cpu) = times["new"], times["base"]
            rates[size] = size / new_wall
            print(f"{size:>9,}{new_wall * 1e6:>13.1f}{base_wall * 1e6:>14.1f}"
                  f"{size / new_wall / 1e6:>9.2f}{size / base_wall / 1e6:>10.2f}"
                  f"{base_wall / new_wall:>8.1f}{size / new_cpu / 1e6:>13.2f}"
                  f"{size / base_cpu / 1e6:>14.2f}")

        # The live retargeter's per-frame calls: four limbs with position weights, two knees.
        four = [a[:4] for a in legs]
        weight = np.array([1.0, 1.0, 0.7, 0.0])
        print("\nper-frame calls of the live retargeter (µs per call, best wall / best CPU):")
        for label, action in (
            ("solve_two_bone, 4 limbs, position weights",
             lambda m: m.solve_two_bone(*four, position_weight=weight)),
            ("knee_from_source, 2 legs",
             lambda m: m.knee_from_source(four[0][:2], four[1][:2], four[2][:2], four[0][:2],
                                          four[3][:2], 0.19, 0.18)),
        ):
            (nw, nc), (bw, bc) = (per_call(lambda m=m, a=action: a(m), 5_000) for m in (new, base))
            print(f"  {label:<44} new {nw * 1e6:6.1f} / {nc * 1e6:6.1f}   "
                  f"base {bw * 1e6:6.1f} / {bc * 1e6:6.1f}   × base {bw / nw:5.1f}")

    batched = rates[max(SIZES)]
    verdict = "meets" if batched >= TARGET_PER_SECOND else "misses"
    print(f"\nbatched {batched / 1e6:.1f} M solves/s wall {verdict} the "
          f"{TARGET_PER_SECOND / 1e6:.0f} M/s target; one-leg call "
          f"{1 / rates[1] * 1e6:.1f} µs, four-leg call {4 / rates[4] * 1e6:.1f} µs")
    load = os.getloadavg()
    print(f"load average when done: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
