"""Run the mutation campaign by hand and print its table (docs/reliability.md shows the figures).

    PYTHONPATH=src python tests/fuzz/run_fuzz.py            # CI size, as tests/fuzz/test_fuzz.py
    PYTHONPATH=src python tests/fuzz/run_fuzz.py --long          # 3,000 cases per reader
    PYTHONPATH=src python tests/fuzz/run_fuzz.py --readers bvh,glb --cases 1000 --seed 7

Exit status 1 when any case is a defect or a hang (each is listed with its reader, seed and index,
which reproduce it: ``fuzz_readers.cases(reader, index + 1, seed)[index]``).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread per child: many children run

import fuzz_harness  # noqa: E402
import fuzz_readers  # noqa: E402

LONG_CASES = 3000


def campaign(names: list[str], count: int | None, seed: int, workers: int
             ) -> fuzz_harness.Tally:
    """Every reader's ``count`` cases (None: its CI count) run; the tally of their outcomes."""
    tally = fuzz_harness.Tally()
    readers = {name: fuzz_readers.READERS[name].read for name in names}
    all_cases = [case for name in names for case in
                 fuzz_readers.cases(name, count or fuzz_readers.ci_cases(name), seed)]
    for done, result in enumerate(fuzz_harness.run_cases(all_cases, readers, workers=workers),
                                  start=1):
        tally.add(result)
        if done % 100 == 0:  # a long run can be stopped and still report what it reached
            bad = len(tally.bad)
            print(f"progress: {done} of {len(all_cases)} cases, {bad} defects or hangs",
                  file=sys.stderr, flush=True)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", default=",".join(fuzz_readers.READERS),
                        help="comma-separated reader names (default: all)")
    parser.add_argument("--cases", type=int, default=None, help="cases per reader")
    parser.add_argument("--long", action="store_true", help=f"{LONG_CASES} cases per reader")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    count = args.cases or (LONG_CASES if args.long else None)
    names = [name for name in args.readers.split(",") if name]
    start = time.monotonic()
    tally = campaign(names, count, args.seed, args.workers)
    print(tally.table())
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"\n{sum(map(sum, (r.values() for r in tally.counts.values())))} cases in "
          f"{time.monotonic() - start:.0f} s on {args.workers} workers (seed {args.seed}); "
          f"{children.ru_utime + children.ru_stime:.0f} s of CPU time in the cases")
    for result in tally.bad:
        print(f"{result.outcome}: {result.case.reader} {result.case.name}: {result.detail}")
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main())
