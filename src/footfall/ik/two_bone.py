"""Analytic two-bone IK (law of cosines) for legs and arms, batched over any leading shape.

A limb is three joints ``root → mid → tip`` (hip, knee, ankle or shoulder, elbow, wrist). The
solver keeps both bone lengths, puts the tip on the target (or as close as the limb allows), bends
the middle joint toward a pole (bend goal) and returns world-space delta rotations, so the caller
can write the result into any skeleton. The FK↔IK weights follow seed 001's ``LimbIK``.

The maths is written by hand because it is a few vector operations per limb; a general IK
library would be slower and hide the fallbacks that keep every degenerate case finite.

Speed: the core works on separate x, y, z component arrays and runs over the batch in blocks
of 8192 limbs, each block fully vectorised. With 10⁶-element temporaries every NumPy step
would stream through main memory and page-fault fresh arrays; cache-sized blocks are about
2–8× faster (``benchmarks/bench_ik.py``). Fallbacks for degenerate limbs are computed only for
blocks (or, for half turns, only the limbs) that need them.

Per-frame calls solve a few limbs, where NumPy's fixed cost per operation dominates: up to
``_SMALL`` limbs the core's main path runs with Python floats (``_small.py``, bit-identical),
limbs needing a fallback go through the vectorised core; larger batches apply the position
weights on components without leaving the block (``_blend.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import SkeletonError
from footfall.ik import _components as C
from footfall.ik._blend import blend
from footfall.ik._components import TINY, FloatArray
from footfall.ik._small import blend_small, solve_small

# The shortest reach is |L1 − L2| plus this share of L1 + L2, so the triangle always exists.
MIN_REACH_SLACK = 1e-6
# Below this sine the limb counts as straight and its bend plane is undefined.
_STRAIGHT_SINE = 1e-7


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


def root_angle(
    upper_length: FloatArray, lower_length: FloatArray, reach: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Cosine and sine ``(...)`` of the angle at the root between root→tip and the upper bone.

    Law of cosines for the triangle with sides L1, L2 and ``reach`` (within
    :func:`reach_limits`); the sine is ≥ 0.
    """
    cos_root = np.clip(
        (upper_length * upper_length + reach * reach - lower_length * lower_length)
        / np.maximum(2.0 * upper_length * reach, TINY),
        -1.0,
        1.0,
    )
    return cos_root, np.sqrt(1.0 - cos_root * cos_root)


_BLOCK = 8192  # solves per block: keeps the ~60 temporaries of the core in the CPU cache
# Up to this many limbs a call runs the core with Python floats (_small.py): NumPy's fixed cost
# per operation outweighs the per-limb cost of Python floats below about this size.
_SMALL = 8


def _current_bend(
    direction: C.Vec,
    upper: C.Vec,
    upper_length: FloatArray,
    old_normal: C.Vec,
    old_bent: NDArray[np.bool_],
) -> tuple[C.Vec, NDArray[np.bool_]]:
    """Bend direction that keeps the current bend, and where one exists.

    It keeps the old bend plane (new direction crossed with the old plane normal), else takes
    the old knee's side of the new line; a straight limb gets any perpendicular (world +Z
    preferred).
    """
    keep_plane = C.cross(direction, old_normal)
    keep_plane_length = C.norm(keep_plane)
    plane_ok = old_bent & (keep_plane_length > _STRAIGHT_SINE)
    if plane_ok.all():
        return C.scale(keep_plane, 1.0 / keep_plane_length), plane_ok
    # A bent limb whose plane holds the new line: the old knee's side of that line. A straight
    # limb has no side of its own (its knee's side of a tilted line is an accident).
    side = C.reject(upper, direction)
    side_length = C.norm(side)
    side_ok = old_bent & (side_length > _STRAIGHT_SINE * upper_length + TINY)
    bend = C.select(
        plane_ok,
        C.unit_with(keep_plane, keep_plane_length, direction, 0.0),
        C.unit_with(side, np.where(side_ok, side_length, 0.0),
                    lambda: C.any_perpendicular(direction), 0.0),
    )
    return bend, plane_ok | side_ok


