"""An FBX take as a footfall :class:`~footfall.skeleton.Clip`, and the file's takes.

The child reader (:mod:`footfall.fbx.worker`) gives each joint's world matrix at rest and at
every frame, in metres, Y up (ufbx converts the file's unit and axes; pre/post rotations,
rotation offsets and pivots are in its node transforms). The clip is made as a BVH clip is:
the rest pose is the identity rotation of every joint, its offsets the rest pose's bone vectors
in world axes, so a joint's local rotation is its turn away from rest relative to its parent's.
Global joint positions are exactly the file's (scale folds into the per-frame translations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import FBXError
from footfall.fbx.isolate import PathArg, read_arrays
from footfall.sizes import check_size
from footfall.skeleton import Clip, Skeleton, local_from_global


@dataclass(frozen=True)
class FBXInfo:
    """What an FBX file says about itself.

    Attributes:
        takes: the animation stacks' names, in file order.
        take_ranges: ``(T, 2)`` [begin, end] of each take, seconds.
        fps: the file's frame rate.
        unit_metres: metres per unit of the file (0.01: centimetres), before conversion.
        up_axis: the file's up axis (``+Y``, ``+Z``, …), before conversion.
        version: FBX version (7500 = 7.5).
    """

    takes: list[str]
    take_ranges: FloatArray
    fps: float
    unit_metres: float
    up_axis: str
    version: int


def fbx_info(path: PathArg) -> FBXInfo:
    """The takes, frame rate, unit, up axis and version of an FBX file."""
    return _info(read_arrays(path, "takes"))


def list_takes(path: PathArg) -> list[str]:
    """Names of the FBX file's takes (animation stacks), in file order."""
    return fbx_info(path).takes


def _info(arrays: dict[str, np.ndarray]) -> FBXInfo:
    return FBXInfo([str(name) for name in arrays["takes"]], arrays["take_ranges"],
                   float(arrays["fps"]), float(arrays["unit"]), str(arrays["up"]),
                   int(arrays["version"]))


#: Names of the units FBX files use (metres per unit → name).
UNIT_NAMES = {1.0: "m", 0.01: "cm", 0.001: "mm", 0.0254: "inch", 0.3048: "ft"}


@dataclass(frozen=True)
class FBXTake:
    """A take read with what the file says about it (what :func:`footfall.motion_io.load_motion`
    reports of an FBX file).

    Attributes:
        clip: the take (see :func:`load_fbx`).
        takes: the file's takes (empty for a file without one).
        take: the index of the one read (0 for a file without takes).
        unit: the file's length unit ("cm", "m", … or metres per unit).
        scale: metres per file unit, applied.
        up: the file's up axis ("y", "z"; "-y" for a downward one; "?" when it does not say).
    """

    clip: Clip
    takes: list[str]
    take: int
    unit: str
    scale: float
    up: str


def load_fbx_take(path: PathArg, take: str | int | None = None) -> FBXTake:
    """:func:`load_fbx`'s clip with the file's takes, unit and up axis, from one read."""
    arrays = _read_take(path, take)
    info = _info(arrays)
    name = str(arrays["take"])
    axis = info.up_axis.lower()
    return FBXTake(
        clip=_clip(arrays, path), takes=info.takes,
        take=info.takes.index(name) if name in info.takes else 0,
        unit=UNIT_NAMES.get(info.unit_metres, f"{info.unit_metres:g} m"),
        scale=info.unit_metres,
        up=axis.removeprefix("+") if axis[-1:] in ("x", "y", "z") else "?")


def load_fbx(path: PathArg, take: str | int | None = None) -> Clip:
    """The take ``take`` of an FBX file (its name or index; None: the first) as a clip on the
    file's skeleton at the file's frame rate, metres, Y up, facing +Z as the file does; a file
    without takes gives its pose as one frame.

    The skeleton is the skin's bones (with the bones between and below them) when the file
    has a skinned mesh (a control rig's nodes bind no vertex), else its bone nodes, else its
    empty (Null) nodes; of separate trees the largest. Raises :class:`FBXError` naming the
    file for unreadable or damaged files, files without a skeleton, a take that is not there,
    and a crash or hang of the reader.
    """
    return _clip(_read_take(path, take), path)


def _read_take(path: PathArg, take: str | int | None) -> dict[str, np.ndarray]:
    """The child reader's arrays of take ``take``."""
    if take is not None and not isinstance(take, str | int):
        raise FBXError(f"{path}: take must be a name or an index, got {take!r}")
    return read_arrays(path, "clip", "" if take is None else str(take))


def _clip(arrays: dict[str, np.ndarray], path: PathArg) -> Clip:
    """The clip of the child reader's arrays of a take (see the module docstring)."""
    skeleton, rest_rotations = rest_skeleton(arrays, path)
    positions, rotations = split_world(arrays["world"], path, "frame")
    turned = quat.mul(rotations, quat.inv(rest_rotations))  # each joint's turn away from rest
    local_rotations, local_positions = local_from_global(skeleton.parents, turned, positions)
    clip = Clip(skeleton, local_rotations, local_positions, float(arrays["fps"]))
    check_size(clip, str(path), min_frames=1, error=FBXError)
    return clip


def rest_skeleton(arrays: dict[str, np.ndarray], path: PathArg
                  ) -> tuple[Skeleton, FloatArray]:
    """The skeleton whose identity pose is the file's rest pose (offsets: rest bone vectors in
    world axes), and the rest pose's ``(J, 4)`` world rotations."""
    names = [str(name) for name in arrays["names"]]
    parents = np.asarray(arrays["parents"], dtype=np.int64)
    rest_positions, rest_rotations = split_world(arrays["rest"][None], path, "rest pose")
    rest_positions, rest_rotations = rest_positions[0], rest_rotations[0]
    offsets = rest_positions - np.where(parents[:, None] >= 0, rest_positions[parents], 0.0)
    try:
        skeleton = Skeleton(unique_names(names), parents, offsets)
    except ValueError as error:
        raise FBXError(f"{path}: unusable skeleton ({error})") from None
    return skeleton, rest_rotations


def unique_names(names: list[str]) -> list[str]:
    """Names made unique (a repeated name gets ``_2``, ``_3``…; FBX allows repeats)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        name = name or "joint"
        count = seen.get(name, 0) + 1
        seen[name] = count
        out.append(name if count == 1 else f"{name}_{count}")
    return out


def split_world(world: np.ndarray, path: PathArg, what: str) -> tuple[FloatArray, FloatArray]:
    """``(positions (..., 3), rotations (..., 4))`` of world matrices ``(..., 4, 4)`` whose
    linear part is a rotation times a uniform scale (the unit); refuses NaN, degenerate,
    mirrored and non-uniformly scaled joints."""
    world = np.asarray(world, dtype=np.float64)
    if not np.all(np.isfinite(world)):
        raise FBXError(f"{path}: {what}: a joint transform is NaN or infinite")
    linear = world[..., :3, :3]
    scales = np.linalg.norm(linear, axis=-2)
    if np.any(scales < 1e-12):
        raise FBXError(f"{path}: {what}: a joint has zero scale")
    spread = scales.max(axis=-1) - scales.min(axis=-1)
    if np.any(spread > 1e-3 * scales.max(axis=-1)):
        raise FBXError(f"{path}: {what}: non-uniform joint scale is not supported")
    rotation = linear / scales[..., None, :]
    if np.any(np.linalg.det(rotation) < 0):
        raise FBXError(f"{path}: {what}: a mirrored joint transform is not supported")
    return world[..., :3, 3].copy(), quat.from_matrix(rotation)
