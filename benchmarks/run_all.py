"""Run every footfall benchmark (or the ones named) one after another and print their reports.

Usage: ``python benchmarks/run_all.py [bvh rays ik grounding gait retarget viewer]``.
Each benchmark measures its own baseline in the same run and prints ratios; this script only
runs them in sequence so one command gives the whole picture (see docs/benchmarks.md).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOUNDATION = ["bvh", "rays", "ik"]


def available() -> list[str]:
    """Names of the benchmark scripts in this folder (``bench_<name>.py``)."""
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def main(argv: list[str]) -> int:
    names = argv or available()
    unknown = [n for n in names if n not in available()]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; have: {', '.join(available())}")
        return 2
    failed = []
    for name in names:
        print(f"\n=== bench_{name}.py ===", flush=True)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(HERE / f"bench_{name}.py")], check=False)
        print(f"=== bench_{name}.py finished in {time.perf_counter() - start:.1f} s "
              f"(exit {done.returncode}) ===", flush=True)
        if done.returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
