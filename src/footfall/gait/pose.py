"""Turn the walker's body and foot state into joint rotations for any rig (batched over K).

Body parts come as canonical rotations (forward +Z, left +X, up +Y), turned into world
rotations ``yaw(heading) · q · facing⁻¹`` (rest global rotations are the identity). The legs
are solved by two-bone IK toward the ankle targets, the feet take their world rotation, every
other joint keeps its rest local rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.gait.rig import WalkRig, pitch, yaw
from footfall.ik.two_bone import solve_two_bone
from footfall.skeleton import FKPlan


@dataclass(frozen=True)
class BodyPose:
    """What the walker decided for one tick; K characters.

    Attributes:
        root: ``(K, 3)`` world position of the root joint.
        heading: ``(K,)`` body yaw, radians (0 faces +Z, π/2 faces +X).
        hips, chest: ``(K, 4)`` canonical hips (lean, twist), shoulders (lean, counter-twist).
        head: ``(K, 4)`` canonical head rotation (gaze relative to the heading).
        head_drop: ``(K,)`` world-y change of the head from the bob compensation.
        shoulder, elbow: ``(K, 2)`` arm swing (positive forward) and elbow bend per side, radians.
        ankle: ``(K, 2, 3)`` world ankle targets.
        foot, toes: ``(K, 2, 4)`` world foot, toe rotations in canonical form (tilt · yaw · roll).
    """

    root: FloatArray
    heading: FloatArray
    hips: FloatArray
    chest: FloatArray
    head: FloatArray
    head_drop: FloatArray
    shoulder: FloatArray
    elbow: FloatArray
    ankle: FloatArray
    foot: FloatArray
    toes: FloatArray


@dataclass(frozen=True)
class PoseResult:
    """Composed pose of K characters.

    Attributes:
        rotations, positions: ``(K, J, 4)``, ``(K, J, 3)`` local (the root's: world position).
        global_rotations, global_positions: ``(K, J, 4)``, ``(K, J, 3)`` world.
        residual: ``(K, 2)`` how far each ankle target stayed out of the leg's reach.
    """

    rotations: FloatArray
    positions: FloatArray
    global_rotations: FloatArray
    global_positions: FloatArray
    residual: FloatArray


def compose(rig: WalkRig, body: BodyPose) -> PoseResult:
    """Joint rotations and translations of ``rig`` posed as ``body`` says (batched NumPy calls,
    so K characters cost little more than one)."""
    skeleton = rig.skeleton
    parents = skeleton.parents
    count = body.root.shape[0]
    joints = skeleton.joint_count
    unface = quat.inv(rig.facing)
    turn = yaw(body.heading)

    # World rotations of the driven joints, all in one batch: (K, D, 4).
    canonical = [body.hips]
    driven = [rig.root]
    if rig.spine is not None:
        canonical.append(body.chest)
        driven.append(rig.spine)
    if rig.head is not None:
        canonical.append(body.head)
        driven.append(rig.head)
    if rig.arms is not None and rig.arm_align is not None:
        swing = np.stack([body.shoulder, body.shoulder + body.elbow], axis=-1)  # (K, side, seg)
        hanging = quat.mul(rig.arm_out[:, None], quat.mul(pitch(-swing), rig.arm_align))
        arms = quat.mul(body.chest[:, None, None], hanging)
        for side, arm in enumerate(rig.arms):
            canonical += [arms[:, side, 0], arms[:, side, 1]]
            driven += [arm.upper, arm.lower]
    world = quat.mul(turn[:, None], quat.mul(np.stack(canonical, axis=1), unface))
    feet = [leg.foot for leg in rig.legs]
    world = np.concatenate([world, quat.mul(body.foot, unface)], axis=1)
    driven += feet
    toes = [(side, leg.toes) for side, leg in enumerate(rig.legs) if leg.toes is not None]
    if toes:
        world = np.concatenate(
            [world, quat.mul(body.toes[:, [side for side, _ in toes]], unface)], axis=1
        )
        driven += [joint for _, joint in toes]
    slot = {joint: i for i, joint in enumerate(driven)}

    grot = np.empty((count, joints, 4))
    for j in range(joints):
        if j in slot:
            grot[:, j] = world[:, slot[j]]
        elif parents[j] < 0:
            grot[:, j] = quat.identity((count,))
        else:
            grot[:, j] = grot[:, parents[j]]

    translations = np.broadcast_to(skeleton.offsets, (count, joints, 3)).copy()
    translations[:, rig.root] = body.root
    if rig.head is not None and parents[rig.head] >= 0:
        drop = np.zeros((count, 3))
        drop[:, 1] = body.head_drop
        translations[:, rig.head] += quat.inv_rotate(grot[:, parents[rig.head]], drop)
    fk = FKPlan(parents)
    gpos = fk.positions(grot, translations)

    # Legs: solve both at once from the rest-straight legs hanging from the posed hips.
    upper = [leg.upper for leg in rig.legs]
    lower = [leg.lower for leg in rig.legs]
    before = grot[:, upper]
    forward = quat.rotate(turn, np.array([0.0, 0.0, 1.0]))[:, None]
    pole = 0.5 * (gpos[:, upper] + body.ankle) + forward * rig.leg_length
    result = solve_two_bone(gpos[:, upper], gpos[:, lower], gpos[:, feet], body.ankle, pole)
    thigh = quat.mul(result.upper_rotation, before)
    shin = quat.mul(result.lower_rotation, before)
    for side, (upper_part, lower_part) in enumerate(rig.leg_segments):
        grot[:, list(upper_part)] = thigh[:, side, None]
        grot[:, list(lower_part)] = shin[:, side, None]
    FKPlan(parents, rig.below_hips, ancestors=False).positions(grot, translations, out=gpos)

    return PoseResult(fk.local_rotations(grot), translations, grot, gpos, result.residual)
