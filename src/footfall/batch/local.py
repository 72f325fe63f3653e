"""Running a batch's jobs on this machine: in this process (``--jobs 1``) or a process pool.

A worker process that dies (out of memory, a crash in native code) breaks the pool; the pool
is made again and the jobs that were running get one more try each, so a file that kills its
worker twice becomes an error row and the batch goes on.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Generator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from footfall.batch.jobs import Job, error_result, run_job

#: Tries a job gets when its worker process dies under it.
TRIES = 2


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: Native thread pools held to one thread in each worker (the pool is the parallelism), as
#: Dask's nanny does for its workers; a value the user set is kept.
SINGLE_THREAD_ENVIRON = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _pool(workers: int) -> ProcessPoolExecutor:
    for name in SINGLE_THREAD_ENVIRON:  # read by the workers' numpy when it loads
        os.environ.setdefault(name, "1")
    # forkserver: workers never inherit the parent's threads (tqdm's monitor, Dask's loop)
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))


def run_local(jobs: list[Job], workers: int) -> Generator[tuple[Job, dict[str, Any]], None, None]:
    """Run ``jobs`` on ``workers`` processes; yields ``(job, result)`` as each one finishes."""
    if workers <= 1:
        for job in jobs:
            yield job, run_job(job)
        return
    pending = deque(jobs)
    tries: dict[int, int] = {}
    running: dict[Future, Job] = {}
    executor = _pool(workers)
    try:
        while pending or running:
            while pending and len(running) < 2 * workers:
                job = pending.popleft()
                running[executor.submit(run_job, job)] = job
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                job = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    tries[id(job)] = tries.get(id(job), 1) + 1
                    if tries[id(job)] <= TRIES:
                        pending.appendleft(job)
                        continue
                    result = error_result(
                        job, "its worker process died twice (out of memory or a crash)")
                yield job, result
            if broken:
                for job in running.values():  # failed with the pool, not by themselves
                    pending.appendleft(job)
                running.clear()
                executor.shutdown(wait=False, cancel_futures=True)
                executor = _pool(workers)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
