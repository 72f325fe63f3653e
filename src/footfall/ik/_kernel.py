"""Compiled two-bone IK core: one limb at a time, the same code for every batch size (private).

The solver is a few dozen vector operations per limb with branches for the degenerate cases
(target on the root, straight limb, pole on the limb axis, zero-length bone, a turn of the upper
bone near a half turn). Vectors are ``(x, y, z)`` tuples and quaternions ``(w, x, y, z)``
tuples, with the Hamilton product and rotation from :mod:`footfall.quat`. Written by hand
because no library does analytic two-bone IK with these fallbacks. A position weight below 1
anywhere in a batch takes every limb through the blend, and a pole weight below 1 every limb
through the pole turn (the same results up to rounding, which a half-turned limb at partial
weight follows).

:func:`solve_one` and :func:`knee_one` (one call site each) are inlined at numba's IR level
(:func:`footfall.jit.inlined`: LLVM's inlining measured 5–10 % slower), every helper they call
by LLVM (:func:`footfall.jit.helper`).

Bad input is not raised from compiled code: the batch kernels return a bit mask of the inputs
holding NaN, inf or out-of-range coordinates (bits :data:`ROOT` … :data:`MAX_REACH`), and the
public wrappers turn it into a :class:`footfall.errors.SkeletonError` naming the input.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np

from footfall.arrays import FloatArray
from footfall.jit import helper, inlined, kernel
from footfall.quat import (
    Quat4,
    Vec3,
    add_s,
    between_s,
    cross_s,
    dot_s,
    inv_s,
    max_nan,
    min_nan,
    mul_s,
    norm_s,
    rotate_s,
    scale_s,
    slerp_from_identity_s,
    sub_s,
)

# Below this length (metres) a vector has no usable direction.
TINY = 1e-12
# The shortest reach is |L1 − L2| plus this share of L1 + L2, so the triangle always exists.
MIN_REACH_SLACK = 1e-6
# Below this sine the limb counts as straight and its bend plane is undefined.
STRAIGHT_SINE = 1e-7

# Bits of the bad-input mask returned by :func:`solve_batch`, in the order errors are reported.
ROOT, MID, TIP, TARGET, POLE, POSITION_WEIGHT, POLE_WEIGHT, MAX_REACH = (1 << k for k in range(8))


# --- scalar vector helpers -------------------------------------------------------------------


@helper
def _reject(a: Vec3, axis: Vec3) -> Vec3:
    """Part of ``a`` perpendicular to the unit ``axis``."""
    return sub_s(a, scale_s(axis, dot_s(a, axis)))


@helper
def _row(a: FloatArray, i: int) -> Vec3:
    return (a[i, 0], a[i, 1], a[i, 2])


@helper
def _out_of_range(v: Vec3, limit: float) -> bool:
    """Whether a component lies outside [−limit, limit] (NaN does)."""
    return not (-limit <= v[0] <= limit and -limit <= v[1] <= limit and -limit <= v[2] <= limit)


@helper
def _any_perpendicular(axis: Vec3) -> Vec3:
    """Unit vector perpendicular to the unit ``axis``: world +Z preferred (a character's
    forward, where knees point), world +X where the axis is nearly parallel to Z."""
    helper = (1.0, 0.0, 0.0) if abs(axis[2]) >= 0.9 else (0.0, 0.0, 1.0)
    rejected = _reject(helper, axis)
    length = norm_s(rejected)
    if length > TINY:
        return scale_s(rejected, 1.0 / length)
    return (0.0, 1.0, 0.0)


# --- the two-bone core -----------------------------------------------------------------------


@helper
def reach_limits_s(
    upper_length: float, lower_length: float, max_reach: float
) -> tuple[float, float]:
    """Shortest and longest root→tip distance the solver allows, metres."""
    total = upper_length + lower_length
    shortest = abs(upper_length - lower_length) + MIN_REACH_SLACK * total
    return shortest, max_nan(max_reach * total, shortest)


@helper
def root_angle_s(upper_length: float, lower_length: float, reach: float) -> tuple[float, float]:
    """Cosine and sine (≥ 0) of the angle at the root between root→tip and the upper bone
    (law of cosines for the triangle L1, L2, ``reach``)."""
    cosine = (upper_length * upper_length + reach * reach - lower_length * lower_length) / max(
        2.0 * upper_length * reach, TINY)
    cosine = min_nan(max_nan(cosine, -1.0), 1.0)
    return cosine, math.sqrt(1.0 - cosine * cosine)


def _reach_limits_core(upper_length: float, lower_length: float, max_reach: float,
                       shortest: FloatArray, longest: FloatArray) -> None:  # pragma: no cover
    shortest[0], longest[0] = reach_limits_s(upper_length, lower_length, max_reach)


def _root_angle_core(upper_length: float, lower_length: float, reach: float,
                     cosine: FloatArray, sine: FloatArray) -> None:  # pragma: no cover
    cosine[0], sine[0] = root_angle_s(upper_length, lower_length, reach)


@functools.cache
def gufunc(name: str) -> np.ufunc:
    """``reach_limits_s`` or ``root_angle_s`` (``name``) over NumPy arrays: a gufunc
    ``(),(),()->(),()`` of float64, compiled on first use (no command's kernels need them, and
    an eager ``guvectorize`` would compile them on every import of ``footfall.ik``)."""
    core = {"reach_limits": _reach_limits_core, "root_angle": _root_angle_core}[name]
    return numba.guvectorize(  # type: ignore[no-any-return]
        ["void(float64, float64, float64, float64[:], float64[:])"], "(),(),()->(),()",
        cache=True)(core)


@helper
def _old_direction(root: Vec3, tip: Vec3, upper: Vec3, upper_length: float) -> Vec3:
    """Current root→tip direction, else the upper bone's, else straight down."""
    axis = sub_s(tip, root)
    length = norm_s(axis)
    if length > TINY:
        return scale_s(axis, 1.0 / length)
    if upper_length > TINY:
        return scale_s(upper, 1.0 / upper_length)
    return (0.0, -1.0, 0.0)


