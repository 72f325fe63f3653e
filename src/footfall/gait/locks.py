"""Planted feet locked in world space (seed 004 #09).

At heel strike a foot's heel point, heading and ground tilt are stored; for the rest of the
stance the ankle is computed from them (rolling about the heel, then the ball), never from the
body, so a planted foot cannot slip whatever the body does.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.gait.rig import pitch, yaw


def foot_rotation(align: ArrayLike, heading: ArrayLike, roll: ArrayLike) -> FloatArray:
    """Canonical → world rotation of a foot, ``(..., 4)``: ground tilt · heading · roll."""
    return quat.mul(align, quat.mul(yaw(heading), pitch(roll)))


def ankle_from_heel(
    heel: ArrayLike, align: ArrayLike, heading: ArrayLike, roll: ArrayLike,
    heel_point: ArrayLike, ball_point: ArrayLike,
) -> FloatArray:
    """World ankle ``(..., 3)`` of a foot whose heel touches ``heel (..., 3)``.

    Args:
        heel: world heel contact point.
        align: ``(..., 4)`` ground tilt (up → ground normal).
        heading: ``(...)`` foot yaw, radians.
        roll: ``(...)`` ankle roll, radians; negative pivots on the heel, positive on the ball.
        heel_point, ball_point: ``(..., 3)`` canonical sole points relative to the ankle.
    """
    heel = np.asarray(heel, dtype=np.float64)
    roll = np.asarray(roll, dtype=np.float64)
    heel_point = np.asarray(heel_point, dtype=np.float64)
    ball_point = np.asarray(ball_point, dtype=np.float64)
    flat = quat.mul(align, yaw(heading))
    ball = heel + quat.rotate(flat, ball_point - heel_point)
    rolled = quat.mul(flat, pitch(roll))
    on_heel = heel - quat.rotate(rolled, heel_point)
    on_ball = ball - quat.rotate(rolled, ball_point)
    return np.where((roll <= 0.0)[..., None], on_heel, on_ball)


class FootLocks:
    """World-space locks of ``(K, 2)`` feet.

    Attributes:
        planted: ``(K, 2)`` bool, the foot is locked.
        heel: ``(K, 2, 3)`` locked heel contact point, world.
        heading: ``(K, 2)`` locked foot yaw, radians.
        align: ``(K, 2, 4)`` locked ground tilt.
    """

    def __init__(self, count: int) -> None:
        self.planted = np.zeros((count, 2), dtype=bool)
        self.heel = np.zeros((count, 2, 3))
        self.heading = np.zeros((count, 2))
        self.align = quat.identity((count, 2))

    def plant(
        self, mask: NDArray[np.bool_], heel: FloatArray, heading: FloatArray, align: FloatArray
    ) -> None:
        """Lock the feet where ``mask (K, 2)`` at the given heel, yaw and tilt (full arrays)."""
        self.heel = np.where(mask[..., None], heel, self.heel)
        self.heading = np.where(mask, heading, self.heading)
        self.align = np.where(mask[..., None], align, self.align)
        self.planted = self.planted | mask

    def release(self, mask: NDArray[np.bool_]) -> None:
        """Unlock the feet where ``mask (K, 2)``."""
        self.planted = self.planted & ~mask

    def ankle(self, roll: FloatArray, heel_point: FloatArray, ball_point: FloatArray) -> FloatArray:
        """``(K, 2, 3)`` ankle positions of the locked feet at ankle ``roll (K, 2)``."""
        return ankle_from_heel(self.heel, self.align, self.heading, roll, heel_point, ball_point)
