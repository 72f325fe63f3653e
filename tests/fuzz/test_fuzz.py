"""The mutation campaign at CI size: a few hundred fixed-seed cases per reader, each in a child
process under a time and memory limit; every one must be read or refused cleanly (no defect, no
hang). ``tests/fuzz/run_fuzz.py --long`` runs thousands per reader by hand."""

from __future__ import annotations

import os

import fuzz_readers
import pytest
from fuzz_harness import Tally, run_cases


@pytest.mark.parametrize("name", sorted(fuzz_readers.READERS))
def test_every_mutated_input_is_read_or_refused_cleanly(name: str) -> None:
    count = int(os.environ.get("FOOTFALL_FUZZ_CASES", fuzz_readers.ci_cases(name)))
    tally = Tally()
    cases = fuzz_readers.cases(name, count, seed=0)
    for result in run_cases(cases, {name: fuzz_readers.READERS[name].read}):
        tally.add(result)
    row = tally.counts[name]
    assert sum(row.values()) == count
    report = "\n".join(f"{r.outcome}: {r.case.name}: {r.detail}" for r in tally.bad[:10])
    assert row["defect"] == 0 and row["hang"] == 0, report
    # The campaign exercises both sides: some inputs read, many refused.
    assert row["ok"] > 0 and row["clean"] > 0


def test_cases_are_deterministic() -> None:
    first = fuzz_readers.cases("bvh", 5, seed=3)
    again = fuzz_readers.cases("bvh", 5, seed=3)
    assert [c.data for c in first] == [c.data for c in again]
    assert len({c.data for c in first}) == 5


def test_the_harness_sees_hangs_crashes_and_garbage(tmp_path) -> None:
    """A harness that cannot fail proves nothing: a hang, a traceback, an error naming no file,
    garbage, a stray warning, a memory blow-up and a megabyte message are each classified as
    such."""
    import time
    import warnings

    import numpy as np
    from fuzz_harness import Case, Garbage

    from footfall.errors import BVHError

    def hang(path):
        time.sleep(60)

    def spin(path):
        while True:
            pass

    def traceback(path):
        raise KeyError("x")

    def nameless(path):
        raise BVHError("something is wrong")

    def garbage(path):
        raise Garbage("NaN came out")

    def warns(path):
        warnings.warn("overflow", RuntimeWarning, stacklevel=1)

    def greedy(path):
        np.ones(1 << 34)  # 128 GiB

    def shouts(path):
        raise BVHError(f"{path}, line 1: found {'1' * 1_000_000!r}")

    def clean(path):
        raise BVHError(f"{path}, line 1: bad")

    readers = {f.__name__: f
               for f in (hang, spin, traceback, nameless, garbage, warns, greedy, shouts, clean)}
    cases = [Case(name, "x.bvh", b"") for name in readers]
    outcomes = {r.case.reader: r.outcome
                for r in run_cases(cases, readers, seconds=1, wall_seconds=4)}
    assert outcomes == {"hang": "hang", "spin": "hang", "traceback": "defect", "nameless": "defect",
                        "garbage": "defect", "warns": "defect", "greedy": "defect",
                        "shouts": "defect", "clean": "clean"}
