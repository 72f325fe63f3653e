"""Each foot's toe point: its toe joint, or — for rigs without toe joints — the foot's End Site.

The toe pivot, the foot pitch and the lowest-point rule of the limbs (``limbs.py``) need to know
where a foot's toes are. Most rigs have a toe joint; some BVH captures (MocapBank's) end each
leg at the ankle with an End Site at the tip of the toes. Such an End Site gives the toe point
(the ball of the foot, :data:`BALL_SHARE` of the way to the tip) when it reaches further
forward than down (a sole marker straight below the ankle, like
bvhio's, does not). "Forward" and "down" are the world's, in the rest pose stood upright
(``footfall.humanoid.upright``): a Z-up file keeps its feet's End Sites along its own Z. A toe
joint's position is read as it is (position channels included); an End Site is carried by the
foot's world rotation.
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
#: Horizontal share of the ankle→toe-tip distance at which the ball of the foot sits (the toe
#: joint of GAMES-105, CMU and Mixamo rigs: 0.56–0.68 of the way to their toe End Sites).
BALL_SHARE = 0.65


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
    def of(cls, skeleton: Skeleton, mapping: Mapping[str, str]) -> Toes | None:
        """The toe points of ``skeleton`` (canonical ``mapping``), or None when a foot has
        neither a toe joint nor a forward-reaching End Site ("forward" and "down" judged in the
        rest pose stood upright)."""
        if not all(b in mapping for b in FEET):
            return None
        feet = np.array([skeleton.index(mapping[b]) for b in FEET], dtype=np.int64)
        joints = np.full(2, -1, dtype=np.int64)
        offsets = np.zeros((2, 3))
        standing: FloatArray | None = None  # (J, 4) world rotations, computed when needed
        for side, (foot, toe) in enumerate(zip(feet, TOES, strict=True)):
            if toe in mapping:
                joints[side] = skeleton.index(mapping[toe])
                continue
            end = skeleton.end_sites.get(int(foot))
            if end is None:
                return None
            if standing is None:
                local = upright_pose(skeleton, mapping, quat.identity((skeleton.joint_count,)))
                standing = forward_kinematics(skeleton.parents, local, skeleton.offsets)[0]
            frame = standing[foot]
            tip = quat.rotate(frame, np.asarray(end, dtype=np.float64))  # world, metres
            if not np.hypot(tip[0], tip[2]) > abs(tip[1]):
                return None
            # The End Site is the tip of the toes; the ball (what toe joints mark, and GMD
            # measures) sits along the sole, BALL_SHARE of the way there, at the tip's height.
            ball = tip * np.array([BALL_SHARE, 1.0, BALL_SHARE])
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
