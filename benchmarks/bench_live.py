"""Live loop: latency from a NatNet packet received to its VMC datagrams sent, CPU share, drops.

Run: ``.venv/bin/python benchmarks/bench_live.py`` (about 100 s; ``--seconds 10`` for a quick
look at the 60 s run).

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
import os
import socket
import subprocess
import sys
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
    args = parser.parse_args()
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
