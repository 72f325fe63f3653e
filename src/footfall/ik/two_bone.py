"""Analytic two-bone IK (law of cosines) for legs and arms, batched over any leading shape.

A limb is three joints ``root → mid → tip`` (hip, knee, ankle or shoulder, elbow, wrist). The
solver keeps both bone lengths, puts the tip on the target (or as close as the limb allows), bends
the middle joint toward a pole (bend goal) and returns world-space delta rotations, so the caller
can write the result into any skeleton. The FK↔IK weights follow seed 001's ``LimbIK``.

The maths is written by hand because it is a few vector operations per limb; a general IK
library would be slower and hide the fallbacks that keep every degenerate case finite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import SkeletonError
from footfall.ik._vector import (
    TINY,
    FloatArray,
    any_perpendicular,
    cross,
    dot,
    norm,
    reject,
    unit,
)

# The shortest reach is |L1 − L2| plus this share of L1 + L2, so the triangle always exists.
MIN_REACH_SLACK = 1e-6
# Below this sine the limb counts as straight and its bend plane is undefined.
_STRAIGHT_SINE = 1e-9
_DOWN = np.array([0.0, -1.0, 0.0])


@dataclass(frozen=True)
class TwoBoneResult:
    """Solved limb; ``...`` is the broadcast batch shape of the inputs.

    Attributes:
        mid: ``(..., 3)`` new middle joint position, metres.
        tip: ``(..., 3)`` new end joint position, metres.
        residual: ``(...)`` distance the target stayed out of reach (≥ 0), metres.
        clamped: ``(...)`` True where the reach was clamped at ``max_reach · (L1 + L2)``.
        upper_rotation: ``(..., 4)`` world delta of the upper bone: ``new = delta * old``.
        lower_rotation: ``(..., 4)`` world delta of the lower bone.
        tip_rotation: ``(..., 4)`` new world rotation of the end joint, or None when no target
            rotation was given.
    """

    mid: FloatArray
    tip: FloatArray
    residual: FloatArray
    clamped: NDArray[np.bool_]
    upper_rotation: FloatArray
    lower_rotation: FloatArray
    tip_rotation: FloatArray | None


def reach_limits(
    upper_length: FloatArray, lower_length: FloatArray, max_reach: float | FloatArray = 0.999
) -> tuple[FloatArray, FloatArray]:
    """Shortest and longest root→tip distance ``(...)`` the solver allows, metres."""
    total = upper_length + lower_length
    shortest = np.abs(upper_length - lower_length) + MIN_REACH_SLACK * total
    longest = np.maximum(np.asarray(max_reach) * total, shortest)
    return shortest, longest


def mid_position(
    root: FloatArray,
    direction: FloatArray,
    bend: FloatArray,
    upper_length: FloatArray,
    lower_length: FloatArray,
    reach: FloatArray,
) -> FloatArray:
    """Middle joint ``(..., 3)`` of a triangle with sides L1, L2, ``reach`` by the law of cosines.

    ``direction`` is the unit root→tip direction, ``bend`` the unit direction (perpendicular to
    it) toward which the middle joint sticks out. ``reach`` must lie within :func:`reach_limits`.
    """
    denominator = np.maximum(2.0 * upper_length * reach, TINY)
    cos_root = np.clip(
        (upper_length**2 + reach**2 - lower_length**2) / denominator, -1.0, 1.0
    )
    sin_root = np.sqrt(1.0 - cos_root**2)
    return root + upper_length[..., None] * (
        cos_root[..., None] * direction + sin_root[..., None] * bend
    )


def _rotate_about(vector: FloatArray, axis: FloatArray, angle: FloatArray) -> FloatArray:
    """Rotate ``vector`` (perpendicular to the unit ``axis``) by ``angle`` about ``axis``."""
    return np.cos(angle)[..., None] * vector + np.sin(angle)[..., None] * cross(axis, vector)


def _bend_direction(
    direction: FloatArray,
    upper: FloatArray,
    old_normal: FloatArray,
    old_bent: FloatArray,
    pole_offset: FloatArray | None,
    pole_weight: FloatArray,
) -> FloatArray:
    """Unit direction ``(..., 3)`` perpendicular to ``direction`` toward which the knee goes.

    The current bend keeps the old bend plane (new direction crossed with the old plane normal),
    else the old knee's side of the new line; the pole's is the pole's side of the line. The
    pole weight turns the current bend toward the pole's about the line. Where neither exists
    (straight limb, pole on the axis), any perpendicular (world +Z preferred).
    """
    fallback = any_perpendicular(direction)
    keep_plane = cross(direction, old_normal)
    keep_plane_length = norm(keep_plane)
    side = reject(upper, direction)
    side_length = norm(side)
    upper_length = norm(upper)
    plane_ok = old_bent & (keep_plane_length > _STRAIGHT_SINE)
    side_ok = side_length > _STRAIGHT_SINE * upper_length + TINY
    current = np.where(
        plane_ok[..., None],
        keep_plane / np.where(plane_ok, keep_plane_length, 1.0)[..., None],
        unit(side, fallback),
    )
    current_ok = plane_ok | side_ok
    if pole_offset is None:
        return np.where(current_ok[..., None], current, fallback)
    toward_pole = reject(pole_offset, direction)
    pole_length = norm(toward_pole)
    pole_ok = pole_length > _STRAIGHT_SINE * norm(pole_offset) + TINY
    toward_pole = unit(toward_pole, fallback)
    angle = np.arctan2(dot(cross(current, toward_pole), direction), dot(current, toward_pole))
    blended = _rotate_about(current, direction, pole_weight * angle)
    blended = np.where(pole_weight[..., None] >= 1.0, toward_pole, blended)
    chosen = np.where(current_ok[..., None], current, fallback)
    chosen = np.where(pole_ok[..., None], toward_pole, chosen)
    return np.where((pole_ok & current_ok)[..., None], blended, chosen)


def _frame_delta(
    old_axis: FloatArray, old_normal: FloatArray, new_axis: FloatArray, new_normal: FloatArray
) -> FloatArray:
    """Rotation ``(..., 4)`` taking the orthonormal pair (old axis, normal) onto the new pair."""
    old_side = cross(old_axis, old_normal)
    new_side = cross(new_axis, new_normal)
    matrix = (
        new_axis[..., :, None] * old_axis[..., None, :]
        + new_normal[..., :, None] * old_normal[..., None, :]
        + new_side[..., :, None] * old_side[..., None, :]
    )
    return quat.from_matrix(matrix)


def _normal_for(axis: FloatArray, normal: FloatArray) -> FloatArray:
    """``normal`` made perpendicular to the unit ``axis`` (any perpendicular if parallel)."""
    return unit(reject(normal, axis), any_perpendicular(axis), 1e-9)


def _batch_shape(
    named: dict[str, ArrayLike | None],
    points: list[FloatArray],
    scalars: list[FloatArray],
    rotations: list[np.ndarray],
    rotation_weight_shape: tuple[int, ...],
) -> tuple[int, ...]:
    """Common batch shape of every input; raises :class:`SkeletonError` naming bad shapes."""
    shapes = ", ".join(
        f"{name} {np.shape(value)}" for name, value in named.items() if value is not None
    )
    if any(p.ndim < 1 or p.shape[-1] != 3 for p in points) or any(
        q.ndim < 1 or q.shape[-1] != 4 for q in rotations
    ):
        raise SkeletonError(f"solve_two_bone: positions need shape (..., 3), rotations "
                            f"(..., 4); got {shapes}")
    try:
        return np.broadcast_shapes(
            *(p.shape[:-1] for p in points),
            *(s.shape for s in scalars),
            *(q.shape[:-1] for q in rotations),
            rotation_weight_shape,
        )
    except ValueError:
        raise SkeletonError(f"solve_two_bone: input batch shapes do not broadcast: {shapes}, "
                            f"weights {[s.shape for s in scalars]}") from None


def solve_two_bone(
    root: ArrayLike,
    mid: ArrayLike,
    tip: ArrayLike,
    target: ArrayLike,
    pole: ArrayLike | None = None,
    *,
    target_rotation: ArrayLike | None = None,
    tip_rotation: ArrayLike | None = None,
    position_weight: ArrayLike = 1.0,
    rotation_weight: ArrayLike = 1.0,
    pole_weight: ArrayLike = 1.0,
    max_reach: ArrayLike = 0.999,
) -> TwoBoneResult:
    """Bend a two-bone limb so its tip reaches ``target``; every input broadcasts.

    Args:
        root, mid, tip: ``(..., 3)`` current world positions of the three joints, metres.
        target: ``(..., 3)`` world position the tip should reach.
        pole: ``(..., 3)`` bend goal (where the knee/elbow should point), or None to keep the
            current bend plane.
        target_rotation: ``(..., 4)`` wanted world rotation of the end joint, or None.
        tip_rotation: ``(..., 4)`` current world rotation of the end joint (needed to blend
            toward ``target_rotation`` when ``rotation_weight`` < 1).
        position_weight: ``(...)`` 0 leaves the limb as it is, 1 is full IK (seed 001: the bone
            rotations are slerped between FK and IK).
        rotation_weight: ``(...)`` blend of the end joint from ``tip_rotation`` to
            ``target_rotation``.
        pole_weight: ``(...)`` turns the bend plane from the current one (0) to the pole's (1).
        max_reach: ``(...)`` share of L1 + L2 the limb may stretch to.

    Returns:
        :class:`TwoBoneResult`. Never NaN for finite input: a target on the root, a pole on the
        limb axis, a straight limb without pole and zero-length bones all get a fallback bend.
    """
    named = {"root": root, "mid": mid, "tip": tip, "target": target, "pole": pole}
    points = [np.asarray(v, dtype=np.float64) for v in named.values() if v is not None]
    scalars = [np.asarray(v, dtype=np.float64) for v in (position_weight, pole_weight, max_reach)]
    rotations = [np.asarray(q) for q in (target_rotation, tip_rotation) if q is not None]
    shape = _batch_shape(named, points, scalars, rotations, np.shape(rotation_weight))
    points = [np.broadcast_to(p, (*shape, 3)) for p in points]
    root, mid, tip, target = points[:4]
    position_weight, pole_weight, max_reach = (np.broadcast_to(s, shape) for s in scalars)
    upper = mid - root
    lower = tip - mid
    upper_length = norm(upper)
    lower_length = norm(lower)

    # Where the tip goes: along root→target, at a distance the triangle allows.
    old_direction = unit(tip - root, unit(upper, _DOWN))
    to_target = target - root
    distance = norm(to_target)
    direction = unit(to_target, old_direction)
    shortest, longest = reach_limits(upper_length, lower_length, max_reach)
    reach = np.minimum(np.maximum(distance, shortest), longest)
    residual = np.abs(distance - reach)
    clamped = distance > longest

    # Which way the middle joint sticks out.
    old_cross = cross(upper, lower)
    old_cross_length = norm(old_cross)
    old_bent = old_cross_length > _STRAIGHT_SINE * upper_length * lower_length + TINY
    old_normal = old_cross / np.where(old_bent, old_cross_length, 1.0)[..., None]
    pole_offset = None if pole is None else points[4] - root
    bend = _bend_direction(direction, upper, old_normal, old_bent, pole_offset, pole_weight)

    new_mid = mid_position(root, direction, bend, upper_length, lower_length, reach)
    new_normal = cross(bend, direction)
    new_upper_axis = unit(new_mid - root, direction)
    new_lower_axis = unit(root + reach[..., None] * direction - new_mid, new_upper_axis)
    old_upper_axis = unit(upper, old_direction)
    old_lower_axis = unit(lower, old_upper_axis)
    # A straight old limb has no plane: borrow the new normal (minimal twist).
    old_normal = np.where(old_bent[..., None], old_normal, new_normal)
    upper_delta = _frame_delta(
        old_upper_axis, _normal_for(old_upper_axis, old_normal), new_upper_axis, new_normal
    )
    lower_delta = _frame_delta(
        old_lower_axis, _normal_for(old_lower_axis, old_normal), new_lower_axis, new_normal
    )

    weight = position_weight
    if np.any(weight != 1.0):
        # Seed 001: slerp the upper bone and the knee's own (relative) turn between FK and IK.
        knee_turn = quat.inv_mul(upper_delta, lower_delta)
        identity = quat.identity(shape)
        upper_delta = quat.slerp(identity, upper_delta, weight)
        lower_delta = quat.mul(upper_delta, quat.slerp(identity, knee_turn, weight))

    out_mid = root + quat.rotate(upper_delta, upper)
    out_tip = out_mid + quat.rotate(lower_delta, lower)
    return TwoBoneResult(
        mid=out_mid,
        tip=out_tip,
        residual=residual,
        clamped=clamped,
        upper_rotation=upper_delta,
        lower_rotation=lower_delta,
        tip_rotation=_end_rotation(target_rotation, tip_rotation, rotation_weight, shape),
    )


def _end_rotation(
    target_rotation: ArrayLike | None,
    tip_rotation: ArrayLike | None,
    rotation_weight: ArrayLike,
    shape: tuple[int, ...],
) -> FloatArray | None:
    """End joint world rotation ``(..., 4)`` blended from ``tip_rotation`` toward the target."""
    if target_rotation is None:
        return None
    goal = quat.normalize(np.broadcast_to(np.asarray(target_rotation, np.float64), (*shape, 4)))
    weight = np.asarray(rotation_weight, dtype=np.float64)
    if tip_rotation is None:
        if np.any(weight != 1.0):
            raise SkeletonError(
                "solve_two_bone: rotation_weight < 1 needs tip_rotation (the end joint's "
                "current world rotation) to blend from"
            )
        return goal
    current = quat.normalize(np.broadcast_to(np.asarray(tip_rotation, np.float64), (*shape, 4)))
    return quat.slerp(current, goal, np.broadcast_to(weight, shape))
