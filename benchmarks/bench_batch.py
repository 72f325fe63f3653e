"""Batch throughput: ``footfall batch ground`` over 200 clips with ``--jobs 1``, ``--jobs 2`` and
a Dask cluster of two single-thread workers, and the per-file overhead of each.

Run: ``.venv/bin/python benchmarks/bench_batch.py [--files 200]``  (about 1–2 minutes; needs
``footfall[cluster]`` for the Dask run).

Library: the three short shared clips (games105_walk60, mixamo_stepping, mocapbank_zxy_cm;
69–182 frames) copied round-robin into 200 files, grounded on the stairs scene. Each row's
``seconds`` is the job itself (parse, ground, write) timed inside its worker (``cpu_seconds`` its
thread's CPU time: a job whose wall time is far above it was descheduled by other load), so

    per-file overhead = (workers × wall − Σ job seconds) / files

is everything else per file: pool or cluster start-up shared out, pickling, scheduling, the
client's hashing, manifest line and summary rows, and the final summary.png. The ``--jobs 1``
run has no parallel part, so its overhead is the client's own serial cost per file, which caps
any cluster at 1 / that files per second. The scaling estimate for M machines of C cores is
``min(M·C / (job + Dask overhead), 1 / client overhead)``. The load average is printed because
other processes on a shared machine slow every figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from footfall.batch import JobSpec, run_batch

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ("games105_walk60.bvh", "mixamo_stepping.bvh", "mocapbank_zxy_cm.bvh")
SPEC = JobSpec("ground", ("--terrain", "stairs"))


def library(folder: Path, files: int) -> Path:
    """``files`` copies of the short clips, 50 to a sub-folder."""
    for index in range(files):
        target = folder / f"part{index // 50:02d}" / f"{index:04d}_{CLIPS[index % 3]}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "tests" / "data" / "bvh" / CLIPS[index % 3], target)
    return folder


def measure(name: str, inputs: Path, out: Path, workers: int, **options: object) -> dict:
    """Run one batch; its wall time, files/s, mean job seconds and per-file overhead."""
    start = time.perf_counter()
    result = run_batch([str(inputs)], out, SPEC, quiet=True, **options)
    wall = time.perf_counter() - start
    assert result.failed == 0, [r["error"] for r in result.rows if r["error"]][:3]
    files = len(result.rows)
    work = sum(row["seconds"] for row in result.rows)
    cpu = sum(row["cpu_seconds"] for row in result.rows)
    figures = {"name": name, "wall": wall, "rate": files / wall, "job": work / files,
               "cpu": cpu / files, "overhead": (workers * wall - work) / files}
    print(f"{name:<18}{wall:>8.2f} s{figures['rate']:>8.2f} files/s   job "
          f"{1000 * figures['job']:>6.1f} ms (CPU {1000 * figures['cpu']:>5.1f} ms)   overhead "
          f"{1000 * figures['overhead']:>6.1f} ms per file   load {os.getloadavg()[0]:.1f}",
          flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {args.files} files")
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        root = Path(scratch)
        inputs = library(root / "library", args.files)
        one = measure("--jobs 1", inputs, root / "one", 1, jobs=1)
        two = measure("--jobs 2", inputs, root / "two", 2, jobs=2)
        print(f"--jobs 2 / --jobs 1: {two['rate'] / one['rate']:.2f}× (target ≥ 1.8×)")
        if args.no_dask:
            return
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address=None) as cluster:
            dask = measure("Dask, 2 workers", inputs, root / "dask", 2,
                           scheduler=cluster.scheduler_address)
        print(f"Dask / --jobs 1: {dask['rate'] / one['rate']:.2f}×; Dask overhead "
              f"{1000 * dask['overhead']:.1f} ms per file (target ≤ 20 ms)")
        client = max(one["overhead"], 1e-6)
        print(f"client's serial cost {1000 * client:.1f} ms per file: at most "
              f"{1 / client:.0f} files/s whatever the cluster")
        for machines, cores in ((1, 2), (4, 8), (16, 16), (64, 32)):
            rate = min(machines * cores / (dask["job"] + dask["overhead"]), 1 / client)
            print(f"  estimate: {machines:>3} machines × {cores:>2} cores → {rate:>8.0f} files/s"
                  f" ({3600 * rate:,.0f} clips of this size an hour)")


if __name__ == "__main__":
    main()
