"""The command-line hook of the front door: the options every command that reads motion takes
(``--take``, ``--sample``, ``--unit``; ``--layout`` and ``--npy`` for clip commands), reading
the file from parsed arguments, and writing the result (with ``--npy``, joint positions
beside it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from footfall.bvh.units import UNIT_SCALES
from footfall.joints.layouts import LAYOUTS, get_layout
from footfall.motion_io import LoadedMotion, load_motion
from footfall.motion_io import save_motion as _save
from footfall.motion_io.writers import check_output

__all__ = ["add_joint_arguments", "add_motion_arguments", "check_outputs", "load_motion",
           "motion_from_args", "npy_path", "save_motion"]

#: What ``--unit`` accepts.
UNITS = ("auto", *UNIT_SCALES)


def add_motion_arguments(parser: argparse.ArgumentParser, *, unit: bool = True) -> None:
    """Add ``--take``, ``--sample`` (and ``--unit``) to a command that reads motion."""
    parser.add_argument("--take", default=None, metavar="NAME|INDEX",
                        help="which animation of a file holding several (glTF animations, "
                        "FBX takes, MDM samples) by name or index (default: the first)")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="MDM results.npy: which sample (default 0)")
    if unit:
        parser.add_argument("--unit", choices=UNITS, default="auto",
                            help="BVH source: its length unit (default auto: by the body's "
                            "height; a file in metres stays in metres)")


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


def motion_from_args(path: str | Path, args: argparse.Namespace, **options: Any
                     ) -> LoadedMotion:
    """:func:`load_motion` of ``path`` with the options ``args`` holds (``take``, ``sample``,
    ``unit``, ``layout``, where the command has them) and ``options``."""
    given: dict[str, Any] = {
        "take": getattr(args, "take", None), "sample": getattr(args, "sample", None),
        "unit": getattr(args, "unit", "auto"), "layout": getattr(args, "layout", None)}
    given.update(options)
    return load_motion(path, **given)


def npy_path(output: str | Path) -> Path:
    """Where ``--npy`` writes the joint positions for ``-o output``."""
    return Path(output).with_suffix(".npy")


def check_outputs(output: str | Path, motion: LoadedMotion | None = None, *,
                  npy: bool = False, layout: str | None = None) -> None:
    """Refuse, before any work, an ``-o`` footfall cannot write (suffix, folder, a layout for
    ``.npy``/``--npy``)."""
    check_output(output, npy=npy, motion=motion,
                 layout=None if layout is None else get_layout(layout))


def save_motion(clip: Any, output: str | Path, motion: LoadedMotion, *, npy: bool = False,
                layout: str | None = None) -> list[Path]:
    """Write ``clip`` to ``output`` by its suffix (``.bvh``, ``.glb``/``.gltf``, ``.vrm``,
    ``.vrma``, ``.npy``); with ``npy``, also its joint positions to :func:`npy_path` (in
    ``layout``, default the input's). Nothing is written when any of them would fail."""
    chosen = None if layout is None else get_layout(layout)
    return _save(clip, output, motion, layout=chosen, npy=npy)
