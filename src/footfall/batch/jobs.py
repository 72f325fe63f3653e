"""One file's work in a batch: run ``footfall ground`` / ``retarget`` on it through the command's
own ``add_arguments`` and ``run(args)`` and turn what it reports into one summary row.

Every number of the command's ``--report`` is flattened into the row, so metrics the command
adds later flow through untouched; ``measure`` is ``ground`` whose clip is thrown away. A job
never raises: a malformed file, a bad option or a bug becomes the row's ``error``. Its printed
output is captured per thread (a Dask worker runs several tasks at once) and its ``warning:``
lines become the row's warnings.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import re
import sys
import tempfile
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from footfall import __version__
from footfall.errors import FootfallError

#: The batch kinds and the command module each runs.
KINDS = {"ground": "ground", "retarget": "retarget", "measure": "ground",
         "import": "import_motion"}
#: The terrain ``measure`` scores on unless told (the clip's own flat floor).
MEASURE_TERRAIN = "flat"
#: Marker in the names of temporary outputs (hidden files in the output folder).
PART_MARKER = ".footfall-part-"
#: The row columns every kind has, first in the summary, in this order.
BASE_COLUMNS = ("input", "output", "status", "frames", "seconds", "cpu_seconds", "warnings",
                "error")


@dataclass(frozen=True)
class JobSpec:
    """What every file of a batch gets done: the kind and the command's options.

    ``options`` is the argv passed through to the command (``--terrain stairs``, …) with file
    names made absolute; ``files`` maps such a file name to its bytes when the data are
    shipped to workers that do not share the filesystem.
    """

    kind: str
    options: tuple[str, ...] = ()
    output_suffix: str | None = ".bvh"  #: None: no clip is kept (measure)
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    """One input of a batch.

    ``output`` is the absolute path the result goes to on the worker's filesystem, or None when
    the worker sends the output's bytes back (``data`` then holds the input's bytes).
    """

    input: str  #: absolute path of the clip (a name only, when ``data`` is given)
    relative: str  #: the clip's path below its input folder, the row's ``input``
    output_relative: str | None  #: the output's path below the output folder
    output: str | None
    spec: JobSpec | None  #: None when the spec travels separately (``run_job``'s ``spec``)
    data: bytes | None = None


class _ThreadStreams(io.TextIOBase):
    """A text stream that writes to this thread's capture buffer if it has one, else through."""

    def __init__(self, fallback: TextIO) -> None:
        self.fallback = fallback
        self.local = threading.local()

    def write(self, text: str) -> int:
        return (getattr(self.local, "buffer", None) or self.fallback).write(text)

    def flush(self) -> None:
        (getattr(self.local, "buffer", None) or self.fallback).flush()

    def isatty(self) -> bool:
        return False if getattr(self.local, "buffer", None) else self.fallback.isatty()

    def fileno(self) -> int:
        return self.fallback.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.fallback, "encoding", "utf-8")


_install_lock = threading.Lock()


@contextlib.contextmanager
def _captured() -> Any:
    """Capture what this thread prints to stdout and stderr into one buffer."""
    with _install_lock:
        for name in ("stdout", "stderr"):
            if not isinstance(getattr(sys, name), _ThreadStreams):
                setattr(sys, name, _ThreadStreams(getattr(sys, name)))
    buffer = io.StringIO()
    streams = (sys.stdout, sys.stderr)
    for stream in streams:
        assert isinstance(stream, _ThreadStreams)  # installed just above
        stream.local.buffer = buffer
    try:
        yield buffer
    finally:
        for stream in streams:
            assert isinstance(stream, _ThreadStreams)
            stream.local.buffer = None


def flatten_numbers(report: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """Every number in a (nested) report, keyed by its dotted path: ``after.stance_slip_m``."""
    out: dict[str, float] = {}
    for key, value in report.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten_numbers(value, name + "."))
        elif isinstance(value, bool):
            out[name] = int(value)
        elif isinstance(value, (int, float)):
            out[name] = value
    return out


def part_path(output: Path) -> Path:
    """A hidden temporary name beside ``output`` that keeps its suffix (commands check it)."""
    return output.with_name(f".{output.stem}{PART_MARKER}{uuid.uuid4().hex[:12]}{output.suffix}")


def _warnings(printed: str, report: dict[str, Any]) -> list[str]:
    found = [str(w) for w in report.get("warnings", []) if isinstance(w, str)]
    for line in printed.splitlines():
        if line.lower().startswith("warning:"):
            text = line.split(":", 1)[1].strip()
            if text not in found:
                found.append(text)
    return found


