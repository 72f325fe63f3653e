"""The command-line hook that lets clip commands (``footfall ground``, ``measure``, their batch
forms) take joint-position files: the ``--layout`` / ``--npy`` options, reading any motion
file, and writing the result by suffix (and, with ``--npy``, as joint positions beside it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from footfall.joints.io import Motion, load_motion
from footfall.joints.io import save_motion as _save
from footfall.joints.layouts import LAYOUTS, get_layout

__all__ = ["add_joint_arguments", "load_motion", "npy_path", "save_motion"]


def add_joint_arguments(parser: argparse.ArgumentParser, npy: bool = True) -> None:
    """Add ``--layout`` (and ``--npy``) to a clip command's parser."""
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default=None,
                        help="joint-position input (.npy): which joint each row is "
                        f"({', '.join(sorted(LAYOUTS))}; default: the layout with the file's "
                        "joint count); with --npy, the layout written")
    if npy:
        parser.add_argument("--npy", action="store_true",
                            help="also write the result's joint positions (T, J, 3) in the "
                            "input's layout and up axis, beside -o with the suffix .npy (-o "
                            "ending in .npy writes only those): what an evaluation script reads")


def npy_path(output: str | Path) -> Path:
    """Where ``--npy`` writes the joint positions for ``-o output``."""
    return Path(output).with_suffix(".npy")


def save_motion(clip: Any, output: str | Path, motion: Motion, *, npy: bool = False,
                layout: str | None = None) -> None:
    """Write ``clip`` to ``output`` by its suffix (``.bvh``, ``.glb``/``.gltf``, ``.npy``);
    with ``npy``, also its joint positions to :func:`npy_path` (in ``layout``, default the
    input's)."""
    chosen = None if layout is None else get_layout(layout)
    _save(clip, output, motion, layout=chosen)
    if npy and Path(output).suffix.lower() != ".npy":
        _save(clip, npy_path(output), motion, layout=chosen)
