"""Hands kept out of the ground: grounding moves the body with the feet and leaves the arms as
animated, and a hand the source holds low over its floor can end inside higher ground.
mocapbank_zxy_cm kneels facing up the stairs (mirrored, backward, …), its right hand hanging
24 cm over its floor 35 cm ahead of the knee: moved onto one tread, the kneel put that hand
60-71 mm into the tread ahead, and was refused for it (its knee left 33-38 mm over its tread).

Where a point of a hand (the wrist, the joints below it and their End Sites) is deeper in the
ground than the source has it under its own floor, beyond :data:`HAND_TOLERANCE`, the arm is
bent by the two-bone IK (shoulder → elbow → wrist, :func:`~footfall.ik.limb.solve_limb`; the
wrist keeps its world rotation, the elbow its bend plane) so the hand rises straight up to the
surface: a person kneeling on stairs facing up puts that hand on the higher step. The lift is
smoothed from above over :data:`HAND_BLEND_SECONDS`, so the arm bends in and out over a few
frames; a clip whose hands stay out of the ground is returned as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import MappingError
from footfall.grounding.clip.smoothing import smooth_above
from footfall.humanoid.limbs import ArmChain, find_arms
from footfall.humanoid.topology import Hierarchy
from footfall.ik.limb import solve_limb
from footfall.metrics import ground_gaps
from footfall.skeleton import Clip, Skeleton

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

#: A hand point this far (metres) deeper in the ground than the source has it under its floor
#: is lifted (PhysDiff's tolerance); less is left as it is.
HAND_TOLERANCE = 0.005
#: The lift is smoothed from above over this long (seconds): the arm bends in and out over a
#: few frames, never in one.
HAND_BLEND_SECONDS = 0.15


@dataclass(frozen=True)
class HandPoints:
    """The points of one hand (``side``: "left" or "right"): the wrist and the joints below it
    ``(P,)`` and the End Sites of those ``(S,)`` (joint, offset in its frame, metres)."""

    side: str
    arm: ArmChain
    joints: tuple[int, ...]
    sites: tuple[tuple[int, FloatArray], ...]

    def positions(self, grot: FloatArray, gpos: FloatArray) -> FloatArray:
        """World positions ``(F, P + S, 3)`` of the points from a pose's world rotations
        ``(F, J, 4)`` and positions ``(F, J, 3)``, metres."""
        points = [gpos[:, list(self.joints)]]
        points += [(gpos[:, joint] + quat.rotate(grot[:, joint], offset))[:, None]
                   for joint, offset in self.sites]
        return np.concatenate(points, axis=1)


def hand_points(skeleton: Skeleton) -> tuple[HandPoints, ...]:
    """Both hands' points (:class:`HandPoints`, arms by :func:`~footfall.humanoid.limbs.
    find_arms`); none for a skeleton without arms."""
    try:
        arms = find_arms(skeleton)
    except MappingError:
        return ()
    hierarchy = Hierarchy.of(skeleton)
    hands = []
    for side, arm in arms.items():
        joints = tuple(j for j in range(skeleton.joint_count)
                       if j == arm.hand or hierarchy.is_ancestor(arm.hand, j))
        sites = tuple((j, np.asarray(offset, dtype=np.float64))
                      for j, offset in skeleton.end_sites.items() if j in joints)
        hands.append(HandPoints(side, arm, joints, sites))
    return tuple(hands)


@dataclass(frozen=True)
class HandClearance:
    """What keeps a clip's hands out of the ground (:func:`hand_clearance`): its hands' points
    and how deep ``(F, H, N)`` (metres, ≤ 0) each may be in the ground, as deep as the source
    has it under its own floor."""

    hands: tuple[HandPoints, ...]
    allowed_dip: FloatArray

    def depth(self, clip: Clip, terrain: RaySource) -> FloatArray:
        """How deep ``(F, H)`` (metres, − when clear) each hand's deepest point of ``clip``
        (the source solved: same skeleton, frames) is in ``terrain`` beyond its allowed dip;
        −inf where no point is over the terrain."""
        if not self.hands:
            return np.full((clip.frame_count, 0), -np.inf)
        points = _hand_positions(self.hands, *clip.forward_kinematics())
        with np.errstate(invalid="ignore"):
            cut = self.allowed_dip - ground_gaps(terrain, points)
        return np.where(np.isfinite(cut), cut, -np.inf).max(axis=-1, initial=-np.inf)

    def clear(self, clip: Clip, terrain: RaySource) -> Clip:
        """``clip`` with each arm bent where its hand is deeper in ``terrain`` than
        :data:`HAND_TOLERANCE` beyond its allowed dip, so the hand rises straight up to it
        (:mod:`footfall.grounding.clip.hands`); ``clip`` itself where no hand is. An arm that
        cannot reach so far is stretched as far as it goes (:func:`unreached`)."""
        depth = self.depth(clip, terrain)
        need = np.where(depth > HAND_TOLERANCE, depth, 0.0)
        if not np.any(need > 0.0):
            return clip
        window = max(1, int(round(HAND_BLEND_SECONDS * clip.fps)))
        lift = smooth_above(need, window)
        rotations = clip.rotations.copy()
        parents = clip.skeleton.parents
        _, gpos = clip.forward_kinematics()  # one arm's IK moves no joint of the other
        for side, hand in enumerate(self.hands):
            frames = np.nonzero(lift[:, side] > 0.0)[0]
            if frames.size == 0:
                continue
            arm = hand.arm
            shoulder, elbow, wrist = (gpos[frames, j] for j in (arm.upper, arm.lower, arm.hand))
            target = wrist + lift[frames, side, None] * np.array([0.0, 1.0, 0.0])
            # an arm already straighter than the solver's usual reach keeps its length
            length = (np.linalg.norm(elbow - shoulder, axis=-1)
                      + np.linalg.norm(wrist - elbow, axis=-1))
            reach = np.linalg.norm(wrist - shoulder, axis=-1) / np.maximum(length, 1e-12)
            solved, _ = solve_limb(parents, rotations[frames], clip.positions[frames],
                                   (arm.upper, arm.lower, arm.hand), target,
                                   max_reach=np.clip(reach + 1e-9, 0.999, 1.0))
            rotations[frames] = solved
        return Clip(clip.skeleton, rotations, clip.positions, clip.fps)

    def unreached(self, clip: Clip, terrain: RaySource) -> FloatArray:
        """How deep ``(F, H)`` (metres, ≥ 0) each hand of a cleared ``clip`` stays in
        ``terrain`` beyond its allowed dip and :data:`HAND_TOLERANCE` (its arm too short to
        lift it so far)."""
        return np.maximum(self.depth(clip, terrain) - HAND_TOLERANCE, 0.0)


def hand_clearance(source: Clip, floor: float) -> HandClearance:
    """The :class:`HandClearance` of ``source`` (placed, animated on its ``floor``, metres):
    a hand point may be as deep in the ground as it is under that floor."""
    hands = hand_points(source.skeleton)
    if not hands:
        return HandClearance(hands, np.zeros((source.frame_count, 0, 0)))
    over = _hand_positions(hands, *source.forward_kinematics())[..., 1] - floor
    return HandClearance(hands, np.minimum(np.where(np.isfinite(over), over, 0.0), 0.0))


def _hand_positions(hands: tuple[HandPoints, ...], grot: FloatArray, gpos: FloatArray
                    ) -> FloatArray:
    """World positions ``(F, H, N, 3)`` of the hands' points (:meth:`HandPoints.positions`),
    a hand with fewer than the most padded with NaN."""
    points = [hand.positions(grot, gpos) for hand in hands]
    width = max(p.shape[1] for p in points)
    return np.stack([np.pad(p, ((0, 0), (0, width - p.shape[1]), (0, 0)),
                            constant_values=np.nan) for p in points], axis=1)
