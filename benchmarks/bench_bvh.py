"""BVH load/save speed of :mod:`footfall.bvh` against ``bvhio`` in the same run.

Run: ``.venv/bin/python benchmarks/bench_bvh.py``  (about 15–30 s).

Loads tests/data/bvh/cmu_131_01.bvh (31 joints, 994 frames, 96 channels) with
``footfall.bvh.load`` (clip with quaternions, unit and up axis detected) and with bvhio's
``readAsBvh`` (parsed channel values per joint) and ``readAsHierarchy`` (per-joint poses for
every frame, the closest match to what footfall returns). Best-of and median times; the
ratios use the best times, which are the least disturbed by other processes. The two load
timings that make the headline ratio are interleaved call by call with the same number of
calls each, and also reported in CPU time (``time.process_time``), which other processes on a
busy machine disturb less than wall time.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bvhio

from footfall import bvh

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "tests" / "data" / "bvh" / "cmu_131_01.bvh"


def timed(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(best, median) wall time in seconds of ``repeats`` calls after one warm-up call."""
    action()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def interleaved(
    actions: list[Callable[[], object]], repeats: int
) -> list[tuple[float, float, float]]:
    """Per action (best wall s, median wall s, best CPU s), calling the actions in turn."""
    for action in actions:
        action()
    wall: list[list[float]] = [[] for _ in actions]
    cpu: list[list[float]] = [[] for _ in actions]
    for _ in range(repeats):
        for index, action in enumerate(actions):
            start, start_cpu = time.perf_counter(), time.process_time()
            action()
            cpu[index].append(time.process_time() - start_cpu)
            wall[index].append(time.perf_counter() - start)
    return [
        (min(w), statistics.median(w), min(c)) for w, c in zip(wall, cpu, strict=True)
    ]


def main() -> int:
    path = str(FILE)
    clip = bvh.load(path)
    ours, theirs = interleaved([lambda: bvh.load(path), lambda: bvhio.readAsBvh(path)], 15)
    rows = [
        ("footfall.bvh.load", ours[:2]),
        ("bvhio.readAsBvh", theirs[:2]),
        ("bvhio.readAsHierarchy", timed(lambda: bvhio.readAsHierarchy(path), 4)),
    ]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.bvh"
        rows.append(("footfall.bvh.save", timed(lambda: bvh.save(clip, out), 10)))
        root = bvhio.readAsHierarchy(path)
        rows.append(("bvhio.writeHierarchy", timed(
            lambda: bvhio.writeHierarchy(str(out), root, 1 / 120, clip.frame_count), 3)))
    print(f"file: {FILE.relative_to(ROOT)} ({clip.skeleton.joint_count} joints, "
          f"{clip.frame_count} frames)")
    print(f"python {sys.version.split()[0]}")
    print(f"{'operation':<24}{'best ms':>10}{'median ms':>12}")
    for name, (best, median) in rows:
        print(f"{name:<24}{best * 1e3:>10.1f}{median * 1e3:>12.1f}")
    print(f"load best CPU ms: footfall.bvh.load {ours[2] * 1e3:.1f}, "
          f"bvhio.readAsBvh {theirs[2] * 1e3:.1f}")
    fastest = ours[0]
    print(f"load speed-up vs bvhio.readAsBvh:       {theirs[0] / fastest:6.1f}x  (target >= 10x)")
    print(f"  same, in CPU time:                    {theirs[2] / ours[2]:6.1f}x")
    print(f"load speed-up vs bvhio.readAsHierarchy: {rows[2][1][0] / fastest:6.1f}x")
    print(f"save speed-up vs bvhio.writeHierarchy:  {rows[4][1][0] / rows[3][1][0]:6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
