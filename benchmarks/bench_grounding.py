"""Grounding pipeline throughput: 10,000 characters per frame, batched vs a per-character loop.

Run: ``.venv/bin/python benchmarks/bench_grounding.py [--characters 10000] [--loop 100]``

Both sides run the same code (``StepWalker.step``: seed 000's flat walk, then the whole
grounding pipeline — rays, footsteps with tread snapping, pelvis, leg IK, sole alignment) on the
demo course mesh. The batched side steps all K characters in one call per frame; the loop side
steps ``--loop`` single-character walkers one after another (the figure is scaled to K). The
grounding stage alone (pipeline.step on precomputed flat poses) is timed the same way.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from footfall.bunny import bunny_skeleton
from footfall.gait.stepping import StepWalker
from footfall.terrain import scene

DT = 1.0 / 60.0


def _crowd(count: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "lateral_z": rng.uniform(-1.5, 1.5, count),
        "start_x": rng.uniform(-1.0, 20.0, count),
        "speed": rng.uniform(0.4, 1.2, count),
    }


def _time_frames(step, frames: int) -> float:
    """Seconds per frame of ``step()`` after one warm-up frame."""
    step()
    start = time.perf_counter()
    for _ in range(frames):
        step()
    return (time.perf_counter() - start) / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=10_000)
    parser.add_argument("--loop", type=int, default=50, help="characters timed one by one")
    parser.add_argument("--frames", type=int, default=10)
    args = parser.parse_args()
    skeleton = bunny_skeleton()
    terrain = scene("course")
    crowd = _crowd(args.characters)

    batched = StepWalker(skeleton, terrain, args.characters, ik=True, **crowd)
    walker_batched = _time_frames(lambda: batched.step(DT), args.frames)
    rotations, positions, plan = batched.flat_pose()
    pipe = batched.pipeline
    grounding_batched = _time_frames(lambda: pipe.step(rotations, positions, plan, DT), args.frames)

    singles = [
        StepWalker(skeleton, terrain, 1, lateral_z=crowd["lateral_z"][i],
                   start_x=crowd["start_x"][i], speed=crowd["speed"][i])
        for i in range(args.loop)
    ]

    def loop_walkers() -> None:
        for walker in singles:
            walker.step(DT)

    poses = [w.flat_pose() for w in singles]

    def loop_grounding() -> None:
        for walker, (rot, pos, foot_plan) in zip(singles, poses, strict=True):
            walker.pipeline.step(rot, pos, foot_plan, DT)

    frames = max(2, args.frames // 4)
    walker_loop = _time_frames(loop_walkers, frames) * args.characters / args.loop
    grounding_loop = _time_frames(loop_grounding, frames) * args.characters / args.loop

    print(f"K = {args.characters} bunnies on the demo course; loop side timed on {args.loop} "
          f"characters and scaled to K")
    for name, fast, slow in (
        ("walker step (flat walk + grounding)", walker_batched, walker_loop),
        ("grounding pipeline alone", grounding_batched, grounding_loop),
    ):
        print(f"{name}:")
        print(f"  batched : {fast * 1e3:9.1f} ms/frame  {1 / fast:8.2f} frames/s "
              f"({args.characters / fast:,.0f} character-frames/s)")
        print(f"  loop    : {slow * 1e3:9.1f} ms/frame  {1 / slow:8.4f} frames/s")
        print(f"  speed-up: {slow / fast:8.1f}x")


if __name__ == "__main__":
    main()
