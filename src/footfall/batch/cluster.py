"""Running a batch's jobs on a Dask distributed cluster (``--scheduler tcp://HOST:8786``).

Workers need footfall installed (``pip install 'footfall[cluster]'``). With a shared filesystem
each worker reads its input and renames its output into the output folder itself; with
``ship_data`` the job carries the input's bytes and the result carries the output's, which the
client writes. A worker that dies mid-task is Dask's to handle: the scheduler reschedules its
tasks on the other workers (``distributed.scheduler.allowed-failures`` times, then the task
is an error row here). Jobs are submitted a window at a time so a large library never sits in
the scheduler's memory at once.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from dataclasses import replace
from pathlib import Path
from typing import Any

from footfall.batch.inputs import BatchError
from footfall.batch.jobs import Job, error_result, run_job

#: Seconds to wait for the scheduler to answer.
CONNECT_TIMEOUT_S = 30
#: Seconds the first plain TCP connection may take: a refused port or an unknown host fails
#: at once instead of after Dask's whole timeout.
PROBE_TIMEOUT_S = 5.0
#: Jobs in flight per worker thread (at least 64 in all).
WINDOW_PER_THREAD = 4
#: Dask's retries of a task that raised (a job itself never raises; its worker may fail).
RETRIES = 2


def _client(address: str):  # noqa: ANN202 - a distributed.Client
    try:
        from distributed import Client
    except ImportError:
        raise BatchError(
            "--scheduler needs Dask distributed: pip install 'footfall[cluster]'"
        ) from None
    _probe(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise BatchError(f"--scheduler {address}: cannot connect ({error})") from None


def _probe(address: str) -> None:
    """Raise :class:`BatchError` at once when the scheduler's TCP port refuses or its host is
    unknown (Dask's client would retry for :data:`CONNECT_TIMEOUT_S`); a slow network (no
    answer within :data:`PROBE_TIMEOUT_S`) is left to Dask."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme not in ("tcp", "tls"):
        return  # inproc://, ucx:// … : Dask's own
    try:
        host, port = parts.hostname, parts.port or 8786
    except ValueError:
        raise BatchError(f"--scheduler {address}: not HOST:PORT") from None
    if not host:
        raise BatchError(f"--scheduler {address}: no host")
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    except TimeoutError:
        return
    except OSError as error:
        raise BatchError(f"--scheduler {address}: cannot connect "
                         f"({error.strerror or error}); is the scheduler running?") from None


def run_cluster(jobs: list[Job], address: str, *, ship_data: bool = False
                ) -> Generator[tuple[Job, dict[str, Any]], None, None]:
    """Run ``jobs`` on the Dask cluster at ``address``; yields ``(job, result)`` as tasks end.

    With ``ship_data`` each job's input file is read when the job is submitted and sent along.
    """
    from distributed import as_completed

    client = _client(address)
    try:
        threads = sum(client.nthreads().values())
        if not threads:  # an adaptive cluster starts them on demand; Dask waits for them
            print(f"footfall batch: {address} has no worker yet; the tasks wait for one",
                  file=sys.stderr)
        window = max(64, WINDOW_PER_THREAD * threads)
        queue = iter(jobs)
        owner: dict[str, Job] = {}
        # a spec carrying file bytes (a terrain mesh, an avatar) goes to each worker once
        specs = {id(job.spec): job.spec for job in jobs if job.spec is not None and job.spec.files}
        shared = {key: client.scatter(spec, broadcast=True, hash=False)
                  for key, spec in specs.items()}
        unreadable: list[tuple[Job, dict[str, Any]]] = []

        def submit() -> Any:
            for job in queue:
                task = job
                if ship_data:  # the input's bytes read only now, a window at a time
                    try:
                        task = replace(job, input=Path(job.input).name,
                                       data=Path(job.input).read_bytes())
                    except OSError as error:
                        unreadable.append((job, error_result(
                            job, f"{job.input}: cannot read ({error.strerror})")))
                        continue
                if id(job.spec) in shared:
                    future = client.submit(run_job, replace(task, spec=None),
                                           shared[id(job.spec)], pure=False, retries=RETRIES)
                else:
                    future = client.submit(run_job, task, pure=False, retries=RETRIES)
                owner[future.key] = job
                return future
            return None

        first = [f for f in (submit() for _ in range(window)) if f is not None]
        completed = as_completed(first, loop=client.loop)
        for future in completed:
            job = owner.pop(future.key)
            try:
                result = future.result()
            except Exception as error:  # noqa: BLE001 - KilledWorker, lost data: one row
                result = error_result(job, f"Dask: {type(error).__name__}: {error}")
            future.release()
            follow = submit()
            if follow is not None:
                completed.add(follow)
            yield job, result
            while unreadable:
                yield unreadable.pop()
        while unreadable:
            yield unreadable.pop()
    finally:
        client.close()
