"""Analytic two-bone IK (law of cosines) for legs and arms, batched over any leading shape.

A limb is three joints ``root → mid → tip`` (hip, knee, ankle or shoulder, elbow, wrist). The
solver keeps both bone lengths, puts the tip on the target (or as close as the limb allows), bends
the middle joint toward a pole (bend goal) and returns world-space delta rotations, so the caller
can write the result into any skeleton. The FK↔IK weights follow seed 001's ``LimbIK``.

Written by hand: a general IK library would be slower and hide the fallbacks that keep every
degenerate case finite. This module checks and flattens the inputs, calls the compiled kernel
(``_kernel.py``) once and shapes the named results.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray, per_limb, point_rows
from footfall.errors import SkeletonError
from footfall.ik import _kernel
from footfall.ik._kernel import MIN_REACH_SLACK

__all__ = ["MAX_COORDINATE", "MIN_REACH_SLACK", "TwoBoneResult", "reach_limits", "root_angle",
           "solve_two_bone"]

#: Largest coordinate magnitude :func:`solve_two_bone` accepts, metres (squares stay finite).
MAX_COORDINATE = 1e6


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
    upper_length: ArrayLike, lower_length: ArrayLike, max_reach: ArrayLike = 0.999
) -> tuple[FloatArray, FloatArray]:
    """Shortest and longest root→tip distance ``(...)`` the solver allows, metres (the
    kernel's own :func:`~footfall.ik._kernel.reach_limits_s`, broadcast)."""
    return _kernel.gufunc("reach_limits")(
        *(np.asarray(v, dtype=np.float64) for v in (upper_length, lower_length, max_reach)))


def root_angle(
    upper_length: ArrayLike, lower_length: ArrayLike, reach: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Cosine and sine (≥ 0) ``(...)`` of the angle at the root between root→tip and the upper
    bone, for sides L1, L2 and ``reach`` (within :func:`reach_limits`): the kernel's own
    :func:`~footfall.ik._kernel.root_angle_s`, broadcast."""
    return _kernel.gufunc("root_angle")(
        *(np.asarray(v, dtype=np.float64) for v in (upper_length, lower_length, reach)))


def _batch_shape(
    named: dict[str, ArrayLike | None], points: list[FloatArray], scalars: list[FloatArray],
    rotations: list[np.ndarray], rotation_weight_shape: tuple[int, ...],
) -> tuple[int, ...]:
    """Common batch shape of every input; raises :class:`SkeletonError` naming bad shapes."""
    full = points[0].shape
    if full and full[-1] == 3 and not rotation_weight_shape:
        first = full[:-1]  # the usual call: equal shapes, weights () or the batch shape
        usual = True
        for p in points:
            usual = usual and p.shape == full
        for s in scalars:
            usual = usual and (s.ndim == 0 or s.shape == first)
        for q in rotations:
            usual = usual and q.shape == (*first, 4)
        if usual:
            return first  # nothing to broadcast

    if any(p.ndim < 1 or p.shape[-1] != 3 for p in points) or any(
            q.ndim < 1 or q.shape[-1] != 4 for q in rotations):
        raise SkeletonError(f"solve_two_bone: positions need shape (..., 3), rotations "
                            f"(..., 4); got {input_shapes(named)}")
    try:
        return np.broadcast_shapes(
            *(p.shape[:-1] for p in points), *(s.shape for s in scalars),
            *(q.shape[:-1] for q in rotations), rotation_weight_shape,
        )
    except ValueError:
        raise SkeletonError(f"solve_two_bone: input batch shapes do not broadcast: "
                            f"{input_shapes(named)}, "
                            f"weights {[s.shape for s in scalars]}") from None


def input_shapes(named: Mapping[str, ArrayLike | None]) -> str:
    """``"name (shape), ..."`` of the given inputs, for error messages."""
    return ", ".join(f"{name} {np.shape(value)}" for name, value in named.items()
                     if value is not None)


def _per_limb(given: ArrayLike, value: FloatArray, shape: tuple[int, ...]) -> FloatArray:
    """A weight as a kernel array (:func:`per_limb`), the default one shared."""
    return _ONE if given is _DEFAULT else per_limb(value, shape)


def _refuse(bad: int, named: dict[str, ArrayLike | None], target_rotation: ArrayLike | None,
            tip_rotation: ArrayLike | None, rotation_weight: ArrayLike) -> None:
    """Raise :class:`SkeletonError` naming the first bad input: positions holding NaN, inf or a
    coordinate beyond ±:data:`MAX_COORDINATE` (``bad``: the kernel's mask), then rotations and
    weights holding NaN or inf, in the order of the signature."""
    for name, bit in zip(named, (_kernel.ROOT, _kernel.MID, _kernel.TIP, _kernel.TARGET,
                                 _kernel.POLE), strict=True):
        if bad & bit:
            raise SkeletonError(f"solve_two_bone: {name} holds NaN, inf or a coordinate beyond "
                                f"±{MAX_COORDINATE:g} m")
    checks = (("target_rotation", target_rotation, 0), ("tip_rotation", tip_rotation, 0),
              ("position_weight", None, _kernel.POSITION_WEIGHT),
              ("rotation_weight", rotation_weight, 0),
              ("pole_weight", None, _kernel.POLE_WEIGHT), ("max_reach", None, _kernel.MAX_REACH))
    for label, value, bit in checks:  # the weights' bits come from the kernel
        finite = value is None or np.isfinite(np.asarray(value, dtype=np.float64)).all()
        if (bad & bit) if bit else not finite:
            raise SkeletonError(f"solve_two_bone: {label} holds NaN or inf")


# Writable like every other argument: numba compiles read-only arrays as another type.
_ONE = np.ones(1)
_DEFAULT = 1.0  # the default weight (identity tested: per-frame calls save a conversion)
_MAX_REACH = np.full(1, 0.999)  # the default ``max_reach`` as a kernel array


def solve_two_bone(
    root: ArrayLike, mid: ArrayLike, tip: ArrayLike, target: ArrayLike,
    pole: ArrayLike | None = None, *, target_rotation: ArrayLike | None = None,
    tip_rotation: ArrayLike | None = None, position_weight: ArrayLike = _DEFAULT,
    rotation_weight: ArrayLike = _DEFAULT, pole_weight: ArrayLike = _DEFAULT,
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
            All three weights are clipped to [0, 1].
        max_reach: ``(...)`` share of L1 + L2 the limb may stretch to.

    Returns:
        :class:`TwoBoneResult`. Never NaN: non-finite input (or coordinates beyond
        ±:data:`MAX_COORDINATE` m) raises :class:`SkeletonError` naming it; a target on the
        root keeps the current root→tip direction; a pole on the limb axis falls back to the
        current bend; a straight limb without pole bends toward world +Z (a character's
        forward), or +X when the limb lies along Z; zero-length bones stay zero.
    """
    named = {"root": root, "mid": mid, "tip": tip, "target": target, "pole": pole}
    points = [np.asarray(v, dtype=np.float64) for v in (root, mid, tip, target)]
    if pole is not None:
        points.append(np.asarray(pole, dtype=np.float64))
    scalars = [np.asarray(v, dtype=np.float64) for v in (position_weight, pole_weight, max_reach)]
    rotations = [np.asarray(q) for q in (target_rotation, tip_rotation) if q is not None]
    shape = _batch_shape(named, points, scalars, rotations, np.shape(rotation_weight))
    count = math.prod(shape)
    rows = point_rows(points, shape)
    mid_, tip_, residual = np.empty((count, 3)), np.empty((count, 3)), np.empty(count)
    clamped, upper, lower = np.empty(count, dtype=bool), np.empty((count, 4)), np.empty((count, 4))
    bad = _kernel.solve_batch(
        rows[0], rows[1], rows[2], rows[3], rows[-1], pole is not None,
        _per_limb(position_weight, scalars[0], shape), _per_limb(pole_weight, scalars[1], shape),
        _per_limb(max_reach, scalars[2], shape), MAX_COORDINATE, mid_, tip_, residual, clamped,
        upper, lower)
    if bad or rotations or rotation_weight is not _DEFAULT:
        _refuse(bad, named, target_rotation, tip_rotation, rotation_weight)
    if len(shape) != 1:
        mid_, tip_, upper, lower = (mid_.reshape(*shape, 3), tip_.reshape(*shape, 3),
                                    upper.reshape(*shape, 4), lower.reshape(*shape, 4))
        residual, clamped = residual.reshape(shape), clamped.reshape(shape)
    return TwoBoneResult(
        mid=mid_, tip=tip_, residual=residual, clamped=clamped, upper_rotation=upper,
        lower_rotation=lower,
        tip_rotation=_end_rotation(target_rotation, tip_rotation, rotation_weight, shape),
    )


def solve_two_bone_rows(rows: FloatArray, position_weight: FloatArray
                        ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """:func:`solve_two_bone` of limbs already laid out as the kernel reads them (a caller
    solving every frame, such as a live retarget, skips the broadcasting): ``rows (5, n, 3)``
    root, mid, tip, target and pole, C-ordered float64, metres; ``position_weight (n,)``; the
    other weights their defaults. Returns the upper and lower rotation deltas ``(n, 4)`` and the
    tips ``(n, 3)``, as :func:`solve_two_bone` does (the same kernel); raises as it does for
    a bad input."""
    count = rows.shape[1]
    mid_, tip_, residual = np.empty((count, 3)), np.empty((count, 3)), np.empty(count)
    clamped, upper, lower = np.empty(count, dtype=bool), np.empty((count, 4)), np.empty((count, 4))
    bad = _kernel.solve_batch(rows[0], rows[1], rows[2], rows[3], rows[4], True,
                              position_weight, _ONE, _MAX_REACH, MAX_COORDINATE, mid_, tip_,
                              residual, clamped, upper, lower)
    if bad:
        _refuse(bad, {"root": rows[0], "mid": rows[1], "tip": rows[2], "target": rows[3],
                      "pole": rows[4]}, None, None, _DEFAULT)
    return upper, lower, tip_


def _end_rotation(
    target_rotation: ArrayLike | None, tip_rotation: ArrayLike | None, rotation_weight: ArrayLike,
    shape: tuple[int, ...],
) -> FloatArray | None:
    """End joint world rotation ``(..., 4)`` blended from ``tip_rotation`` toward the target."""
    if target_rotation is None:
        return None
    goal = quat.normalize(np.broadcast_to(np.asarray(target_rotation, np.float64), (*shape, 4)))
    weight = np.clip(np.asarray(rotation_weight, dtype=np.float64), 0.0, 1.0)
    if tip_rotation is None:
        if np.any(weight != 1.0):
            raise SkeletonError("solve_two_bone: rotation_weight < 1 needs tip_rotation (the end "
                                "joint's current world rotation) to blend from")
        return goal
    current = quat.normalize(np.broadcast_to(np.asarray(tip_rotation, np.float64), (*shape, 4)))
    return quat.slerp(current, goal, np.broadcast_to(weight, shape))
