"""One file's work in a batch: call the library function of the batch's kind on it —
:func:`footfall.grounding.clip.files.ground_file` (``ground``),
:func:`~footfall.grounding.clip.files.measure_file` (``measure``: ground, keep only the report)
or :func:`footfall.retarget.files.retarget_file` (``retarget``) — with the batch's typed options,
and turn the report it returns into one summary row.

Every number of the report's metrics (``footfall ground --report``'s document) is flattened into
the row, so metrics the library adds later flow through untouched. A job never raises: a
malformed file, a bad option or a bug becomes the row's ``error``; the report's warnings become
the row's warnings.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
import uuid
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from footfall import __version__
from footfall.errors import FootfallError

if TYPE_CHECKING:
    from footfall.grounding.clip.files import GroundOptions, GroundReport
    from footfall.joints.files import ImportOptions, ImportReport
    from footfall.retarget.files import RetargetOptions, RetargetReport

    Options: TypeAlias = GroundOptions | RetargetOptions | ImportOptions
    Report: TypeAlias = GroundReport | RetargetReport | ImportReport

_Options = TypeVar("_Options")

#: The batch kinds: what each job does (:func:`run_kind`).
KINDS = ("ground", "retarget", "measure", "import")
#: Marker in the names of temporary outputs (hidden files in the output folder).
PART_MARKER = ".footfall-part-"
#: The row columns every kind has, first in the summary, in this order.
BASE_COLUMNS = ("input", "output", "status", "frames", "seconds", "cpu_seconds", "warnings",
                "error")


@dataclass(frozen=True)
class JobSpec:
    """What every file of a batch gets done: the kind and its options.

    ``options`` is the kind's options dataclass (:class:`~footfall.grounding.clip.files.
    GroundOptions` for ``ground`` and ``measure``, :class:`~footfall.retarget.files.
    RetargetOptions` for ``retarget``; None: ``measure``'s defaults) with file names made
    absolute; ``files`` maps such a file name to its bytes when the data are shipped to workers
    that do not share the filesystem.
    """

    kind: str
    options: Options | None = None
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


def run_kind(kind: str, source: str, output: Path | None, options: Options | None) -> Report:
    """Run the library function of ``kind`` on the file ``source``, writing ``output``."""
    if kind == "retarget":
        from footfall.retarget.files import RetargetOptions, retarget_file

        assert isinstance(options, RetargetOptions) and output is not None, "retarget's options"
        return retarget_file(source, output, options)
    if kind == "import":
        from footfall.joints.files import ImportOptions, import_file

        assert isinstance(options, ImportOptions) and output is not None, "import's options"
        return import_file(source, output, options)
    from footfall.grounding.clip.files import GroundOptions, ground_file, measure_file

    assert options is None or isinstance(options, GroundOptions), f"{kind}'s options"
    if kind == "measure":
        return measure_file(source, options)
    if kind == "ground":
        assert options is not None, "ground's options (its terrain)"
        return ground_file(source, output, options)
    raise FootfallError(f"batch: no such kind {kind!r} (one of {', '.join(KINDS)})")


def replace_fields(options: _Options, values: dict[str, Any]) -> _Options:
    """``options`` (a frozen dataclass) with ``values`` for some of its fields."""
    frozen: Any = options  # dataclasses.replace over a union of dataclasses, field by name
    return cast("_Options", replace(frozen, **values))


def option_values(options: Options | None) -> dict[str, Any]:
    """The fields of ``options`` that differ from their defaults (required ones always), as
    JSON values: the summary's ``options`` and part of the resume key."""
    values: dict[str, Any] = {}
    for item in fields(options) if options is not None else ():
        value = getattr(options, item.name)
        if item.default is MISSING or value != item.default:
            values[item.name] = list(value) if isinstance(value, tuple) else value
    return values


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


def _shipped_options(spec: JobSpec, scratch: Path) -> Options | None:
    """The options with each shipped file written into ``scratch`` and its name replaced."""
    options = spec.options
    assert options is not None  # files come only from options
    for index, (name, data) in enumerate(sorted(spec.files.items())):
        local = scratch / f"option{index}-{Path(name).name}"
        local.write_bytes(data)
        options = replace_fields(options, {item.name: str(local) for item in fields(options)
                                           if getattr(options, item.name) == name})
    return options


def run_job(job: Job, spec: JobSpec | None = None) -> dict[str, Any]:
    """Run one file's job; never raises.

    ``spec`` overrides ``job.spec`` (a cluster sends a spec carrying files once per worker).

    Returns:
        ``{"row": {...}, "output_bytes": bytes | None, "version": str}``: the summary row
        (``BASE_COLUMNS`` plus every number of the report's metrics), the output's bytes when
        the worker does not share the output folder, and the footfall version that ran it.
    """
    from footfall.grounding.clip.files import GroundReport

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
            options = _shipped_options(spec, scratch) if spec.files else spec.options
            written: Path | None = None
            if job.output is not None and spec.output_suffix is not None:
                final = Path(job.output)
                final.parent.mkdir(parents=True, exist_ok=True)
                written = part = part_path(final)
            elif spec.output_suffix is not None:
                written = scratch / f"output{spec.output_suffix}"
            report = run_kind(spec.kind, source, written, options)
            metrics = report.metrics if isinstance(report, GroundReport) else {}
            for key, value in flatten_numbers(metrics).items():
                clash = key in BASE_COLUMNS and key != "frames"
                row[f"report.{key}" if clash else key] = value
            if row["frames"] is None:
                row["frames"] = report.frames
            row["warnings"] = list(dict.fromkeys(report.warnings))
            if part is not None:
                for extra in map(Path, report.extras):  # sidecars beside the temporary name
                    if extra != part and extra.name.startswith(part.stem):
                        os.replace(extra, final.with_name(
                            final.stem + extra.name[len(part.stem):]))
                os.replace(part, final)
                part = None
            elif job.output is None and written is not None:
                output_bytes = written.read_bytes()
            row["output"] = job.output_relative or ""
        except FootfallError as error:
            message = str(error)
            if job.data is not None:  # name the file, not its scratch copy
                message = message.replace(source, job.relative)
            row.update(status="error", error=message)
        except Exception as error:  # noqa: BLE001 - a bug in one file's job stays one row
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
