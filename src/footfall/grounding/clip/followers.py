"""Joints outside the body that carry a body joint's pose (Unreal's ``ik_foot_l`` /
``ik_foot_r``, which an engine's IK reads): found on the source, made to follow the grounded
body again."""

from __future__ import annotations

import numpy as np

from footfall import quat
from footfall.footing.foot_model import Leg
from footfall.humanoid.limbs import body_joints, hips_joint
from footfall.humanoid.topology import Hierarchy
from footfall.skeleton import Clip, forward_kinematics

#: A joint outside the body that stays this close (metres) to a body joint in every frame
#: carries that joint's pose, and within this angle (radians) its turn too.
FOLLOW_DISTANCE = 1e-3
FOLLOW_ANGLE = 0.01

#: ``(follower, leader, turns too)`` joint indices.
Follower = tuple[int, int, bool]


def followers(clip: Clip, legs: tuple[Leg, Leg]) -> list[Follower]:
    """``(follower, leader, turns too)`` for each joint outside the body that carries a body
    joint's world position in every frame, and whether it carries its world rotation as well.
    Parents first."""
    body = body_joints(clip.skeleton, legs)
    hips = hips_joint(clip.skeleton, legs)
    hierarchy = Hierarchy(tuple(clip.skeleton.names), clip.skeleton.parents)
    inside = set(body.tolist())
    # Not the joints the body hangs from: moving one would move its leader too.
    outside = [j for j in range(clip.skeleton.joint_count)
               if j not in inside and not hierarchy.is_ancestor(j, hips)]
    if not outside or clip.frame_count == 0:
        return []
    grot, gpos = clip.forward_kinematics()
    found = []
    for joint in outside:
        distance = np.linalg.norm(gpos[:, body] - gpos[:, joint, None], axis=-1).max(axis=0)
        nearest = int(np.argmin(distance))
        if distance[nearest] < FOLLOW_DISTANCE:
            leader = int(body[nearest])
            alike = np.abs(np.sum(grot[:, joint] * grot[:, leader], axis=-1))
            found.append((int(joint), leader, bool(alike.min() > np.cos(FOLLOW_ANGLE / 2))))
    return found  # joint order: a BVH or glTF skeleton lists parents first


def follow(clip: Clip, found: list[Follower]) -> Clip:
    """``clip`` with each follower's local translation (and rotation, where it turns too) set
    so that it carries its leader's world pose, frame by frame."""
    if not found:
        return clip
    rotations, positions = clip.rotations.copy(), clip.positions.copy()
    parents = clip.skeleton.parents
    for joint, leader, turns in found:
        grot, gpos = forward_kinematics(parents, rotations, positions)
        parent = int(parents[joint])
        turn = grot[:, parent] if parent >= 0 else quat.identity((clip.frame_count,))
        at = gpos[:, parent] if parent >= 0 else np.zeros((clip.frame_count, 3))
        positions[:, joint] = quat.inv_rotate(turn, gpos[:, leader] - at)
        if turns:
            rotations[:, joint] = quat.normalize(quat.inv_mul(turn, grot[:, leader]))
    return Clip(clip.skeleton, rotations, positions, clip.fps)
