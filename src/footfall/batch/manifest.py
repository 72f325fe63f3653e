"""The resume manifest: one JSON line per finished input, appended as each one finishes.

An entry holds the input's relative path, its SHA-256, the options key (kind, the options that
differ from their defaults, hashes of the files they name) and the footfall version, plus the
summary row. With ``--resume`` an input is skipped when its entry matches all three and its
output file exists.

The file is append-only (a line written and fsynced after the output was renamed into place),
so a batch killed at any moment loses at most the lines of jobs still running; a torn last line
is dropped when the manifest is read back.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from footfall.batch.atomic import write_atomic

#: The manifest's name inside the output folder.
MANIFEST_NAME = "manifest.jsonl"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes (read in chunks)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def options_key(kind: str, options: dict[str, Any], file_hashes: dict[str, str]) -> str:
    """One string naming everything besides the input that decides a job's output
    (``options``: the options that differ from their defaults, :func:`~footfall.batch.jobs.
    option_values`)."""
    return json.dumps({"kind": kind, "options": options, "files": file_hashes}, sort_keys=True)


class Manifest:
    """The entries of earlier runs (by relative input path) and the appender for this run."""

    def __init__(self, folder: Path, *, resume: bool) -> None:
        self.path = folder / MANIFEST_NAME
        self.entries: dict[str, dict[str, Any]] = {}
        if resume and self.path.exists():
            self.entries = self._read()
            # rewrite without torn or superseded lines, atomically
            write_atomic(self.path, "".join(json.dumps(e) + "\n" for e in self.entries.values()))
        else:
            write_atomic(self.path, "")
        self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def _read(self) -> dict[str, dict[str, Any]]:
        entries: dict[str, dict[str, Any]] = {}
        for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by a kill
            if isinstance(entry, dict) and isinstance(entry.get("input"), str):
                entries[entry["input"]] = entry
        return entries

    def done(self, relative: str, sha256: str, key: str, version: str,
             output: Path | None) -> dict[str, Any] | None:
        """The earlier entry for this input if its output need not be made again, else None."""
        entry = self.entries.get(relative)
        if entry is None or entry.get("status") != "ok":
            return None
        if (entry.get("sha256"), entry.get("options"), entry.get("version")) != (
                sha256, key, version):
            return None
        if output is not None and not output.is_file():
            return None
        return entry

    def append(self, entry: dict[str, Any]) -> None:
        """Record one finished input (its output is already in place)."""
        self._handle.write(json.dumps(entry) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the appender."""
        self._handle.close()