@helper
def _current_bend(
    direction: Vec3, upper: Vec3, upper_length: float, old_normal: Vec3, old_bent: bool
) -> tuple[Vec3, bool]:
    """Bend direction keeping the current bend, and whether the limb had one.

    The old bend plane (new direction × old normal), else the old knee's side of the new line;
    a straight limb gets any perpendicular (its knee's side of a tilted line is an accident).
    """
    keep_plane = cross_s(direction, old_normal)
    length = norm_s(keep_plane)
    if old_bent and length > STRAIGHT_SINE:
        return scale_s(keep_plane, 1.0 / length), True
    side = _reject(upper, direction)
    length = norm_s(side)
    if old_bent and length > STRAIGHT_SINE * upper_length + TINY:
        return scale_s(side, 1.0 / length), True
    return _any_perpendicular(direction), False


@helper
def _bend_direction(
    direction: Vec3, upper: Vec3, upper_length: float, old_normal: Vec3, old_bent: bool,
    has_pole: bool, pole_offset: Vec3, pole_weight: float, turn: bool,
) -> Vec3:
    """Unit direction perpendicular to ``direction`` toward which the middle joint goes.

    Without a pole the current bend is kept; with one, the pole's side of the line, the pole
    weight turning the current bend toward it about the line (``turn``: the batch has a pole
    weight below 1). A pole on the line falls back to the current bend.
    """
    toward = direction
    length = pole_tiny = 0.0
    if has_pole:
        along = dot_s(pole_offset, direction)
        toward = sub_s(pole_offset, scale_s(direction, along))
        squared = dot_s(toward, toward)
        pole_tiny = STRAIGHT_SINE * math.sqrt(squared + along * along) + TINY
        length = math.sqrt(squared)
        if length > pole_tiny and not turn:
            return scale_s(toward, 1.0 / length)
    # One call site, so the current bend is inlined once.
    current, current_ok = _current_bend(direction, upper, upper_length, old_normal, old_bent)
    if not has_pole:
        return current
    toward = scale_s(toward, 1.0 / length) if length > pole_tiny else current
    if not turn:
        return toward
    angle = math.atan2(dot_s(cross_s(current, toward), direction), dot_s(current, toward))
    if current_ok:
        angle = pole_weight * angle
    return add_s(scale_s(current, math.cos(angle)),
                scale_s(cross_s(direction, current), math.sin(angle)))


@helper
def _turn(a: Vec3, b: Vec3, half_turn_axis: Vec3) -> Quat4:
    """A rotation taking unit ``a`` onto unit ``b``, accurate even when they nearly oppose.

    Less than 90° apart it is the shortest arc; further apart a half turn about
    ``half_turn_axis`` (unit, ⟂ ``a``) followed by the well-conditioned arc from ``−a`` to ``b``.
    """
    cosine = dot_s(a, b)
    flip = cosine < 0.0
    signed = scale_s(a, -1.0) if flip else a
    axis = cross_s(signed, b)
    w = 1.0 + abs(cosine)
    inverse = 1.0 / math.sqrt(w * w + dot_s(axis, axis))
    q = (w * inverse, axis[0] * inverse, axis[1] * inverse, axis[2] * inverse)
    if not flip:
        return q
    return mul_s(q, (0.0, half_turn_axis[0], half_turn_axis[1], half_turn_axis[2]))


