"""Live ``step`` per avatar, and the live loop: latency from a NatNet packet received to its VMC
datagrams sent, CPU share, drops.

Run: ``.venv/bin/python benchmarks/bench_live.py`` (about 2 min; ``--seconds 10`` for a quick
look at the 60 s run; ``--steps-only`` for the first table alone, about 20 s).

Steps (issue 35 item 6): ``Retargeter.step`` of ``tests/data/bvh/games105_walk60.bvh``
resampled to 240 Hz (``dt`` = 1/240 s) onto each of four avatars — CesiumMan, RobotExpressive
and the two VRM samples, built as ``footfall live`` builds them (skinned soles, hands and body
where the avatar has a skin; default settings), calibrated on the clip — the median wall time of
:data:`STEP_CALLS` calls after :data:`STEP_WARM_UP` warm-up calls. Baseline in the same run: the
same clip stepped onto its own skeleton (a bare BVH rig: no mesh, no body guard), so each ratio
says what an avatar costs over the retargeter's core work. ``--base COMMIT [--rounds 3]`` times
the same steps on that commit's package (``git archive`` of its ``src`` in a temporary folder,
as ``bench_retarget.py`` does) and this tree, each in a fresh subprocess, alternating rounds,
and prints base ÷ this tree per avatar (≥ 1: this tree is as fast). Target: ≤ 0.25 ms median
per step on a skinned avatar.

Setup: ``footfall natnet-serve tests/data/bvh/games105_walk60.bvh`` in its own process on
127.0.0.1 (NatNet 4.1, local bone poses) streams at 240 Hz (120 Hz for the CPU run); in this
process ``LiveLoop`` with the NatNet client retargets every frame onto 1, 4 or 8 avatars
(CesiumMan.glb and RobotExpressive.glb alternating, default settings: IK auto, filter on) and
sends each avatar over VMC to its own UDP port on 127.0.0.1. Latency is measured per frame from
the moment the client read the packet (``perf_counter`` on the network thread) to the moment the
last avatar's VMC datagrams were sent. Frames dropped = numbers missing in the stream (network)
+ frames the loop replaced before taking them. CPU share = this process's CPU time / wall time
(the network thread included; the server's process not).

Baseline in the same run: the same frames, ``Retargeter.step`` + VMC encoding + ``sendto`` for
the same avatars called directly in a tight loop (no network, no threads): the work the loop
cannot avoid. The ratio loop / baseline is the loop's own overhead (waiting for the GIL, the
network thread, the hand-over).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.commands.live import SWITCH_INTERVAL
from footfall.live.loop import LiveLoop, load_target
from footfall.live.motive import ClipStream, MotiveSkeleton
from footfall.live.natnet_client import NatNetClient
from footfall.live.vmc import VmcPose, VmcSender
from footfall.retarget import Retargeter

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "tests" / "data" / "bvh" / "games105_walk60.bvh"
AVATARS = [ROOT / "tests" / "data" / "avatars" / "CesiumMan.glb",
           ROOT / "tests" / "data" / "avatars" / "RobotExpressive.glb"]
STEP_AVATARS = [*AVATARS, ROOT / "tests" / "data" / "avatars" / "vrm1_debug_robot.vrm",
                ROOT / "tests" / "data" / "avatars" / "vrm1_mtoon_uv_test.vrm"]
STEP_RATE = 240.0
STEP_CALLS = 1200
STEP_WARM_UP = 200
STEP_TARGET_MS = 0.25  # issue 35: live step with a skinned avatar


def step_median(r: Retargeter, clip: object) -> float:
    """Median wall seconds of ``r.step`` over :data:`STEP_CALLS` frames of ``clip`` at
    :data:`STEP_RATE` after :data:`STEP_WARM_UP` calls (the first compiles or loads kernels)."""
    rotations, positions = clip.rotations, clip.positions  # type: ignore[attr-defined]
    frames = len(rotations)
    for f in range(STEP_WARM_UP):
        r.step(rotations[f % frames], positions[f % frames], 1 / STEP_RATE)
    times = []
    for f in range(STEP_WARM_UP, STEP_WARM_UP + STEP_CALLS):
        start = time.perf_counter()
        r.step(rotations[f % frames], positions[f % frames], 1 / STEP_RATE)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def step_medians() -> dict[str, float]:
    """Seconds per ``step``: ``"bare rig"`` (the clip onto its own skeleton, the baseline) and
    each of :data:`STEP_AVATARS` by its file stem."""
    clip = bvh.load(CLIP).resample(STEP_RATE)
    bare = Retargeter(clip.skeleton, clip.skeleton)
    bare.calibrate_for(clip)
    out = {"bare rig": step_median(bare, clip)}
    for path in STEP_AVATARS:
        spec = load_target(path)
        r = Retargeter(clip.skeleton, spec.skeleton, None, spec.mapping, target_rest=spec.rest,
                       target_feet=spec.feet, target_hands=spec.hands, target_body=spec.body)
        r.calibrate_for(clip)
        out[path.stem] = step_median(r, clip)
    return out


def print_steps() -> None:
    """The step table of this tree against the bare rig measured in the same run."""
    medians = step_medians()
    base = medians["bare rig"]
    print(f"live step at {STEP_RATE:g} Hz, median of {STEP_CALLS} calls; ratio = avatar ÷ bare "
          f"rig (same run); load average {os.getloadavg()[0]:.2f}")
    for name, seconds in medians.items():
        mark = "" if name == "bare rig" or seconds * 1e3 <= STEP_TARGET_MS else "  > target"
        print(f"  {name:22s}{seconds * 1e3:8.3f} ms  ×{seconds / base:5.2f}{mark}")
    print(f"target: ≤ {STEP_TARGET_MS} ms per step on a skinned avatar")


def base_tree(commit: str) -> Path:
    """The ``src`` folder of ``commit``, exported once to a temporary folder (kept between
    runs, so its numba cache is too; a branch name is resolved to its commit first)."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", commit],
                            capture_output=True, text=True, check=True).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"footfall_base_{commit}"
    if not (folder / "src" / "footfall").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def compare_steps(commit: str, rounds: int) -> None:
    """Step medians of ``commit``'s package and this tree, alternating fresh subprocesses."""
    sides = {commit: base_tree(commit), "this tree": ROOT / "src"}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, source in sides.items():
            done = subprocess.run([sys.executable, __file__, "--json"], capture_output=True,
                                  text=True, check=True,
                                  env={**os.environ, "PYTHONPATH": str(source)})
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"live step at {STEP_RATE:g} Hz, {rounds} rounds, base {commit} and this tree "
          f"alternating; best round of each (ms); ratio = base ÷ this tree (best rounds, and "
          f"the median of each round's pair); load average {os.getloadavg()[0]:.2f}")
    for key in runs[commit][0]:
        base = min(run[key] for run in runs[commit])
        this = min(run[key] for run in runs["this tree"])
        paired = statistics.median(b[key] / t[key]
                                   for b, t in zip(runs[commit], runs["this tree"], strict=True))
        print(f"  {key:22s} base {base * 1e3:7.3f}  this {this * 1e3:7.3f}  "
              f"ratio {base / this:.3f}  paired {paired:.3f}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sinks(count: int) -> list[socket.socket]:
    out = []
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        out.append(s)
    return out


def run_loop(avatars: int, rate: float, seconds: float, tmp: Path) -> dict:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "footfall.cli", "natnet-serve", str(CLIP), "--command-port",
         str(port), "--rate", str(rate), "--duration", str(seconds + 120)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    receivers = sinks(avatars)
    try:
        time.sleep(1.0)
        targets = [load_target(AVATARS[i % 2]) for i in range(avatars)]
        client = NatNetClient("127.0.0.1", command_port=port, data_port=0)
        loop = LiveLoop(client, targets, settings_folder=tmp)
        loop.vmc = [(name, VmcSender(r.getsockname())) for name, r in
                    zip(loop.names, receivers, strict=True)]
        client.start()
        deadline = time.monotonic() + 5
        while not loop.characters() and time.monotonic() < deadline:  # warm up: build
            loop.run(duration=0.5, stop_source=False)
        loop.stats.latency.clear()
        start_frames, start_dropped = loop.stats.frames, client.status.dropped
        start_over = client.status.overwritten
        wall, cpu = time.perf_counter(), time.process_time()
        loop.run(duration=seconds)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        server.terminate()
        server.wait(10)
        for r in receivers:
            r.close()
    latency = np.array(loop.stats.latency) * 1000
    return {"frames": loop.stats.frames - start_frames, "wall": wall, "cpu": cpu / wall,
            "dropped": client.status.dropped - start_dropped,
            "skipped": client.status.overwritten - start_over,
            "median": float(np.median(latency)), "p99": float(np.percentile(latency, 99)),
            "max": float(latency.max())}


def baseline(avatars: int, frames: int = 600) -> dict:
    """Retarget + encode + send for the same avatars, called directly (ms per frame)."""
    clip = bvh.load(CLIP)
    stream = ClipStream.build(clip)
    motive = MotiveSkeleton.from_description(stream.description)
    receivers = sinks(avatars)
    senders, rigs = [], []
    for i in range(avatars):
        target = load_target(AVATARS[i % 2])
        r = Retargeter(motive.skeleton, target.skeleton, motive.mapping, target_rest=target.rest)
        rigs.append((r, VmcPose(target.skeleton, r.target_map)))
        senders.append(VmcSender(receivers[i].getsockname()))
    times = []
    for f in range(frames):
        rot, pos, _ = motive.pose(stream.pose(f % clip.frame_count))
        start = time.perf_counter()
        for (r, vmc), sender in zip(rigs, senders, strict=True):
            out = r.step(rot, pos, 1 / 240)
            sender.send(vmc.datagrams(*out, f / 240))
        times.append(time.perf_counter() - start)
    for r in receivers:
        r.close()
    times_ms = np.array(times[100:]) * 1000
    return {"median": float(np.median(times_ms)), "p99": float(np.percentile(times_ms, 99))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="length of the 4-avatar drop run (default 60)")
    parser.add_argument("--steps-only", action="store_true",
                        help="only the per-avatar step table (no network loop)")
    parser.add_argument("--base", default="", help="commit to time the steps against")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds with --base")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(step_medians()))
        return
    if args.base:
        compare_steps(args.base, args.rounds)
        return
    print_steps()
    if args.steps_only:
        return
    sys.setswitchinterval(SWITCH_INTERVAL)  # as `footfall live` does
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_live_{os.getpid()}"
    tmp.mkdir(exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f} (2 shared cores slow every figure)")
    print(f"{'run':<28}{'frames':>8}{'Hz':>8}{'median':>9}{'p99':>8}{'max':>8}{'base med':>10}"
          f"{'base p99':>10}{'×base':>7}{'dropped':>9}{'skipped':>9}{'CPU':>7}")
    runs = [("1 avatar, 240 Hz", 1, 240, 15.0), ("4 avatars, 240 Hz", 4, 240, args.seconds),
            ("8 avatars, 240 Hz", 8, 240, 15.0), ("1 avatar, 120 Hz (CPU)", 1, 120, 15.0)]
    for label, avatars, rate, seconds in runs:
        base = baseline(avatars)
        result = run_loop(avatars, rate, seconds, tmp)
        print(f"{label:<28}{result['frames']:>8}{result['frames'] / result['wall']:>8.1f}"
              f"{result['median']:>8.2f}m{result['p99']:>7.2f}m{result['max']:>7.1f}m"
              f"{base['median']:>9.2f}m{base['p99']:>9.2f}m"
              f"{result['median'] / base['median']:>7.2f}{result['dropped']:>9}"
              f"{result['skipped']:>9}{100 * result['cpu']:>6.1f}%", flush=True)
    print("targets: p99 ≤ 2 ms (1 avatar), ≤ 5 ms (4); 240 Hz with 4 avatars and no dropped "
          "frame; ≤ 25 % of one core at 120 Hz with one avatar")


if __name__ == "__main__":
    main()