def _shipped_options(spec: JobSpec, scratch: Path) -> list[str]:
    """The options with each shipped file written into ``scratch`` and its name replaced."""
    options = list(spec.options)
    for index, (name, data) in enumerate(sorted(spec.files.items())):
        local = scratch / f"option{index}-{Path(name).name}"
        local.write_bytes(data)
        options = [str(local) if token == name else token for token in options]
    return options


def run_job(job: Job, spec: JobSpec | None = None) -> dict[str, Any]:
    """Run one file's job; never raises.

    ``spec`` overrides ``job.spec`` (a cluster sends a spec carrying files once per worker).

    Returns:
        ``{"row": {...}, "output_bytes": bytes | None, "version": str}``: the summary row
        (``BASE_COLUMNS`` plus every number the command reported), the output's bytes when
        the worker does not share the output folder, and the footfall version that ran it.
    """
    start, cpu_start = time.perf_counter(), time.thread_time()
    spec = spec or job.spec
    row = _row(job, "ok", "")
    output_bytes = None
    part = None
    with tempfile.TemporaryDirectory(prefix="footfall-batch-") as scratch_name:
        scratch = Path(scratch_name)
        source = job.input
        try:
            assert spec is not None, "no job spec (job.spec or run_job's spec)"
            if job.data is not None:
                source = str(scratch / Path(job.input).name)
                Path(source).write_bytes(job.data)
            options = _shipped_options(spec, scratch) if spec.files else list(spec.options)
            if spec.kind == "measure" and "--terrain" not in options:
                options = ["--terrain", MEASURE_TERRAIN, *options]
            if job.output is not None and spec.output_suffix is not None:
                final = Path(job.output)
                final.parent.mkdir(parents=True, exist_ok=True)
                written = part = part_path(final)
            else:
                written = scratch / f"output{spec.output_suffix or '.bvh'}"
            argv = [source, *options, "-o", str(written), "--quiet"]
            report_path = scratch / "report.json"
            if KINDS[spec.kind] == "ground":
                argv += ["--report", str(report_path)]
            command = importlib.import_module(f"footfall.commands.{KINDS[spec.kind]}")
            parser = argparse.ArgumentParser(prog=f"footfall {KINDS[spec.kind]}",
                                             exit_on_error=False)
            command.add_arguments(parser)
            with _captured() as printed:
                try:
                    args = parser.parse_args(argv)
                    status = int(command.run(args) or 0)
                except SystemExit as stop:  # argparse on a bad value
                    status = stop.code if isinstance(stop.code, int) else 2
                    print(stop.code if isinstance(stop.code, str) else "", file=sys.stderr)
            text = printed.getvalue()
            if status != 0:
                lines = [line.strip() for line in text.splitlines() if line.strip()]
                raise FootfallError(lines[-1] if lines else "the command failed without a message")
            report = json.loads(report_path.read_text()) if report_path.exists() else {}
            for key, value in flatten_numbers(report).items():
                clash = key in BASE_COLUMNS and key != "frames"
                row[f"report.{key}" if clash else key] = value
            if row["frames"] is None:
                match = re.search(r": (\d+) frames", text)
                row["frames"] = int(match.group(1)) if match else None
            row["warnings"] = _warnings(text, report)
            if part is not None:
                os.replace(part, final)
                part = None
            elif job.output is None and spec.output_suffix is not None:
                output_bytes = written.read_bytes()
            row["output"] = job.output_relative or ""
        except FootfallError as error:
            message = str(error)
            if job.data is not None:  # name the file, not its scratch copy
                message = message.replace(source, job.relative)
            row.update(status="error", error=message)
        except argparse.ArgumentError as error:
            row.update(status="error", error=f"bad option: {error}")
        except Exception as error:  # noqa: BLE001 - a bug in one file's command stays one row
            where = traceback.extract_tb(error.__traceback__)[-1]
            row.update(status="error", error=f"{type(error).__name__}: {error} "
                       f"({Path(where.filename).name}:{where.lineno})")
        finally:
            if part is not None:
                part.unlink(missing_ok=True)
    row["seconds"] = time.perf_counter() - start
    row["cpu_seconds"] = time.thread_time() - cpu_start
    return {"row": row, "output_bytes": output_bytes, "version": __version__}


def error_result(job: Job, message: str) -> dict[str, Any]:
    """The result of a job that never returned (its worker died, the cluster gave up)."""
    return {"row": _row(job, "error", message), "output_bytes": None, "version": __version__}


def _row(job: Job, status: str, error: str) -> dict[str, Any]:
    return {"input": job.relative, "output": "", "status": status, "frames": None,
            "seconds": None, "cpu_seconds": None, "warnings": [], "error": error}
