"""Run readers on hostile inputs, each case in its own child process under a time and memory limit.

A case is a file's bytes and a reader: a function that reads the file the way footfall does and
checks what came out. Each case runs in a forked child (so a hang or a runaway allocation cannot
touch the test run) with ``RLIMIT_AS`` and ``RLIMIT_CPU`` set, and is sorted into one outcome:

- ``ok``: read without complaint, and the reader's checks of the result passed;
- ``clean``: a :class:`footfall.errors.FootfallError` of one line (at most
  :data:`MAX_MESSAGE_CHARS`) naming the file;
- ``defect``: anything else — another exception (a traceback at the command line), an error that
  names nothing, a result that fails the reader's checks (NaN, a broken written file), a warning
  from a library (numpy, trimesh, pygltflib), a crash or running out of memory;
- ``hang``: still running at the CPU-time limit (SIGXCPU) or at the wall-time limit (killed).

Written by hand (not hypothesis or atheris): every case must be isolated in a killable process
with resource limits and be reproducible from (reader, seed, index) alone.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import shutil
import signal
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

#: Seconds of CPU time a case may take before it counts as a hang (CPU time, not wall time,
#: so a busy shared machine does not turn slow cases into hangs).
CASE_SECONDS = 10.0
#: Wall time, as a multiple of the CPU limit, after which a case that sleeps or blocks is killed.
WALL_FACTOR = 6.0
#: Bytes of address space a case may use (a runaway allocation fails with MemoryError).
CASE_MEMORY = 3 << 30

#: Longest error message that counts as one line (an input's giant token echoed in full fills a
#: terminal: the 50 MB number that once came back in a 50 MB message).
MAX_MESSAGE_CHARS = 10_000

OUTCOMES = ("ok", "clean", "defect", "hang")


class Garbage(AssertionError):
    """A reader's check of a result failed: the input was accepted but the output is wrong."""


@dataclass(frozen=True)
class Case:
    """One input: ``data`` written to a file named ``name`` and given to reader ``reader``."""

    reader: str
    name: str
    data: bytes


@dataclass(frozen=True)
class Result:
    """What one case did: an outcome of :data:`OUTCOMES`, a one-line detail and the seconds."""

    case: Case
    outcome: str
    detail: str
    seconds: float


@dataclass
class Tally:
    """Counts of outcomes per reader, and the first few defects and hangs for the report."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    bad: list[Result] = field(default_factory=list)

    def add(self, result: Result) -> None:
        row = self.counts.setdefault(result.case.reader, dict.fromkeys(OUTCOMES, 0))
        row[result.outcome] += 1
        if result.outcome in ("defect", "hang"):
            self.bad.append(result)

    def table(self) -> str:
        """A Markdown table: reader, cases, read, clean errors, defects, hangs."""
        lines = ["| reader | cases | read | clean errors | defects | hangs |",
                 "|---|---:|---:|---:|---:|---:|"]
        total = dict.fromkeys(OUTCOMES, 0)
        for reader, row in sorted(self.counts.items()):
            lines.append(f"| {reader} | {sum(row.values())} | {row['ok']} | {row['clean']} | "
                         f"{row['defect']} | {row['hang']} |")
            for key in OUTCOMES:
                total[key] += row[key]
        lines.append(f"| **all** | {sum(total.values())} | {total['ok']} | {total['clean']} | "
                     f"{total['defect']} | {total['hang']} |")
        return "\n".join(lines)


def _limit_child(memory: int, seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = max(1, int(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))


def _child(read: Callable[[Path], None], path: Path, sender: Connection, memory: int,
           seconds: float) -> None:
    """Body of the child process: read ``path``, send back (outcome, detail)."""
    from footfall.errors import FootfallError

    _limit_child(memory, seconds)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            read(path)
        stray = [w for w in caught if not _is_footfall_warning(w)]
        if stray:
            w = stray[0]
            answer = ("defect", f"warning {w.category.__name__} ({w.filename}:{w.lineno}): "
                                f"{str(w.message)[:200]}")
        else:
            answer = ("ok", "")
    except FootfallError as error:
        message = str(error)
        if "\n" in message:
            answer = ("defect", f"error of several lines: {message[:300]!r}")
        elif len(message) > MAX_MESSAGE_CHARS:
            answer = ("defect", f"error of {len(message):,} characters: {message[:300]!r}")
        elif path.name not in message:
            answer = ("defect", f"error names no file: {message[:300]}")
        else:
            answer = ("clean", f"{type(error).__name__}: {message[:300]}")
    except Garbage as garbage:
        answer = ("defect", f"garbage accepted: {garbage}")
    except BaseException as error:  # noqa: BLE001 — every other exception is the defect sought
        frames = traceback.extract_tb(error.__traceback__)
        deepest = next((f for f in reversed(frames) if "footfall" in f.filename), frames[-1])
        where = f"{Path(deepest.filename).name}:{deepest.lineno}"
        answer = ("defect", f"{type(error).__name__} at {where}: {str(error)[:200]}")
    try:
        sender.send(answer)
    finally:
        sender.close()
        os._exit(0)  # skip atexit and pytest's inherited state


def _is_footfall_warning(caught: warnings.WarningMessage) -> bool:
    return type(caught.message).__module__.startswith("footfall")


def run_cases(
    cases: Iterable[Case],
    readers: dict[str, Callable[[Path], None]],
    *,
    workers: int = 2,
    seconds: float = CASE_SECONDS,
    memory: int = CASE_MEMORY,
    wall_seconds: float | None = None,
) -> Iterator[Result]:
    """Run every case in a child process, ``workers`` at a time; yield results as they end.

    ``seconds`` of CPU time and ``memory`` bytes of address space per case; a case still alive
    after ``wall_seconds`` (default :data:`WALL_FACTOR` × ``seconds``) is killed as a hang.
    """
    wall = WALL_FACTOR * seconds if wall_seconds is None else wall_seconds
    context = multiprocessing.get_context("fork")
    pending = iter(cases)
    running: dict[Connection, tuple[Case, multiprocessing.Process, float, Path]] = {}
    folder = Path(tempfile.mkdtemp(prefix="footfall-fuzz-"))
    counter = 0
    try:
        while True:
            while len(running) < workers:
                case = next(pending, None)
                if case is None:
                    break
                counter += 1
                case_dir = folder / str(counter)
                case_dir.mkdir()
                path = case_dir / case.name
                path.write_bytes(case.data)
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(
                    target=_child, args=(readers[case.reader], path, sender, memory, seconds))
                process.start()
                sender.close()
                running[receiver] = (case, process, time.monotonic(), case_dir)
            if not running:
                return
            ready = wait(list(running), timeout=0.05)
            now = time.monotonic()
            for receiver in list(running):
                case, process, start, case_dir = running[receiver]
                if receiver in ready:
                    try:
                        outcome, detail = receiver.recv()
                    except EOFError:
                        process.join(5.0)
                        if process.exitcode == -signal.SIGXCPU:
                            outcome, detail = "hang", f"over {seconds:g} s of CPU time"
                        else:
                            outcome, detail = ("defect",
                                               f"child died (exit code {process.exitcode})")
                elif now - start > wall:
                    process.kill()
                    outcome, detail = "hang", f"still running after {wall:g} s"
                else:
                    continue
                process.join(5.0)
                receiver.close()
                del running[receiver]
                _remove(case_dir)
                yield Result(case, outcome, detail, now - start)
    finally:
        for _, (_, process, _, _) in running.items():
            process.kill()
        _remove(folder)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