@helper
def _upper_delta(
    old_axis: Vec3, old_normal: Vec3, new_axis: Vec3, new_normal: Vec3, new_side: Vec3
) -> Quat4:
    """Rotation taking the orthonormal frame (old axis, old normal, ·) onto the new one.

    Quaternion of the rotation matrix ``Σ new ⊗ old`` by its trace; beyond about 139° (trace
    branch inaccurate) a turn of the normals followed by a turn about the new normal.
    """
    old_side = cross_s(old_axis, old_normal)
    w = 1.0 + (dot_s(old_axis, new_axis) + dot_s(old_normal, new_normal)
               + dot_s(old_side, new_side))
    if w < 0.5:
        plane_turn = _turn(old_normal, new_normal, old_axis)
        turned = rotate_s(plane_turn, old_axis)
        return mul_s(_turn(turned, new_axis, new_normal), plane_turn)
    vector = add_s(add_s(cross_s(old_axis, new_axis), cross_s(old_normal, new_normal)),
                  cross_s(old_side, new_side))
    inverse = 1.0 / math.sqrt(max(w * w + dot_s(vector, vector), TINY))
    return (w * inverse, vector[0] * inverse, vector[1] * inverse, vector[2] * inverse)


@helper
def _knee_turn(
    old_upper: Vec3, old_lower: Vec3, old_sine: float, new_upper: Vec3, new_lower: Vec3,
    new_normal: Vec3,
) -> Quat4:
    """Rotation about the new bend normal by the change of the knee angle (new − old)."""
    old_cosine = dot_s(old_upper, old_lower)
    new_cosine = dot_s(new_upper, new_lower)
    new_sine = dot_s(cross_s(new_upper, new_lower), new_normal)
    cosine = new_cosine * old_cosine + new_sine * old_sine
    sine = new_sine * old_cosine - new_cosine * old_sine
    # Half-angle quaternion from whichever of (1 + cos, sin) and (sin, 1 − cos) is well sized.
    if cosine >= 0.0:
        w, b = 1.0 + cosine, sine
    else:
        w, b = sine, 1.0 - cosine
    inverse = 1.0 / math.sqrt(max(w * w + b * b, TINY))
    b = b * inverse
    return (w * inverse, new_normal[0] * b, new_normal[1] * b, new_normal[2] * b)


@inlined
def solve_one(
    root: Vec3, mid: Vec3, tip: Vec3, target: Vec3, has_pole: bool, pole: Vec3,
    pole_weight: float, turn: bool, max_reach: float,
) -> tuple[Vec3, Vec3, float, bool, Quat4, Quat4]:
    """Full-weight solve of one limb: ``(mid, tip, residual, clamped, upper delta, lower
    delta)``; deltas are world rotations with ``new = delta * old``. ``turn``: turn the
    current bend toward the pole by ``pole_weight`` (else straight to the pole)."""
    upper = sub_s(mid, root)
    lower = sub_s(tip, mid)
    upper_length = norm_s(upper)
    lower_length = norm_s(lower)

    # Where the tip goes: along root→target, at a distance the triangle allows.
    to_target = sub_s(target, root)
    distance = norm_s(to_target)
    if distance > TINY:
        direction = scale_s(to_target, 1.0 / distance)
    else:
        direction = _old_direction(root, tip, upper, upper_length)
    shortest, longest = reach_limits_s(upper_length, lower_length, max_reach)
    reach = min_nan(max_nan(distance, shortest), longest)

    # Which way the middle joint sticks out.
    old_cross = cross_s(upper, lower)
    old_cross_length = norm_s(old_cross)
    lengths = upper_length * lower_length
    old_bent = old_cross_length > STRAIGHT_SINE * lengths + TINY
    old_normal = scale_s(old_cross, 1.0 / (old_cross_length if old_bent else 1.0))
    bend = _bend_direction(direction, upper, upper_length, old_normal, old_bent, has_pole,
                           sub_s(pole, root), pole_weight, turn)

    # Law of cosines at the root; the new bones and the new bend-plane normal.
    cos_root, sin_root = root_angle_s(upper_length, lower_length, reach)
    new_upper_axis = add_s(scale_s(direction, cos_root), scale_s(bend, sin_root))
    new_mid = add_s(root, scale_s(new_upper_axis, upper_length))
    lower_vector = sub_s(scale_s(direction, reach), scale_s(new_upper_axis, upper_length))
    length = norm_s(lower_vector)
    new_lower_axis = scale_s(lower_vector, 1.0 / length) if length > TINY else new_upper_axis
    new_tip = add_s(new_mid, scale_s(new_lower_axis, lower_length))
    new_normal = cross_s(bend, direction)
    # new_upper_axis × new_normal, expanded (bend ⟂ direction, both unit).
    new_side = sub_s(scale_s(bend, cos_root), scale_s(direction, sin_root))

    # Deltas: the upper bone maps its old frame (axis, bend normal) onto the new one; the lower
    # bone turns further about the new normal by the change of the knee angle, so the knee only
    # ever turns about its hinge.
    if upper_length > TINY:
        old_upper_axis = scale_s(upper, 1.0 / upper_length)
    else:
        old_upper_axis = _old_direction(root, tip, upper, upper_length)
    old_lower_axis = scale_s(lower, 1.0 / lower_length) if lower_length > TINY else old_upper_axis
    if not old_bent:  # a straight old limb has no plane: borrow the new normal (least twist)
        borrowed = _reject(new_normal, old_upper_axis)
        length = norm_s(borrowed)
        if length > 1e-9:
            old_normal = scale_s(borrowed, 1.0 / length)
        else:
            old_normal = _any_perpendicular(old_upper_axis)
    upper_delta = _upper_delta(old_upper_axis, old_normal, new_upper_axis, new_normal, new_side)
    old_sine = old_cross_length / max(lengths, TINY)
    knee = _knee_turn(old_upper_axis, old_lower_axis, old_sine, new_upper_axis, new_lower_axis,
                      new_normal)
    return (new_mid, new_tip, abs(distance - reach), distance > longest, upper_delta,
            mul_s(knee, upper_delta))


