"""Whole motion libraries: ``footfall batch ground|retarget|measure`` over folders of clips.

Modules: :mod:`.inputs` (files, folders and globs → clips with relative paths), :mod:`.jobs`
(one file through the command's own parser and ``run``), :mod:`.manifest` (what ``--resume``
skips), :mod:`.summary` (streamed CSV/JSON, histograms), :mod:`.atomic` (whole files only),
:mod:`.local` (process pool), :mod:`.cluster` (Dask distributed) and :mod:`.runner` (the batch).
"""

from footfall.batch.inputs import BatchError, ClipInput, expand_inputs
from footfall.batch.jobs import Job, JobSpec, run_job
from footfall.batch.runner import BatchResult, run_batch

__all__ = [
    "BatchError",
    "BatchResult",
    "ClipInput",
    "Job",
    "JobSpec",
    "expand_inputs",
    "run_batch",
    "run_job",
]
