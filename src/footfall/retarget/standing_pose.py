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
   in the chosen frame.

Every step reads world joint positions (turns between them are the same whatever the joint
orients), so the same animation in any convention calibrates to the same result.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.standing import below_foot, flat_frame, foot_points
from footfall.retarget.calibration import facing_forward, most_standing_frame
from footfall.skeleton import Clip, Skeleton

FEET = ("LeftFoot", "RightFoot")


def standing_pose(skeleton: Skeleton, mapping: Mapping[str, str],
                  clip: Clip) -> tuple[int, FloatArray]:
    """The frame of ``clip`` the calibration pose is built from and that pose ``(J, 4)`` (local
    rotations, facing +Z, each foot flat as it stands in the motion; module docstring)."""
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
    return index, facing_forward(skeleton, mapping, quat.normalize(pose))


def _heading_turn(start: FloatArray, end: FloatArray) -> FloatArray:
    """``(4,)`` the turn about +Y taking the mean horizontal direction of foot points
    ``start (P, 3)`` (from the ankle) to that of ``end (P, 3)``."""
    a, b = start.mean(axis=0), end.mean(axis=0)
    angle = np.arctan2(b[0], b[2]) - np.arctan2(a[0], a[2])
    if not (np.hypot(a[0], a[2]) > 1e-6 and np.hypot(b[0], b[2]) > 1e-6):
        angle = 0.0
    return quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.array(angle))
