"""Batched quaternion maths: arrays of shape ``(..., 4)`` in (w, x, y, z) order.

Every function broadcasts over leading axes. Rotations act on column vectors the usual way:
``rotate(q, v)`` is ``q * v * q⁻¹`` and ``mul(a, b)`` applies ``b`` first, then ``a``.
Euler angles follow BVH: an order string such as ``"ZXY"`` names intrinsic rotations applied
left to right, i.e. the rotation is ``R = R_Z · R_X · R_Y``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.jit import helper

#: One quaternion ``(w, x, y, z)`` or vector ``(x, y, z)`` inside compiled kernels.
Quat4 = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]

_EPS = 1e-12
_AXES = {"X": np.eye(3)[0], "Y": np.eye(3)[1], "Z": np.eye(3)[2]}
EULER_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def identity(shape: tuple[int, ...] = ()) -> FloatArray:
    """Identity rotations of the given batch shape; returns ``(*shape, 4)``."""
    out = np.zeros((*shape, 4))
    out[..., 0] = 1.0
    return out


def normalize(q: ArrayLike) -> FloatArray:
    """Unit quaternions ``(..., 4)``; zero-length input becomes the identity."""
    q = np.asarray(q, dtype=np.float64)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(norm > _EPS, q / np.where(norm > _EPS, norm, 1.0), identity(q.shape[:-1]))


def mul(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Hamilton product ``a * b`` of ``(..., 4)`` arrays (``b`` applied first)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape[-1:] != (4,) or b.shape[-1:] != (4,):
        raise ValueError(f"quaternions must have shape (..., 4), got {a.shape} and {b.shape}")
    return _mul_gufunc.ufunc(a, b)  # type: ignore[no-any-return]


def inv(q: ArrayLike) -> FloatArray:
    """Inverse (conjugate) of unit quaternions ``(..., 4)``."""
    return np.asarray(q, dtype=np.float64) * np.array([1.0, -1.0, -1.0, -1.0])


def inv_mul(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """``inv(a) * b`` for ``(..., 4)`` arrays."""
    return mul(inv(a), b)


def mul_inv(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """``a * inv(b)`` for ``(..., 4)`` arrays."""
    return mul(a, inv(b))


def rotate(q: ArrayLike, v: ArrayLike) -> FloatArray:
    """Rotate vectors ``v (..., 3)`` by unit quaternions ``q (..., 4)``; returns ``(..., 3)``."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if q.shape[-1:] != (4,) or v.shape[-1:] != (3,):
        raise ValueError(f"rotate needs q (..., 4) and v (..., 3), got {q.shape} and {v.shape}")
    return _rotate_gufunc.ufunc(q, v)  # type: ignore[no-any-return]


def inv_rotate(q: ArrayLike, v: ArrayLike) -> FloatArray:
    """Rotate vectors ``v (..., 3)`` by the inverse of ``q (..., 4)``."""
    return rotate(inv(q), v)


def from_axis_angle(axis: ArrayLike, angle: ArrayLike) -> FloatArray:
    """Rotation of ``angle (...)`` radians about ``axis (..., 3)`` (normalised here)."""
    axis = np.asarray(axis, dtype=np.float64)
    angle = np.asarray(angle, dtype=np.float64)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    unit = axis / np.where(norm > _EPS, norm, 1.0)
    half = 0.5 * angle[..., None]
    xyz = np.sin(half) * unit
    w = np.broadcast_to(np.cos(half), (*xyz.shape[:-1], 1))
    return np.concatenate([w, xyz], axis=-1)


