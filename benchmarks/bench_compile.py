"""First-run compile time: how long a fresh install waits for the numba kernels, this tree
against a base commit, in the same run.

Run: ``.venv/bin/python benchmarks/bench_compile.py [--base 2fe8266] [--runs 2]``  (about 2 min).

Each measurement is a fresh process with an empty ``NUMBA_CACHE_DIR`` (what the first run
after installing sees), importing ``footfall`` from this tree or from the base commit unpacked
with ``git archive``:

- ``grounding``: the kernels the demo, ``walk``, ``ground`` and ``render`` prepare (FK, IK,
  rays; the base's ``kernels.prepare()``), then one ``StepWalker`` step on the course;
- ``retarget``: the kernels ``retarget`` and ``live`` prepare (this tree's ``retarget`` group),
  then one live ``Retargeter.step`` and an ``apply`` of 10 frames of mixamo_stepping.bvh — what a
  stream's first frame would otherwise wait for.

Printed: seconds until ready and the seconds the first real call still took (≈ 0 when the
preparation covered it), the CPU seconds of the whole process (imports included; steadier than
wall time when the machine is shared), and the ratio of the best totals to the base.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "tests" / "data" / "bvh" / "mixamo_stepping.bvh"

WORKER = r"""
import inspect, sys, time
start = time.perf_counter()
from footfall import kernels
case = sys.argv[1]
grouped = "groups" in inspect.signature(kernels.prepare).parameters
if case == "grounding":
    kernels.prepare(groups=("grounding",)) if grouped else kernels.prepare()
else:
    kernels.prepare(groups=("retarget",)) if grouped else kernels.prepare()
ready = time.perf_counter()
if case == "grounding":
    from footfall.bunny import bunny_skeleton
    from footfall.gait.stepping import StepWalker
    from footfall.terrain import scene
    StepWalker(bunny_skeleton(), scene("course"), 4, ik=True).step(1 / 60)
else:
    from footfall import bvh
    from footfall.retarget import Retargeter
    clip = bvh.load(sys.argv[2])
    Retargeter(clip.skeleton, clip.skeleton).step(clip.rotations[0], clip.positions[0])
    Retargeter(clip.skeleton, clip.skeleton).apply(clip[:10])
done = time.perf_counter()
print(f"{ready - start:.3f} {done - ready:.3f}")
"""


def _measure(src: Path, case: str) -> tuple[float, float, float]:
    """(seconds until the kernels are ready, seconds of the first real call, CPU seconds of the
    whole process) in a fresh process with an empty numba cache, ``footfall`` imported from
    ``src``. The CPU seconds are less disturbed by other work on a shared machine."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(src)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-c", WORKER, case, str(CLIP)], env=env,
                             capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ready, first = (float(v) for v in out.stdout.split())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return ready, first, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="2fe8266", help="commit to compare with ('' for none)")
    parser.add_argument("--runs", type=int, default=2, help="alternating runs per side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this": ROOT / "src"}
        if args.base:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base,
                                      "src/footfall"], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            trees = {"base": Path(tmp) / "src", **trees}
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
              f"base {args.base}; empty numba cache per run")
        print(f"{'case':10s} {'tree':5s} {'ready s':>8s} {'first call s':>13s} {'total s':>8s}"
              f" {'process CPU s':>14s}")
        totals: dict[tuple[str, str], list[float]] = {}
        for case in ("grounding", "retarget"):
            for _ in range(args.runs):
                for name, src in trees.items():
                    ready, first, cpu = _measure(src, case)
                    totals.setdefault((case, name), []).append(ready + first)
                    print(f"{case:10s} {name:5s} {ready:8.2f} {first:13.2f} {ready + first:8.2f}"
                          f" {cpu:14.2f}")
        for case in ("grounding", "retarget"):
            this = min(totals[(case, "this")])
            if "base" not in trees:
                print(f"{case}: best total {this:.2f} s")
                continue
            base = min(totals[(case, "base")])
            print(f"{case}: best total {this:.2f} s against {base:.2f} s (×{base / this:.2f})")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
