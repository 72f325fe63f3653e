"""The skeleton of a joint-position motion: fixed bone lengths and a T-pose rest.

Bone lengths are the median over frames of each joint's distance to its parent (generated motion
stretches its bones from frame to frame; the median ignores the odd bad frame), or given. The
rest pose is a T-pose facing +Z, Y up, the character's left at +X: legs straight down, spine,
neck and head straight up, arms along ±X. Where a joint's rest direction is a matter of body
shape — the hips and lower spine around the pelvis, the neck and collars around the upper
chest, the foot's slope — it is measured from the motion in the frame of the joint it hangs
from, so a rigid part of the body fits every frame.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.errors import JointsError
from footfall.joints.layouts import Layout, TorsoFrame
from footfall.skeleton import Skeleton

_UP = (0.0, 1.0, 0.0)
_DOWN = (0.0, -1.0, 0.0)
_LEFT = (1.0, 0.0, 0.0)
_RIGHT = (-1.0, 0.0, 0.0)
#: T-pose direction of the bone ending at each joint (the ones not measured from the motion).
T_POSE = {
    "spine2": _UP, "spine3": _UP, "head": _UP,
    "left_knee": _DOWN, "right_knee": _DOWN, "left_ankle": _DOWN, "right_ankle": _DOWN,
    "left_shoulder": _LEFT, "left_elbow": _LEFT, "left_wrist": _LEFT, "left_hand": _LEFT,
    "right_shoulder": _RIGHT, "right_elbow": _RIGHT, "right_wrist": _RIGHT, "right_hand": _RIGHT,
}
#: The bones from ankle to toe joint: their rest slope is the motion's median foot slope.
FEET = ("left_foot", "right_foot")
#: Shortest bone accepted, metres: a joint on its parent in every frame has no direction.
MIN_BONE = 1e-4


def unit(vectors: ArrayLike) -> FloatArray:
    """``vectors (..., 3)`` scaled to unit length (zero vectors stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norm = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norm > 1e-12, norm, 1.0)


def basis(axis: ArrayLike, side: ArrayLike) -> FloatArray:
    """Right-handed orthonormal frames ``(..., 3, 3)`` whose columns are ``axis`` (unit), the
    part of ``side`` perpendicular to it (unit) and their cross product."""
    a = unit(axis)
    s = np.asarray(side, dtype=np.float64)
    s = unit(s - np.sum(s * a, axis=-1, keepdims=True) * a)
    return np.stack([a, s, np.cross(a, s)], axis=-1)


def torso_matrices(positions: FloatArray, layout: Layout, frame: TorsoFrame) -> FloatArray:
    """World frames ``(T, 3, 3)`` of a torso joint read off the measured positions ``(T, J, 3)``:
    columns x (right → left), y (joint → up child, made perpendicular to x), z = x × y."""
    joint, left, right, up = (layout.index(n) for n in (frame.joint, frame.left, frame.right,
                                                        frame.up))
    across = positions[:, left] - positions[:, right]
    upward = positions[:, up] - positions[:, joint]
    x_up_z = basis(across, upward)  # columns x, y, z already
    return x_up_z


def bone_lengths(positions: FloatArray, layout: Layout,
                 given: Mapping[str, float] | None = None, where: str = "joints") -> FloatArray:
    """``(J,)`` length of the bone ending at each joint (0 for the root), metres: the median
    over frames of the measured distance, or ``given[name]``."""
    parents = np.asarray(layout.parents)
    child = np.nonzero(parents >= 0)[0]
    lengths = np.zeros(layout.joint_count)
    distance = np.linalg.norm(positions[:, child] - positions[:, parents[child]], axis=-1)
    lengths[child] = np.median(distance, axis=0)
    for name, value in (given or {}).items():
        if name not in layout.joints or layout.parents[layout.index(name)] < 0:
            raise JointsError(f"bone lengths: {name!r} is not a bone of layout {layout.name!r} "
                              f"(bones end at: {', '.join(layout.joints[1:])})")
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= MIN_BONE):
            raise JointsError(f"bone lengths: {name!r} must be a length ≥ {MIN_BONE} m, "
                              f"got {value!r}")
        lengths[layout.index(name)] = float(value)
    short = [layout.joints[j] for j in child if lengths[j] < MIN_BONE]
    if short:
        raise JointsError(f"{where}: joint {short[0]!r} lies on its parent in most frames "
                          "(a bone of zero length has no direction)")
    return lengths


def rest_offsets(positions: FloatArray, layout: Layout, lengths: FloatArray) -> FloatArray:
    """``(J, 3)`` T-pose offsets of each joint from its parent, metres (the module docstring);
    the root's is its position in the first frame."""
    offsets = np.zeros((layout.joint_count, 3))
    offsets[0] = positions[0, 0]
    measured: dict[str, FloatArray] = {}
    for frame in layout.frames:
        matrices = torso_matrices(positions, layout, frame)
        joint = layout.index(frame.joint)
        for child in np.nonzero(np.asarray(layout.parents) == joint)[0].tolist():
            local = np.einsum("tji,tj->ti", matrices, positions[:, child] - positions[:, joint])
            measured[layout.joints[child]] = unit(np.median(local, axis=0))
    for name in FEET:
        if name in layout.joints:
            toe = layout.index(name)
            foot = positions[:, toe] - positions[:, layout.parents[toe]]
            measured[name] = unit([0.0, np.median(foot[:, 1]),
                                   np.median(np.hypot(foot[:, 0], foot[:, 2]))])
    for c, name in enumerate(layout.joints):
        if layout.parents[c] < 0:
            continue
        direction = measured.get(name, T_POSE.get(name))
        if direction is None:
            raise JointsError(f"layout {layout.name!r}: no rest direction for {name!r}")
        offsets[c] = lengths[c] * np.asarray(direction)
    return offsets


def fit_skeleton(positions: FloatArray, layout: Layout,
                 lengths: Mapping[str, float] | None = None, where: str = "joints") -> Skeleton:
    """The :class:`Skeleton` (layout's joint names and order, T-pose offsets with the bone
    lengths of :func:`bone_lengths`) of Y-up positions ``(T, J, 3)``, metres."""
    measured = bone_lengths(positions, layout, lengths, where)
    return Skeleton(list(layout.joints), np.asarray(layout.parents),
                    rest_offsets(positions, layout, measured))
