"""A clip prepared once for grounding (:class:`PreparedClip`): its legs, its own floor, the
soles measured on its motion and the feet's world points (:mod:`footfall.footing.clip_feet`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.footing import FLOOR_PERCENTILE
from footfall.footing.clip_feet import ClipFeet, clip_feet, planted_floor
from footfall.footing.foot_model import (
    FootModel,
    Leg,
    calibration_frames,
    foot_model_from_motion,
    legs_of,
)
from footfall.grounding.clip.contacts import find_contacts, ground_travel
from footfall.humanoid.limbs import body_joints
from footfall.skeleton import Clip

#: At most this many rounds of finding contacts over the floor and the floor on the contacts.
FLOOR_ROUNDS = 4


def animation_floor(clip: Clip, legs: Any = None) -> float:
    """Height (metres) of the floor a clip was animated on: the lowest point of its planted
    feet (:func:`planted_floor`) over its motion's frames (not a calibration frame,
    :func:`~footfall.footing.foot_model.calibration_frames`) and the contacts found in them;
    ``legs`` as :func:`~footfall.footing.foot_model.legs_of` takes them."""
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

    @cached_property
    def travel(self) -> FloatArray | None:
        """``(F, 2)`` how far the ground under the clip has travelled by each frame (x, z
        metres) when it is walked in place (:func:`ground_travel`), else None."""
        return ground_travel(self.feet)

    @cached_property
    def positions(self) -> FloatArray:
        """``(F, J, 3)`` the clip's joints (world metres), worked out once: every solve pass
        reads its knees (:func:`~footfall.grounding.clip.kneels.knee_heights`)."""
        return self.clip.forward_kinematics()[1]

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
