"""Sole pitch and roll from the ground normal (seed 000; seed 004's NormalToRotator in 3D).

Angles are measured in the foot's heading frame: ``forward`` (horizontal toe direction) and
``left = up × forward``. Pitch > 0 lifts the toes, roll > 0 lifts the right edge (ground falling
to the left). Steep faces (normal.y below the threshold: stair risers, walls) give zero, and both
angles are clamped (±0.45 rad in seed 000).

Scalar forms (``*_s``, on tuples) for the compiled stages; NumPy forms over
:func:`~footfall.arrays.scalar_rows`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray, kernel_rows, scalar_rows
from footfall.jit import helper, kernel
from footfall.quat import Quat4, Vec3, between_s, max_nan, min_nan

_UP: Vec3 = (0.0, 1.0, 0.0)


# --- scalar forms (compiled kernels) ---------------------------------------------------------


@helper
def heading_s(direction: Vec3) -> tuple[Vec3, Vec3]:
    """Unit horizontal ``(forward, left)`` tuples of a direction; a vertical or zero direction
    falls back to +Z forward. The y product stays in the length (NaN in, +Z out)."""
    x, y, z = direction[0] * 1.0, direction[1] * 0.0, direction[2] * 1.0
    length = math.sqrt(x * x + y * y + z * z)
    if length > 1e-9:
        divisor = max(length, 1e-12)
        forward = (x / divisor, y / divisor, z / divisor)
    else:
        forward = (0.0, 0.0, 1.0)
    return forward, (forward[2], 0.0, -forward[0])


@helper
def _clip(value: float, limit: float) -> float:
    """``np.clip(value, -limit, limit)`` (NaN stays NaN)."""
    return min_nan(max_nan(value, -limit), limit)


@helper
def slope_angles_s(normal: Vec3, direction: Vec3, steep_normal_y: float, max_slope: float
                   ) -> tuple[float, float]:
    """Clamped ``(pitch, roll)`` radians of the ground ``normal`` under a foot heading along
    ``direction`` (0 on faces steeper than ``steep_normal_y``)."""
    forward, left = heading_s(direction)
    up = normal[1]
    along = normal[0] * forward[0] + normal[1] * forward[1] + normal[2] * forward[2]
    side = normal[0] * left[0] + normal[1] * left[1] + normal[2] * left[2]
    if up < steep_normal_y:
        return 0.0, 0.0
    return (_clip(math.atan2(-along, up), max_slope), _clip(math.atan2(side, up), max_slope))


@helper
def tilt_normal_s(pitch: float, roll: float, direction: Vec3) -> Vec3:
    """Unit normal of the plane with ``pitch`` and ``roll`` under a foot heading ``direction``."""
    forward, left = heading_s(direction)
    tan_pitch, tan_roll = math.tan(pitch), math.tan(roll)
    x = (_UP[0] - tan_pitch * forward[0]) + tan_roll * left[0]
    y = (_UP[1] - tan_pitch * forward[1]) + tan_roll * left[1]
    z = (_UP[2] - tan_pitch * forward[2]) + tan_roll * left[2]
    length = math.sqrt(x * x + y * y + z * z)
    return (x / length, y / length, z / length)


@helper
def align_rotation_s(pitch: float, roll: float, direction: Vec3) -> Quat4:
    """World rotation tilting a flat sole onto the plane of (pitch, roll) under ``direction``."""
    return between_s(_UP, tilt_normal_s(pitch, roll, direction))


@helper
def ankle_lift_s(pitch: float, roll: float, ankle_height: float) -> float:
    """How much higher the ankle sits when its sole lies on the tilted plane, metres."""
    tan_pitch, tan_roll = math.tan(pitch), math.tan(roll)
    return ankle_height * (math.sqrt(1.0 + tan_pitch * tan_pitch + tan_roll * tan_roll) - 1.0)


# --- row loops behind the NumPy forms --------------------------------------------------------


@kernel(error_model="numpy")
def _heading_rows(direction: FloatArray, forward: FloatArray, left: FloatArray
                  ) -> None:  # pragma: no cover - compiled
    for i in range(direction.shape[0]):
        f, s = heading_s((direction[i, 0], direction[i, 1], direction[i, 2]))
        for c in range(3):
            forward[i, c] = f[c]
            left[i, c] = s[c]


@kernel(error_model="numpy")
def _slope_rows(normal: FloatArray, direction: FloatArray, steep: FloatArray, limit: FloatArray,
                pitch: FloatArray, roll: FloatArray) -> None:  # pragma: no cover - compiled
    for i in range(normal.shape[0]):
        pitch[i], roll[i] = slope_angles_s(
            (normal[i, 0], normal[i, 1], normal[i, 2]),
            (direction[i, 0], direction[i, 1], direction[i, 2]), steep[i], limit[i])


@kernel(error_model="numpy")
def _tilt_rows(pitch: FloatArray, roll: FloatArray, direction: FloatArray, rotation: bool,
               out: FloatArray) -> None:  # pragma: no cover - compiled
    for i in range(pitch.shape[0]):
        d = (direction[i, 0], direction[i, 1], direction[i, 2])
        if rotation:
            q = align_rotation_s(pitch[i], roll[i], d)
            for c in range(4):
                out[i, c] = q[c]
        else:
            n = tilt_normal_s(pitch[i], roll[i], d)
            for c in range(3):
                out[i, c] = n[c]


@kernel(error_model="numpy")
def _between_up_rows(b: FloatArray, out: FloatArray) -> None:  # pragma: no cover - compiled
    for i in range(b.shape[0]):
        q = between_s(_UP, (b[i, 0], b[i, 1], b[i, 2]))
        for c in range(4):
            out[i, c] = q[c]


@kernel(error_model="numpy")
def _lift_rows(pitch: FloatArray, roll: FloatArray, height: FloatArray, out: FloatArray
               ) -> None:  # pragma: no cover - compiled
    for i in range(pitch.shape[0]):
        out[i] = ankle_lift_s(pitch[i], roll[i], height[i])


def heading_frame(forward: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Unit horizontal ``(forward, left)`` ``(..., 3)`` from any direction ``(..., 3)`` (+Z
    forward for a vertical or zero one)."""
    direction = np.asarray(forward, dtype=np.float64)
    shape = direction.shape[:-1]
    rows = kernel_rows(direction, shape, (3,))
    out_forward, out_left = np.empty_like(rows), np.empty_like(rows)
    _heading_rows(rows, out_forward, out_left)
    return out_forward.reshape(*shape, 3), out_left.reshape(*shape, 3)


