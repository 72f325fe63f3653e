"""Component-wise 3-vector and quaternion helpers for the IK solvers (private).

A vector is a tuple ``(x, y, z)`` of equal-shape arrays and a quaternion a tuple ``(w, x, y, z)``;
``components`` and ``stack`` convert from and to ``(..., 3)`` / ``(..., 4)`` arrays.
Keeping components apart (structure of arrays) lets NumPy run every step on contiguous memory
without the strided ``[..., i]`` access and the ``np.stack`` copies of ``(..., 3)`` arrays; the
solver is about four times faster this way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Vec = tuple[FloatArray, FloatArray, FloatArray]
Quat = tuple[FloatArray, FloatArray, FloatArray, FloatArray]

# Below this length (metres) a vector has no usable direction.
TINY = 1e-12


def components(a: FloatArray) -> tuple[FloatArray, ...]:
    """Components of an ``(..., k)`` array, each ``(...)``."""
    return tuple(np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0))


def rows(points: list[FloatArray], shape: tuple[int, ...]) -> FloatArray:
    """Contiguous ``(k, 3, *shape)`` components of ``k`` points ``(..., 3)`` broadcast to ``shape``.

    One copy for all points (cheaper per call than ``components`` on each, for small batches).
    """
    stacked = np.empty((len(points), *shape, 3))
    for i, p in enumerate(points):
        stacked[i] = p
    return np.ascontiguousarray(np.moveaxis(stacked, -1, 1))


def stack(a: tuple[FloatArray, ...]) -> FloatArray:
    """``(..., k)`` array from ``k`` components."""
    return np.stack(np.broadcast_arrays(*a), axis=-1)


def sub(a: Vec, b: Vec) -> Vec:
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def add(a: Vec, b: Vec) -> Vec:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def scale(a: Vec, s: FloatArray | float) -> Vec:
    return a[0] * s, a[1] * s, a[2] * s


def dot(a: Vec, b: Vec) -> FloatArray:
    out = a[0] * b[0]
    out += a[1] * b[1]
    out += a[2] * b[2]
    return out


def cross(a: Vec, b: Vec) -> Vec:
    x = a[1] * b[2]
    x -= a[2] * b[1]
    y = a[2] * b[0]
    y -= a[0] * b[2]
    z = a[0] * b[1]
    z -= a[1] * b[0]
    return x, y, z


def norm(a: Vec) -> FloatArray:
    out = dot(a, a)
    return np.sqrt(out, out=out) if isinstance(out, np.ndarray) else np.sqrt(out)


def between(a: Vec, b: Vec) -> Quat:
    """``footfall.quat.between`` on components, bit for bit: shortest rotation taking the
    direction ``a`` onto ``b``; antiparallel turns by π about an axis perpendicular to ``a``,
    zero vectors give the identity."""
    eps = 1e-12
    norm_a, norm_b = norm(a), norm(b)
    degenerate = (norm_a < eps) | (norm_b < eps)
    divisor = np.where(norm_a > eps, norm_a, 1.0)
    unit_a = (a[0] / divisor, a[1] / divisor, a[2] / divisor)
    divisor = np.where(norm_b > eps, norm_b, 1.0)
    unit_b = (b[0] / divisor, b[1] / divisor, b[2] / divisor)
    w = 1.0 + dot(unit_a, unit_b)
    q = (w, *cross(unit_a, unit_b))
    opposite = w < 1e-9
    if np.any(opposite):
        first = np.abs(unit_a[0]) < 0.9
        helper = (first.astype(np.float64), (~first).astype(np.float64), np.zeros_like(w))
        perp = cross(unit_a, helper)
        divisor = np.maximum(norm(perp), eps)
        q = tuple(np.where(opposite, f, c) for f, c in zip(
            (np.zeros_like(w), perp[0] / divisor, perp[1] / divisor, perp[2] / divisor), q,
            strict=True))  # type: ignore[assignment]
    length = q[0] * q[0]
    for c in q[1:]:
        length += c * c
    length = np.sqrt(length)
    ok = length > eps
    divisor = np.where(ok, length, 1.0)
    identity = ~ok | degenerate
    return (np.where(identity, 1.0, q[0] / divisor), np.where(identity, 0.0, q[1] / divisor),
            np.where(identity, 0.0, q[2] / divisor), np.where(identity, 0.0, q[3] / divisor))


def select(mask: np.ndarray, a: Vec, b: Vec) -> Vec:
    """``a`` where ``mask`` else ``b``, per component."""
    return tuple(np.where(mask, x, y) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def unit_with(
    a: Vec, length: FloatArray, fallback: Vec | Callable[[], Vec], tiny: float | FloatArray = TINY
) -> Vec:
    """``a / length`` where ``length > tiny``, else ``fallback`` (a callable: called only then)."""
    ok = length > tiny
    inverse = 1.0 / np.where(ok, length, 1.0)
    out = scale(a, inverse)
    if ok.all():
        return out
    return select(ok, out, fallback() if callable(fallback) else fallback)


def unit(a: Vec, fallback: Vec | Callable[[], Vec], tiny: float | FloatArray = TINY) -> Vec:
    """``a`` normalised, ``fallback`` where it is shorter than ``tiny``."""
    return unit_with(a, norm(a), fallback, tiny)


def reject(a: Vec, axis: Vec) -> Vec:
    """Part of ``a`` perpendicular to the unit ``axis``."""
    return sub(a, scale(axis, dot(a, axis)))


def any_perpendicular(axis: Vec) -> Vec:
    """Unit vector perpendicular to the unit ``axis``, deterministic and smooth almost everywhere.

    Prefers the world +Z direction (a character's forward, where knees point), and world +X
    where the axis is nearly parallel to Z.
    """
    near_z = np.abs(axis[2]) >= 0.9
    helper = (near_z.astype(np.float64), np.zeros_like(axis[0]), (~near_z).astype(np.float64))
    up = (np.zeros_like(axis[0]), np.ones_like(axis[0]), np.zeros_like(axis[0]))
    return unit(reject(helper, axis), up)


def qmul(a: Quat, b: Quat) -> Quat:
    """Hamilton product ``a * b`` (``b`` applied first)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    w = aw * bw
    w -= ax * bx
    w -= ay * by
    w -= az * bz
    x = aw * bx
    x += ax * bw
    x += ay * bz
    x -= az * by
    y = aw * by
    y -= ax * bz
    y += ay * bw
    y += az * bx
    z = aw * bz
    z += ax * by
    z -= ay * bx
    z += az * bw
    return w, x, y, z


def qrotate(q: Quat, v: Vec) -> Vec:
    """Rotate ``v`` by the unit quaternion ``q``."""
    w, xyz = q[0], q[1:]
    t = scale(cross(xyz, v), 2.0)
    return add(add(v, scale(t, w)), cross(xyz, t))


def turn(a: Vec, b: Vec, half_turn_axis: Vec) -> Quat:
    """A rotation taking unit ``a`` onto unit ``b``, accurate even when they nearly oppose.

    Less than 90° apart it is the shortest arc. Further apart it is a half turn about
    ``half_turn_axis`` (a unit vector perpendicular to ``a``) followed by the well-conditioned
    shortest arc from ``−a`` to ``b``: when ``b`` is also perpendicular to that axis, this is
    the turn about it.
    """
    cosine = dot(a, b)
    flip = cosine < 0.0
    any_flip = bool(flip.any())
    signed = scale(a, np.where(flip, -1.0, 1.0)) if any_flip else a
    axis = cross(signed, b)
    w = 1.0 + np.abs(cosine)
    inverse = 1.0 / np.sqrt(w * w + dot(axis, axis))
    q = (w * inverse, axis[0] * inverse, axis[1] * inverse, axis[2] * inverse)
    if not any_flip:
        return q
    # q * (0, m): the half turn about m happens first.
    m = half_turn_axis
    v = q[1:]
    vxm = cross(v, m)
    flipped = (-dot(v, m), q[0] * m[0] + vxm[0], q[0] * m[1] + vxm[1], q[0] * m[2] + vxm[2])
    return tuple(np.where(flip, f, s) for f, s in zip(flipped, q, strict=True))  # type: ignore[return-value]
