"""Forward kinematics and quaternion products: this tree against a base commit, in the same run.

Run: ``.venv/bin/python benchmarks/bench_fk.py [--base COMMIT]``  (about 60 s).

The base (default ``8386303``, the commit before the compiled FK) is unpacked with
``git archive`` into a temp dir; one worker process imports ``footfall`` from there and one
from this tree, each measures the same cases and saves its outputs, and this script prints
the ratios and the largest difference between the two outputs (0 where the maths is the same).

Cases:
- crowd: 10,000 bunnies (``footfall.bunny.bunny_skeleton``, 22 joints), random local
  rotations and translations ``(10000, 22, ·)``: the grounding pipeline's FK (base
  ``grounding.levels.LevelFK``, now ``skeleton.FKPlan``), full and legs-only, and
  ``skeleton.forward_kinematics``;
- live: one frame of ``tests/data/bvh/mixamo_stepping.bvh`` (55 joints): the retargeter's FK
  (base ``retarget.kinematics.fk`` on ``Levels``, now ``FKPlan``) with and without positions,
  and ``skeleton.forward_kinematics``;
- ``quat.mul`` / ``quat.rotate`` on 1, 55 and 220,000 quaternions;
- the live retargeter ``step`` (55 → 55 joints, ``ik_mode="ik"`` as in bench_retarget.py).

Times are the median of repeated calls after warm-up (compiled kernels load from numba's cache
or compile in the warm-up), the better of two alternating rounds per side. The load average is
printed: other processes slow every figure.
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
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BASE = "8386303"
CLIP = ROOT / "tests" / "data" / "bvh" / "mixamo_stepping.bvh"
CROWD = 10_000
ROUNDS = 2


def median_seconds(action: Callable[[], object], seconds: float = 1.0, least: int = 5) -> float:
    """Median wall time of calls to ``action`` over about ``seconds`` (after two warm-ups)."""
    action()
    action()
    times: list[float] = []
    spent = 0.0
    while spent < seconds or len(times) < least:
        start = time.perf_counter()
        action()
        took = time.perf_counter() - start
        times.append(took)
        spent += took
    return statistics.median(times)


def worker(out_dir: Path) -> None:
    """Measure every case with the ``footfall`` on ``sys.path``; write times and outputs."""
    from footfall import bvh, quat
    from footfall.bunny import bunny_skeleton
    from footfall.retarget import Retargeter
    from footfall.skeleton import forward_kinematics

    try:  # this tree
        from footfall.skeleton import FKPlan

        def crowd_fk(parents, needed=None):  # noqa: ANN001, ANN202
            return FKPlan(parents, needed)

        def live_fk(parents):  # noqa: ANN001, ANN202
            plan = FKPlan(parents)
            return plan, plan.rotations
    except ImportError:  # the base
        from footfall.grounding.levels import LevelFK
        from footfall.retarget.kinematics import Levels, fk

        def crowd_fk(parents, needed=None):  # noqa: ANN001, ANN202
            return LevelFK(parents, needed)

        def live_fk(parents):  # noqa: ANN001, ANN202
            levels = Levels.of(parents)
            return ((lambda r, t: fk(levels, r, t)),
                    (lambda r: fk(levels, r, None, positions=False)[0]))

    rng = np.random.default_rng(14)
    times: dict[str, float] = {}
    outputs: dict[str, np.ndarray] = {}

    bunny = bunny_skeleton()
    rotations = quat.normalize(rng.normal(size=(CROWD, bunny.joint_count, 4)))
    translations = bunny.offsets + 0.01 * rng.normal(size=(CROWD, bunny.joint_count, 3))
    full = crowd_fk(bunny.parents)
    legs = crowd_fk(bunny.parents, [bunny.index(n) for n in bunny.names if "foot" in n.lower()])
    times["crowd FK 10000x22"] = median_seconds(lambda: full(rotations, translations))
    times["crowd FK legs only"] = median_seconds(lambda: legs(rotations, translations))
    times["crowd forward_kinematics"] = median_seconds(
        lambda: forward_kinematics(bunny.parents, rotations, translations))
    outputs["crowd_rot"], outputs["crowd_pos"] = full(rotations, translations)
    outputs["legs_pos"] = legs(rotations, translations)[1]

    clip = bvh.load(CLIP).resample(60.0)
    skeleton = clip.skeleton
    frame_rot, frame_pos = clip.rotations[10], clip.positions[10]
    both, rotations_only = live_fk(skeleton.parents)
    times["live FK 1x55"] = median_seconds(lambda: both(frame_rot, frame_pos), 0.5)
    times["live FK 1x55 rotations only"] = median_seconds(lambda: rotations_only(frame_rot), 0.5)
    times["live forward_kinematics 1x55"] = median_seconds(
        lambda: forward_kinematics(skeleton.parents, frame_rot, frame_pos), 0.5)
    outputs["live_rot"], outputs["live_pos"] = both(frame_rot, frame_pos)

    for count in (1, 55, CROWD * 22):
        a = quat.normalize(rng.normal(size=(count, 4)))
        b = quat.normalize(rng.normal(size=(count, 4)))
        v = rng.normal(size=(count, 3))
        times[f"quat.mul x{count}"] = median_seconds(lambda: quat.mul(a, b), 0.3)  # noqa: B023
        times[f"quat.rotate x{count}"] = median_seconds(lambda: quat.rotate(a, v), 0.3)  # noqa: B023
        outputs[f"mul_{count}"], outputs[f"rotate_{count}"] = quat.mul(a, b), quat.rotate(a, v)

    live = Retargeter(skeleton, skeleton)
    live.settings["ik_mode"] = "ik"
    steps = []
    posed = []
    for f in range(600):
        k = f % clip.frame_count
        start = time.perf_counter()
        result = live.step(clip.rotations[k], clip.positions[k], 1 / 60)
        steps.append(time.perf_counter() - start)
        if f < 60:
            posed.append(result[0])
    times["retarget live step (55 joints, ik)"] = statistics.median(steps[100:])
    times["  its 10th percentile"] = float(np.percentile(steps[100:], 10))
    outputs["step_rot"] = np.array(posed)

    np.savez(out_dir / "outputs.npz", **outputs)  # type: ignore[arg-type]
    (out_dir / "times.json").write_text(json.dumps(times))


def run_worker(src: Path, out_dir: Path) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Run :func:`worker` in a fresh process importing ``footfall`` from ``src``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(src))
    subprocess.run([sys.executable, __file__, "--worker", str(out_dir)], check=True, env=env)
    times = json.loads((out_dir / "times.json").read_text())
    with np.load(out_dir / "outputs.npz") as data:
        outputs = {k: data[k] for k in data.files}
    return times, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE, help="commit to compare against")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; base {args.base}")
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = Path(tmp) / "base"
        base_tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "src/footfall"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
        # Alternate base and now, twice each, and keep each case's best median: load from
        # other processes then hits both sides alike.
        runs: dict[str, list[dict[str, float]]] = {"base": [], "now": []}
        for round_ in range(ROUNDS):
            base_times, base_out = run_worker(base_tree / "src", Path(tmp) / f"base{round_}")
            new_times, new_out = run_worker(ROOT / "src", Path(tmp) / f"now{round_}")
            runs["base"].append(base_times)
            runs["now"].append(new_times)
        base_times = {k: min(r[k] for r in runs["base"]) for k in runs["base"][0]}
        new_times = {k: min(r[k] for r in runs["now"]) for k in runs["now"][0]}
    print(f"{'case':40s} {'base':>12s} {'now':>12s} {'speed-up':>9s}")
    for name, before in base_times.items():
        after = new_times[name]
        print(f"{name:40s} {_fmt(before):>12s} {_fmt(after):>12s} {before / after:8.1f}×")
    for key in base_out:
        worst = float(np.max(np.abs(base_out[key] - new_out[key])))
        print(f"largest |base − now| of {key + ':':12s} {worst:.1e}"
              + ("  (bit-identical)" if worst == 0.0 else ""))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


if __name__ == "__main__":
    main()