def _bend_direction(
    direction: C.Vec,
    upper: C.Vec,
    upper_length: FloatArray,
    old_normal: C.Vec,
    old_bent: NDArray[np.bool_],
    pole_offset: C.Vec | None,
    pole_weight: FloatArray,
) -> C.Vec:
    """Unit direction perpendicular to ``direction`` toward which the middle joint goes.

    Without a pole the current bend is kept (:func:`_current_bend`); with one, the pole's side
    of the line, the pole weight turning the current bend toward it about the line. A pole on
    the line falls back to the current bend.
    """
    if pole_offset is None:
        return _current_bend(direction, upper, upper_length, old_normal, old_bent)[0]
    along = C.dot(pole_offset, direction)
    toward_pole = C.sub(pole_offset, C.scale(direction, along))
    squared = C.dot(toward_pole, toward_pole)
    pole_tiny = _STRAIGHT_SINE * np.sqrt(squared + along * along) + TINY
    current = None
    if np.any(pole_weight < 1.0):
        current, current_ok = _current_bend(direction, upper, upper_length, old_normal, old_bent)
    toward_pole = C.unit_with(
        toward_pole,
        np.sqrt(squared),
        current if current is not None else lambda: _current_bend(
            direction, upper, upper_length, old_normal, old_bent)[0],
        pole_tiny,
    )
    if current is not None:
        angle = np.arctan2(
            C.dot(C.cross(current, toward_pole), direction), C.dot(current, toward_pole)
        )
        angle = np.where(current_ok, pole_weight * angle, angle)
        cosine, sine = np.cos(angle), np.sin(angle)
        toward_pole = C.add(C.scale(current, cosine), C.scale(C.cross(direction, current), sine))
    return toward_pole


def _upper_delta(
    old_axis: C.Vec, old_normal: C.Vec, new_axis: C.Vec, new_normal: C.Vec, new_side: C.Vec
) -> C.Quat:
    """Rotation taking the orthonormal frame (old axis, old normal, ·) onto the new one.

    Quaternion from the rotation matrix ``Σ new ⊗ old`` by its trace; where the turn nears a
    half turn (trace branch inaccurate) it is rebuilt as a turn of the normals followed by a
    turn about the new normal.
    """
    old_side = C.cross(old_axis, old_normal)
    trace = C.dot(old_axis, new_axis) + C.dot(old_normal, new_normal) + C.dot(old_side, new_side)
    vector = C.cross(old_axis, new_axis)
    for old, new in ((old_normal, new_normal), (old_side, new_side)):
        for total, part in zip(vector, C.cross(old, new), strict=True):
            total += part
    w = 1.0 + trace
    inverse = 1.0 / np.sqrt(np.maximum(w * w + C.dot(vector, vector), TINY))
    delta = (w * inverse, *C.scale(vector, inverse))
    far = np.flatnonzero(w < 0.5)  # turned by more than about 139°: redo just those
    if far.size:
        old_axis, old_normal, new_axis, new_normal = (
            tuple(c[far] for c in v) for v in (old_axis, old_normal, new_axis, new_normal)
        )
        plane_turn = C.turn(old_normal, new_normal, old_axis)
        turned = C.qrotate(plane_turn, old_axis)
        exact = C.qmul(C.turn(turned, new_axis, new_normal), plane_turn)
        for d, e in zip(delta, exact, strict=True):
            d[far] = e
    return delta


def _knee_turn(
    old_upper: C.Vec,
    old_lower: C.Vec,
    old_sine: FloatArray,
    new_upper: C.Vec,
    new_lower: C.Vec,
    new_normal: C.Vec,
) -> C.Quat:
    """Rotation about the new bend normal by the change of the knee angle (new − old)."""
    old_cosine = C.dot(old_upper, old_lower)
    new_cosine = C.dot(new_upper, new_lower)
    new_sine = C.dot(C.cross(new_upper, new_lower), new_normal)
    cosine = new_cosine * old_cosine + new_sine * old_sine
    sine = new_sine * old_cosine - new_cosine * old_sine
    # Half-angle quaternion, from whichever of (1 + cos, sin) and (sin, 1 − cos) is well sized.
    small = cosine >= 0.0
    w = np.where(small, 1.0 + cosine, sine)
    b = np.where(small, sine, 1.0 - cosine)
    inverse = 1.0 / np.sqrt(np.maximum(w * w + b * b, TINY))
    return (w * inverse, *C.scale(new_normal, b * inverse))


