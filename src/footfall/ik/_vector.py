"""Small batched 3-vector helpers shared by the IK solvers (private).

All take and return ``(..., 3)`` arrays (or ``(...)`` for scalars) and broadcast. The helpers
never divide by zero: directions of zero vectors come from an explicit fallback instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Below this length (metres) a vector has no usable direction.
TINY = 1e-12
_UP = np.array([0.0, 1.0, 0.0])
_FORWARD = np.array([0.0, 0.0, 1.0])
_LEFT = np.array([1.0, 0.0, 0.0])


def dot(a: FloatArray, b: FloatArray) -> FloatArray:
    """Dot product of ``(..., 3)`` arrays; returns ``(...)``."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """Cross product of ``(..., 3)`` arrays (component-wise, faster than ``np.cross``)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def norm(a: FloatArray) -> FloatArray:
    """Euclidean length ``(...)`` of ``(..., 3)`` vectors."""
    return np.sqrt(dot(a, a))


def unit(a: FloatArray, fallback: FloatArray, tiny: float | FloatArray = TINY) -> FloatArray:
    """``a`` normalised; where ``|a| <= tiny`` the (unit) ``fallback`` is returned instead."""
    length = norm(a)[..., None]
    ok = length > tiny
    return np.where(ok, a / np.where(ok, length, 1.0), fallback)


def reject(a: FloatArray, axis: FloatArray) -> FloatArray:
    """Part of ``a`` perpendicular to the unit ``axis``."""
    return a - dot(a, axis)[..., None] * axis


def any_perpendicular(axis: FloatArray) -> FloatArray:
    """A unit vector perpendicular to the unit ``axis``, deterministic and smooth almost everywhere.

    Prefers the world +Z direction (a character's forward, where knees point), and world +X
    where the axis is nearly parallel to Z.
    """
    helper = np.where(np.abs(axis[..., 2:3]) < 0.9, _FORWARD, _LEFT)
    return unit(reject(helper, axis), _UP)
