"""Batch throughput: ``footfall batch ground`` over 200 clips with ``--jobs 1``, ``--jobs 2`` and
a Dask cluster of two single-thread workers, and the per-file overhead of each.

Run: ``.venv/bin/python benchmarks/bench_batch.py [--files 200]``  (about 2–3 minutes on a
quiet machine; needs ``footfall[cluster]`` for the Dask run).

Library: the three short shared clips (games105_walk60, mixamo_stepping, mocapbank_zxy_cm;
69–182 frames) copied round-robin into 200 files, grounded on the stairs scene. Each row's
``seconds`` is the job itself (parse, ground, write) timed inside its worker (``cpu_seconds`` its
thread's CPU time: a job whose wall time is far above it was descheduled by other load), so

    per-file overhead = (workers × wall − Σ job seconds) / files

is everything else per file: pool or cluster start-up shared out, pickling, scheduling, the
client's hashing, manifest line and summary rows, and the final summary.png. Each configuration
also runs a 50-file library; the difference between the two gives the *marginal* overhead per
file (start-up and the final summary taken out, reported once as "s once"). The ``--jobs 1``
run has no parallel part, so its marginal overhead is the client's own serial cost per file,
which caps any cluster at 1 / that files per second. The scaling estimate for M machines of C
cores is ``min(M·C / (job CPU time + Dask marginal overhead), 1 / client cost)``, the job's
CPU time (from the ``--jobs 1`` run) standing for its wall time on a quiet core. The load
average is printed because other processes on a shared machine slow every figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from footfall.batch import JobSpec, run_batch
from footfall.grounding.clip.files import GroundOptions

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ("games105_walk60.bvh", "mixamo_stepping.bvh", "mocapbank_zxy_cm.bvh")
SPEC = JobSpec("ground", GroundOptions("stairs"))


def library(folder: Path, files: int) -> Path:
    """``files`` copies of the short clips, 50 to a sub-folder."""
    for index in range(files):
        target = folder / f"part{index // 50:02d}" / f"{index:04d}_{CLIPS[index % 3]}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "tests" / "data" / "bvh" / CLIPS[index % 3], target)
    return folder


def measure(name: str, inputs: Path, out: Path, workers: int, **options: object) -> dict:
    """Run one batch; its wall time, files/s, mean job seconds and overhead beyond the jobs."""
    start = time.perf_counter()
    result = run_batch([str(inputs)], out, SPEC, quiet=True, **options)
    wall = time.perf_counter() - start
    assert result.failed == 0, [r["error"] for r in result.rows if r["error"]][:3]
    files = len(result.rows)
    work = sum(row["seconds"] for row in result.rows)
    cpu = sum(row["cpu_seconds"] for row in result.rows)
    return {"files": files, "wall": wall, "rate": files / wall, "job": work / files,
            "cpu": cpu / files, "beyond": workers * wall - work}


def configuration(name: str, small: Path, large: Path, out: Path, workers: int,
                  **options: object) -> dict:
    """The large batch's figures plus the marginal overhead per file from the small one."""
    few = measure(name, small, out / "small", workers, **options)
    many = measure(name, large, out / "large", workers, **options)
    many["overhead"] = many["beyond"] / many["files"]
    many["marginal"] = (many["beyond"] - few["beyond"]) / (many["files"] - few["files"])
    many["fixed"] = few["beyond"] - many["marginal"] * few["files"]
    print(f"{name:<16}{many['wall']:>7.1f} s{many['rate']:>7.2f} files/s   job "
          f"{1000 * many['job']:>5.0f} ms (CPU {1000 * many['cpu']:>4.0f})   overhead "
          f"{1000 * many['overhead']:>5.1f} ms/file, marginal {1000 * many['marginal']:>5.1f} "
          f"ms/file + {many['fixed']:.2f} s once   load {os.getloadavg()[0]:.1f}", flush=True)
    return many


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--small", type=int, default=50,
                        help="the smaller library whose difference gives the marginal overhead")
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {args.files} files "
          f"(and {args.small} for the marginal overhead)")
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        root = Path(scratch)
        small = library(root / "small", args.small)
        large = library(root / "large", args.files)
        one = configuration("--jobs 1", small, large, root / "one", 1, jobs=1)
        two = configuration("--jobs 2", small, large, root / "two", 2, jobs=2)
        print(f"--jobs 2 / --jobs 1: {two['rate'] / one['rate']:.2f}× files/s (target ≥ 1.8×)")
        if args.no_dask:
            return
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address=None) as cluster:
            dask = configuration("Dask, 2 workers", small, large, root / "dask", 2,
                                 scheduler=cluster.scheduler_address)
        print(f"Dask / --jobs 1: {dask['rate'] / one['rate']:.2f}× files/s; Dask overhead "
              f"{1000 * dask['marginal']:.1f} ms per file marginal, "
              f"{1000 * dask['overhead']:.1f} ms with start-up and summary (target ≤ 20 ms)")
        client = max(one["marginal"], 1e-4)
        print(f"client's serial cost {1000 * client:.1f} ms per file (the --jobs 1 marginal "
              f"overhead): at most {1 / client:.0f} files/s whatever the cluster")
        for machines, cores in ((1, 2), (4, 8), (16, 16), (64, 32)):
            rate = min(machines * cores / (one["cpu"] + dask["marginal"]), 1 / client)
            print(f"  estimate: {machines:>3} machines × {cores:>2} cores → {rate:>7.0f} files/s"
                  f" ({3600 * rate:>11,.0f} clips of this size an hour)")


if __name__ == "__main__":
    main()