def _solve_block(
    root: C.Vec,
    mid: C.Vec,
    tip: C.Vec,
    target: C.Vec,
    pole: C.Vec | None,
    pole_weight: FloatArray,
    max_reach: FloatArray,
) -> tuple[C.Vec, C.Vec, FloatArray, NDArray[np.bool_], C.Quat, C.Quat]:
    """Full-weight solve of one block of limbs given as components ``(N,)``.

    Returns ``(mid, tip, residual, clamped, upper_delta, lower_delta)``.
    """
    upper = C.sub(mid, root)
    lower = C.sub(tip, mid)
    upper_length = C.norm(upper)
    lower_length = C.norm(lower)

    def old_direction() -> C.Vec:
        zero = np.zeros_like(upper_length)
        down = (zero, zero - 1.0, zero)
        return C.unit(C.sub(tip, root), lambda: C.unit_with(upper, upper_length, down))

    # Where the tip goes: along root→target, at a distance the triangle allows.
    to_target = C.sub(target, root)
    distance = C.norm(to_target)
    direction = C.unit_with(to_target, distance, old_direction)
    total = upper_length + lower_length
    shortest = np.abs(upper_length - lower_length) + MIN_REACH_SLACK * total
    longest = np.maximum(max_reach * total, shortest)
    reach = np.minimum(np.maximum(distance, shortest), longest)
    residual = np.abs(distance - reach)
    clamped = distance > longest

    # Which way the middle joint sticks out.
    old_cross = C.cross(upper, lower)
    old_cross_length = C.norm(old_cross)
    lengths = upper_length * lower_length
    old_bent = old_cross_length > _STRAIGHT_SINE * lengths + TINY
    old_normal = C.scale(old_cross, 1.0 / np.where(old_bent, old_cross_length, 1.0))
    pole_offset = None if pole is None else C.sub(pole, root)
    bend = _bend_direction(
        direction, upper, upper_length, old_normal, old_bent, pole_offset, pole_weight
    )

    # Law of cosines at the root; the new bones and the new bend-plane normal.
    cos_root, sin_root = root_angle(upper_length, lower_length, reach)
    new_upper_axis = C.add(C.scale(direction, cos_root), C.scale(bend, sin_root))
    new_mid = C.add(root, C.scale(new_upper_axis, upper_length))
    lower_vector = C.sub(C.scale(direction, reach), C.scale(new_upper_axis, upper_length))
    new_lower_axis = C.unit(lower_vector, new_upper_axis)
    new_tip = C.add(new_mid, C.scale(new_lower_axis, lower_length))
    new_normal = C.cross(bend, direction)
    # new_upper_axis × new_normal, expanded (bend ⟂ direction, both unit).
    new_side = C.sub(C.scale(bend, cos_root), C.scale(direction, sin_root))

    # Deltas: the upper bone maps its old frame (axis, bend normal) onto the new one; the lower
    # bone turns further about the new normal by the change of the knee angle, so the knee only
    # ever turns about its hinge.
    old_upper_axis = C.unit_with(upper, upper_length, old_direction)
    old_lower_axis = C.unit_with(lower, lower_length, old_upper_axis)
    if not np.all(old_bent):
        # A straight old limb has no plane: borrow the new normal (minimal twist).
        borrowed = C.unit(
            C.reject(new_normal, old_upper_axis),
            lambda: C.any_perpendicular(old_upper_axis),
            1e-9,
        )
        old_normal = C.select(old_bent, old_normal, borrowed)
    upper_delta = _upper_delta(old_upper_axis, old_normal, new_upper_axis, new_normal, new_side)
    old_sine = old_cross_length / np.maximum(lengths, TINY)
    knee = _knee_turn(
        old_upper_axis, old_lower_axis, old_sine, new_upper_axis, new_lower_axis, new_normal
    )
    lower_delta = C.qmul(knee, upper_delta)
    return new_mid, new_tip, residual, clamped, upper_delta, lower_delta


def _batch_shape(
    named: dict[str, ArrayLike | None],
    points: list[FloatArray],
    scalars: list[FloatArray],
    rotations: list[np.ndarray],
    rotation_weight_shape: tuple[int, ...],
) -> tuple[int, ...]:
    """Common batch shape of every input; raises :class:`SkeletonError` naming bad shapes."""

    def shapes() -> str:  # built only for an error message
        return ", ".join(
            f"{name} {np.shape(value)}" for name, value in named.items() if value is not None
        )

    if any(p.ndim < 1 or p.shape[-1] != 3 for p in points) or any(
        q.ndim < 1 or q.shape[-1] != 4 for q in rotations
    ):
        raise SkeletonError(f"solve_two_bone: positions need shape (..., 3), rotations "
                            f"(..., 4); got {shapes()}")
    first = points[0].shape[:-1]
    if (
        all(p.shape[:-1] == first for p in points)
        and all(s.ndim == 0 for s in scalars)
        and all(q.shape[:-1] == first for q in rotations)
        and rotation_weight_shape == ()
    ):
        return first  # the usual call: nothing to broadcast
    try:
        return np.broadcast_shapes(
            *(p.shape[:-1] for p in points),
            *(s.shape for s in scalars),
            *(q.shape[:-1] for q in rotations),
            rotation_weight_shape,
        )
    except ValueError:
        raise SkeletonError(f"solve_two_bone: input batch shapes do not broadcast: {shapes()}, "
                            f"weights {[s.shape for s in scalars]}") from None