@helper
def blend_one(
    root: Vec3, mid: Vec3, tip: Vec3, upper_delta: Quat4, lower_delta: Quat4, weight: float
) -> tuple[Vec3, Vec3, Quat4, Quat4]:
    """Seed 001's position weight: slerp the upper bone's delta and the knee's own (relative)
    turn between FK (0) and IK (1); returns ``(mid, tip, upper delta, lower delta)``."""
    knee_turn = mul_s(inv_s(upper_delta), lower_delta)
    upper_delta = slerp_from_identity_s(upper_delta, weight)
    lower_delta = mul_s(upper_delta, slerp_from_identity_s(knee_turn, weight))
    new_mid = add_s(root, rotate_s(upper_delta, sub_s(mid, root)))
    new_tip = add_s(new_mid, rotate_s(lower_delta, sub_s(tip, mid)))
    return new_mid, new_tip, upper_delta, lower_delta


@helper
def _unit_interval(value: float) -> float:
    """``value`` clipped to [0, 1]."""
    return min(max(value, 0.0), 1.0)


@kernel(error_model="numpy", nogil=True)
def solve_batch(
    root: FloatArray, mid: FloatArray, tip: FloatArray, target: FloatArray, pole: FloatArray,
    has_pole: bool, position_weight: FloatArray, pole_weight: FloatArray, max_reach: FloatArray,
    max_coordinate: float, out_mid: FloatArray, out_tip: FloatArray, residual: FloatArray,
    clamped: np.ndarray, out_upper: FloatArray, out_lower: FloatArray,
) -> int:
    """Solve ``N`` limbs given as ``(N, 3)`` C-contiguous arrays (``pole`` ignored without
    ``has_pole``); each weight array holds ``N`` values or one for all (weights unclipped).

    Writes ``out_mid (N, 3)``, ``out_tip (N, 3)``, ``residual (N,)``, ``clamped (N,)`` (bool),
    ``out_upper (N, 4)`` and ``out_lower (N, 4)`` (the deltas), allocated by the caller (NumPy
    puts large arrays on huge pages: fewer page faults than the kernel's own allocations).
    Returns the mask of inputs holding NaN, inf or a coordinate beyond ±``max_coordinate``
    (bits :data:`ROOT` …), 0 when all are fine (results of bad limbs are meaningless).
    """
    count = root.shape[0]
    position_step = 1 if position_weight.shape[0] > 1 else 0
    pole_step = 1 if pole_weight.shape[0] > 1 else 0
    reach_step = 1 if max_reach.shape[0] > 1 else 0
    bad = 0
    # Any weight below 1 takes every limb of the batch through the blend (a full-weight limb
    # then comes back with its deltas on the w ≥ 0 side) or the pole turn (module docstring).
    partial = False
    for k in range(position_weight.shape[0]):
        partial = partial or _unit_interval(position_weight[k]) != 1.0
    turn = False
    for k in range(pole_weight.shape[0]):
        turn = turn or _unit_interval(pole_weight[k]) < 1.0
    for i in range(count):
        r, m, t, g = _row(root, i), _row(mid, i), _row(tip, i), _row(target, i)
        p = _row(pole, i) if has_pole else r
        weight = position_weight[i * position_step]
        turn_weight = pole_weight[i * pole_step]
        reach = max_reach[i * reach_step]
        if _out_of_range(r, max_coordinate):
            bad |= ROOT
        if _out_of_range(m, max_coordinate):
            bad |= MID
        if _out_of_range(t, max_coordinate):
            bad |= TIP
        if _out_of_range(g, max_coordinate):
            bad |= TARGET
        if has_pole and _out_of_range(p, max_coordinate):
            bad |= POLE
        if not math.isfinite(weight):
            bad |= POSITION_WEIGHT
        if not math.isfinite(turn_weight):
            bad |= POLE_WEIGHT
        if not math.isfinite(reach):
            bad |= MAX_REACH
        weight = _unit_interval(weight)
        new_mid, new_tip, miss, clamp, upper, lower = solve_one(
            r, m, t, g, has_pole, p, _unit_interval(turn_weight), turn, reach)
        if partial:
            new_mid, new_tip, upper, lower = blend_one(r, m, t, upper, lower, weight)
        residual[i] = miss
        clamped[i] = clamp
        for k in range(3):
            out_mid[i, k] = new_mid[k]
            out_tip[i, k] = new_tip[k]
        for k in range(4):
            out_upper[i, k] = upper[k]
            out_lower[i, k] = lower[k]
    return bad


