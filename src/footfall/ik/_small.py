"""Two-bone solve of a few ordinary limbs with Python floats (private).

A per-frame call solves 1–8 limbs. NumPy spends about half a microsecond per operation whatever
the array size, and the vectorised core (``two_bone._solve_block``) is some 350 operations: a
few hundred microseconds per call. Python floats run the same maths in about 15 µs per limb.

This is the core's main path only, operation for operation in the same order (so results are
bit-identical: + − × ÷ and sqrt are correctly rounded in both; the position-weight blend takes
its arccos and sines from NumPy on arrays of the same length as the vectorised blend, whose
SIMD loops may differ from ``math`` by an ulp). A limb that needs a fallback (target on the
root, straight limb, pole on the line, turn beyond ~139°, zero-length bone) comes back as None,
and the caller solves it with the vectorised core.
"""

from __future__ import annotations

from math import sqrt

import numpy as np

from footfall.ik._components import TINY

# Same constants as two_bone (imported there from here would be circular).
MIN_REACH_SLACK = 1e-6
STRAIGHT_SINE = 1e-7


def _cross(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float]:
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


def _dot(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _limb(
    root: list[float], mid: list[float], tip: list[float], target: list[float],
    pole: list[float] | None, max_reach: float,
) -> tuple[float, ...] | None:
    """One limb: ``(mid 3, tip 3, residual, clamped, upper 4, lower 4)`` or None (fallback)."""
    rx, ry, rz = root
    upper = (mid[0] - rx, mid[1] - ry, mid[2] - rz)
    lower = (tip[0] - mid[0], tip[1] - mid[1], tip[2] - mid[2])
    upper_length = sqrt(_dot(upper, upper))
    lower_length = sqrt(_dot(lower, lower))
    to_target = (target[0] - rx, target[1] - ry, target[2] - rz)
    distance = sqrt(_dot(to_target, to_target))
    if not (distance > TINY and upper_length > TINY and lower_length > TINY):
        return None
    inverse = 1.0 / distance
    direction = (to_target[0] * inverse, to_target[1] * inverse, to_target[2] * inverse)
    total = upper_length + lower_length
    shortest = abs(upper_length - lower_length) + MIN_REACH_SLACK * total
    longest = max(max_reach * total, shortest)
    reach = min(max(distance, shortest), longest)

    old_cross = _cross(upper, lower)
    old_cross_length = sqrt(_dot(old_cross, old_cross))
    lengths = upper_length * lower_length
    if not old_cross_length > STRAIGHT_SINE * lengths + TINY:
        return None
    inverse = 1.0 / old_cross_length
    old_normal = (old_cross[0] * inverse, old_cross[1] * inverse, old_cross[2] * inverse)
    if pole is None:  # keep the current bend plane
        bend = _cross(direction, old_normal)
        length = sqrt(_dot(bend, bend))
        if not length > STRAIGHT_SINE:
            return None
    else:
        offset = (pole[0] - rx, pole[1] - ry, pole[2] - rz)
        along = _dot(offset, direction)
        bend = (offset[0] - direction[0] * along, offset[1] - direction[1] * along,
                offset[2] - direction[2] * along)
        squared = _dot(bend, bend)
        length = sqrt(squared)
        if not length > STRAIGHT_SINE * sqrt(squared + along * along) + TINY:
            return None
    inverse = 1.0 / length
    bend = (bend[0] * inverse, bend[1] * inverse, bend[2] * inverse)

    cos_root = min(max((upper_length * upper_length + reach * reach
                        - lower_length * lower_length)
                       / max(2.0 * upper_length * reach, TINY), -1.0), 1.0)
    sin_root = sqrt(1.0 - cos_root * cos_root)
    up = tuple(d * cos_root + b * sin_root for d, b in zip(direction, bend, strict=True))
    new_mid = tuple(r + a * upper_length for r, a in zip(root, up, strict=True))
    low = tuple(d * reach - a * upper_length for d, a in zip(direction, up, strict=True))
    length = sqrt(_dot(low, low))
    if not length > TINY:
        return None
    inverse = 1.0 / length
    low = (low[0] * inverse, low[1] * inverse, low[2] * inverse)
    new_tip = tuple(m + a * lower_length for m, a in zip(new_mid, low, strict=True))
    new_normal = _cross(bend, direction)
    new_side = tuple(b * cos_root - d * sin_root for d, b in zip(direction, bend, strict=True))

    # Upper delta: quaternion of the frame rotation from its trace (the core's main branch).
    inverse = 1.0 / upper_length
    old_up = (upper[0] * inverse, upper[1] * inverse, upper[2] * inverse)
    inverse = 1.0 / lower_length
    old_low = (lower[0] * inverse, lower[1] * inverse, lower[2] * inverse)
    old_side = _cross(old_up, old_normal)
    w = 1.0 + (_dot(old_up, up) + _dot(old_normal, new_normal) + _dot(old_side, new_side))
    if not w >= 0.5:
        return None
    c1, c2, c3 = _cross(old_up, up), _cross(old_normal, new_normal), _cross(old_side, new_side)
    vector = (c1[0] + c2[0] + c3[0], c1[1] + c2[1] + c3[1], c1[2] + c2[2] + c3[2])
    inverse = 1.0 / sqrt(max(w * w + _dot(vector, vector), TINY))
    uw, ux, uy, uz = w * inverse, vector[0] * inverse, vector[1] * inverse, vector[2] * inverse

    # Lower delta: a further turn about the new normal by the change of the knee angle.
    old_sine = old_cross_length / max(lengths, TINY)
    old_cosine = _dot(old_up, old_low)
    new_cosine = _dot(up, low)
    new_sine = _dot(_cross(up, low), new_normal)
    cosine = new_cosine * old_cosine + new_sine * old_sine
    sine = new_sine * old_cosine - new_cosine * old_sine
    kw, kb = (1.0 + cosine, sine) if cosine >= 0.0 else (sine, 1.0 - cosine)
    inverse = 1.0 / sqrt(max(kw * kw + kb * kb, TINY))
    kw = kw * inverse
    kb = kb * inverse
    kx, ky, kz = new_normal[0] * kb, new_normal[1] * kb, new_normal[2] * kb
    return (
        *new_mid, *new_tip, abs(distance - reach), float(distance > longest), uw, ux, uy, uz,
        kw * uw - kx * ux - ky * uy - kz * uz,
        kw * ux + kx * uw + ky * uz - kz * uy,
        kw * uy - kx * uz + ky * uw + kz * ux,
        kw * uz + kx * uy - ky * ux + kz * uw,
    )


def solve_small(
    points: list[list[list[float]]], has_pole: bool, max_reach: list[float]
) -> list[tuple[float, ...] | None]:
    """Solve each limb of ``points`` (``[root, mid, tip, target(, pole)]``, each a list of
    ``[x, y, z]`` per limb) at full weights; None for a limb that needs a fallback."""
    poles = points[4] if has_pole else [None] * len(max_reach)
    return [_limb(*limb) for limb in zip(*points[:4], poles, max_reach, strict=True)]


def _knee(
    hip: list[float], knee: list[float], foot: list[float], goal_hip: list[float],
    goal_foot: list[float], upper_length: float, lower_length: float, max_reach: float,
) -> tuple[float, float, float] | None:
    """``knee.knee_from_source`` for one limb (its main path, same operations in the same
    order); None where it needs a fallback."""
    offset = (knee[0] - hip[0], knee[1] - hip[1], knee[2] - hip[2])
    axis = (foot[0] - hip[0], foot[1] - hip[1], foot[2] - hip[2])
    length = sqrt(_dot(axis, axis))
    goal = (goal_foot[0] - goal_hip[0], goal_foot[1] - goal_hip[1], goal_foot[2] - goal_hip[2])
    distance = sqrt(_dot(goal, goal))
    if not (length > TINY and distance > TINY):
        return None
    inverse = 1.0 / length
    source = (axis[0] * inverse, axis[1] * inverse, axis[2] * inverse)
    inverse = 1.0 / distance
    direction = (goal[0] * inverse, goal[1] * inverse, goal[2] * inverse)
    lower = (foot[0] - knee[0], foot[1] - knee[1], foot[2] - knee[2])
    source_limb = sqrt(_dot(offset, offset)) + sqrt(_dot(lower, lower))
    ratio = (upper_length + lower_length) / max(source_limb, TINY)
    along = _dot(offset, source) * ratio

    # quat.between(source, direction), its main branch.
    norm_a, norm_b = sqrt(_dot(source, source)), sqrt(_dot(direction, direction))
    if not (norm_a > 1e-12 and norm_b > 1e-12):
        return None
    unit_a = (source[0] / norm_a, source[1] / norm_a, source[2] / norm_a)
    unit_b = (direction[0] / norm_b, direction[1] / norm_b, direction[2] / norm_b)
    w = 1.0 + _dot(unit_a, unit_b)
    if not w >= 1e-9:
        return None
    turn_axis = _cross(unit_a, unit_b)
    norm_q = sqrt(w * w + turn_axis[0] * turn_axis[0] + turn_axis[1] * turn_axis[1]
                  + turn_axis[2] * turn_axis[2])
    if not norm_q > 1e-12:
        return None
    w = w / norm_q
    xyz = (turn_axis[0] / norm_q, turn_axis[1] / norm_q, turn_axis[2] / norm_q)

    # Perpendicular part turned onto the new line, scaled.
    d = _dot(offset, source)
    across = (offset[0] - source[0] * d, offset[1] - source[1] * d, offset[2] - source[2] * d)
    t = _cross(xyz, across)
    t = (t[0] * 2.0, t[1] * 2.0, t[2] * 2.0)
    u = _cross(xyz, t)
    across = ((across[0] + t[0] * w + u[0]) * ratio, (across[1] + t[1] * w + u[1]) * ratio,
              (across[2] + t[2] * w + u[2]) * ratio)
    estimate = tuple(g * along + a for g, a in zip(direction, across, strict=True))
    d = _dot(estimate, direction)
    bend = tuple(e - g * d for e, g in zip(estimate, direction, strict=True))
    length = sqrt(_dot(bend, bend))
    if not length > TINY:
        return None
    inverse = 1.0 / length

    total = upper_length + lower_length
    shortest = abs(upper_length - lower_length) + MIN_REACH_SLACK * total
    reach = min(max(distance, shortest), max(max_reach * total, shortest))
    cos_root = min(max((upper_length * upper_length + reach * reach
                        - lower_length * lower_length)
                       / max(2.0 * upper_length * reach, TINY), -1.0), 1.0)
    sin_root = sqrt(1.0 - cos_root * cos_root)
    return tuple(  # type: ignore[return-value]
        h + (g * cos_root + b * inverse * sin_root) * upper_length
        for h, g, b in zip(goal_hip, direction, bend, strict=True)
    )


def knees_small(
    points: list[list[list[float]]], upper: list[float], lower: list[float], reach: list[float]
) -> list[tuple[float, float, float]] | None:
    """:func:`_knee` for each limb of ``points`` (five lists of ``[x, y, z]``); None when any
    limb needs a fallback."""
    out = []
    for limb in zip(*points, upper, lower, reach, strict=True):
        knee = _knee(*limb)
        if knee is None:
            return None
        out.append(knee)
    return out


def _slerp_parts(d: list[float], weight: np.ndarray) -> tuple[list[float], ...]:
    """``sin θ``, ``sin((1 − t)θ)``, ``sin(tθ)`` with ``θ = arccos(min(d, 1))``, from NumPy on
    arrays of the same length as ``_blend.slerp_from_identity`` uses (so the same values)."""
    theta = np.arccos(np.minimum(np.array(d), 1.0))
    return (np.sin(theta).tolist(), np.sin((1.0 - weight) * theta).tolist(),
            np.sin(weight * theta).tolist())


def _slerp(q: tuple[float, ...], t: float, sin_theta: float, sin_a: float, sin_b: float
           ) -> tuple[float, float, float, float]:
    """One ``_blend.slerp_from_identity`` given its sines (``q`` already on the w ≥ 0 side)."""
    if sin_theta < 1e-6:
        wa, wb = 1.0 - t, t
    else:
        wa, wb = sin_a / sin_theta, sin_b / sin_theta
    w, x, y, z = wa + wb * q[0], wb * q[1], wb * q[2], wb * q[3]
    norm = sqrt(w * w + x * x + y * y + z * z)
    if not norm > 1e-12:
        return 1.0, 0.0, 0.0, 0.0
    return w / norm, x / norm, y / norm, z / norm


def _qmul(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, float, float, float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _qrotate(q: tuple[float, ...], v: tuple[float, ...]) -> tuple[float, float, float]:
    xyz = q[1:]
    t = _cross(xyz, v)
    t = (t[0] * 2.0, t[1] * 2.0, t[2] * 2.0)
    u = _cross(xyz, t)
    w = q[0]
    return v[0] + t[0] * w + u[0], v[1] + t[1] * w + u[1], v[2] + t[2] * w + u[2]


def blend_small(
    points: list[list[list[float]]], solved: list[list[float]], weight: np.ndarray
) -> list[tuple[float, ...]]:
    """``_blend.blend`` for a few limbs: ``(mid 3, tip 3, upper 4, lower 4)`` per limb from the
    inputs ``points`` (root, mid, tip lists), full-weight rows ``solved`` (``solve_small``'s
    layout) and the position weights ``(N,)``; the transcendental parts come from NumPy."""
    uppers, knees = [], []
    for row in solved:
        upper = tuple(row[8:12])
        knee = _qmul((upper[0], -upper[1], -upper[2], -upper[3]), tuple(row[12:16]))
        uppers.append(tuple(-c for c in upper) if upper[0] < 0 else upper)
        knees.append(tuple(-c for c in knee) if knee[0] < 0 else knee)
    upper_sines = _slerp_parts([q[0] for q in uppers], weight)
    knee_sines = _slerp_parts([q[0] for q in knees], weight)
    out: list[tuple[float, ...]] = []
    for i, t in enumerate(weight.tolist()):
        upper = _slerp(uppers[i], t, *(s[i] for s in upper_sines))
        lower = _qmul(upper, _slerp(knees[i], t, *(s[i] for s in knee_sines)))
        root, mid, tip = points[0][i], points[1][i], points[2][i]
        turned = _qrotate(upper, (mid[0] - root[0], mid[1] - root[1], mid[2] - root[2]))
        new_mid = (root[0] + turned[0], root[1] + turned[1], root[2] + turned[2])
        turned = _qrotate(lower, (tip[0] - mid[0], tip[1] - mid[1], tip[2] - mid[2]))
        out.append((*new_mid, new_mid[0] + turned[0], new_mid[1] + turned[1],
                    new_mid[2] + turned[2], *upper, *lower))
    return out
