"""Knee (or elbow) position copied from a source limb, seed 001's ``ComputeKneePosFromSource``.

Instead of deriving the bend from a pole and a fixed reference, the source knee is split into a
part along the source hip→foot line and a part perpendicular to it. The along part is scaled by
the limb-length ratio and the perpendicular part turned (shortest arc) from the source line onto
the target hip→foot line. The estimate is then moved onto the circle of knees that keep both bone
lengths exactly (law of cosines): its perpendicular direction is kept, so a knee bent backwards
in the source stays bent backwards, whatever the limb's direction (no fixed reference, so no
flip when the leg points up or sideways).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.errors import SkeletonError
from footfall.ik import _components as C
from footfall.ik._components import FloatArray
from footfall.ik._small import knees_small
from footfall.ik.two_bone import reach_limits, root_angle

_SMALL_KNEES = 8  # up to this many limbs a call runs with Python floats


def _shapes(named: dict[str, ArrayLike]) -> str:
    return ", ".join(f"{name} {np.shape(p)}" for name, p in named.items())


def knee_from_source(
    source_hip: ArrayLike,
    source_knee: ArrayLike,
    source_foot: ArrayLike,
    target_hip: ArrayLike,
    target_foot: ArrayLike,
    upper_length: ArrayLike,
    lower_length: ArrayLike,
    *,
    max_reach: ArrayLike = 0.999,
) -> FloatArray:
    """Target knee position ``(..., 3)`` following the source limb's bend; all inputs broadcast.

    Args:
        source_hip, source_knee, source_foot: ``(..., 3)`` source joint positions (any scale).
        target_hip, target_foot: ``(..., 3)`` target hip position and foot goal, metres.
        upper_length, lower_length: ``(...)`` target bone lengths (hip→knee, knee→foot), metres.
        max_reach: share of the target limb length the hip→foot distance is clamped to.

    Returns:
        ``(..., 3)`` knee with ``|knee − hip| = upper_length`` and, for a reachable foot,
        ``|foot − knee| = lower_length``. A straight source limb bends toward world +Z.
    """
    named = {"source_hip": source_hip, "source_knee": source_knee, "source_foot": source_foot,
             "target_hip": target_hip, "target_foot": target_foot}
    points = [np.asarray(v, dtype=np.float64) for v in named.values()]
    upper_length = np.asarray(upper_length, dtype=np.float64)
    lower_length = np.asarray(lower_length, dtype=np.float64)
    if any(p.ndim < 1 or p.shape[-1] != 3 for p in points):
        raise SkeletonError(
            f"knee_from_source: positions need shape (..., 3); got {_shapes(named)}")
    try:
        shape = np.broadcast_shapes(*(p.shape[:-1] for p in points))
        full = np.broadcast_shapes(shape, upper_length.shape, lower_length.shape)
    except ValueError:
        raise SkeletonError(
            f"knee_from_source: batch shapes do not broadcast: {_shapes(named)}, upper_length "
            f"{upper_length.shape}, lower_length {lower_length.shape}"
        ) from None
    rows = C.rows(points, shape)
    count = math.prod(shape)
    if count <= _SMALL_KNEES and full == shape and np.ndim(max_reach) == 0:
        # A few limbs (every per-frame call): Python floats, bit-identical (see _small.py).
        knees = None
        flat = rows.reshape(5, 3, count)
        if np.isfinite(flat).all():
            scalars = [np.broadcast_to(v, shape).reshape(count)
                       for v in (upper_length, lower_length, np.asarray(max_reach, np.float64))]
            if all(np.isfinite(v).all() for v in scalars):  # min/max differ from NumPy's on NaN
                knees = knees_small(flat.transpose(0, 2, 1).tolist(),
                                    *(v.tolist() for v in scalars))
        if knees is not None:
            return np.array(knees).reshape(*shape, 3)
    hip, knee, foot, goal_hip, goal_foot = (tuple(r) for r in rows)
    zero = np.zeros(np.broadcast_shapes(shape, upper_length.shape))
    down = (zero, zero - 1.0, zero)

    knee_offset = C.sub(knee, hip)
    source_axis = C.sub(foot, hip)
    source_direction = C.unit(source_axis, lambda: C.unit(knee_offset, down))
    goal_axis = C.sub(goal_foot, goal_hip)
    goal_distance = C.norm(goal_axis)
    goal_direction = C.unit_with(goal_axis, goal_distance, source_direction)

    # Along part scaled by the limb-length ratio; perpendicular part turned onto the new line.
    source_limb = C.norm(knee_offset) + C.norm(C.sub(foot, knee))
    ratio = (upper_length + lower_length) / np.maximum(source_limb, C.TINY)
    along = C.dot(knee_offset, source_direction) * ratio
    turn = C.between(source_direction, goal_direction)
    across = C.scale(C.qrotate(turn, C.reject(knee_offset, source_direction)), ratio)
    estimate = C.add(C.scale(goal_direction, along), across)

    # Nearest knee that keeps both lengths: same side of the hip→foot line as the estimate.
    bend = C.unit(C.reject(estimate, goal_direction), lambda: C.any_perpendicular(goal_direction))
    shortest, longest = reach_limits(upper_length, lower_length,
                                     np.asarray(max_reach, dtype=np.float64))
    reach = np.minimum(np.maximum(goal_distance, shortest), longest)
    cos_root, sin_root = root_angle(upper_length, lower_length, reach)
    upper_axis = C.add(C.scale(goal_direction, cos_root), C.scale(bend, sin_root))
    knee_position = C.add(goal_hip, C.scale(upper_axis, upper_length))
    out = np.empty((*np.broadcast_shapes(*(c.shape for c in knee_position)), 3))
    for i, c in enumerate(knee_position):
        out[..., i] = c
    return out
