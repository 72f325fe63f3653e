"""A whole batch: expand the inputs, skip what a resumed run already made, run the rest on
the local pool or a Dask cluster, and record each file as it finishes (output in place, then its
manifest line, then its summary row)."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footfall import __version__
from footfall.batch.atomic import remove_parts, write_atomic
from footfall.batch.inputs import BatchError, expand_inputs
from footfall.batch.jobs import (
    KINDS,
    Job,
    JobSpec,
    error_result,
    option_values,
    replace_fields,
)
from footfall.batch.manifest import Manifest, file_sha256, options_key
from footfall.batch.summary import Summary

if TYPE_CHECKING:
    from footfall.batch.jobs import Options


@dataclass
class BatchResult:
    """What a batch did: counts and the summary rows (sorted by input)."""

    rows: list[dict[str, Any]]
    ran: int  #: jobs run in this batch
    skipped: int  #: inputs a resumed batch found done
    seconds: float  #: wall time of the whole batch
    failed: int  #: error rows


def absolute_options(options: Options | None) -> tuple[Options | None, list[str]]:
    """The options with every field that names an existing file made absolute, and those files.

    Workers run in other folders (or on other machines), so a relative ``terrain="steps.obj"``
    or ``target="avatar.glb"`` must name the same file there.
    """
    if options is None:
        return None, []
    changed, files = {}, []
    for item in fields(options):  # built-in names (a terrain scene) hold no separator, no suffix
        token = getattr(options, item.name)
        if (isinstance(token, str) and (os.sep in token or "." in Path(token).name)
                and Path(token).is_file()):
            changed[item.name] = token = os.path.abspath(token)
            files.append(token)
    return replace_fields(options, changed), files


def run_batch(inputs: list[str], folder: str | os.PathLike[str], spec: JobSpec, *,
              jobs: int = 1, scheduler: str | None = None, ship_data: bool = False,
              resume: bool = False, quiet: bool = False) -> BatchResult:
    """Run ``spec`` over every clip ``inputs`` name, writing outputs and summary to ``folder``.

    Raises:
        BatchError: the batch cannot start (no inputs, bad output folder, no scheduler).
    """
    from tqdm import tqdm

    from footfall.terminal import show_progress

    start = time.perf_counter()
    if spec.kind not in KINDS:
        raise BatchError(f"batch {spec.kind}: no such kind (one of {', '.join(KINDS)})")
    if spec.options is None and spec.kind != "measure":
        raise BatchError(f"batch {spec.kind}: needs its options")
    folder = Path(os.path.abspath(folder))  # workers run elsewhere: every path absolute
    if folder.exists() and not folder.is_dir():
        raise BatchError(f"-o {folder}: exists and is not a folder")
    if ship_data and scheduler is None:
        raise BatchError("--ship-data sends files to Dask workers: it needs --scheduler")
    clips = expand_inputs(inputs, exclude=folder)
    if spec.output_suffix is not None:  # walk.bvh and walk.npy side by side: one output each
        written: dict[str, Path] = {}
        for clip in clips:
            name = clip.relative.with_suffix(spec.output_suffix).as_posix()
            if name in written:
                raise BatchError(f"{written[name]} and {clip.path} would both write {name} in "
                                 "the output folder; rename one")
            written[name] = clip.path
    options, option_files = absolute_options(spec.options)
    hashes = {name: file_sha256(name) for name in option_files}
    files = {name: Path(name).read_bytes() for name in option_files} if ship_data else {}
    spec = replace(spec, options=options, files=files)
    key = options_key(spec.kind, option_values(options), hashes)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BatchError(f"-o {folder}: cannot make the folder ({error.strerror})") from None
    remove_parts(folder)
    summary = Summary(folder, {"footfall_version": __version__, "kind": spec.kind,
                               "options": option_values(options), "scheduler": scheduler})
    manifest = Manifest(folder, resume=resume)
    to_run: list[Job] = []
    hashes_of: dict[str, str] = {}
    skipped = 0
    for clip in clips:
        relative = clip.relative.as_posix()
        suffix = spec.output_suffix
        output_relative = None if suffix is None else clip.relative.with_suffix(suffix).as_posix()
        output = None if output_relative is None else folder / output_relative
        try:
            sha256 = file_sha256(clip.path)
        except OSError as error:
            job = Job(str(clip.path), relative, output_relative, None, spec)
            summary.add(error_result(job, f"{clip.path}: cannot read ({error.strerror})")["row"])
            continue
        entry = manifest.done(relative, sha256, key, __version__, output) if resume else None
        if entry is not None:  # the manifest kept its line
            summary.add(entry["row"])
            skipped += 1
            continue
        hashes_of[relative] = sha256
        target = None if ship_data or output is None else str(output)
        to_run.append(Job(str(clip.path), relative, output_relative, target, spec))

    if scheduler is not None and to_run:
        from footfall.batch.cluster import run_cluster

        results = run_cluster(to_run, scheduler, ship_data=ship_data)
    else:
        from footfall.batch.local import run_local

        results = run_local(to_run, jobs)
    bar = tqdm(total=len(to_run), unit="file", desc=f"batch {spec.kind}", file=sys.stderr,
               disable=not show_progress(quiet), dynamic_ncols=True)
    try:
        for job, result in results:
            row = result["row"]
            if result["output_bytes"] is not None and row["status"] == "ok":
                assert job.output_relative is not None  # bytes come back only for an output
                write_atomic(folder / job.output_relative, result["output_bytes"])
            if row["status"] == "ok":
                manifest.append({"input": job.relative, "sha256": hashes_of[job.relative],
                                 "options": key, "version": result["version"],
                                 "status": "ok", "output": job.output_relative, "row": row})
            summary.add(row)
            bar.update(1)
            bar.set_postfix(failed=summary.failed, refresh=False)
    finally:
        bar.close()
        results.close()
        manifest.close()
        summary.finish()
        remove_parts(folder)
    return BatchResult(summary.rows, len(to_run), skipped, time.perf_counter() - start,
                       summary.failed)