def _unit_interval(weight: ArrayLike) -> FloatArray:
    """``weight`` as float64 clipped to [0, 1] (NaN stays NaN, as with ``np.clip``)."""
    return np.minimum(np.maximum(np.asarray(weight, dtype=np.float64), 0.0), 1.0)


def _columns(rows: tuple[FloatArray, ...], out: FloatArray) -> None:
    """Write component rows ``(N,)`` into the columns of ``out (N, k)``."""
    for i, row in enumerate(rows):
        out[:, i] = row


_FAILED = (np.nan,) * 16


def _core_rows(
    table: FloatArray, rows: FloatArray, has_pole: bool, limbs: list[int],
    pole_weights: FloatArray, reaches: FloatArray,
) -> None:
    """Solve the ``limbs`` given by input ``rows (k, 3, m)`` with the vectorised core and write
    them into their rows of ``table (N, 16)`` (the layout of ``_small.solve_small``)."""
    vectors = [tuple(r) for r in rows]
    mid, tip, residual, clamped, upper, lower = _solve_block(
        *vectors[:4],  # type: ignore[arg-type]
        vectors[4] if has_pole else None,  # type: ignore[arg-type]
        pole_weights if pole_weights.ndim == 0 else pole_weights[limbs],
        reaches if reaches.ndim == 0 else reaches[limbs],
    )
    for column, values in enumerate((*mid, *tip, residual, clamped, *upper, *lower)):
        table[limbs, column] = values


def _partial_columns(
    solved: tuple[C.Vec, C.Vec, C.Quat, C.Quat], *outs: FloatArray
) -> None:
    """Write ``(mid, tip, upper_delta, lower_delta)`` components into ``outs`` (4 arrays)."""
    for rows, out in zip(solved, outs, strict=True):
        _columns(rows, out)


#: Largest coordinate magnitude :func:`solve_two_bone` accepts, metres (squares stay finite).
MAX_COORDINATE = 1e6


def _within(array: FloatArray, limit: float) -> bool:
    """Whether every value of ``array`` lies in [−limit, limit] (NaN does not)."""
    if array.size <= 32:  # per-frame calls: Python floats are cheaper than NumPy reductions
        return all(-limit <= value <= limit for value in array.ravel().tolist())
    return bool((np.abs(array) <= limit).all())


