"""Writing :class:`footfall.skeleton.Clip` as a BVH file (metres, Y up) that Blender opens.

Joints whose translation is animated get six channels (position then rotation), the others
three. Numbers carry nine decimals, so reading the file back reproduces global joint positions
to well under a micrometre. The file is written to a temporary neighbour and renamed over the
target (:func:`footfall.batch.atomic.replacing`), so a reader never sees half a file.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import numpy as np

from footfall import quat
from footfall.batch.atomic import replacing
from footfall.errors import BVHError, SkeletonError
from footfall.skeleton import Clip, Skeleton

_NUMBER = "%.9f"
# Translations closer than this to the rest offset (metres) count as not animated.
_ANIMATED_TOLERANCE = 1e-9


def depth_first_order(skeleton: Skeleton) -> list[int]:
    """Joint indices in the order a BVH file lists them (roots and children by index)."""
    children: list[list[int]] = [[] for _ in range(skeleton.joint_count)]
    roots: list[int] = []
    for joint, parent in enumerate(skeleton.parents):
        (roots if parent < 0 else children[parent]).append(joint)
    order: list[int] = []
    stack = roots[::-1]
    while stack:
        joint = stack.pop()
        order.append(joint)
        stack.extend(children[joint][::-1])
    return order


def _check_readable(clip: Clip, path: str, depth: np.ndarray) -> None:
    """Refuse to write what :func:`footfall.bvh.load` would refuse to read back (its limits);
    ``depth (J,)``: each joint's nesting level, 0 for roots."""
    from footfall.bvh import motion, reader  # the reader's limits; reader never imports writer

    low, high = motion.FRAME_TIME_RANGE
    if not low <= 1.0 / clip.fps <= high:
        raise BVHError(f"{path}: cannot write {clip.fps:g} fps; BVH files are read at "
                       f"{1 / high:g}–{1 / low:g} fps")
    skeleton = clip.skeleton
    if skeleton.joint_count > reader.MAX_JOINTS:
        raise BVHError(f"{path}: cannot write {skeleton.joint_count} joints (at most "
                       f"{reader.MAX_JOINTS} are read)")
    if clip.frame_count * skeleton.joint_count > motion.MAX_JOINT_FRAMES:
        raise BVHError(f"{path}: cannot write {clip.frame_count:,} frames × "
                       f"{skeleton.joint_count} joints (at most {motion.MAX_JOINT_FRAMES:,})")
    if depth.max() + 1 > reader.MAX_DEPTH:
        raise BVHError(f"{path}: cannot write joints nested {depth.max() + 1} deep (at most "
                       f"{reader.MAX_DEPTH} are read)")
    reach = max(float(np.abs(clip.positions).max(initial=0.0)),
                float(np.abs(skeleton.offsets).max(initial=0.0)))
    if reach > reader.MAX_METRES:
        raise BVHError(f"{path}: cannot write joints {reach:.3g} m from the origin (at most "
                       f"{reader.MAX_METRES:g} m are read)")


def _vector(values: np.ndarray) -> str:
    return " ".join(_NUMBER % v for v in values)


def format_bvh(clip: Clip, order: str = "ZXY", path: str = "<clip>") -> str:
    """The BVH text of ``clip`` with every rotation written in Euler ``order``."""
    order = order.upper()
    if order not in quat.EULER_ORDERS:
        raise BVHError(f"{path}: rotation order must be one of {quat.EULER_ORDERS}, got {order!r}")
    try:
        clip.check_finite()
    except SkeletonError as error:
        raise BVHError(f"{path}: cannot write: {error}") from None
    skeleton = clip.skeleton
    for name in skeleton.names:
        if not name or name != " ".join(name.split()) or any(c in name for c in "{}"):
            raise BVHError(f"{path}: joint name {name!r} cannot be written to BVH "
                           "(empty, braces, tabs/newlines or extra spaces)")
    depth = np.zeros(skeleton.joint_count, dtype=int)
    for joint, parent in enumerate(skeleton.parents):  # parents come before children
        depth[joint] = 0 if parent < 0 else depth[parent] + 1
    _check_readable(clip, path, depth)
    joints = depth_first_order(skeleton)
    animated = np.any(np.abs(clip.positions - skeleton.offsets) > _ANIMATED_TOLERANCE,
                      axis=(0, 2))
    rotation_channels = " ".join(f"{axis}rotation" for axis in order)

    out = ["HIERARCHY"]
    level = -1  # depth of the last joint written, whose block and its parents' are open
    for joint in joints:
        # Close the blocks from the last joint up to this joint's previous sibling.
        out += ["\t" * d + "}" for d in range(level, depth[joint] - 1, -1)]
        level = depth[joint]
        indent = "\t" * level
        keyword = "ROOT" if skeleton.parents[joint] < 0 else "JOINT"
        out += [f"{indent}{keyword} {skeleton.names[joint]}", indent + "{",
                f"{indent}\tOFFSET {_vector(skeleton.offsets[joint])}"]
        if animated[joint]:
            out.append(f"{indent}\tCHANNELS 6 Xposition Yposition Zposition {rotation_channels}")
        else:
            out.append(f"{indent}\tCHANNELS 3 {rotation_channels}")
        if joint in skeleton.end_sites:
            out += [f"{indent}\tEnd Site", indent + "\t{",
                    f"{indent}\t\tOFFSET {_vector(skeleton.end_sites[joint])}", indent + "\t}"]
    out += ["\t" * d + "}" for d in range(level, -1, -1)]

    degrees = np.degrees(quat.to_euler(clip.rotations, order))  # (F, J, 3)
    blocks = []
    for joint in joints:
        if animated[joint]:
            blocks.append(clip.positions[:, joint])
        blocks.append(degrees[:, joint])
    table = np.concatenate(blocks, axis=1)  # every joint has rotation channels
    row = " ".join([_NUMBER] * table.shape[1])
    frame_time = f"{1.0 / clip.fps:.12f}".rstrip("0")
    if frame_time.endswith("."):
        frame_time += "0"
    out += ["MOTION", f"Frames: {clip.frame_count}", f"Frame Time: {frame_time}"]
    out.extend(row % tuple(values) for values in table)
    return "\n".join(out) + "\n"


def save(clip: Clip, path: str | PathLike[str], *, order: str = "ZXY") -> None:
    """Write ``clip`` (metres, Y up) to the BVH file ``path``, atomically.

    Args:
        clip: the animation; joints are written depth-first (a skeleton whose parents are
            not already depth-first comes back from :func:`load` in that order).
        path: destination file; its folder must exist.
        order: Euler order of every joint's rotation channels, one of ``quat.EULER_ORDERS``.

    Raises:
        BVHError: bad order, non-finite values, unwritable names or an unwritable path.
    """
    target = Path(path)
    text = format_bvh(clip, order, str(target))
    try:
        with replacing(target) as temporary:
            temporary.write_text(text, encoding="utf-8", newline="\n")
    except OSError as error:
        raise BVHError(f"{target}: cannot write ({error.strerror or error})") from None
