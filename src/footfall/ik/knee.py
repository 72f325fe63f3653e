"""Knee (or elbow) position copied from a source limb, seed 001's ``ComputeKneePosFromSource``.

Instead of deriving the bend from a pole and a fixed reference, the source knee is split into a
part along the source hip→foot line and a part perpendicular to it. The along part is scaled by
the limb-length ratio and the perpendicular part turned (shortest arc) from the source line onto
the target hip→foot line. The estimate is then moved onto the circle of knees that keep both bone
lengths exactly (law of cosines): its perpendicular direction is kept, so a knee bent backwards
in the source stays bent backwards, and a source knee passing through straight gives no flip.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.ik._vector import FloatArray, any_perpendicular, norm, reject, unit
from footfall.ik.two_bone import mid_position, reach_limits

_DOWN = np.array([0.0, -1.0, 0.0])


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
    source_hip, source_knee, source_foot, target_hip, target_foot = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64)
          for v in (source_hip, source_knee, source_foot, target_hip, target_foot))
    )
    upper_length = np.asarray(upper_length, dtype=np.float64)
    lower_length = np.asarray(lower_length, dtype=np.float64)

    source_axis = source_foot - source_hip
    source_direction = unit(source_axis, unit(source_knee - source_hip, _DOWN))
    target_axis = target_foot - target_hip
    target_direction = unit(target_axis, source_direction)

    knee_offset = source_knee - source_hip
    source_limb = norm(knee_offset) + norm(source_foot - source_knee)
    ratio = (upper_length + lower_length) / np.maximum(source_limb, 1e-12)
    along = np.sum(knee_offset * source_direction, axis=-1) * ratio
    across = quat.rotate(quat.between(source_direction, target_direction), reject(
        knee_offset, source_direction)) * ratio[..., None]
    estimate = along[..., None] * target_direction + across

    bend = unit(reject(estimate, target_direction), any_perpendicular(target_direction), 1e-12)
    shortest, longest = reach_limits(upper_length, lower_length, max_reach)
    reach = np.minimum(np.maximum(norm(target_axis), shortest), longest)
    return mid_position(target_hip, target_direction, bend, upper_length, lower_length, reach)
