"""Knee (or elbow) position copied from a source limb, seed 001's ``ComputeKneePosFromSource``.

The source knee's part along the source hip→foot line is scaled by the limb-length ratio, its
perpendicular part turned (shortest arc) onto the target hip→foot line; the estimate is then
moved onto the circle of knees that keep both bone lengths, keeping its side. With no fixed
reference, a knee bent backwards stays so and nothing flips when the leg points up or sideways.
The maths is the compiled ``_kernel.knee_one``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray, per_limb, point_rows
from footfall.errors import SkeletonError
from footfall.ik import _kernel
from footfall.ik.two_bone import input_shapes


def knee_from_source(
    source_hip: ArrayLike, source_knee: ArrayLike, source_foot: ArrayLike, target_hip: ArrayLike,
    target_foot: ArrayLike, upper_length: ArrayLike, lower_length: ArrayLike, *,
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
    scalars = [np.asarray(v, dtype=np.float64) for v in (upper_length, lower_length, max_reach)]
    if any(p.ndim < 1 or p.shape[-1] != 3 for p in points):
        raise SkeletonError(f"knee_from_source: positions need shape (..., 3); got "
                            f"{input_shapes(named)}")
    shape = points[0].shape[:-1]
    try:
        if not (all(p.shape[:-1] == shape for p in points)
                and all(s.ndim == 0 or s.shape == shape for s in scalars)):
            shape = np.broadcast_shapes(*(p.shape[:-1] for p in points),
                                        *(s.shape for s in scalars))
    except ValueError:
        raise SkeletonError(f"knee_from_source: batch shapes do not broadcast: "
                            f"{input_shapes(named)}, "
                            f"upper_length {scalars[0].shape}, lower_length {scalars[1].shape}, "
                            f"max_reach {scalars[2].shape}") from None
    rows = point_rows(points, shape)
    upper, lower, reach = (per_limb(s, shape) for s in scalars)
    knees = np.empty((*shape, 3))
    _kernel.knee_batch(rows[0], rows[1], rows[2], rows[3], rows[4], upper, lower, reach,
                       knees.reshape(math.prod(shape), 3))
    return knees


_MAX_REACH = np.full(1, 0.999)  # the default ``max_reach`` as a kernel array


def knee_rows(points: FloatArray, lengths: FloatArray) -> FloatArray:
    """:func:`knee_from_source` of limbs already laid out as the kernel reads them (a caller
    solving every frame skips the broadcasting): ``points (5, n, 3)`` source hip, knee and
    foot, target hip and foot goal, C-ordered float64; ``lengths (2, n)`` the target's upper
    and lower bone lengths, metres; the default ``max_reach``. Returns the knees ``(n, 3)``."""
    knees = np.empty((points.shape[1], 3))
    _kernel.knee_batch(points[0], points[1], points[2], points[3], points[4], lengths[0],
                       lengths[1], _MAX_REACH, knees)
    return knees
