"""Grounding pipeline throughput: 10,000 characters per frame, against the commit before this work
against a per-character loop, and split into walkers on threads.

Run: ``.venv/bin/python benchmarks/bench_grounding.py [--characters 10000] [--loop 50]
[--frames 10] [--base 2fe8266] [--base-loop] [--rounds 4] [--clock cpu]``

Both sides run the same code (``StepWalker.step``: seed 000's flat walk, then the whole
grounding pipeline — rays, footsteps with tread snapping, hips, leg IK, sole alignment) on the
demo course mesh. The batched side steps all K characters in one call per frame; the loop side
steps ``--loop`` single-character walkers one after another (the figure is scaled to K). The
grounding stage alone (pipeline.step on precomputed flat poses) is timed the same way.

The base side is the package of commit ``--base`` (default: the commit before the compiled
grounding stages), exported with ``git archive`` to a temporary folder and timed by this same
script in a subprocess with ``PYTHONPATH`` pointing at it (``--base ''`` skips it); the ratios
are base ÷ this tree, measured in the same run. Each side's first frame (compiling or loading
the numba kernels) is left out of its timing. ``--rounds N`` times the base and this tree
alternating, each in a fresh subprocess, N rounds, and prints the best round of each and the
median of the rounds' paired ratios (the machine is shared: its load drifts). ``--steady``
frames are stepped before timing
(default 0: the crowd starts in step, so the first ~20 frames cast no new footsteps; 60 shows
the steady state with ~450 new footsteps a frame). The crowd side splits the same K characters
into ``--threads`` walkers stepped on as many threads (``footfall.gait.crowd.Crowd``: the
compiled kernels release the GIL).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from footfall.bunny import bunny_skeleton
from footfall.gait.stepping import StepWalker
from footfall.terrain import scene

DT = 1.0 / 60.0
ROOT = Path(__file__).resolve().parents[1]
#: The commit before the grounding stages were compiled (numba kernels per stage).
BASE = "2fe8266"


def _crowd(count: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "lateral_z": rng.uniform(-1.5, 1.5, count),
        "start_x": rng.uniform(-1.0, 20.0, count),
        "speed": rng.uniform(0.4, 1.2, count),
    }


#: What :func:`_time_frames` reads: wall time, or the process's CPU time (``--clock cpu``: on a
#: shared machine another user's load inflates wall time far more than CPU time; the crowd's
#: CPU time is its threads' sum, not the frame's wall time).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def _time_frames(step, frames: int) -> float:
    """Seconds per frame of ``step()`` after one warm-up frame."""
    step()
    start = clock()
    for _ in range(frames):
        step()
    return (clock() - start) / frames


def measure(characters: int, loop: int, frames: int, steady: int, threads: int = 1
            ) -> dict[str, float]:
    """Seconds per frame: batched walker and pipeline, the crowd split into ``threads``
    walkers stepped on as many threads (``footfall.gait.crowd``), and the one-by-one loops
    scaled to K."""
    skeleton = bunny_skeleton()
    terrain = scene("course")
    crowd = _crowd(characters)

    batched = StepWalker(skeleton, terrain, characters, ik=True, **crowd)
    for _ in range(steady):
        batched.step(DT)
    walker_batched = _time_frames(lambda: batched.step(DT), frames)
    rotations, positions, plan = batched.flat_pose()
    pipe = batched.pipeline
    grounding_batched = _time_frames(lambda: pipe.step(rotations, positions, plan, DT), frames)
    figures = {"walker": walker_batched, "pipeline": grounding_batched}
    if threads > 1:
        try:
            from footfall.gait.crowd import Crowd
        except ImportError:  # a base tree from before the crowd
            Crowd = None  # noqa: N806
        if Crowd is not None:
            split = Crowd.split(lambda part: StepWalker(
                skeleton, terrain, len(crowd["speed"][part]), ik=True,
                **{key: value[part] for key, value in crowd.items()}), characters, threads)
            for _ in range(steady):
                split.step(DT)
            figures["crowd"] = _time_frames(lambda: split.step(DT), frames)
            split.close()
    if loop <= 0:
        return figures

    singles = [
        StepWalker(skeleton, terrain, 1, lateral_z=crowd["lateral_z"][i],
                   start_x=crowd["start_x"][i], speed=crowd["speed"][i])
        for i in range(loop)
    ]

    def loop_walkers() -> None:
        for walker in singles:
            walker.step(DT)

    poses = [w.flat_pose() for w in singles]

    def loop_grounding() -> None:
        for walker, (rot, pos, foot_plan) in zip(singles, poses, strict=True):
            walker.pipeline.step(rot, pos, foot_plan, DT)

    loop_frames = max(2, frames // 4)
    figures["walker_loop"] = _time_frames(loop_walkers, loop_frames) * characters / loop
    figures["pipeline_loop"] = _time_frames(loop_grounding, loop_frames) * characters / loop
    return figures


def base_tree(commit: str) -> Path:
    """The ``src`` folder of ``commit``, exported once to a temporary folder (kept between runs,
    so its numba cache is too)."""
    folder = Path(tempfile.gettempdir()) / f"footfall_base_{commit}"
    if not (folder / "src" / "footfall").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def measure_base(commit: str, args: argparse.Namespace, source: Path | None = None
                 ) -> dict[str, float]:
    """:func:`measure` of ``commit``'s package (or the package in ``source``), in a subprocess
    (its loop side too with ``--base-loop``)."""
    env = {**os.environ, "PYTHONPATH": str(source or base_tree(commit))}
    loop = str(args.loop if args.base_loop else 0)
    command = [sys.executable, __file__, "--json", "--loop", loop, "--characters",
               str(args.characters), "--frames", str(args.frames), "--steady", str(args.steady),
               "--threads", str(args.threads), "--clock", args.clock]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare_rounds(args: argparse.Namespace) -> None:
    """``--rounds`` rounds, the base and this tree alternating, each side in a fresh
    subprocess: each side's best round and the ratios base ÷ this tree of the best rounds and
    the median of the rounds' pairs (the shared machine's load drifts between them)."""
    sides = {args.base: base_tree(args.base), "this tree": ROOT / "src"}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, source in sides.items():
            runs[name].append(measure_base(args.base, args, source))
    print(f"K = {args.characters} bunnies on the demo course, {args.frames} frames after "
          f"{args.steady} + 1; loop side on {args.loop} characters scaled to K; {args.rounds} "
          f"rounds, {args.base} and this tree alternating; {args.clock} clock; load average "
          f"{os.getloadavg()[0]:.2f}; ms/frame of the best round of each; ratio = base ÷ this "
          "tree of the best rounds, and the median of each round's pair")
    for key in runs["this tree"][0]:
        if key not in runs[args.base][0]:
            continue
        base = min(run[key] for run in runs[args.base])
        this = min(run[key] for run in runs["this tree"])
        paired = statistics.median(b[key] / t[key]
                                   for b, t in zip(runs[args.base], runs["this tree"], strict=True))
        print(f"  {key:14s} base {base * 1e3:9.1f}  this {this * 1e3:9.1f}  "
              f"ratio {base / this:.3f}  paired {paired:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=10_000)
    parser.add_argument("--loop", type=int, default=50, help="characters timed one by one")
    parser.add_argument("--frames", type=int, default=10)
    parser.add_argument("--steady", type=int, default=0, help="frames stepped before timing")
    parser.add_argument("--base", default=BASE, help="commit timed as the base ('' for none)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="walkers (one thread each) of the crowd side (default: the CPUs)")
    parser.add_argument("--base-loop", action="store_true",
                        help="time the base's one-by-one loop too (one-character frames)")
    parser.add_argument("--rounds", type=int, default=0,
                        help="alternating rounds against --base, each side in a subprocess")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time, or the process's CPU time (a shared machine)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    if args.rounds and args.base and not args.json:
        compare_rounds(args)
        return
    figures = measure(args.characters, args.loop, args.frames, args.steady, args.threads)
    if args.json:
        print(json.dumps(figures))
        return
    base = measure_base(args.base, args) if args.base else {}

    print(f"K = {args.characters} bunnies on the demo course, {args.frames} frames after "
          f"{args.steady} + 1; loop side timed on {args.loop} characters and scaled to K; "
          f"load average {os.getloadavg()[0]:.2f}")
    for name, key in (("walker step (flat walk + grounding)", "walker"),
                      ("grounding pipeline alone", "pipeline")):
        fast = figures[key]
        print(f"{name}:")
        print(f"  batched : {fast * 1e3:9.1f} ms/frame  {1 / fast:8.2f} frames/s "
              f"({args.characters / fast:,.0f} character-frames/s)")
        if key in base:
            print(f"  base    : {base[key] * 1e3:9.1f} ms/frame  ({args.base}; "
                  f"{base[key] / fast:.2f}x this tree's time)")
        if f"{key}_loop" in figures:
            slow = figures[f"{key}_loop"]
            print(f"  loop    : {slow * 1e3:9.1f} ms/frame  {1 / slow:8.4f} frames/s")
            if f"{key}_loop" in base:
                print(f"  base    : {base[f'{key}_loop'] * 1e3:9.1f} ms/frame  ({args.base}'s "
                      f"loop; {base[f'{key}_loop'] / slow:.2f}x this tree's time)")
            print(f"  speed-up: {slow / fast:8.1f}x")
        if key == "walker" and "crowd" in figures:
            split = figures["crowd"]
            print(f"  crowd   : {split * 1e3:9.1f} ms/frame  ({args.threads} walkers on "
                  f"{args.threads} threads; {fast / split:.2f}x the one walker)")
            if "crowd" in base:
                print(f"  base    : {base['crowd'] * 1e3:9.1f} ms/frame  ({args.base}'s crowd; "
                      f"{base['crowd'] / split:.2f}x this tree's time)")


if __name__ == "__main__":
    main()