def _refuse_non_finite(named: dict[str, ArrayLike | None], points: list[FloatArray],
                       *others: ArrayLike | None) -> None:
    """Raise :class:`SkeletonError` naming the input holding NaN, inf or a coordinate beyond
    ±:data:`MAX_COORDINATE` (the solver's answer to those would be NaN). ``points`` are the
    arrays of ``named``'s non-None values, in order."""
    for array in points:
        if not _within(array, MAX_COORDINATE):
            given = [name for name, value in named.items() if value is not None]
            name = given[next(i for i, p in enumerate(points) if p is array)]
            raise SkeletonError(f"solve_two_bone: {name} holds NaN, inf or a coordinate beyond "
                                f"±{MAX_COORDINATE:g} m")
    labels = ("target_rotation", "tip_rotation", "position_weight", "rotation_weight",
              "pole_weight", "max_reach")
    for label, value in zip(labels, others, strict=True):
        if value is None:
            continue
        if isinstance(value, (float, int)):
            finite = math.isfinite(value)
        else:
            finite = _within(np.asarray(value, dtype=np.float64), math.inf)
        if not finite:
            raise SkeletonError(f"solve_two_bone: {label} holds NaN or inf")


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
    points = [np.asarray(v, dtype=np.float64) for v in named.values() if v is not None]
    _refuse_non_finite(named, points, target_rotation, tip_rotation, position_weight,
                       rotation_weight, pole_weight, max_reach)
    position_weight = _unit_interval(position_weight)
    scalars = [position_weight, _unit_interval(pole_weight),
               np.asarray(max_reach, dtype=np.float64)]
    rotations = [np.asarray(q) for q in (target_rotation, tip_rotation) if q is not None]
    shape = _batch_shape(named, points, scalars, rotations, np.shape(rotation_weight))
    count = math.prod(shape)
    # Per-limb weights as flat arrays; a single value stays a scalar (no per-limb copy).
    weight, pole_weights, reaches = (
        s if s.ndim == 0 else np.ascontiguousarray(np.broadcast_to(s, shape).reshape(-1))
        for s in scalars
    )
    partial = bool((weight != 1.0).any())
    if partial and weight.ndim == 0:
        weight = np.full(count, weight)
    out_mid = np.empty((count, 3))
    out_tip = np.empty((count, 3))
    residual = np.empty(count)
    clamped = np.empty(count, dtype=bool)
    upper_delta = np.empty((count, 4))
    lower_delta = np.empty((count, 4))
    if count <= _BLOCK:
        # One block (every per-frame call): the inputs go to contiguous component rows in one
        # copy, without the block loop's slicing.
        stacked = np.empty((len(points), *shape, 3))
        for i, p in enumerate(points):
            stacked[i] = p
        stacked = stacked.reshape(len(points), count, 3)
        rows = np.ascontiguousarray(stacked.transpose(0, 2, 1))
        blocks = [(slice(None), [tuple(r) for r in rows])]
        limbs = None
        if (count <= _SMALL and not (pole_weights < 1.0).any() and np.isfinite(stacked).all()
                and np.isfinite(reaches).all()):  # Python's min/max differ from NumPy's on NaN
            lists = stacked.tolist()
            limbs = solve_small(lists, pole is not None,
                                reaches.tolist() if reaches.ndim else [float(reaches)] * count)
        if limbs is not None:
            # A few limbs: Python floats, bit-identical to the core (see _small.py); limbs that
            # need a fallback go through the core on their own.
            failed = [i for i, limb in enumerate(limbs) if limb is None]
            table = np.array([_FAILED if limb is None else limb for limb in limbs])  # (count, 16)
            if failed:
                _core_rows(table, rows[:, :, failed], pole is not None, failed,
                           pole_weights, reaches)
            blocks = []
            residual[:] = table[:, 6]
            clamped[:] = table[:, 7] != 0.0
            if partial:
                table = np.array(blend_small(lists, table.tolist(), weight))  # (count, 14)
                out_mid[:] = table[:, 0:3]
                out_tip[:] = table[:, 3:6]
                upper_delta[:] = table[:, 6:10]
                lower_delta[:] = table[:, 10:14]
            else:
                out_mid[:] = table[:, 0:3]
                out_tip[:] = table[:, 3:6]
                upper_delta[:] = table[:, 8:12]
                lower_delta[:] = table[:, 12:16]
    else:
        flat = [np.broadcast_to(p, (*shape, 3)).reshape(count, 3) for p in points]
        blocks = (
            (part, [tuple(np.ascontiguousarray(p[part].T)) for p in flat])
            for part in (slice(start, start + _BLOCK) for start in range(0, count, _BLOCK))
        )
    # Blocks keep the temporaries cache-sized; each block is fully vectorised on contiguous
    # components (x, y, z rows).
    for part, vectors in blocks:
        block = _solve_block(
            *vectors[:4],  # type: ignore[arg-type]
            vectors[4] if pole is not None else None,  # type: ignore[arg-type]
            pole_weights if pole_weights.ndim == 0 else pole_weights[part],
            reaches if reaches.ndim == 0 else reaches[part],
        )
        block_mid, block_tip, block_upper, block_lower = block[0], block[1], block[4], block[5]
        if partial:
            block_mid, block_tip, block_upper, block_lower = blend(
                *vectors[:3], block_upper, block_lower, weight[part]  # type: ignore[arg-type]
            )
        _partial_columns((block_mid, block_tip, block_upper, block_lower),
                         out_mid[part], out_tip[part], upper_delta[part], lower_delta[part])
        residual[part] = block[2]
        clamped[part] = block[3]
    return TwoBoneResult(
        mid=out_mid.reshape(*shape, 3),
        tip=out_tip.reshape(*shape, 3),
        residual=residual.reshape(shape),
        clamped=clamped.reshape(shape),
        upper_rotation=upper_delta.reshape(*shape, 4),
        lower_rotation=lower_delta.reshape(*shape, 4),
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
    weight = np.clip(np.asarray(rotation_weight, dtype=np.float64), 0.0, 1.0)
    if tip_rotation is None:
        if np.any(weight != 1.0):
            raise SkeletonError(
                "solve_two_bone: rotation_weight < 1 needs tip_rotation (the end joint's "
                "current world rotation) to blend from"
            )
        return goal
    current = quat.normalize(np.broadcast_to(np.asarray(tip_rotation, np.float64), (*shape, 4)))
    return quat.slerp(current, goal, np.broadcast_to(weight, shape))
