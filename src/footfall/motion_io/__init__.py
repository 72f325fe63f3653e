"""The one front door for motion files: :func:`load_motion` reads any format footfall knows,
:func:`save_motion` writes any it writes; every command that takes motion goes through them.

Formats are found by content (:mod:`.detect`: ``HIERARCHY``, ``glTF``, ``Kaydara FBX Binary``,
``; FBX``, ``\\x93NUMPY``, zip, pickle), then by suffix. Read: BVH, glTF/GLB (each animation a
take), VRM, VRM Animation, FBX (through :mod:`footfall.fbx` when installed), joint positions
``.npy``, AMASS ``.npz``, MDM's ``results.npy`` (a restricted unpickler: :mod:`.mdm`). Written:
``.bvh``, ``.glb``/``.gltf``, ``.vrm``, ``.vrma``, ``.npy``. A refusal is one
:class:`~footfall.errors.FootfallError` line naming the file, the format and the reason.

>>> from footfall.motion_io import READERS, WRITERS
>>> sorted(WRITERS)
['.bvh', '.glb', '.gltf', '.npy', '.vrm', '.vrma']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from footfall.errors import FootfallError
from footfall.motion_io.detect import LABELS, detect, sniff
from footfall.motion_io.motion import LoadedMotion
from footfall.motion_io.readers import READERS, ReadOptions, choose_take, format_label
from footfall.motion_io.writers import WRITERS, check_output, save_motion

__all__ = [
    "LABELS", "READERS", "WRITERS", "LoadedMotion", "ReadOptions", "check_output",
    "choose_take", "detect", "load_motion", "save_motion", "sniff",
]


def load_motion(
    path: str | Path, *, take: int | str | None = None, sample: int | None = None,
    layout: str | None = None, fps: float | None = None, up: str | None = None,
    unit: str | float = "auto", lengths: Mapping[str, float] | None = None,
    skeleton: str | Path | None = None, joints: str | Path | None = None,
) -> LoadedMotion:
    """Read any motion file as a :class:`LoadedMotion` (clip in metres, Y up, facing +Z).

    Args:
        path: the file; its format is found from its content (:func:`detect`).
        take: glTF animation / FBX take / MDM sample by index or name (default the first).
        sample: MDM ``results.npy``: the sample (as ``take``).
        layout, fps, up, lengths, skeleton, joints: joint-position and AMASS files
            (:class:`ReadOptions`); ``fps`` resamples any format; ``up`` is also BVH's.
        unit: BVH: "auto" (by the body's height), a unit name or metres per unit.

    Raises the format's :class:`~footfall.errors.FootfallError` (``BVHError``,
    ``GLTFError``, ``JointsError``, ``MotionFileError``) with a message that names the file,
    the format and the reason.
    """
    path = Path(path)
    fmt = detect(path)
    options = ReadOptions(take=take, sample=sample, layout=layout, fps=fps, up=up, unit=unit,
                          lengths=lengths, skeleton=skeleton, joints=joints)
    try:
        motion = READERS[fmt](path, options)
    except FootfallError as error:
        raise _with_format(error, path, fmt) from None
    if fmt in ("glb", "gltf", "vrm"):
        motion.format = fmt
    if not motion.takes:  # a single-take format: the take is the file
        motion.takes = [path.stem]
    return motion


def _with_format(error: FootfallError, path: Path, fmt: str) -> FootfallError:
    """``error`` (same type) with the format named after the file: "x.glb (glTF binary
    (GLB)): …"; an error that does not start with the file's name is prefixed with it."""
    text = " ".join(str(error).split())
    name = format_label(fmt)
    if name in text[: len(str(path)) + len(name) + 8]:
        return error
    where = str(path)
    if text.startswith(where):
        text = f"{where} ({name}){text[len(where):]}"
    else:
        text = f"{where} ({name}): {text}"
    try:
        return type(error)(text)
    except TypeError:  # an error type with other constructor arguments keeps its message
        return error
