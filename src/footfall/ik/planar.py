"""Side-view two-bone leg IK of seed 000 (``legIK``), batched.

The leg lives in the character's Y–Z plane (up, forward): the hip at height ``hip_y``, the ankle
target ``forward`` metres ahead at height ``target_y``. Angles are rotations about the X axis as
in the seed (three.js ``rotation.x``): a bone hanging straight down has angle 0, and a bone at
angle θ points along ``(0, −cos θ, −sin θ)``, so negative angles swing it forward (+Z).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.ik._kernel import TINY
from footfall.ik.two_bone import input_shapes, root_angle


@dataclass(frozen=True)
class PlanarLegResult:
    """Joint angles of :func:`leg_ik_planar`, radians, each ``(...)``.

    Attributes:
        thigh_angle: hip rotation about X (world, 0 = thigh straight down).
        shin_angle: knee rotation about X relative to the thigh (0 = straight, > 0 bent).
        foot_angle: ankle rotation about X relative to the shin, so the sole lies at the slope.
        residual: distance the ankle target stayed out of reach, metres (seed 000 returns
            ``D − Dc``: positive beyond the longest reach, negative inside the shortest).
    """

    thigh_angle: FloatArray
    shin_angle: FloatArray
    foot_angle: FloatArray
    residual: FloatArray


def leg_ik_planar(
    hip_y: ArrayLike, forward: ArrayLike, target_y: ArrayLike, slope: ArrayLike, thigh: ArrayLike,
    shin: ArrayLike, *, min_reach: float = 0.05, max_reach: float = 0.999,
) -> PlanarLegResult:
    """Seed 000's side-view leg IK by the law of cosines; every argument broadcasts.

    Args:
        hip_y: ``(...)`` hip height, metres.
        forward: ``(...)`` ankle target distance ahead of the hip (+Z), metres.
        target_y: ``(...)`` ankle target height, metres.
        slope: ``(...)`` ground pitch under the foot, radians (the sole ends at angle −slope).
        thigh, shin: ``(...)`` bone lengths, metres.
        min_reach: shortest hip→ankle distance (seed: 0.05 m); never below |thigh − shin|.
        max_reach: longest reach as a share of thigh + shin (seed: 0.999).
    """
    named = {"hip_y": hip_y, "forward": forward, "target_y": target_y, "slope": slope,
             "thigh": thigh, "shin": shin}
    values = [np.asarray(v, dtype=np.float64) for v in named.values()]
    try:
        hip_y, forward, target_y, slope, thigh, shin = np.broadcast_arrays(*values)
    except ValueError:
        raise SkeletonError("leg_ik_planar: shapes do not broadcast: "
                            + input_shapes(named)) from None
    rise = target_y - hip_y
    distance = np.hypot(rise, forward)
    shortest = np.maximum(min_reach, np.abs(thigh - shin) + 1e-6 * (thigh + shin))
    reach = np.minimum(np.maximum(distance, shortest), np.maximum(max_reach * (thigh + shin), TINY))
    toward_target = np.arctan2(forward, -rise)
    cos_hip, _ = root_angle(thigh, shin, reach)
    cos_knee = (thigh**2 + shin**2 - reach**2) / np.maximum(2.0 * thigh * shin, TINY)
    hip_inner = np.arccos(cos_hip)
    knee_inner = np.arccos(np.clip(cos_knee, -1.0, 1.0))
    thigh_angle = -(toward_target + hip_inner)
    shin_angle = np.pi - knee_inner
    return PlanarLegResult(thigh_angle=thigh_angle, shin_angle=shin_angle,
                           foot_angle=-slope - thigh_angle - shin_angle, residual=distance - reach)