def to_axis_angle(q: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Axis ``(..., 3)`` and angle ``(...)`` in [0, π] of unit quaternions ``(..., 4)``."""
    q = unroll_sign(np.asarray(q, dtype=np.float64))
    q = np.where(q[..., :1] < 0, -q, q)
    sin_half = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(sin_half, q[..., 0])
    axis = np.where(
        sin_half[..., None] > _EPS,
        q[..., 1:] / np.where(sin_half > _EPS, sin_half, 1.0)[..., None],
        np.array([1.0, 0.0, 0.0]),
    )
    return axis, angle


def from_scaled_angle_axis(v: ArrayLike) -> FloatArray:
    """Rotation from a rotation vector ``(..., 3)`` (axis times angle in radians)."""
    v = np.asarray(v, dtype=np.float64)
    angle = np.linalg.norm(v, axis=-1)
    return from_axis_angle(np.where(angle[..., None] > _EPS, v, [1.0, 0.0, 0.0]), angle)


def to_scaled_angle_axis(q: ArrayLike) -> FloatArray:
    """Rotation vector ``(..., 3)`` (axis times angle, shortest way) of ``q (..., 4)``."""
    axis, angle = to_axis_angle(q)
    return axis * angle[..., None]


def between(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Shortest rotation taking direction ``a (..., 3)`` onto direction ``b (..., 3)``.

    Antiparallel inputs turn by π about an axis perpendicular to ``a``; zero vectors give the
    identity. Never NaN.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    na = np.linalg.norm(a, axis=-1, keepdims=True)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)
    degenerate = (na[..., 0] < _EPS) | (nb[..., 0] < _EPS)
    ua = a / np.where(na > _EPS, na, 1.0)
    ub = b / np.where(nb > _EPS, nb, 1.0)
    dot = np.sum(ua * ub, axis=-1, keepdims=True)
    axis = np.cross(ua, ub)
    q = np.concatenate([1.0 + dot, axis], axis=-1)
    # Antiparallel: any axis perpendicular to a.
    opposite = (1.0 + dot[..., 0]) < 1e-9
    if np.any(opposite):
        helper = np.where(np.abs(ua[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        perp = np.cross(ua, helper)
        perp = perp / np.maximum(np.linalg.norm(perp, axis=-1, keepdims=True), _EPS)
        q = np.where(opposite[..., None], np.concatenate([np.zeros_like(dot), perp], axis=-1), q)
    q = normalize(q)
    return np.where(degenerate[..., None], identity(q.shape[:-1]), q)


def to_matrix(q: ArrayLike) -> FloatArray:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)``."""
    q = np.asarray(q, dtype=np.float64)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def from_matrix(m: ArrayLike) -> FloatArray:
    """Unit quaternions ``(..., 4)`` (w ≥ 0) of rotation matrices ``(..., 3, 3)``.

    Uses the largest-diagonal branch per element, so it is stable for every rotation.
    """
    m = np.asarray(m, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    candidates = np.stack([
        np.stack([1 + trace, m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                  m[..., 1, 0] - m[..., 0, 1]], -1),
        np.stack([m[..., 2, 1] - m[..., 1, 2], 1 + m00 - m11 - m22,
                  m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] - m[..., 2, 0], m[..., 0, 1] + m[..., 1, 0],
                  1 - m00 + m11 - m22, m[..., 1, 2] + m[..., 2, 1]], -1),
        np.stack([m[..., 1, 0] - m[..., 0, 1], m[..., 0, 2] + m[..., 2, 0],
                  m[..., 1, 2] + m[..., 2, 1], 1 - m00 - m11 + m22], -1),
    ], axis=-2)
    choice = np.argmax(np.stack([trace, m00, m11, m22], -1), axis=-1)
    q = np.take_along_axis(candidates, choice[..., None, None], axis=-2)[..., 0, :]
    q = normalize(q)
    return np.where(q[..., :1] < 0, -q, q)


def from_euler(angles: ArrayLike, order: str = "XYZ") -> FloatArray:
    """Rotation from intrinsic Euler ``angles (..., 3)`` in radians, in BVH's ``order``.

    ``angles[..., i]`` is the angle about axis ``order[i]``; the result is
    ``R_order[0] · R_order[1] · R_order[2]`` (the BVH convention).
    """
    order = order.upper()
    if len(order) != 3 or sorted(order) != ["X", "Y", "Z"]:
        raise ValueError(f"Euler order must be a permutation of 'XYZ', got {order!r}")
    angles = np.asarray(angles, dtype=np.float64)
    q0, q1, q2 = (from_axis_angle(_AXES[axis], angles[..., i]) for i, axis in enumerate(order))
    return mul(q0, mul(q1, q2))


def to_euler(q: ArrayLike, order: str = "XYZ") -> FloatArray:
    """Intrinsic Euler angles ``(..., 3)`` in radians such that ``from_euler(angles, order) == q``.

    The middle angle lies in [−π/2, π/2]; at gimbal lock the last angle is set to zero.
    """
    order = order.upper()
    if len(order) != 3 or sorted(order) != ["X", "Y", "Z"]:
        raise ValueError(f"Euler order must be a permutation of 'XYZ', got {order!r}")
    m = to_matrix(q)
    i, j, k = ("XYZ".index(c) for c in order)
    # Sign of the permutation (i, j, k): +1 for cyclic orders.
    sign = 1.0 if (j - i) % 3 == 1 else -1.0
    # R = R_i(a) R_j(b) R_k(c):  R[i, k] = sign * sin(b); cos(b) from the row it scales and b
    # by atan2 (arcsin/sqrt(1 − sin²) lose half the digits near ±π/2 and hide gimbal locks).
    cos_b = np.hypot(m[..., i, i], m[..., i, j])
    b = np.arctan2(sign * m[..., i, k], cos_b)
    locked = cos_b < 1e-8
    a = np.arctan2(-sign * m[..., j, k], m[..., k, k])
    c = np.arctan2(-sign * m[..., i, j], m[..., i, i])
    # Gimbal lock: set c = 0 and read a from the remaining 2×2 block.
    a_locked = np.arctan2(sign * m[..., k, j], m[..., j, j])
    a = np.where(locked, a_locked, a)
    c = np.where(locked, 0.0, c)
    return np.stack([a, b, c], axis=-1)


def dot(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Four-dimensional dot product of ``(..., 4)`` arrays; returns ``(...)``."""
    return np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64), axis=-1)


def angle_between(a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Rotation angle ``(...)`` in [0, π] radians taking ``a`` to ``b`` (sign-insensitive)."""
    return 2.0 * np.arccos(np.clip(np.abs(dot(a, b)), 0.0, 1.0))


def slerp(a: ArrayLike, b: ArrayLike, t: ArrayLike) -> FloatArray:
    """Spherical interpolation from ``a`` to ``b`` (both ``(..., 4)``) at ``t (...)`` in [0, 1].

    Takes the shorter arc; falls back to normalised linear interpolation for nearly equal inputs.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)[..., None]
    d = dot(a, b)[..., None]
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    theta = np.arccos(np.clip(d, -1.0, 1.0))
    sin_theta = np.sin(theta)
    near = sin_theta < 1e-6
    safe = np.where(near, 1.0, sin_theta)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    wb = np.where(near, t, np.sin(t * theta) / safe)
    return normalize(wa * a + wb * b)


def unroll_sign(q: ArrayLike, axis: int = 0) -> FloatArray:
    """Flip signs along ``axis`` (time) so consecutive quaternions lie in the same hemisphere.

    ``q`` has shape ``(..., 4)``; ``axis`` indexes one of the leading axes. Rotations are unchanged.
    """
    q = np.array(q, dtype=np.float64, copy=True)
    if q.ndim < 2:
        return q
    axis = axis % (q.ndim - 1)
    moved = np.moveaxis(q, axis, 0)
    for i in range(1, moved.shape[0]):
        flip = np.sum(moved[i] * moved[i - 1], axis=-1, keepdims=True) < 0
        moved[i] = np.where(flip, -moved[i], moved[i])
    return np.moveaxis(moved, 0, axis)


def swing_twist(q: ArrayLike, twist_axis: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Split ``q (..., 4)`` into ``(swing, twist)`` with ``q = swing * twist``.

    ``twist`` turns about ``twist_axis (..., 3)``; ``swing`` about an axis perpendicular to it.
    """
    q = np.asarray(q, dtype=np.float64)
    axis = np.asarray(twist_axis, dtype=np.float64)
    axis = axis / np.maximum(np.linalg.norm(axis, axis=-1, keepdims=True), _EPS)
    projection = np.sum(q[..., 1:] * axis, axis=-1, keepdims=True) * axis
    shape = np.broadcast_shapes(q.shape[:-1], projection.shape[:-1])
    twist = normalize(np.concatenate(
        [np.broadcast_to(q[..., :1], (*shape, 1)), np.broadcast_to(projection, (*shape, 3))], -1))
    return mul(q, inv(twist)), twist


# --- Scalar forms for compiled kernels -------------------------------------------------------
# The numba kernels work one element at a time on tuples; they call these, and so do ``mul`` /
# ``rotate`` above (through the gufuncs below).


@helper
def mul_s(a: Quat4, b: Quat4) -> Quat4:
    """Hamilton product ``a * b`` of two ``(w, x, y, z)`` tuples (compiled kernels)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


@helper
def inv_s(q: Quat4) -> Quat4:
    """Conjugate of a unit ``(w, x, y, z)`` tuple (compiled kernels)."""
    return (q[0], -q[1], -q[2], -q[3])


@helper
def rotate_s(q: Quat4, v: Vec3) -> Vec3:
    """Rotate the vector tuple ``v`` by the unit quaternion tuple ``q`` (compiled kernels)."""
    w, x, y, z = q
    vx, vy, vz = v
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


# NumPy-facing forms: generalised ufuncs over the scalar forms (about a microsecond a call at
# any size, no temporaries). The core size ``n`` is checked to be 4 (and 3) by ``mul``/``rotate``.


@numba.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->(n)", cache=True)
def _mul_gufunc(a: FloatArray, b: FloatArray, out: FloatArray) -> None:  # pragma: no cover
    out[0], out[1], out[2], out[3] = mul_s((a[0], a[1], a[2], a[3]), (b[0], b[1], b[2], b[3]))


@numba.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(m)->(m)", cache=True)
def _rotate_gufunc(q: FloatArray, v: FloatArray, out: FloatArray) -> None:  # pragma: no cover
    out[0], out[1], out[2] = rotate_s((q[0], q[1], q[2], q[3]), (v[0], v[1], v[2]))


# Vector forms beside them (the IK and ray kernels): components summed x, y, z in order.


@helper
def sub_s(a: Vec3, b: Vec3) -> Vec3:
    """``a − b`` of two ``(x, y, z)`` tuples (compiled kernels)."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@helper
def add_s(a: Vec3, b: Vec3) -> Vec3:
    """``a + b`` of two ``(x, y, z)`` tuples (compiled kernels)."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@helper
def scale_s(a: Vec3, s: float) -> Vec3:
    """``a · s`` of an ``(x, y, z)`` tuple (compiled kernels)."""
    return (a[0] * s, a[1] * s, a[2] * s)


@helper
def dot_s(a: Vec3, b: Vec3) -> float:
    """Dot product of two ``(x, y, z)`` tuples (compiled kernels)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@helper
def cross_s(a: Vec3, b: Vec3) -> Vec3:
    """Cross product ``a × b`` of two ``(x, y, z)`` tuples (compiled kernels)."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@helper
def min_nan(a: float, b: float) -> float:
    """``np.minimum`` of two floats: NaN if either is NaN (compiled kernels)."""
    if a != a or b != b:
        return a + b
    return a if a <= b else b


@helper
def max_nan(a: float, b: float) -> float:
    """``np.maximum`` of two floats: NaN if either is NaN (compiled kernels)."""
    if a != a or b != b:
        return a + b
    return a if a >= b else b


@helper
def norm_s(a: Vec3) -> float:
    """Length of an ``(x, y, z)`` tuple (compiled kernels)."""
    return math.sqrt(dot_s(a, a))


@helper
def between_s(a: Vec3, b: Vec3) -> Quat4:
    """``quat.between`` on tuples: shortest rotation taking direction ``a`` onto ``b``;
    antiparallel turns by π about an axis perpendicular to ``a``, zero vectors give identity."""
    norm_a, norm_b = norm_s(a), norm_s(b)
    divisor = norm_a if norm_a > _EPS else 1.0
    unit_a = (a[0] / divisor, a[1] / divisor, a[2] / divisor)
    divisor = norm_b if norm_b > _EPS else 1.0
    unit_b = (b[0] / divisor, b[1] / divisor, b[2] / divisor)
    w = 1.0 + dot_s(unit_a, unit_b)
    axis = cross_s(unit_a, unit_b)
    if w < 1e-9:  # opposite: a half turn about any axis perpendicular to a
        helper = (1.0, 0.0, 0.0) if abs(unit_a[0]) < 0.9 else (0.0, 1.0, 0.0)
        perp = cross_s(unit_a, helper)
        divisor = max(norm_s(perp), _EPS)
        w, axis = 0.0, (perp[0] / divisor, perp[1] / divisor, perp[2] / divisor)
    length = math.sqrt(w * w + axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
    if not length > _EPS or norm_a < _EPS or norm_b < _EPS:
        return (1.0, 0.0, 0.0, 0.0)
    return (w / length, axis[0] / length, axis[1] / length, axis[2] / length)

@helper
def slerp_from_identity_s(q: Quat4, t: float) -> Quat4:
    """``quat.slerp(identity, q, t)`` on a tuple: the shorter arc, nlerp when nearly equal."""
    if q[0] < 0.0:
        q = (-q[0], -q[1], -q[2], -q[3])
    theta = math.acos(min(q[0], 1.0))
    sin_theta = math.sin(theta)
    if sin_theta < 1e-6:
        wa, wb = 1.0 - t, t
    else:
        wa, wb = math.sin((1.0 - t) * theta) / sin_theta, math.sin(t * theta) / sin_theta
    w, x, y, z = wa + wb * q[0], wb * q[1], wb * q[2], wb * q[3]
    norm = math.sqrt(w * w + x * x + y * y + z * z)
    if not norm > 1e-12:
        return (1.0, 0.0, 0.0, 0.0)
    return (w / norm, x / norm, y / norm, z / norm)
