"""Procedural walk poses per second: 1,000 walkers batched vs one walker at a time.

Run: ``.venv/bin/python benchmarks/bench_gait.py``  (well under 2 minutes).

A pose is one character's full frame (phase, body, planted/swinging feet, both legs' IK and the
whole skeleton's local and world transforms) for one 1/60 s tick of the bunny (22 joints).
  batched       — one ``ProceduralWalker(count=1000)`` ticked: every pose in one NumPy pass;
  one at a time — 1,000 separate ``ProceduralWalker(count=1)`` (the baseline; a sample of them
                  is timed and scaled, since the full loop would take minutes);
  grounded      — ``GroundedWalker(course, count=1000)``: the walk plus the foot placement
                  pipeline (rays, hips, leg IK, sole alignment) on the demo course.
Best wall time of several runs and the best CPU time (process time, less disturbed by the
other processes of a shared machine); ratios use CPU time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from footfall import terrain
from footfall.gait import ProceduralWalker
from footfall.gait.grounded import GroundedWalker

WALKERS = 1000
TICKS = 10
SAMPLE = 50  # separate walkers timed for the one-at-a-time baseline


def timed(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(best wall, best CPU) seconds of ``repeats`` calls after one warm-up call."""
    action()
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


def main() -> None:
    spread = np.stack([np.zeros(WALKERS), np.zeros(WALKERS), np.linspace(-1.5, 1.5, WALKERS)], 1)
    cycles = np.linspace(0.0, 1.0, WALKERS, endpoint=False)

    batch = ProceduralWalker(count=WALKERS, start=spread, cycle=cycles)
    batch.step(0.0)

    def batched() -> None:
        for _ in range(TICKS):
            batch.step(1 / 60)

    singles = [ProceduralWalker(count=1, start=spread[k], cycle=cycles[k]) for k in range(SAMPLE)]
    for walker in singles:
        walker.step(0.0)

    def one_at_a_time() -> None:
        for walker in singles:
            walker.step(1 / 60)

    course = terrain.scene("course")
    grounded = GroundedWalker(course, count=WALKERS, start=spread + [2.0, 0.0, 0.0],
                              cycle=cycles)
    grounded.step(0.0)

    def grounded_batch() -> None:
        for _ in range(TICKS):
            grounded.step(1 / 60)

    rows = []
    wall, cpu = timed(batched, 3)
    rows.append(("batched (1,000 walkers)", WALKERS * TICKS, wall, cpu))
    wall, cpu = timed(one_at_a_time, 3)
    rows.append(("one at a time (baseline)", SAMPLE, wall, cpu))
    wall, cpu = timed(grounded_batch, 2)
    rows.append(("grounded on course (1,000)", WALKERS * TICKS, wall, cpu))

    baseline = rows[1][1] / rows[1][3]
    print(f"{'case':30s} {'poses/s (wall)':>15s} {'poses/s (CPU)':>14s} {'× baseline':>11s}")
    for name, poses, wall, cpu in rows:
        rate = poses / cpu
        print(f"{name:30s} {poses / wall:15,.0f} {rate:14,.0f} {rate / baseline:10.1f}×")
    per_tick = rows[0][3] / TICKS
    print(f"batched tick of 1,000 walkers: {per_tick * 1e3:.1f} ms CPU "
          f"({'fits' if per_tick < 1 / 60 else 'does not fit'} in a 60 Hz frame)")


if __name__ == "__main__":
    main()
