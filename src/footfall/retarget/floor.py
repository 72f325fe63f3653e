"""Automatic floor height from the avatar's leg length (seed 001's ``CalculateAutoFloorHeight``).

Seed 001 gives no formula. footfall's reading: a performer standing at ease does not lock the
knee, so their leg spans only ``comfort_ratio`` of its straight length while the avatar's legs
are placed at full length; the floor height lowers the avatar by the unused share of its left
leg (a ratio of 1 changes nothing).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from footfall.errors import SettingsError
from footfall.skeleton import Skeleton, forward_kinematics

LEFT_LEG = ("LeftUpperLeg", "LeftLowerLeg", "LeftFoot")


def left_leg_length(skeleton: Skeleton, mapping: Mapping[str, str], pose: ArrayLike) -> float:
    """Hip → knee → ankle length of the left leg, metres, in ``pose`` (``(J, 4)`` local
    rotations); raises :class:`SettingsError` naming the first missing leg bone."""
    for bone in LEFT_LEG:
        if bone not in mapping:
            raise SettingsError(f"no {bone} bone: the floor height needs the left leg")
    _, positions = forward_kinematics(skeleton.parents, np.asarray(pose, dtype=np.float64),
                                      skeleton.offsets)
    hip, knee, ankle = (positions[skeleton.index(mapping[bone])] for bone in LEFT_LEG)
    return float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))


def auto_floor_height(leg_length: float, comfort_ratio: float, avatar_scale: float = 1.0
                      ) -> float:
    """Floor height, metres (≤ 0): ``(comfort_ratio − 1) × leg_length × avatar_scale``.

    ``leg_length`` is the avatar's left leg at scale 1 (metres), ``comfort_ratio`` the share of
    it a standing leg spans (0 < ratio ≤ 1)."""
    if not (0.0 < comfort_ratio <= 1.0):
        raise SettingsError(f"comfort ratio must be in (0, 1], got {comfort_ratio!r}")
    if not (np.isfinite(leg_length) and leg_length >= 0.0):
        raise SettingsError(f"leg length must be finite and ≥ 0 m, got {leg_length!r}")
    return (comfort_ratio - 1.0) * leg_length * avatar_scale
