"""The pose a clip is calibrated from, chosen by what its motion is in the world.

A file's rest rotations say nothing reliable: an exporter that bakes joint orients into the
channels (Maya-style) leaves a rest pose whose legs point anywhere, and the same animation
written with other orients has another rest pose but the same joint positions in every frame.
So the calibration pose is built from the motion alone:

1. the clip's most standing frame (legs and spine nearest the vertical, feet at their lowest:
   :func:`~footfall.retarget.calibration.most_standing_frame`), turned to face +Z;
2. each foot set flat as it stands in the motion: a walk's most standing frame often catches a
   foot rolling onto its toes (cmu_131_01's frame 80: the right ankle 52 mm above its toes
   where it stands 27 mm above them flat), and the standing heights measured in it would float
   that foot in every stance. The foot (and the joints below it) takes the turn it has in the
   frame of its stances where its heel is down and it is pitched as it mostly is then
   (``footfall.footing.standing.flat_frame``), turned about the vertical to the heading it has
   in the chosen frame;
3. a frame that does not stand (:func:`~footfall.retarget.calibration.posture_problem`: a leg
   bone more than 35° from straight down, or the spine that far from upright) is stood up
   (:func:`stood_up`). The calibration pairs the source's pose with the avatar standing: a
   two-frame clip caught running (bvhio_example: knees bent 52–54°, the trunk leaning 19°, one
   foot 15 cm up) calibrated as it is had that bend and lean taken for the avatar's standing
   pose — the avatar stood straight and upright where the performer crouched and leaned (knees
   43–44° off, lean 18–19° off on every avatar). A frame that stands (every shared walk's) is
   calibrated as it stands.

Every step reads world joint positions (turns between them are the same whatever the joint
orients), so the same animation in any convention calibrates to the same result.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.standing import below_foot, flat_frame, foot_points
from footfall.retarget.calibration import (
    facing_forward,
    most_standing_frame,
    posture_problem,
    turn_bone,
)
from footfall.skeleton import Clip, Skeleton, forward_kinematics

FEET = ("LeftFoot", "RightFoot")
#: A trunk bone aims at the first joint above it at least this share of the trunk (hips →
#: head) away: a joint a few millimetres from the next has no direction worth standing up.
TRUNK_STEP = 0.05
UP = np.array([0.0, 1.0, 0.0])


def standing_pose(skeleton: Skeleton, mapping: Mapping[str, str],
                  clip: Clip) -> tuple[int, FloatArray, bool]:
    """The frame of ``clip`` the calibration pose is built from, that pose ``(J, 4)`` (local
    rotations, facing +Z, each foot flat as it stands in the motion, stood up when the frame
    does not stand; module docstring) and whether it was stood up."""
    grot, gpos = clip.forward_kinematics()
    index = most_standing_frame(skeleton, mapping, gpos)
    pose = np.array(clip.rotations[index], dtype=np.float64, copy=True)
    for bone in FEET:
        if bone not in mapping:
            continue
        foot = skeleton.index(mapping[bone])
        below = below_foot(skeleton, foot)
        points = foot_points(skeleton, grot, gpos, foot)  # (F, P, 3)
        flat = flat_frame(points, gpos[:, foot], clip.fps)
        if flat is None or flat == index:
            continue
        turn = _heading_turn(points[flat] - gpos[flat, foot], points[index] - gpos[index, foot])
        parent = int(skeleton.parents[foot])
        world = quat.mul(turn, grot[flat, foot])
        pose[foot] = world if parent < 0 else quat.inv_mul(grot[index, parent], world)
        pose[below] = clip.rotations[flat, below]
    pose = facing_forward(skeleton, mapping, quat.normalize(pose))
    if posture_problem(skeleton, mapping, pose) is None:
        return index, pose, False
    return index, facing_forward(skeleton, mapping, stood_up(skeleton, mapping, pose)), True


def stood_up(skeleton: Skeleton, mapping: Mapping[str, str], pose: FloatArray) -> FloatArray:
    """``pose (J, 4)`` (local rotations) stood up: every bone of the trunk from the hips to the
    head (neck without a head) turned to point straight up, each thigh and shin straight down,
    all by the shortest arc from the top down; the feet keep their world rotations (each flat
    as it stands), everything else (arms, head, toes) rides along. Joint positions only: the
    same pose in other joint orients stands up to the same joint positions."""
    local = np.array(pose, dtype=np.float64, copy=True)
    before = forward_kinematics(skeleton.parents, local, skeleton.offsets)[0]
    hips = skeleton.index(mapping["Hips"])
    top = next((b for b in ("Head", "Neck") if b in mapping), None)
    chain = skeleton.chain(skeleton.index(mapping[top])) if top is not None else []
    trunk = chain[chain.index(hips):] if hips in chain else []
    bones: list[tuple[int, list[int], FloatArray]] = [
        (joint, trunk[k + 1:], UP) for k, joint in enumerate(trunk[:-1])]
    for side in ("Left", "Right"):
        upper, lower, foot = (skeleton.index(mapping[f"{side}{b}"])
                              for b in ("UpperLeg", "LowerLeg", "Foot"))
        bones += [(upper, [lower], -UP), (lower, [foot], -UP)]
    world, positions = forward_kinematics(skeleton.parents, local, skeleton.offsets)
    step = TRUNK_STEP * float(np.linalg.norm(positions[trunk[-1]] - positions[hips])
                              if trunk else 0.0)
    for joint, ends, direction in bones:
        world, positions = forward_kinematics(skeleton.parents, local, skeleton.offsets)
        reach = positions[ends] - positions[joint]
        far = np.linalg.norm(reach, axis=-1) > max(step, 1e-6)
        if far.any():
            turn_bone(skeleton, local, world, joint, reach[int(np.argmax(far))], direction)
    world = forward_kinematics(skeleton.parents, local, skeleton.offsets)[0]
    for bone in FEET:
        foot = skeleton.index(mapping[bone])
        parent = int(skeleton.parents[foot])
        local[foot] = before[foot] if parent < 0 else quat.inv_mul(world[parent], before[foot])
    return quat.normalize(local)


def _heading_turn(start: FloatArray, end: FloatArray) -> FloatArray:
    """``(4,)`` the turn about +Y taking the mean horizontal direction of foot points
    ``start (P, 3)`` (from the ankle) to that of ``end (P, 3)``."""
    a, b = start.mean(axis=0), end.mean(axis=0)
    angle = np.arctan2(b[0], b[2]) - np.arctan2(a[0], a[2])
    if not (np.hypot(a[0], a[2]) > 1e-6 and np.hypot(b[0], b[2]) > 1e-6):
        angle = 0.0
    return quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(angle))