# --- knee copied from a source limb ----------------------------------------------------------


@inlined
def knee_one(
    hip: Vec3, knee: Vec3, foot: Vec3, goal_hip: Vec3, goal_foot: Vec3, upper_length: float,
    lower_length: float, max_reach: float,
) -> Vec3:
    """Seed 001's knee from a source limb (see :func:`footfall.ik.knee_from_source`)."""
    knee_offset = sub_s(knee, hip)
    source_direction = _old_direction(hip, foot, knee_offset, norm_s(knee_offset))
    goal_axis = sub_s(goal_foot, goal_hip)
    goal_distance = norm_s(goal_axis)
    if goal_distance > TINY:
        goal_direction = scale_s(goal_axis, 1.0 / goal_distance)
    else:
        goal_direction = source_direction

    # Along part scaled by the limb-length ratio; perpendicular part turned onto the new line.
    source_limb = norm_s(knee_offset) + norm_s(sub_s(foot, knee))
    ratio = (upper_length + lower_length) / max_nan(source_limb, TINY)
    along = dot_s(knee_offset, source_direction) * ratio
    turn = between_s(source_direction, goal_direction)
    across = scale_s(rotate_s(turn, _reject(knee_offset, source_direction)), ratio)
    estimate = add_s(scale_s(goal_direction, along), across)

    # Nearest knee that keeps both lengths: same side of the hip→foot line as the estimate.
    side = _reject(estimate, goal_direction)
    length = norm_s(side)
    bend = scale_s(side, 1.0 / length) if length > TINY else _any_perpendicular(goal_direction)
    shortest, longest = reach_limits_s(upper_length, lower_length, max_reach)
    reach = min_nan(max_nan(goal_distance, shortest), longest)
    cos_root, sin_root = root_angle_s(upper_length, lower_length, reach)
    upper_axis = add_s(scale_s(goal_direction, cos_root), scale_s(bend, sin_root))
    return add_s(goal_hip, scale_s(upper_axis, upper_length))


@kernel(error_model="numpy", nogil=True)
def knee_batch(
    hip: FloatArray, knee: FloatArray, foot: FloatArray, goal_hip: FloatArray,
    goal_foot: FloatArray, upper_length: FloatArray, lower_length: FloatArray,
    max_reach: FloatArray, out: FloatArray,
) -> None:
    """:func:`knee_one` over ``(N, 3)`` C-contiguous arrays into ``out (N, 3)``; each length
    array holds ``N`` values or one for all."""
    count = hip.shape[0]
    upper_step = 1 if upper_length.shape[0] > 1 else 0
    lower_step = 1 if lower_length.shape[0] > 1 else 0
    reach_step = 1 if max_reach.shape[0] > 1 else 0
    for i in range(count):
        position = knee_one(_row(hip, i), _row(knee, i), _row(foot, i), _row(goal_hip, i),
                            _row(goal_foot, i), upper_length[i * upper_step],
                            lower_length[i * lower_step], max_reach[i * reach_step])
        for k in range(3):
            out[i, k] = position[k]
