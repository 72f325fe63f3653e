"""Which clips a batch reads: files, folders (searched recursively for the motion files of
:data:`CLIP_SUFFIXES`) and globs.

Each input keeps a path *relative to where it was found* (the folder given, or a glob's fixed
leading part), so the outputs mirror the library's layout under the output folder.
"""

from __future__ import annotations

import glob
import itertools
import os
from dataclasses import dataclass
from pathlib import Path, PurePath

from footfall.errors import FootfallError

#: File suffixes a folder or glob search picks up (compared case-insensitively): motion files
#: :func:`footfall.motion_io.load_motion` reads (not ``.vrm``: a VRM file is an avatar, a
#: ``--to`` target).
CLIP_SUFFIXES = (".bvh", ".npy", ".npz", ".glb", ".gltf", ".vrma", ".fbx")
_MAGIC = set("*?[")


class BatchError(FootfallError):
    """A batch cannot start: no inputs, clashing relative paths, a bad output folder."""


@dataclass(frozen=True)
class ClipInput:
    """One clip of a batch: where it is and where its outputs go below the output folder."""

    path: Path  #: absolute path of the clip
    relative: PurePath  #: its path below the input folder or glob base, e.g. ``walks/a.bvh``


def _glob_base(pattern: str) -> Path:
    """The leading path components of ``pattern`` that hold no glob characters."""
    fixed = list(itertools.takewhile(lambda part: not _MAGIC & set(part), Path(pattern).parts))
    return Path(*fixed) if fixed else Path(".")


def _is_clip(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in CLIP_SUFFIXES


def expand_inputs(inputs: list[str], exclude: Path | None = None) -> list[ClipInput]:
    """The clips that ``inputs`` name, sorted by relative path, each once.

    Args:
        inputs: file paths (any suffix: the user named them), folders (every file of
            :data:`CLIP_SUFFIXES` below, recursively) and glob patterns (``**`` recurses;
            matches that are folders are searched like folders).
        exclude: a folder whose contents never count as inputs (the batch's output folder).

    Raises:
        BatchError: an input that names nothing, no clip at all, or two clips that would
            write the same output (same relative path from different inputs).
    """
    exclude = exclude.resolve() if exclude is not None else None
    found: dict[Path, ClipInput] = {}
    by_relative: dict[PurePath, Path] = {}

    def add(path: Path, base: Path) -> None:
        key = path.resolve()
        if (exclude is not None and key.is_relative_to(exclude)) or key in found:
            return
        path = Path(os.path.abspath(path))  # symlinks kept, so the path stays below its base
        relative = PurePath(path.relative_to(os.path.abspath(base)))
        other = by_relative.get(relative)
        if other is not None:
            raise BatchError(
                f"{other} and {path} would both write {relative} in the output folder; "
                "give their common parent folder instead"
            )
        by_relative[relative] = path
        found[key] = ClipInput(path, relative)

    def add_folder(folder: Path) -> None:
        for path in sorted(folder.rglob("*")):
            if _is_clip(path):
                add(path, folder)

    for text in inputs:
        path = Path(text)
        if _MAGIC & set(text):
            base = _glob_base(text)
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True))
            if not matches:
                raise BatchError(f"{text}: the pattern matches no file")
            for match in matches:
                if match.is_dir():
                    add_folder(match)
                elif _is_clip(match):
                    add(match, base)
        elif path.is_dir():
            before = len(found)
            add_folder(path)
            if len(found) == before and not any(_is_clip(p) for p in path.rglob("*")):
                raise BatchError(f"{text}: the folder holds no motion file "
                                 f"({', '.join(CLIP_SUFFIXES)})")
        elif path.exists():
            add(path, path.parent)
        else:
            raise BatchError(f"{text}: no such file or folder")
    if not found:
        raise BatchError("no input clip (every match was inside the output folder)")
    return sorted(found.values(), key=lambda clip: str(clip.relative))
