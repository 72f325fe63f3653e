"""Retargeting speed: batched ``Retargeter.apply`` and live ``step`` against bone-by-bone Python.

Run: ``.venv/bin/python benchmarks/bench_retarget.py``  (about 5–30 s).

Against another commit: ``.venv/bin/python benchmarks/bench_retarget.py --base 5c50895
[--rounds 3]`` times the offline apply and the live step medians (``ik``, ``auto``, and onto
CesiumMan with its skinned soles) and the offline apply onto RobotExpressive of that commit's
package (``git archive`` of its ``src`` in a
temporary folder, as ``bench_grounding.py`` does) and of this tree, each in a fresh subprocess,
alternating for ``--rounds`` rounds; it prints each side's best round and the ratios base ÷
this tree (≥ 1: this tree is as fast) of the best rounds and the median of the rounds' pairs.

Clip: tests/data/bvh/mixamo_stepping.bvh (55 joints, Mixamo rig with fingers) resampled to
60 fps and repeated to 60 s (3,600 frames), retargeted onto the same 55-joint rig with all four
limbs on IK (``ik_mode="ik"``) so every frame does the full solve. The baseline does the same
core work one frame and one bone at a time in Python (forward kinematics, rotation offsets,
unmapped joints, hips, positions, knee-from-source and two-bone IK per limb, local rotations),
calling the same ``footfall.quat`` and ``footfall.ik`` functions on single values; it skips the
fast path's extras (limb weights, toe pivot and pitch, stance width, hips lowering), so the
ratios are conservative. Times are best-of (5 calls for apply, 2 for the baseline) wall and
CPU (``time.process_time``) seconds; the live step is the median of 500 calls after 100 warm-up
calls, in ``ik_mode="ik"`` (the baseline's work) and ``"auto"`` (the default). Onto the skinned
avatars (CesiumMan, RobotExpressive) the body guard is timed on against off, same run, for the
step, the stepping clip and the 60 s clip offline (``--base`` times RobotExpressive's 60 s
offline apply too: ``apply_robot``). The load average is printed because other processes on a
shared machine slow every figure.
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

from footfall import bvh, quat
from footfall.ik import knee_from_source, solve_two_bone
from footfall.retarget import Retargeter

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "tests" / "data" / "bvh" / "mixamo_stepping.bvh"
SECONDS = 60.0
BASELINE_FRAMES = 60


def best(action: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(best wall, best CPU) seconds of ``repeats`` calls after one warm-up call."""
    action()
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def baseline_frame(r: Retargeter, rotations: np.ndarray, positions: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """One frame retargeted bone by bone in Python (the core of ``Retargeter._solve``)."""
    source, target = r.source, r.target
    grot: list[np.ndarray] = []
    gpos: list[np.ndarray] = []
    for j, parent in enumerate(source.parents):
        if parent < 0:
            grot.append(rotations[j])
            gpos.append(positions[j])
        else:
            grot.append(quat.mul(grot[parent], rotations[j]))
            gpos.append(gpos[parent] + quat.rotate(grot[parent], positions[j]))
    follows = dict(zip(r.correspondence.target_joints.tolist(),
                       r.correspondence.source_joints.tolist(), strict=True))
    offset_of = dict(zip(r.correspondence.target_joints.tolist(), r.offsets, strict=True))
    world: list[np.ndarray] = []
    for j, parent in enumerate(target.parents):
        if j in follows:
            world.append(quat.mul(grot[follows[j]], offset_of[j]))
        elif parent < 0:
            world.append(r.calibration_pose[j])
        else:
            world.append(quat.mul(world[parent], r.calibration_pose[j]))
    hips_t, hips_s = r.correspondence.hips
    s = r.size_ratio
    raise_by = r.target_measures.hips_height - r.source_measures.hips_height
    hips = gpos[hips_s]
    local_pos = [target.offsets[j].copy() for j in range(target.joint_count)]
    local_pos[hips_t] = np.array([s * hips[0], hips[1] + raise_by, s * hips[2]])
    place: list[np.ndarray] = []
    for j, parent in enumerate(target.parents):
        place.append(local_pos[j] if parent < 0
                     else place[parent] + quat.rotate(world[parent], local_pos[j]))
    for (t_upper, t_lower, t_tip), (s_upper, s_lower, s_tip) in r.correspondence.limbs.values():
        root, mid, tip = place[t_upper], place[t_lower], place[t_tip]
        goal = place[hips_t] + s * (gpos[s_tip] - gpos[hips_s])
        upper, lower = np.linalg.norm(mid - root), np.linalg.norm(tip - mid)
        pole = knee_from_source(gpos[s_upper], gpos[s_lower], gpos[s_tip], root, goal,
                                upper, lower)
        result = solve_two_bone(root, mid, tip, goal, pole)
        for j in target.chain(t_lower)[target.chain(t_lower).index(t_upper):-1]:
            world[j] = quat.mul(result.upper_rotation, world[j])
        for j in target.chain(t_tip)[target.chain(t_tip).index(t_lower):-1]:
            world[j] = quat.mul(result.lower_rotation, world[j])
    local = [world[j] if p < 0 else quat.inv_mul(world[p], world[j])
             for j, p in enumerate(target.parents)]
    return np.array(local), np.array(local_pos)


def _live_median(r: Retargeter, clip: object, calls: int = 600, warm_up: int = 100) -> float:
    """Median wall seconds of ``Retargeter.step`` over ``calls`` frames after ``warm_up``."""
    times = []
    for f in range(calls):
        frame = f % clip.frame_count  # type: ignore[attr-defined]
        wall0 = time.perf_counter()
        r.step(clip.rotations[frame], clip.positions[frame], 1 / 60)  # type: ignore
        times.append(time.perf_counter() - wall0)
    return statistics.median(times[warm_up:])


def measure() -> dict[str, float]:
    """Seconds: the 60 s clip's offline apply (best of 5), the live step medians in ``ik`` and
    ``auto`` mode, the live step onto CesiumMan (skinned soles, default settings) and the 60 s
    clip's offline apply onto RobotExpressive (its body kept above the floor; best of 5)."""
    from footfall.gltf import load_avatar
    from footfall.skinning import avatar_targets

    clip = bvh.load(FILE).resample(60.0)
    repeats = int(np.ceil(SECONDS * 60.0 / clip.frame_count))
    long = clip.concatenate(*([clip] * (repeats - 1)))[: int(SECONDS * 60.0)]
    r = Retargeter(long.skeleton, long.skeleton)
    r.settings["ik_mode"] = "ik"
    figures = {"apply": best(lambda: r.apply(long), 5)[0]}
    for mode in ("ik", "auto"):
        live = Retargeter(long.skeleton, long.skeleton)
        live.settings["ik_mode"] = mode
        figures[f"step_{mode}"] = _live_median(live, long)
    avatar = load_avatar(ROOT / "tests" / "data" / "avatars" / "CesiumMan.glb")
    mapping = avatar.target_mapping()
    onto = Retargeter(clip.skeleton, avatar.skeleton, None, mapping,
                      target_rest=avatar.rest_rotations, **avatar_targets(avatar, mapping))
    onto.calibrate_for(clip)
    figures["step_cesiumman"] = _live_median(onto, clip)
    robot = load_avatar(ROOT / "tests" / "data" / "avatars" / "RobotExpressive.glb")
    mapping = robot.target_mapping()
    onto = Retargeter(clip.skeleton, robot.skeleton, None, mapping,
                      target_rest=robot.rest_rotations, **avatar_targets(robot, mapping))
    onto.calibrate_for(clip)
    figures["apply_robot"] = best(lambda: onto.apply(long), 5)[0]
    return figures


def base_tree(commit: str) -> Path:
    """The ``src`` folder of ``commit``, exported once to a temporary folder (kept between
    runs, so its numba cache is too)."""
    folder = Path(tempfile.gettempdir()) / f"footfall_base_{commit}"
    if not (folder / "src" / "footfall").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def _measured(source: Path) -> dict[str, float]:
    """:func:`measure` of the package in ``source``, in a fresh subprocess."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, __file__, "--json"], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(commit: str, rounds: int) -> None:
    """This tree against ``commit``'s package, alternating rounds (see the module docstring)."""
    sides = {commit: base_tree(commit), "this tree": ROOT / "src"}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, source in sides.items():
            runs[name].append(_measured(source))
    print(f"{rounds} rounds, base {commit} and this tree alternating; load average "
          f"{os.getloadavg()[0]:.2f}; best round of each (ms); ratio = base ÷ this tree, of the "
          "best rounds and the median of each round's pair (the machine's load drifts)")
    for key in runs[commit][0]:
        base = min(run[key] for run in runs[commit])
        this = min(run[key] for run in runs["this tree"])
        paired = statistics.median(b[key] / t[key]
                                   for b, t in zip(runs[commit], runs["this tree"], strict=True))
        print(f"  {key:15s} base {base * 1e3:8.3f}  this {this * 1e3:8.3f}  "
              f"ratio {base / this:.3f}  paired {paired:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="", help="commit to time against ('' for none)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds with --base")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure()))
        return
    if args.base:
        compare(args.base, args.rounds)
        return
    clip = bvh.load(FILE).resample(60.0)
    repeats = int(np.ceil(SECONDS * 60.0 / clip.frame_count))
    long = clip.concatenate(*([clip] * (repeats - 1)))[: int(SECONDS * 60.0)]
    r = Retargeter(long.skeleton, long.skeleton)
    r.settings["ik_mode"] = "ik"
    joints = long.skeleton.joint_count
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"clip: {long.frame_count} frames at 60 fps ({long.duration:.1f} s), {joints} joints")

    wall, cpu = best(lambda: r.apply(long), 5)
    print(f"apply (batched):        {wall * 1e3:8.1f} ms wall  {cpu * 1e3:8.1f} ms CPU  "
          f"→ {long.duration / wall:7.0f}× real time (wall), {long.duration / cpu:7.0f}× (CPU)")

    frames = long[:BASELINE_FRAMES]
    base_wall, base_cpu = best(
        lambda: [baseline_frame(r, frames.rotations[f], frames.positions[f])
                 for f in range(BASELINE_FRAMES)], 2)
    per_frame_wall, per_frame_cpu = base_wall / BASELINE_FRAMES, base_cpu / BASELINE_FRAMES
    print(f"bone-by-bone Python:    {per_frame_wall * 1e3:8.3f} ms wall  "
          f"{per_frame_cpu * 1e3:8.3f} ms CPU per frame "
          f"→ {1 / 60 / per_frame_wall:7.1f}× real time (wall)")
    print(f"apply vs bone-by-bone:  {per_frame_wall * long.frame_count / wall:7.0f}× (wall)  "
          f"{per_frame_cpu * long.frame_count / cpu:7.0f}× (CPU)")

    for mode in ("ik", "auto"):
        # "ik": every limb solved every frame (the work the baseline does); "auto": the
        # default live mode (automatic limb weights, arms mostly off).
        live = Retargeter(long.skeleton, long.skeleton)
        live.settings["ik_mode"] = mode
        times = []
        cpu_times = []
        for f in range(600):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            live.step(long.rotations[f], long.positions[f], 1 / 60)
            times.append(time.perf_counter() - wall0)
            cpu_times.append(time.process_time() - cpu0)
        step_wall = statistics.median(times[100:])
        step_cpu = statistics.median(cpu_times[100:])
        print(f"step, ik_mode={mode + ':':5s}   {step_wall * 1e3:8.3f} ms wall (median), "
              f"{min(times) * 1e3:.3f} ms best, {step_cpu * 1e3:.3f} ms CPU (median)")
        if mode == "ik":
            print(f"step vs bone-by-bone:   {per_frame_wall / step_wall:7.1f}× (wall)  "
                  f"{per_frame_cpu / step_cpu:7.1f}× (CPU)")

    skinned_avatars(clip, long)

    # Same work: on this identity retarget both must reproduce the source.
    fast = r.apply(frames).global_positions()
    reference = np.array([baseline_frame(r, frames.rotations[f], frames.positions[f])[0]
                          for f in range(BASELINE_FRAMES)])
    from footfall.skeleton import forward_kinematics

    slow = forward_kinematics(long.skeleton.parents, reference, fast * 0 + long.skeleton.offsets)
    agree = np.abs(quat.angle_between(r.apply(frames).rotations, reference)).max()
    print(f"check: fast vs source {np.abs(fast - frames.global_positions()).max():.1e} m, "
          f"fast vs bone-by-bone rotations {agree:.1e} rad ({slow[0].shape[0]} frames)")


def skinned_avatars(clip: object, long: object) -> None:
    """Onto the shared skinned avatars: the body kept above the floor
    (``footfall.retarget.body_floor``, ``target_body``) against the same retargeter without it,
    same run — the live step median and the offline apply of ``clip`` (the 2.3 s stepping
    clip), and the offline apply of ``long`` (it repeated to 60 s, 3,600 frames: the
    per-frame cost, as ``footfall retarget`` of a long take pays it), default settings."""
    from footfall.gltf import load_avatar
    from footfall.skinning import avatar_targets

    for name in ("CesiumMan", "RobotExpressive"):
        avatar = load_avatar(ROOT / "tests" / "data" / "avatars" / f"{name}.glb")
        mapping = avatar.target_mapping()
        figures = {}
        measured = avatar_targets(avatar, mapping)
        for label, body in (("without", None), ("with", measured["target_body"])):
            r = Retargeter(clip.skeleton, avatar.skeleton, None, mapping,  # type: ignore
                           target_rest=avatar.rest_rotations,
                           **{**measured, "target_body": body})
            r.calibrate_for(clip)  # type: ignore[arg-type]
            times = []
            for f in range(min(600, clip.frame_count)):  # type: ignore[attr-defined]
                wall0 = time.perf_counter()
                r.step(clip.rotations[f % clip.frame_count],  # type: ignore[attr-defined]
                       clip.positions[f % clip.frame_count], 1 / 60)  # type: ignore
                times.append(time.perf_counter() - wall0)
            wall, _ = best(lambda r=r: r.apply(clip), 5)  # type: ignore[misc]
            wall_long, _ = best(lambda r=r: r.apply(long), 5)  # type: ignore[misc]
            figures[label] = (statistics.median(times[20:]), wall, wall_long)
        (step0, apply0, long0), (step1, apply1, long1) = figures["without"], figures["with"]
        print(f"{name}: body above the floor: step {step0 * 1e3:.3f} → {step1 * 1e3:.3f} ms "
              f"({step1 / step0:.2f}×), apply {apply0 * 1e3:.1f} → {apply1 * 1e3:.1f} ms "
              f"({apply1 / apply0:.2f}×, {clip.duration / apply1:.0f}× real time)")  # type: ignore
        print(f"{name}: 60 s clip offline: {long0 * 1e3:.1f} → {long1 * 1e3:.1f} ms "
              f"({long1 / long0:.2f}×), {long.duration / long0:.0f}× → "  # type: ignore
              f"{long.duration / long1:.0f}× real time")  # type: ignore


if __name__ == "__main__":
    main()
