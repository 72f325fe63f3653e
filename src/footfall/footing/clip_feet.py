"""A clip's feet, frame by frame: the points each foot can touch the ground with, and the floor
its planted feet stand on.

For every frame, each foot's sole samples (its :class:`~footfall.footing.foot_model.FootModel`
put in the world), its ankle, its ball and its touch points (the heel and the rig's toe tips).
Grounding plants, places and judges a clip's feet by these points; :func:`planted_floor` is the
floor rule (:func:`footfall.footing.clip_floor`) applied to their support joints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.clip_contacts import clip_floor
from footfall.footing.foot_model import FootModel, Leg, sole_world, toe_tips
from footfall.skeleton import Skeleton, forward_kinematics

#: Sole samples taken every this many (of 1 cm) when finding the ground under a foot.
SOLE_STRIDE = 3


@dataclass(frozen=True)
class ClipFeet:
    """Where a clip's feet are, world metres: sole samples ``(F, 2, S, 3)`` (NaN-padded), ankles
    and balls (the toe-base joint, or the sole's toe end where there is none) ``(F, 2, 3)``, and
    the points that touch the floor ``(F, 2, P, 3)`` (NaN-padded): the heel and the rig's toe
    tips, which bend where the sole cannot."""

    sole: FloatArray
    ankle: FloatArray
    ball: FloatArray
    touch: FloatArray

    def ground_points(self) -> FloatArray:
        """The points of each foot that can touch the ground ``(F, 2, N, 3)`` (NaN-padded): the
        sole every :data:`SOLE_STRIDE` cm with its toe end, and the touch points (heel, toe
        tips)."""
        sole = self.sole[:, :, ::SOLE_STRIDE]
        return np.concatenate([sole, self.sole[:, :, -1:], self.touch], axis=2)

    def support_points(self) -> FloatArray:
        """The joints each foot stands on ``(F, 2, P, 3)`` (NaN-padded): the ankle and the
        touch points but the first (the modelled heel), that is the ball and the toe tips."""
        return np.concatenate([self.ankle[:, :, None], self.touch[:, :, 1:]], axis=2)


def clip_feet(
    rotations: FloatArray, positions: FloatArray, skeleton: Skeleton, legs: tuple[Leg, Leg],
    models: tuple[FootModel, FootModel],
) -> ClipFeet:
    """Sole samples, ankles, balls and touch points of poses ``(F, J, 4)``, ``(F, J, 3)``."""
    grot, gpos = forward_kinematics(skeleton.parents, rotations, positions)
    samples = max(len(m.sole) for m in models)
    sole = np.full((gpos.shape[0], 2, samples, 3), np.nan)
    ball = np.empty((gpos.shape[0], 2, 3))
    tips = [toe_tips(skeleton, leg) for leg in legs]
    touch = np.full((gpos.shape[0], 2, 1 + max(len(t) for t in tips), 3), np.nan)
    for side, (leg, model) in enumerate(zip(legs, models, strict=True)):
        world = sole_world(grot[:, leg.foot], gpos[:, leg.foot], model.sole)
        sole[:, side, : len(model.sole)] = world
        ball[:, side] = world[:, -1] if leg.toes is None else gpos[:, leg.toes]
        touch[:, side, 0] = world[:, 0]  # heel
        for i, (joint, offset) in enumerate(tips[side], start=1):
            touch[:, side, i] = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
    ankle = gpos[:, [leg.foot for leg in legs]]
    return ClipFeet(sole, ankle, ball, touch)


def planted_floor(feet: ClipFeet, contacts: NDArray[np.bool_]) -> float | None:
    """A clip's floor (metres; :func:`footfall.footing.clip_floor`, the one rule) from the
    lowest support joint of each planted foot (:meth:`ClipFeet.support_points`: ankle, ball,
    toe tips — the rig's joints and foot End Sites, not the modelled heel) over the
    ``contacts (F, 2)``; None without contacts. Placement puts this height on the terrain, so a
    foot keeps its height above it."""
    points = feet.support_points()
    heights = np.where(np.all(np.isfinite(points), axis=-1), points[..., 1], np.nan)
    return clip_floor(np.nanmin(heights, axis=-1), contacts)
