"""Head rotation offset, head-forward calibration and automatic avatar scale (seed 001)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray

SCALE_RANGE = (0.1, 3.0)
_FORWARD = np.array([0.0, 0.0, 1.0])


def head_offset_rotation(offset_deg: ArrayLike) -> FloatArray:
    """Rotation ``(..., 4)`` from Euler offsets ``(..., 3)`` in degrees (X, then Y, then Z)."""
    return quat.from_euler(np.radians(np.asarray(offset_deg, dtype=np.float64)), "XYZ")


def apply_head_offset(rotations: ArrayLike, head: int, offset_deg: ArrayLike) -> FloatArray:
    """Local rotations ``(..., J, 4)`` with the head joint turned by ``offset_deg (3,)``.

    The offset is applied in the head's own frame, after its animated rotation.
    """
    out = np.array(rotations, dtype=np.float64, copy=True)
    out[..., head, :] = quat.mul(out[..., head, :], head_offset_rotation(offset_deg))
    return out


def head_forward_offset_deg(
    head_rotation: ArrayLike,
    hips_rotation: ArrayLike,
    calibration_head_rotation: ArrayLike,
    calibration_hips_rotation: ArrayLike,
) -> FloatArray:
    """Head offset (Euler XYZ, degrees, ``(..., 3)``) that makes the head look straight ahead:
    the calibration head orientation turned by the hips' yaw since the calibration pose. Inputs
    are world rotations ``(..., 4)`` of the head (without offset) and hips, now and then.
    """
    forward = quat.rotate(quat.mul_inv(hips_rotation, calibration_hips_rotation), _FORWARD)
    yaw = np.arctan2(forward[..., 0], forward[..., 2])  # the yaw-only part of the hips' turn
    body_turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), yaw)
    desired = quat.mul(body_turn, calibration_head_rotation)
    offset = quat.inv_mul(head_rotation, desired)
    return np.degrees(quat.to_euler(offset, "XYZ"))


def auto_avatar_scale(source_neck_height: float, target_neck_height: float) -> float:
    """Seed 001's automatic avatar scale: source/target neck height (above each skeleton's
    floor, target at scale 1, metres), clamped to 0.1…3."""
    if not (np.isfinite(source_neck_height) and np.isfinite(target_neck_height)):
        return 1.0
    if target_neck_height <= 1e-9:
        return SCALE_RANGE[1]
    return float(np.clip(source_neck_height / target_neck_height, *SCALE_RANGE))
