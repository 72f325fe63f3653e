"""Import + measure of a generated test set: 1,000 HumanML3D joint files, clips per second.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_research.py [--clips 1000]
[--baseline 40] [--no-batch]``  (about 3 minutes on the shared 2-core machine).

A folder of ``--clips`` joint-position files is made first (``tests/joints_data.library``: the
procedural walker on the Mixamo test rig as HumanML3D's 22 joints at 20 fps, windows of 40–196
frames as HumanML3D's clips are, each turned and started at the origin, 1 mm noise, float32).
Then, per file, what a researcher runs on a model's output, in this process:

- **import**: ``footfall.motion_io.load_motion`` (read, check, solve the rotations batched over
  the frames) and ``save_motion`` to a BVH — ``footfall import F.npy -o F.bvh``;
- **measure**: ``footfall.commands.measure.measure_row`` — ``footfall measure F.npy``, the same
  job ``batch measure`` runs (GMD's ratio on the joints, PhysDiff, footfall's contact metrics,
  the level clean-up's figures).

The baseline, in the same run on the first ``--baseline`` files: the same import solved one
frame at a time (a per-frame Python loop calling the same solver with the clip's skeleton,
the way a per-frame IK retargeting script works), then the same BVH write and measure. Then
``footfall batch measure`` over the whole folder (``--jobs 2``, a fresh process: start-up,
worker pool, summary tables and plot included). The load average is printed: other processes
slow every figure; the ratios are what to compare.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from footfall.commands.measure import measure_row  # noqa: E402
from footfall.joints.io import load_positions  # noqa: E402
from footfall.joints.layouts import LAYOUTS  # noqa: E402
from footfall.joints.solve import solve_positions  # noqa: E402
from footfall.motion_io import LoadedMotion as Motion  # noqa: E402
from footfall.motion_io import load_motion, save_motion  # noqa: E402
from footfall.skeleton import Clip  # noqa: E402
from joints_data import library  # noqa: E402


def import_batched(path: Path, out: Path) -> float:
    """``footfall import``'s work on one file; returns the fit's mean error (mm)."""
    motion = load_motion(path)
    save_motion(motion.clip, out, motion)
    assert motion.fit is not None
    return motion.fit.mean_error_mm


def import_per_frame(path: Path, out: Path) -> None:
    """The baseline: the same solve, one frame at a time, with the clip's skeleton."""
    layout = LAYOUTS["humanml3d"]
    positions = load_positions(path)
    whole = solve_positions(positions[:2], layout, 20.0)  # the skeleton (fit on two frames)
    frames = [solve_positions(positions[t:t + 1], layout, 20.0, skeleton=whole.clip.skeleton)
              for t in range(positions.shape[0])]
    clip = Clip(whole.clip.skeleton, np.concatenate([f.clip.rotations for f in frames]),
                np.concatenate([f.clip.positions for f in frames]), 20.0)
    save_motion(clip, out, Motion(clip, str(path)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=1000)
    parser.add_argument("--baseline", type=int, default=40,
                        help="files the per-frame baseline runs on (it is slow)")
    parser.add_argument("--no-batch", action="store_true",
                        help="skip footfall batch measure over the folder")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-research-") as scratch:
        folder = Path(scratch) / "generated"
        folder.mkdir()
        start = time.perf_counter()
        clips = library(args.clips, frames=(40, 196), seed=1)
        for index, clip in enumerate(clips):
            np.save(folder / f"{index:06d}.npy", clip)
        frames = sum(clip.shape[0] for clip in clips)
        print(f"made {len(clips)} clips ({frames} frames, {frames / 20 / 60:.1f} min at 20 fps) "
              f"in {time.perf_counter() - start:.1f} s")
        files = sorted(folder.glob("*.npy"))
        out = Path(scratch) / "out.bvh"
        import_batched(files[0], out)  # warm-up: kernels load or compile
        measure_row(str(files[0]))

        errors, rows = [], []
        wall, cpu = time.perf_counter(), time.process_time()
        spent_import = 0.0
        for path in files:
            begin = time.perf_counter()
            errors.append(import_batched(path, out))
            spent_import += time.perf_counter() - begin
            rows.append(measure_row(str(path)))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        ours = len(files) / wall
        print(f"footfall (batched over frames): {len(files)} files in {wall:.1f} s wall "
              f"({cpu:.1f} s CPU): {ours:.1f} clips/s import + measure; import alone "
              f"{len(files) / spent_import:.1f} clips/s")

        subset = files[: args.baseline]
        base_wall = time.perf_counter()
        base_import = 0.0
        for path in subset:
            begin = time.perf_counter()
            import_per_frame(path, out)
            base_import += time.perf_counter() - begin
            measure_row(str(path))
        base_wall = time.perf_counter() - base_wall
        base = len(subset) / base_wall
        ours_import = len(files) / spent_import
        print(f"baseline (per-frame loop), first {len(subset)} files: {base:.2f} clips/s import "
              f"+ measure, import alone {len(subset) / base_import:.2f} clips/s")
        print(f"ratio: import + measure {ours / base:.1f}x, import alone "
              f"{ours_import / (len(subset) / base_import):.1f}x")

        gmd = np.array([row["before.gmd_foot_skate_ratio"] for row in rows])
        sliding = np.array([row["before.physdiff_sliding_mm"] for row in rows])
        print(f"fit error over {len(errors)} files: mean {np.mean(errors):.2f} mm "
              f"(max of the per-file means {np.max(errors):.2f} mm); GMD ratio "
              f"{gmd.mean():.4f} ± {gmd.std():.4f}; PhysDiff sliding {sliding.mean():.2f} ± "
              f"{sliding.std():.2f} mm")
        if not args.no_batch:
            target = Path(scratch) / "batch"
            command = [sys.executable, "-m", "footfall.cli", "batch", "measure", str(folder),
                       "-o", str(target), "--jobs", "2", "--quiet"]
            begin = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=False,
                                  env={**os.environ, "PYTHONPATH": str(HERE.parent / "src")})
            took = time.perf_counter() - begin
            first = done.stdout.splitlines()[0] if done.stdout else done.stderr.strip()
            print(f"footfall batch measure --jobs 2 (fresh process): {len(files)} files in "
                  f"{took:.1f} s, {len(files) / took:.1f} files/s (exit {done.returncode}: "
                  f"{first})")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
