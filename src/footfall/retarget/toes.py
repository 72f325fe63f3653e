"""Each foot's toe point (for the toe pivot, foot pitch and lowest-point rule of ``limbs.py``):
its toe joint, or, for rigs that end each leg at the ankle, one from the foot's End Site:

- an End Site at the tip of the toes (reaching further forward than down): the ball of the
  foot, :data:`BALL_SHARE` of the way to the tip;
- an End Site at the sole, straight below the ankle: the ball at the sole's depth,
  :data:`BALL_FORWARD` of the leg's length ahead of the ankle (else the ankle would be the
  foot's lowest point, and a target would stand on its ankles).

A foot with no End Site has no toe point. "Forward" and "down" are the world's, in the
calibration pose (by default the rest pose) stood upright facing +Z
(``footfall.humanoid.upright``). A toe joint's position is read as it is; an End Site's point is
carried by the foot's world rotation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.humanoid.upright import upright_pose
from footfall.skeleton import Skeleton, forward_kinematics

FEET = ("LeftFoot", "RightFoot")
TOES = ("LeftToes", "RightToes")
#: Horizontal share of the ankle→toe-tip distance at which the ball of the foot sits (rigs' toe
#: joints sit 0.56–0.68 of the way to their toe End Sites).
BALL_SHARE = 0.65
#: Forward distance from the ankle to the ball of the foot, as a share of the leg (hip → knee →
#: ankle) in the standing rest pose (0.13–0.16 on rigs with toe joints).
BALL_FORWARD = 0.15
LEGS = (("LeftUpperLeg", "LeftLowerLeg", "LeftFoot"),
        ("RightUpperLeg", "RightLowerLeg", "RightFoot"))


@dataclass(frozen=True)
class Toes:
    """Toe points of both feet (left, right).

    Attributes:
        feet: ``(2,)`` foot (ankle) joints.
        joints: ``(2,)`` toe joints, −1 where the toe is the foot's End Site.
        offsets: ``(2, 3)`` End Site offsets in the foot's frame, metres (0 for toe joints).
    """

    feet: NDArray[np.int64]
    joints: NDArray[np.int64]
    offsets: FloatArray

    @classmethod
    def of(cls, skeleton: Skeleton, mapping: Mapping[str, str],
           pose: FloatArray | None = None) -> Toes | None:
        """The toe points of ``skeleton`` (canonical ``mapping``), or None when a foot has
        neither a toe joint nor an End Site reaching forward or down (judged in the standing
        pose ``pose (J, 4)`` — the calibration pose — by default the rest pose, each stood
        upright)."""
        if not all(b in mapping for b in FEET):
            return None
        feet = np.array([skeleton.index(mapping[b]) for b in FEET], dtype=np.int64)
        joints = np.full(2, -1, dtype=np.int64)
        offsets = np.zeros((2, 3))
        standing: FloatArray | None = None  # (J, 4) world rotations, computed when needed
        standing_at = np.zeros((skeleton.joint_count, 3))  # (J, 3) their world positions, m
        for side, (foot, toe) in enumerate(zip(feet, TOES, strict=True)):
            if toe in mapping:
                joints[side] = skeleton.index(mapping[toe])
                continue
            end = skeleton.end_sites.get(int(foot))
            if end is None:
                return None
            if standing is None:
                local = upright_pose(skeleton, mapping,
                                     quat.identity((skeleton.joint_count,)) if pose is None
                                     else pose)
                standing, standing_at = forward_kinematics(skeleton.parents, local,
                                                           skeleton.offsets)
            frame = standing[foot]
            tip = quat.rotate(frame, np.asarray(end, dtype=np.float64))  # world, metres
            if np.hypot(tip[0], tip[2]) > abs(tip[1]):  # the tip of the toes
                ball = tip * np.array([BALL_SHARE, 1.0, BALL_SHARE])
            elif tip[1] < 0 and all(b in mapping for b in LEGS[side]):
                # A sole marker: the ball sits ahead of the ankle (the rest pose faces +Z).
                hip, knee, ankle = (standing_at[skeleton.index(mapping[b])]
                                    for b in LEGS[side])
                leg = np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee)
                ball = np.array([0.0, tip[1], BALL_FORWARD * leg])
            else:
                return None
            offsets[side] = quat.rotate(quat.inv(frame), ball)
        return cls(feet, joints, offsets)

    @property
    def real(self) -> NDArray[np.int64]:
        """The toe joints that exist (a subset of ``joints``)."""
        return self.joints[self.joints >= 0]

    def positions(self, world: FloatArray, positions: FloatArray,
                  scale: float = 1.0) -> FloatArray:
        """World positions ``(..., 2, 3)`` of the toe points from world rotations
        ``(..., J, 4)`` and positions ``(..., J, 3)`` (End Sites at skeleton ``scale``)."""
        if (self.joints >= 0).all():
            return positions[..., self.joints, :]
        carried = positions[..., self.feet, :] + quat.rotate(world[..., self.feet, :],
                                                             self.offsets * scale)
        if (self.joints < 0).all():
            return carried
        read = positions[..., np.maximum(self.joints, 0), :]
        return np.where((self.joints >= 0)[:, None], read, carried)
