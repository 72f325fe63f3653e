"""Sole pitch and roll from the ground normal (seed 000; seed 004's NormalToRotator in 3D).

Angles are measured in the foot's heading frame: ``forward`` (horizontal toe direction) and
``left = up × forward``. Pitch > 0 lifts the toes, roll > 0 lifts the right edge (ground falling
to the left). Steep faces (normal.y below the threshold: stair risers, walls) give zero, and both
angles are clamped (±0.45 rad in seed 000).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray

UP = np.array([0.0, 1.0, 0.0])
_EPS = 1e-12  # as quat.between
_HORIZONTAL = np.array([1.0, 0.0, 1.0])
_PLUS_Z = np.array([0.0, 0.0, 1.0])
_YZX = np.array([1, 2, 0])
_ZXY = np.array([2, 0, 1])
_UP_YZX, _UP_ZXY = UP[_YZX], UP[_ZXY]


def heading_frame(forward: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Unit horizontal ``(forward, left)`` ``(..., 3)`` from any direction ``(..., 3)``.

    A vertical or zero direction falls back to +Z forward.
    """
    forward = np.asarray(forward, dtype=np.float64) * _HORIZONTAL
    length = np.linalg.norm(forward, axis=-1, keepdims=True)
    forward = np.where(length > 1e-9, forward / np.maximum(length, 1e-12), _PLUS_Z)
    left = np.empty_like(forward)
    left[..., 0] = forward[..., 2]
    left[..., 1] = 0.0
    left[..., 2] = -forward[..., 0]
    return forward, left


def slope_angles(
    normal: ArrayLike, forward: ArrayLike, steep_normal_y: ArrayLike, max_slope: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Clamped ``(pitch, roll)`` ``(...)`` radians of the ground under a foot.

    normal: ``(..., 3)`` unit ground normal; forward: ``(..., 3)`` foot direction.
    """
    normal = np.asarray(normal, dtype=np.float64)
    forward, left = heading_frame(forward)
    up = normal[..., 1]
    pitch = np.arctan2(-np.sum(normal * forward, axis=-1), up)
    roll = np.arctan2(np.sum(normal * left, axis=-1), up)
    flat = up < steep_normal_y
    limit = np.asarray(max_slope)
    pitch = np.where(flat, 0.0, np.clip(pitch, -limit, limit))
    roll = np.where(flat, 0.0, np.clip(roll, -limit, limit))
    return pitch, roll


def tilt_normal(pitch: ArrayLike, roll: ArrayLike, forward: ArrayLike) -> FloatArray:
    """Unit normal ``(..., 3)`` of a plane with the given pitch and roll under ``forward``."""
    forward, left = heading_frame(forward)
    pitch = np.asarray(pitch, dtype=np.float64)[..., None]
    roll = np.asarray(roll, dtype=np.float64)[..., None]
    normal = UP - np.tan(pitch) * forward + np.tan(roll) * left
    return normal / np.linalg.norm(normal, axis=-1, keepdims=True)


def align_rotation(pitch: ArrayLike, roll: ArrayLike, forward: ArrayLike) -> FloatArray:
    """World rotation ``(..., 4)`` tilting a flat sole onto the plane of (pitch, roll)."""
    return _between_up(tilt_normal(pitch, roll, forward))


def _between_up(b: FloatArray) -> FloatArray:
    """``quat.between(UP, b)`` for ``b (..., 3)`` with UP's unit length and cross product
    written out: the same operations on the same values (bit-identical), fewer NumPy calls."""
    b = np.asarray(b, dtype=np.float64)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)
    ub = b / np.where(nb > _EPS, nb, 1.0)
    dot = np.sum(UP * ub, axis=-1, keepdims=True)
    if np.any((1.0 + dot[..., 0]) < 1e-9):  # antiparallel somewhere: the general routine
        return quat.between(UP, b)
    # np.cross(UP, ub) = (a1·b2 − a2·b1, a2·b0 − a0·b2, a0·b1 − a1·b0) with a = UP.
    axis = _UP_YZX * ub[..., _ZXY] - _UP_ZXY * ub[..., _YZX]
    q = quat.normalize(np.concatenate([1.0 + dot, axis], axis=-1))
    return np.where((nb < _EPS), quat.identity(q.shape[:-1]), q)


def ankle_lift(pitch: ArrayLike, roll: ArrayLike, ankle_height: ArrayLike) -> FloatArray:
    """How much higher ``(...)`` the ankle sits when its sole lies on the tilted plane, metres.

    The ankle stays ``ankle_height`` from the plane along its normal, so it rises by
    ``ankle_height · (1/n_y − 1)`` above the ground point straight under it.
    """
    pitch = np.asarray(pitch, dtype=np.float64)
    roll = np.asarray(roll, dtype=np.float64)
    secant = np.sqrt(1.0 + np.tan(pitch) ** 2 + np.tan(roll) ** 2)
    return np.asarray(ankle_height) * (secant - 1.0)
