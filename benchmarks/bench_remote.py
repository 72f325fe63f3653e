"""Remote control under load: action round trips while the loop runs at 60 Hz, and the loop's
frame rate with 20 clients sending 50 messages a second each.

A 60 Hz loop steps two retargeted avatars over a BVH clip (``tests/remote_loop.py``, the same
loop the tests use) and runs the control service's actions between frames. Phases, in one run:

* ``idle``   baseline: the service up, no client — the loop's frame rate and frame time;
* ``rtt``    one client, requests one after another: round trip p50/p99 per action;
* ``elsewhere`` baseline under the same outside pressure: the 20 clients below talking to a
             bare websockets echo server in a third process (this loop's service idle);
* ``load``   20 clients in another process (as a StreamDeck or panels are), each sending
             ``updateValueRealtime`` at 50 messages/s and reading every reply and broadcast,
             while the single client measures round trips again.

Printed: frame rate and frame-interval p99 of each phase, the ratio ``load / idle``, the round
trips, CPU share of this process, and the load clients' counts (replies, broadcasts, errors).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_remote.py [--seconds 10]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from websockets.asyncio.client import connect

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from footfall.remote import ControlService  # noqa: E402
from remote_loop import ClipLoop, build_characters  # noqa: E402

REQUESTS = {
    "updateValueRealtime": {"character": "mixamo", "parameter": "head_scale", "value": 1.0},
    "getCharacterData": {"character": "mixamo"},
    "refresh": {},
    "setHandPosePreset": {"preset": "바위", "character": "cmu"},
}


def _frames(loop: ClipLoop, start: int, stop: int) -> tuple[float, float, float, float, float]:
    """Frame rate (Hz), frame-interval p99, frame-work p99, and the p50 and p99 of the time
    ``process_pending`` took (ms), of frames start:stop."""
    starts = np.array(loop.frame_starts[start:stop])
    gaps = np.diff(starts)
    steps = np.array(loop.step_seconds[start:stop - 1])
    pending = 1000 * np.array(loop.action_seconds[start:stop - 1])
    return (len(gaps) / (starts[-1] - starts[0]), 1000 * float(np.percentile(gaps, 99)),
            1000 * float(np.percentile(steps, 99)), float(np.percentile(pending, 50)),
            float(np.percentile(pending, 99)))


async def _round_trips(url: str, seconds: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in REQUESTS}
    names = list(REQUESTS)
    async with connect(url) as ws:
        end = time.perf_counter() + seconds
        count = 0
        while time.perf_counter() < end:
            name = names[count % len(names)]
            fields = dict(REQUESTS[name])
            if name == "updateValueRealtime":
                fields["value"] = round(random.uniform(0.8, 1.2), 4)
            count += 1
            start = time.perf_counter()
            await ws.send(json.dumps({"action": name, "id": count, **fields}))
            while True:
                answer = json.loads(await ws.recv())
                if answer.get("id") == count and answer["type"] != "broadcast":
                    break
            times[name].append(time.perf_counter() - start)
            await asyncio.sleep(0.02)
    return times


async def _load_clients(url: str, clients: int, rate: float, seconds: float) -> dict:
    """``clients`` connections sending ``rate`` updates a second each for ``seconds``."""
    counts = {"sent": 0, "replies": 0, "broadcasts": 0, "errors": 0}

    async def one(index: int) -> None:
        async with connect(url) as ws:
            async def reader() -> None:
                async for text in ws:
                    kind = json.loads(text)["type"]
                    key = {"reply": "replies", "broadcast": "broadcasts"}.get(kind, "errors")
                    counts[key] += 1

            reading = asyncio.create_task(reader())
            character = ("mixamo", "cmu")[index % 2]
            period = 1.0 / rate
            deadline = time.perf_counter() + random.uniform(0, period)
            end = time.perf_counter() + seconds
            n = 0
            while deadline < end:
                await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
                n += 1
                await ws.send(json.dumps({
                    "action": "updateValueRealtime", "id": n, "character": character,
                    "parameter": "foot_height_low", "value": round(random.uniform(0.2, 0.4), 4)}))
                counts["sent"] += 1
                deadline += period
            await asyncio.sleep(0.5)  # the last replies
            reading.cancel()

    await asyncio.gather(*(one(i) for i in range(clients)))
    return counts


async def _echo_server(seconds: float) -> None:
    """A bare websockets server in another process: a reply to every message and two
    broadcasts a frame to everyone, the traffic the control service makes, none of its work."""
    from websockets.asyncio.server import broadcast, serve

    clients = set()

    async def handler(ws) -> None:
        clients.add(ws)
        try:
            async for text in ws:
                request = json.loads(text)
                await ws.send(json.dumps({"type": "reply", "action": request["action"],
                                          "id": request["id"], "ok": True, "result": request}))
        finally:
            clients.discard(ws)

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"ws://127.0.0.1:{port}/retargeting", flush=True)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for character in ("mixamo", "cmu"):
                broadcast(clients, json.dumps({"type": "broadcast", "character": character,
                                               "values": {"foot_height_low": 0.3}}))
            await asyncio.sleep(1 / 60)


def _summary(times: dict[str, list[float]]) -> str:
    parts = []
    for name, values in times.items():
        if values:
            ms = np.array(values) * 1000
            parts.append(f"{name} p50 {np.percentile(ms, 50):.1f} / p99 {np.percentile(ms, 99):.1f}"
                         f" ms (n={len(ms)})")
    everything = np.concatenate([np.array(v) for v in times.values() if v]) * 1000
    parts.append(f"ALL p50 {np.percentile(everything, 50):.1f} / p99 "
                 f"{np.percentile(everything, 99):.1f} ms")
    return "\n    ".join(parts)


def _start_load(url: str, args: argparse.Namespace) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, __file__, "--load-only", url, "--clients",
                             str(args.clients), "--rate", str(args.rate), "--seconds",
                             str(args.seconds)], stdout=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--load-only", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--echo-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_only:
        asyncio.run(_echo_server(args.seconds + 5))
        return 0
    if args.load_only:
        counts = asyncio.run(_load_clients(args.load_only, args.clients, args.rate,
                                           args.seconds))
        print(json.dumps(counts))
        return 0

    clip, characters = build_characters()
    service = ControlService(port=0, max_clients=args.clients + 4).start()
    loop = ClipLoop(clip, characters, service).start()
    try:
        time.sleep(1.0)  # warm up
        cpu, wall, first = time.process_time(), time.perf_counter(), loop.frame
        time.sleep(args.seconds)
        idle = _frames(loop, first, loop.frame)
        idle_cpu = (time.process_time() - cpu) / (time.perf_counter() - wall)

        first = loop.frame
        rtt = asyncio.run(_round_trips(service.url, args.seconds))
        rtt_frames = _frames(loop, first, loop.frame)

        # Baseline under the same outside pressure: the clients talk to a bare echo server
        # in another process, while this loop runs with its service idle.
        echo = subprocess.Popen([sys.executable, __file__, "--echo-only", "--seconds",
                                 str(args.seconds)], stdout=subprocess.PIPE, text=True)
        echo_url = echo.stdout.readline().strip()
        load = _start_load(echo_url, args)
        time.sleep(1.0)
        first = loop.frame
        time.sleep(args.seconds - 2.0)
        elsewhere = _frames(loop, first, loop.frame)
        load.communicate(timeout=args.seconds + 30)
        echo.wait(timeout=30)

        load = _start_load(service.url, args)
        time.sleep(1.0)  # clients connected and sending
        before_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, wall, first = time.process_time(), time.perf_counter(), loop.frame
        loaded_rtt = asyncio.run(_round_trips(service.url, args.seconds - 2.0))
        loaded = _frames(loop, first, loop.frame)
        loaded_cpu = (time.process_time() - cpu) / (time.perf_counter() - wall)
        out, _ = load.communicate(timeout=args.seconds + 30)
        counts = json.loads(out.strip().splitlines()[-1])
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_cpu = ((children.ru_utime + children.ru_stime) - (before_children.ru_utime
                    + before_children.ru_stime)) / (args.seconds + 1.0)
    finally:
        loop.stop()
        service.stop()
    assert not loop.errors, loop.errors

    print(f"remote control benchmark: 60 Hz loop, 2 avatars, {args.seconds:g} s per phase")
    print(f"  idle (baseline): {idle[0]:.2f} Hz, frame interval p99 {idle[1]:.1f} ms, "
          f"loop work p99 {idle[2]:.2f} ms, process_pending p50 {idle[3]:.3f} / p99 "
          f"{idle[4]:.3f} ms, this process {100 * idle_cpu:.1f} % of a core")
    print(f"  one client:      {rtt_frames[0]:.2f} Hz, frame interval p99 {rtt_frames[1]:.1f} ms")
    print(f"    round trip {_summary(rtt)}")
    print(f"  {args.clients} clients × {args.rate:g} msg/s: {loaded[0]:.2f} Hz, frame interval p99 "
          f"{loaded[1]:.1f} ms, loop work p99 {loaded[2]:.2f} ms, process_pending p50 "
          f"{loaded[3]:.3f} / p99 {loaded[4]:.3f} ms, this process {100 * loaded_cpu:.1f} % "
          f"of a core (the clients' process {100 * load_cpu:.0f} %)")
    print(f"    round trip {_summary(loaded_rtt)}")
    rate = counts["sent"] / args.seconds
    print(f"    load clients: sent {counts['sent']} ({rate:.0f}/s), replies {counts['replies']}, "
          f"broadcasts {counts['broadcasts']}, errors {counts['errors']}; service counts "
          f"{service.counts}")
    print(f"  the same clients on a bare echo server in another process: {elsewhere[0]:.2f} Hz, "
          f"frame interval p99 {elsewhere[1]:.1f} ms")
    print(f"  frame rate under load / idle: {loaded[0] / idle[0]:.3f}; / the same load elsewhere: "
          f"{loaded[0] / elsewhere[0]:.3f}")
    medians = [statistics.median(v) for v in rtt.values() if v]
    print(f"  median round trip / frame period: {1000 * statistics.median(medians) / 16.667:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
