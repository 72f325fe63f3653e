"""The avatar's body kept above the floor: the trunk by raising the hips, the arms by swinging
them up at the shoulders.

An avatar built unlike its performer can go through the floor where the performer does not:
RobotExpressive's arms are longer than its shoulders are high (they reach 65 cm below its floor
when they hang as a person's do) and end in palms with no hand bone for the hand IK to hold up,
and its wide trunk and head sink into the floor when it crouches as deep as a person. A
:class:`BodyPoints` holds points that stand for the surface of the trunk (everything not on a
leg or an arm) and of each arm — a skinned mesh's support points (the vertices lowest for some
turn of the bone carrying them), or the joints of a rig without a mesh — fixed in the frames of
the bones that carry them.

- :meth:`BodyPoints.trunk_rise`: how far the hips must rise for every trunk point to be at least
  :data:`CLEARANCE` above the floor (the legs then reach down to the feet from there).
- :meth:`BodyPoints.lift_arms`: after the limbs are solved, each upper arm whose points go below
  that, with everything below it, is turned about a level axis through the shoulder — in the
  vertical plane of the arm's lowest point, leaning outward from the body — by the smallest
  angle that lifts the arm out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray, IntArray
from footfall.skeleton import FKPlan, Skeleton

ARMS = ("LeftUpperArm", "RightUpperArm")
LEGS = ("LeftUpperLeg", "RightUpperLeg")
#: ``BodyPoints.part`` of a trunk point (arms are 0 and 1).
TRUNK = 2
#: Metres above the floor the body's lowest point is kept (under the feet's −1 cm test band,
#: over skinning's blend between the points' bones).
CLEARANCE = 0.005
#: Angles (radians) tried for an arm's lift; the first that clears is refined linearly between
#: its grid neighbours.
ANGLES = np.radians(np.arange(0.0, 181.0, 5.0))
#: Outward lean of an arm's lifting plane, as a share of the arm's reach: an arm hanging
#: straight down is swung away from the body, not through it.
OUTWARD = 0.15


def limb_joints(skeleton: Skeleton, top: int) -> IntArray:
    """``(K,)`` the joint ``top`` and every joint below it, ascending."""
    return np.array([j for j in range(skeleton.joint_count) if top in skeleton.chain(j)],
                    dtype=np.int64)


def trunk_joints(skeleton: Skeleton, mapping: Mapping[str, str]) -> IntArray:
    """``(K,)`` the hips and the joints below them that are on neither an arm nor a leg
    (:data:`ARMS`, :data:`LEGS`, the feet), ascending; empty without mapped hips. (Joints
    beside the hips, such as the IK targets some rigs hang their feet from, are not trunk.)"""
    if "Hips" not in mapping:
        return np.zeros(0, dtype=np.int64)
    hips = skeleton.index(mapping["Hips"])
    limbs = [skeleton.index(mapping[b]) for b in (*ARMS, *LEGS, "LeftFoot", "RightFoot")
             if b in mapping]
    return np.array([j for j in range(skeleton.joint_count) if hips in skeleton.chain(j)
                     and not any(top in skeleton.chain(j) for top in limbs)], dtype=np.int64)


@dataclass(frozen=True)
class BodyPoints:
    """Points of the body's surface, fixed in their bones.

    Attributes:
        uppers: ``(2,)`` the upper arm joint of each arm (left first).
        joints: ``(P,)`` the joint that carries each point.
        offsets: ``(P, 3)`` each point in its joint's frame, metres (the avatar's own size).
        part: ``(P,)`` 0 / 1 a point of the left / right arm, :data:`TRUNK` of the trunk.
        turned: per arm, ``(K,)`` the joints turned with its upper arm (it and all below).
        body: ``(2,)`` the joint each arm hangs from the body at (its shoulder's parent), for
            the outward direction.
    """

    uppers: IntArray
    joints: IntArray
    offsets: FloatArray
    part: IntArray
    turned: list[IntArray]
    body: IntArray

    @classmethod
    def gather(cls, skeleton: Skeleton, mapping: Mapping[str, str], rest: FloatArray,
               points: list[FloatArray], carriers: list[IntArray]) -> BodyPoints | None:
        """From points ``(P_k, 3)`` given in the world of the rest pose ``rest (J, 4)`` (the
        local rotations the points were measured in), metres, and the joint ``(P_k,)`` carrying
        each, for the left arm, the right arm and the trunk. None without both arms mapped."""
        if not all(bone in mapping for bone in ARMS):
            return None
        world, positions = FKPlan(skeleton.parents)(rest, skeleton.offsets)
        offsets, part = [], []
        for k, (own, carried) in enumerate(zip(points, carriers, strict=True)):
            offsets.append(quat.inv_rotate(world[carried], own - positions[carried]))
            part.append(np.full(len(carried), k))
        uppers = np.array([skeleton.index(mapping[bone]) for bone in ARMS])
        body = []
        for bone, upper in zip(ARMS, uppers.tolist(), strict=True):
            clavicle = bone.replace("UpperArm", "Shoulder")
            shoulder = (skeleton.index(mapping[clavicle]) if clavicle in mapping
                        else int(skeleton.parents[upper]))
            parent = int(skeleton.parents[shoulder]) if shoulder >= 0 else -1
            body.append(parent if parent >= 0 else upper)
        return cls(uppers, np.concatenate(carriers).astype(np.int64), np.concatenate(offsets),
                   np.concatenate(part), [limb_joints(skeleton, u) for u in uppers.tolist()],
                   np.array(body))

    @classmethod
    def of_joints(cls, skeleton: Skeleton, mapping: Mapping[str, str],
                  rest: FloatArray) -> BodyPoints | None:
        """A rig without a mesh: the joints of each arm (the upper arm and all below it) and of
        the trunk are the points. None without both arms mapped."""
        if not all(bone in mapping for bone in ARMS):
            return None
        positions = FKPlan(skeleton.parents)(rest, skeleton.offsets)[1]
        carriers = [limb_joints(skeleton, skeleton.index(mapping[b])) for b in ARMS]
        carriers.append(trunk_joints(skeleton, mapping))
        return cls.gather(skeleton, mapping, rest, [positions[c] for c in carriers], carriers)

    def plan(self, parents: IntArray) -> FKPlan:
        """The forward kinematics the body needs: the points' joints, the arms' body joints
        and their ancestors."""
        return FKPlan(parents, np.concatenate([self.joints, self.uppers, self.body]))

    def points(self, world: FloatArray, positions: FloatArray, scale: float) -> FloatArray:
        """``(..., P, 3)`` the points for joint world rotations ``(..., J, 4)`` and positions
        ``(..., J, 3)`` of the avatar at ``scale``, metres."""
        return (positions[..., self.joints, :]
                + quat.rotate(world[..., self.joints, :], self.offsets * scale))

    def trunk_rise(self, world: FloatArray, positions: FloatArray, floor: float,
                   scale: float = 1.0) -> FloatArray:
        """``(...)`` metres the hips must rise for the trunk's points to be :data:`CLEARANCE`
        above ``floor`` (0 where they are), for joint world rotations ``(..., J, 4)`` and
        positions ``(..., J, 3)``."""
        trunk = self.part == TRUNK
        if not trunk.any():
            return np.zeros(world.shape[:-2])
        heights = (positions[..., self.joints[trunk], 1]
                   + quat.rotate(world[..., self.joints[trunk], :],
                                 self.offsets[trunk] * scale)[..., 1])
        return np.maximum(floor + CLEARANCE - heights.min(axis=-1), 0.0)

    def lift_arms(self, world: FloatArray, positions: FloatArray, floor: float,
                  scale: float = 1.0) -> FloatArray:
        """Swing up every arm whose points go below ``floor + CLEARANCE`` (see the module
        docstring): ``world (..., J, 4)`` rotations are turned in place for the upper arm and
        the joints below it (their local rotations below the upper arm stay as they are);
        ``positions (..., J, 3)`` are the joints' world positions for that pose (read only).
        Returns ``(..., 2)`` the angle each arm was swung by, radians."""
        batch = world.shape[:-2]
        angles = np.zeros(batch + (2,))
        least = floor + CLEARANCE
        for side, upper in enumerate(self.uppers.tolist()):
            on_arm = self.part == side
            own = (positions[..., self.joints[on_arm], :]
                   + quat.rotate(world[..., self.joints[on_arm], :],
                                 self.offsets[on_arm] * scale))  # (..., Pa, 3)
            need = own[..., 1].min(axis=-1) < least
            if not np.any(need):
                continue
            shoulder = positions[..., upper, :][need]  # (N, 3)
            arm = own[need] - shoulder[:, None, :]  # (N, Pa, 3)
            lowest = arm[np.arange(len(arm)), arm[..., 1].argmin(axis=-1)]
            outward = shoulder - positions[..., self.body[side], :][need]
            outward[:, 1] = 0.0
            outward /= np.maximum(np.linalg.norm(outward, axis=-1, keepdims=True), 1e-9)
            toward = lowest * [1.0, 0.0, 1.0] + OUTWARD * np.linalg.norm(
                lowest, axis=-1, keepdims=True) * outward
            toward /= np.maximum(np.linalg.norm(toward, axis=-1, keepdims=True), 1e-9)
            # the level axis that swings straight down toward ``toward``
            axis = np.stack([-toward[:, 2], np.zeros(len(toward)), toward[:, 0]], axis=-1)
            turns = quat.from_axis_angle(axis[:, None, :], ANGLES[None, :])  # (N, T, 4)
            heights = (quat.rotate(turns[:, :, None, :], arm[:, None, :, :])[..., 1].min(-1)
                       + shoulder[:, None, 1])  # (N, T): the arm's lowest point per angle
            clear = heights >= least
            cleared = clear.any(axis=-1)
            first = np.where(cleared, clear.argmax(axis=-1), heights.argmax(axis=-1))
            before = np.maximum(first - 1, 0)
            rows = np.arange(len(first))
            h0, h1 = heights[rows, before], heights[rows, first]
            share = np.where((first > 0) & (h1 > h0),
                             np.clip((least - h0) / np.maximum(h1 - h0, 1e-12), 0.0, 1.0), 1.0)
            angle = np.where(cleared, ANGLES[before] + share * (ANGLES[first] - ANGLES[before]),
                             ANGLES[first])
            turn = quat.from_axis_angle(axis, angle)  # (N, 4)
            chosen = self.turned[side]
            view = world[..., chosen, :]
            view[need] = quat.mul(turn[:, None, :], view[need])
            world[..., chosen, :] = view
            angles[..., side][need] = angle
        return angles