def slope_angles(
    normal: ArrayLike, forward: ArrayLike, steep_normal_y: ArrayLike, max_slope: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Clamped ``(pitch, roll)`` ``(...)`` radians of the ground under a foot.

    normal: ``(..., 3)`` unit ground normal; forward: ``(..., 3)`` foot direction;
    steep_normal_y, max_slope: ``(...)`` or scalars.
    """
    normal = np.asarray(normal, dtype=np.float64)
    forward = np.asarray(forward, dtype=np.float64)
    shape = np.broadcast_shapes(normal.shape[:-1], forward.shape[:-1], np.shape(steep_normal_y),
                                np.shape(max_slope))
    pitch, roll = np.empty(shape), np.empty(shape)
    _slope_rows(kernel_rows(normal, shape, (3,)), kernel_rows(forward, shape, (3,)),
                kernel_rows(steep_normal_y, shape), kernel_rows(max_slope, shape),
                pitch.reshape(-1), roll.reshape(-1))
    return pitch, roll


def _tilt(pitch: ArrayLike, roll: ArrayLike, forward: ArrayLike, rotation: bool) -> FloatArray:
    forward = np.asarray(forward, dtype=np.float64)
    shape = np.broadcast_shapes(np.shape(pitch), np.shape(roll), forward.shape[:-1])
    out = np.empty((*shape, 4 if rotation else 3))
    _tilt_rows(kernel_rows(pitch, shape), kernel_rows(roll, shape),
               kernel_rows(forward, shape, (3,)), rotation, out.reshape(-1, out.shape[-1]))
    return out


def tilt_normal(pitch: ArrayLike, roll: ArrayLike, forward: ArrayLike) -> FloatArray:
    """Unit normal ``(..., 3)`` of a plane with the given pitch and roll under ``forward``."""
    return _tilt(pitch, roll, forward, rotation=False)


def align_rotation(pitch: ArrayLike, roll: ArrayLike, forward: ArrayLike) -> FloatArray:
    """World rotation ``(..., 4)`` tilting a flat sole onto the plane of (pitch, roll)."""
    return _tilt(pitch, roll, forward, rotation=True)


def _between_up(b: ArrayLike) -> FloatArray:
    """``quat.between(+Y, b)`` for ``b (..., 3)``: :func:`between_s` over every row."""
    b = np.asarray(b, dtype=np.float64)
    out = np.empty((*b.shape[:-1], 4))
    _between_up_rows(kernel_rows(b, b.shape[:-1], (3,)), out.reshape(-1, 4))
    return out


def ankle_lift(pitch: ArrayLike, roll: ArrayLike, ankle_height: ArrayLike) -> FloatArray:
    """How much higher ``(...)`` the ankle sits when its sole lies on the tilted plane, metres.

    The ankle stays ``ankle_height`` from the plane along its normal, so it rises by
    ``ankle_height · (1/n_y − 1)`` above the ground point straight under it.
    """
    return scalar_rows(_lift_rows, (pitch, roll, ankle_height))
