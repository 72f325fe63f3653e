"""`footfall ground` of a long real clip: this tree against an earlier commit in the same run.

Run: ``.venv/bin/python benchmarks/bench_ground.py [--baseline REF] [--runs 3]``
(about 1 minute). Clip: ``cmu_01_01_fairmotion.bvh`` (31 joints, 120 fps) followed by its first
248 frames again: 3,000 frames at 120 fps, written to a temporary BVH. Each run is the whole
command as a user starts it (a fresh ``python -m footfall.cli ground CLIP --terrain stairs -o OUT
--quiet`` process: imports, reading, placement, grounding, writing) for this tree and for the
baseline commit (default ``b216089``, the code before the do-no-harm rewrite), which is
exported with ``git archive`` into a temporary folder and run from there. Runs alternate
between the two so a busy machine slows both; the best wall time of each is kept. Issue 10's
budget: under 5 s here.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 5.0


def long_clip(folder: Path) -> Path:
    from footfall import bvh

    clip = bvh.load(ROOT / "tests" / "data" / "bvh" / "cmu_01_01_fairmotion.bvh")
    start = clip[:248].copy()
    start.positions[:, 0] += clip.positions[-1, 0] - clip.positions[0, 0]
    path = folder / "cmu_01_01_x3000.bvh"
    bvh.save(clip.concatenate(start), path)
    return path


def export(ref: str, folder: Path) -> Path:
    archive = folder / "baseline.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), ref, "src"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "baseline", filter="data")
    return folder / "baseline" / "src"


def timed(src: Path, clip: Path, out: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(src))
    started = time.perf_counter()
    command = [sys.executable, "-m", "footfall.cli", "ground", str(clip), "--terrain", "stairs",
               "-o", str(out), "--quiet"]
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="b216089", help="git commit to compare against")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        clip = long_clip(folder)
        baseline = export(args.baseline, folder)
        now, before = [], []
        for _ in range(args.runs):
            now.append(timed(ROOT / "src", clip, folder / "now.bvh"))
            before.append(timed(baseline, clip, folder / "before.bvh"))
    load = os.getloadavg()[0]
    print(f"footfall ground, 3,000 frames at 120 fps on stairs (load average {load:.1f}):")
    print(f"  this tree     best {min(now):.2f} s  (runs {', '.join(f'{t:.2f}' for t in now)})")
    print(f"  {args.baseline:<13} best {min(before):.2f} s  "
          f"(runs {', '.join(f'{t:.2f}' for t in before)})")
    print(f"  ratio {min(before) / min(now):.2f}× the baseline; budget {BUDGET_S:.0f} s: "
          f"{'met' if min(now) < BUDGET_S else 'NOT met'}")


if __name__ == "__main__":
    main()
