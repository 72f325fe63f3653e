"""Where a clip's feet are, and the clip prepared once for grounding (:class:`PreparedClip`):
its legs, its own floor, the soles measured on its motion and the feet's world points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.footing import FLOOR_PERCENTILE, clip_floor
from footfall.grounding.clip.contacts import find_contacts
from footfall.grounding.feet import (
    FootModel,
    Leg,
    calibration_frames,
    foot_model_from_motion,
    legs_of,
    toe_tips,
)
from footfall.humanoid.limbs import body_joints
from footfall.metrics import sole_world
from footfall.metrics.stance import support_heights
from footfall.skeleton import Clip, Skeleton, forward_kinematics
from footfall.terrain.level import LevelGround

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


def foot_points(feet: ClipFeet) -> FloatArray:
    """The points of each foot that can touch the ground ``(F, 2, N, 3)`` (NaN-padded): the
    sole every 3 cm with its toe end, and the touch points (heel, ball, toe tips)."""
    sole = feet.sole[:, :, ::SOLE_STRIDE]
    return np.concatenate([sole, feet.sole[:, :, -1:], feet.touch], axis=2)


#: At most this many rounds of finding contacts over the floor and the floor on the contacts.
FLOOR_ROUNDS = 4


def animation_floor(clip: Clip, legs: Any = None) -> float:
    """Height (metres) of the floor a clip was animated on: the lowest point of its planted
    feet (:func:`planted_floor`) over its motion's frames (not a calibration frame,
    :func:`~footfall.grounding.feet.calibration_frames`) and the contacts found in them;
    ``legs`` as :func:`~footfall.grounding.feet.legs_of` takes them."""
    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    return prepare_clip(clip[motion], legs_of(clip.skeleton, legs)).floor


def lowest_body_point(clip: Clip, legs: tuple[Leg, Leg]) -> float:
    """The :data:`~footfall.footing.FLOOR_PERCENTILE` th percentile over frames of a clip's
    lowest body joint or
    end site (:func:`footfall.humanoid.body_joints`), metres: a first guess of its floor, good
    enough to find the contacts that :func:`planted_floor` measures the floor on."""
    grot, gpos = clip.forward_kinematics()
    body = body_joints(clip.skeleton, legs)
    lowest = gpos[:, body, 1].min(axis=1)
    for joint, offset in clip.skeleton.end_sites.items():
        if joint in body:
            tip = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
            lowest = np.minimum(lowest, tip[:, 1])
    return float(np.percentile(lowest, FLOOR_PERCENTILE))


def planted_floor(feet: ClipFeet, contacts: NDArray[np.bool_]) -> float | None:
    """A clip's floor (metres; :func:`footfall.footing.clip_floor`, the one rule) from the
    lowest support joint of each planted foot (ankle, ball, toe tips: the rig's joints and foot
    End Sites, not the modelled heel; :func:`~footfall.metrics.stance.support_heights`) over the
    ``contacts (F, 2)``; None without contacts. Placement puts this height on the terrain, so a
    foot keeps its height above it."""
    heights = support_heights(feet.ankle, feet.touch, LevelGround(0.0))  # world y (F, 2, P)
    return clip_floor(np.nanmin(heights, axis=-1), contacts)


@dataclass(frozen=True)
class PreparedClip:
    """A clip (calibration frames cut, placed) as grounding reads it, worked out once: its legs,
    the floor it was animated on (metres, :func:`planted_floor`), the soles measured on its
    motion, its feet and the contacts its floor was measured on."""

    clip: Clip
    legs: tuple[Leg, Leg]
    floor: float
    models: tuple[FootModel, FootModel]
    feet: ClipFeet
    #: ``(F, 2)`` the contacts found in the motion, which the floor was measured on.
    contacts: NDArray[np.bool_]

    @property
    def root(self) -> int:
        """The skeleton's first root joint: the one grounding moves up and down."""
        return int(np.nonzero(self.clip.skeleton.parents < 0)[0][0])

    def feet_of(self, clip: Clip) -> ClipFeet:
        """The feet of ``clip`` (this clip solved: same skeleton and frames)."""
        return clip_feet(clip.rotations, clip.positions, clip.skeleton, self.legs, self.models)


def prepare_clip(clip: Clip, legs: tuple[Leg, Leg]) -> PreparedClip:
    """``clip`` with its floor, soles measured on the motion, feet and contacts
    (:class:`PreparedClip`).

    The floor is :func:`planted_floor` over the contacts found in the motion (contacts given
    from outside plan the grounding, not the floor: a report's contacts read back ground the
    clip as before); the soles are measured standing on it."""
    grot, gpos = clip.forward_kinematics()
    usable = ~calibration_frames(clip.rotations, clip.skeleton.parents)

    def feet_on(floor: float) -> tuple[tuple[FootModel, FootModel], ClipFeet]:
        models = (foot_model_from_motion(clip.skeleton, legs[0], grot, gpos, floor, usable=usable),
                  foot_model_from_motion(clip.skeleton, legs[1], grot, gpos, floor, usable=usable))
        return models, clip_feet(clip.rotations, clip.positions, clip.skeleton, legs, models)

    floor = lowest_body_point(clip, legs)
    models, feet = feet_on(floor)
    found = find_contacts(feet, floor, clip.fps)
    # Contacts are found by height over the floor and the floor is measured on the contacts:
    # settled in a few rounds (a floor a few millimetres lower loses or gains an edge frame).
    for _ in range(FLOOR_ROUNDS):
        planted = planted_floor(feet, found)
        if planted is None or planted == floor:
            break
        try:
            models, feet = feet_on(planted)
        except SkeletonError:
            break  # over that floor a foot cannot stand flat (an ankle under it): keep the last
        floor = planted
        again = find_contacts(feet, floor, clip.fps)
        if np.array_equal(again, found):
            break
        found = again
    return PreparedClip(clip, legs, floor, models, feet, found)
