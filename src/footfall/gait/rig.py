"""What the walker needs to know about a skeleton: legs, arms, spine, head, and its measures.

Any humanoid works (legs and arms found through :mod:`footfall.humanoid`); the facing is read
from the rest pose (left hip → right hip). Lengths are in the skeleton's unit. "Canonical"
below means the character frame: forward +Z, left +X.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import MappingError
from footfall.humanoid import (
    ArmChain,
    LegChain,
    find_arms,
    find_legs,
    map_skeleton,
    upright_turn,
)
from footfall.skeleton import Skeleton

UP = np.array([0.0, 1.0, 0.0])
# Fallback foot shape as shares of the leg / ankle height, from the bunny (seed 000).
ANKLE_HEIGHT_SHARE = 0.27
BALL_FORWARD_SHARE = 0.35
HEEL_BACK_SHARE = 0.4


def yaw(angle: ArrayLike) -> FloatArray:
    """Rotations ``(..., 4)`` about +Y by ``angle (...)`` radians."""
    return quat.from_axis_angle(UP, np.asarray(angle, dtype=np.float64))


def pitch(angle: ArrayLike) -> FloatArray:
    """Rotations ``(..., 4)`` about the canonical left axis +X (positive tips +Z down)."""
    return quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.asarray(angle, dtype=np.float64))


@dataclass(frozen=True)
class WalkRig:
    """A skeleton prepared for walking.

    Attributes:
        skeleton: the rig.
        root: index of the hips (the joint that carries the world position).
        spine: joint that turns the shoulders against the hips, or None.
        head: head joint (stabilised: gaze and bob compensation), or None.
        legs, arms: ``(left, right)`` leg and arm chains (arms None when the rig has none).
        facing: ``(4,)`` rest rotation taking canonical +Z to the rig's rest forward.
        leg_length, leg_lengths: mean and ``(2,)`` per-leg thigh + shin, skeleton units.
        hip_offsets: ``(2, 3)`` rest offset of each hip joint from the root (rest frame).
        ankle_height: rest ankle height above the sole.
        root_above_hips: rest height of the root above the hip joints.
        foot_lateral: ``(2,)`` canonical x of each hip from the root, where the feet land.
        heel, ball: ``(2, 3)`` canonical heel and ball (toe joint) on the sole, from the ankle.
        arm_align: ``(2, 2, 4)`` canonical [side, upper/lower arm] rest → hanging straight down.
        arm_out: ``(2, 4)`` per side, the sideways tilt applied after the swing (arm spread).
        leg_segments: per side, the joints turning with the thigh and with the shin (to the foot).
        below_hips: every joint at or below an upper leg, parents first.
    """

    skeleton: Skeleton
    root: int
    spine: int | None
    head: int | None
    legs: tuple[LegChain, LegChain]
    arms: tuple[ArmChain, ArmChain] | None
    facing: FloatArray
    leg_length: float
    leg_lengths: FloatArray
    hip_offsets: FloatArray
    ankle_height: float
    root_above_hips: float
    foot_lateral: FloatArray
    heel: FloatArray
    ball: FloatArray
    arm_align: FloatArray | None
    arm_out: FloatArray
    leg_segments: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    below_hips: tuple[int, ...]

    @classmethod
    def from_skeleton(cls, skeleton: Skeleton, arm_spread: float = math.radians(8.0)) -> WalkRig:
        """Find the walking parts of ``skeleton``; raises :class:`MappingError` without legs."""
        found = find_legs(skeleton)
        legs = (found["left"], found["right"])
        try:
            arm_map = find_arms(skeleton)
            arms: tuple[ArmChain, ArmChain] | None = (arm_map["left"], arm_map["right"])
        except MappingError:
            arms = None
        mapping = map_skeleton(skeleton)
        # A rest pose lying on its side (it stands up through its root rotation) is measured
        # standing: the rig's rest frame is turned by ``stand`` first.
        stand = upright_turn(skeleton, mapping.mapping)
        rest = quat.rotate(stand, skeleton.rest_positions())
        root = _root_of(skeleton, legs, mapping.index_in(skeleton, "Hips"))
        head = mapping.index_in(skeleton, "Head")
        spine = _spine_of(skeleton, root, head, arms, mapping.index_in(skeleton, "Spine"))

        left = rest[legs[0].upper] - rest[legs[1].upper]
        left[1] = 0.0
        if np.linalg.norm(left) < 1e-9:
            raise MappingError(
                f"cannot tell the rig's facing: hips {skeleton.names[legs[0].upper]!r} and "
                f"{skeleton.names[legs[1].upper]!r} sit on top of each other"
            )
        forward = np.cross(left, UP)
        heading = yaw(math.atan2(forward[0], forward[2]))
        facing = quat.mul(quat.inv(stand), heading)

        def standing(v: FloatArray) -> FloatArray:
            return quat.inv_rotate(heading, v)

        lengths = [
            np.linalg.norm(rest[leg.lower] - rest[leg.upper])
            + np.linalg.norm(rest[leg.foot] - rest[leg.lower])
            for leg in legs
        ]
        leg_length = float(np.mean(lengths))
        if leg_length <= 1e-9:
            raise MappingError(f"the legs of this rig have zero length ({skeleton.names[0]!r})")
        ankle_heights = [_ankle_height(skeleton, rest, leg, stand) for leg in legs]
        ankle_height = float(np.mean([h for h in ankle_heights if h is not None] or
                                     [ANKLE_HEIGHT_SHARE * leg_length]))
        heel = np.tile([0.0, -ankle_height, -HEEL_BACK_SHARE * ankle_height], (2, 1))
        ball = np.zeros((2, 3))
        for side, leg in enumerate(legs):
            if leg.toes is not None:
                toe = standing(rest[leg.toes] - rest[leg.foot])
                ball[side] = [toe[0], -ankle_height, max(toe[2], 1e-3 * leg_length)]
            else:
                ball[side] = [0.0, -ankle_height, BALL_FORWARD_SHARE * leg_length]
        root_above_hips = float(rest[root, 1] - np.mean([rest[leg.upper, 1] for leg in legs]))
        foot_lateral = np.array([standing(rest[leg.upper] - rest[root])[0] for leg in legs])
        arm_align = None
        arm_out = quat.identity((2,))
        if arms is not None:
            arm_align = np.zeros((2, 2, 4))
            down = np.array([0.0, -1.0, 0.0])
            for side, arm in enumerate(arms):
                # Hang the arm straight down, then hold it out sideways: the elbow then bends
                # about an axis square to the arm, so its angle is exactly the bend.
                arm_align[side, 0] = quat.between(standing(rest[arm.lower] - rest[arm.upper]), down)
                arm_align[side, 1] = quat.between(standing(rest[arm.hand] - rest[arm.lower]), down)
                arm_out[side] = quat.from_axis_angle([0.0, 0.0, 1.0], arm_spread * (1 - 2 * side))
        segments = []
        for leg in legs:
            path = skeleton.chain(leg.foot)
            path = path[path.index(leg.upper):path.index(leg.foot)]
            knee = path.index(leg.lower)
            segments.append((tuple(path[:knee]), tuple(path[knee:])))
        uppers = {leg.upper for leg in legs}
        below = tuple(
            j for j in range(skeleton.joint_count) if uppers & set(skeleton.chain(j))
        )
        return cls(
            leg_segments=tuple(segments), below_hips=below,
            skeleton=skeleton, root=root, spine=spine, head=head, legs=legs, arms=arms,
            facing=facing, leg_length=leg_length, ankle_height=ankle_height,
            leg_lengths=np.array(lengths, dtype=np.float64),
            hip_offsets=quat.inv_rotate(stand, np.array([rest[leg.upper] - rest[root]
                                                         for leg in legs])),
            root_above_hips=root_above_hips, foot_lateral=foot_lateral, heel=heel, ball=ball,
            arm_align=arm_align, arm_out=arm_out,
        )


def _root_of(skeleton: Skeleton, legs: tuple[LegChain, LegChain], hips: int | None) -> int:
    """The hips: the mapped Hips if it is above both legs, else their common ancestor."""
    chains = [skeleton.chain(leg.upper) for leg in legs]
    common = [j for j in chains[0][:-1] if j in chains[1][:-1]]
    if hips is not None and hips in common:
        return hips
    if not common:
        raise MappingError("the two legs of this rig hang from different roots")
    return common[-1]


def _spine_of(
    skeleton: Skeleton, root: int, head: int | None,
    arms: tuple[ArmChain, ArmChain] | None, mapped: int | None,
) -> int | None:
    """First joint below the root on the way to the head (or the arms)."""
    if mapped is not None and root in skeleton.chain(mapped)[:-1]:
        return mapped
    target = head if head is not None else (arms[0].upper if arms is not None else None)
    if target is None:
        return None
    chain = skeleton.chain(target)
    if root not in chain or chain.index(root) + 1 >= len(chain):
        return None
    return chain[chain.index(root) + 1]


def _ankle_height(skeleton: Skeleton, rest: FloatArray, leg: LegChain,
                  stand: FloatArray) -> float | None:
    """Rest ankle height above the lowest point of the foot (joints and end sites); ``rest``
    positions standing, ``stand`` the turn that stood them up."""
    below = [j for j in range(skeleton.joint_count) if leg.foot in skeleton.chain(j)[:-1]]
    heights = [rest[j, 1] for j in below] + [
        rest[joint, 1] + float(quat.rotate(stand, offset)[1])
        for joint, offset in skeleton.end_sites.items() if joint == leg.foot or joint in below]
    if not heights:
        return None
    drop = float(rest[leg.foot, 1] - min(heights))
    return drop if drop > 1e-6 else None
