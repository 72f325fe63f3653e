"""Whole files only: write through a hidden temporary neighbour and rename it into place.

The temporary names carry :data:`footfall.batch.jobs.PART_MARKER`, so the leftovers of a killed
batch are recognised and removed by the next run over the same output folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from footfall.batch.jobs import PART_MARKER, part_path


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary neighbour of ``path`` (same suffix) to write in the block, renamed over
    ``path`` when the block ends without error and removed in any case: ``path`` is never
    half-written. The folder must exist."""
    temporary = part_path(path)
    try:
        yield temporary
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` so a reader only ever sees the old or the new whole file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary, open(temporary, "wb") as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        handle.flush()
        os.fsync(handle.fileno())


def remove_parts(folder: Path) -> None:
    """Delete the temporary files a killed batch left below ``folder``."""
    if folder.is_dir():
        for path in folder.rglob(f".*{PART_MARKER}*"):
            if path.is_file():
                path.unlink(missing_ok=True)
