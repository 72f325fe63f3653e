"""The target's standing height as the solve stands it: measured once per calibration.

``Measures.of`` measures the target's standing height (its hips joint over its soles) in its
rest pose, raised as far as its legs lack the source calibration pose's mean extension. The
solve does not stand the target as that rest pose does: it rolls the hips as the performer's
(``Limbs.level_hips``), puts the hip joints where the performer's are
(``solve.hip_joints_shift``) and the feet where the performer's are, scaled, and lowers the
hips where a leg could not reach its foot (``limb_kernel.REACH``). Where the performer stands
on one nearly straight leg, the millimetres lost between the two are degrees of knee (a
centimetre is ~17° there): pybvh_test1_zup_inches stands on its left leg with the knee bent
4–6° (hip joint to ankle 0.9987 of thigh + shin), CesiumMan stood it bent 20–28° (0.981) and
RobotExpressive 0.985, knees 17° off the performer's (median over frames,
``tools/feet_table.py``).

:func:`standing_rise` asks the solve itself. It solves the source's calibration pose once (the
frame the capture stands in, or the rest pose; settings at their defaults) and measures, per
leg, how much higher the hips would have to stand for the target's leg to stand as extended
as the performer's; the standing height is raised by the most a leg asks, never lowered (a
target standing straighter is measured as it stands, as before). The straighter leg decides:
near straight a millimetre is degrees of knee, on a bent knee a fraction of one. The other
leg is never stretched by it: frame by frame the solve's reach rule lowers the hips where a leg
would stand straighter than the performer's (or than ``REACH``), as it did before. Nothing is
added to the solve: no cost per frame.

Both source feet stand on one floor (the mean of their lowest points), so the feet keep their
heights relative to each other: the same skeleton stands exactly as the source and asks for
nothing (on two stance levels the lower foot is lifted to the floor and the hips drop to the
other leg's reach: the rest pose of bvhio_example, feet 1.65 cm apart in height, asked for a
1.65 cm rise on itself). The target's ankles count at their standing height over the floor
(lifted as the source's over that floor, scaled), not where the solve's sole rule put them:
how far a planted foot's turn lifts its ankle is the foot's own rule, and in a pose stood up
by footfall (legs straightened, ``standing_pose``) that turn is not the capture's (it lifted
vrm1_debug_robot's left ankle 3 cm on bvhio_example: a 2.8 cm rise, its knees 4° → 13° off).
"""

from __future__ import annotations

import math

import numpy as np

from footfall.arrays import FloatArray
from footfall.retarget.calibration import leg_chains
from footfall.retarget.rig import CalibratedRig
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.solve import solve_frames
from footfall.retarget.weights import LimbWeights

#: Metres a leg may ask for and leave the standing height as measured (the same skeleton on
#: itself asks for ~1e-9).
LEAST_RISE = 1e-4
LEGS = ("Left", "Right")


def leg_needs(cal: CalibratedRig) -> FloatArray:
    """``(2,)`` how many metres higher (negative: lower) the target's hips would have to stand,
    at scale 1, for its left and right leg to stand as extended (hip joint to ankle over thigh
    + shin) as the source's in the source's calibration pose.

    The target is solved in that pose by :func:`~footfall.retarget.solve.solve_frames`
    (settings at their defaults: scale 1, floor 0; the legs on IK) with one floor under both
    source feet, the mean of their lowest points: the feet keep their heights relative to each
    other and the same skeleton stands exactly as the source (two stance levels would lift the
    lower foot to the floor, and the hips would drop to the other). The hip joints are read
    where the solve put them, the ankles where the legs reached them (horizontally) and at
    their standing height over the floor, lifted as the source's over that floor, scaled
    (``Measures.ankle_height``: how far a planted foot's turn lifts its ankle is the foot's
    own rule, not the legs')."""
    rig, limbs = cal.rig, cal.limbs
    values = dict(Calibration().values)
    src_rot = cal.source_pose[None]
    src_lpos = rig.source.offsets[None]
    srot, spos = rig.source_fk(src_rot, src_lpos)
    floor = float(np.mean(cal.source_measures.sole))
    levels = np.full((1, 2), floor)
    sizes = cal.sizes(values, levels)
    shift = limbs.foot_shift(limbs.body_yaw(srot), sizes)
    on_ik = LimbWeights(np.zeros((1, limbs.count - 2)), np.ones((1, 2)), np.ones(1))
    rotations, positions = solve_frames(cal, values, src_rot, src_lpos, on_ik, shift, levels,
                                        (srot, spos), sizes=sizes)
    target = rig.target_fk(rotations, positions)[1][0]
    source = spos[0]
    _, standing = rig.target_fk(cal.standing_pose, rig.target.offsets)
    source_chains = leg_chains(rig.source, rig.source_map, source)
    target_chains = leg_chains(rig.target, rig.target_map, standing)
    source_ankles = cal.source_measures.ankle_height
    target_ankles = cal.target_measures.ankle_height
    needs = np.empty(2)
    for side, name in enumerate(LEGS):
        s_hip, s_ankle = (source[rig.source.index(rig.source_map[f"{name}{bone}"])]
                          for bone in ("UpperLeg", "Foot"))
        t_hip, t_ankle = (target[rig.target.index(rig.target_map[f"{name}{bone}"])]
                          for bone in ("UpperLeg", "Foot"))
        extension = float(np.linalg.norm(s_ankle - s_hip)) / max(source_chains[side], 1e-9)
        reach = min(extension, 1.0) * float(target_chains[side])
        across = float((t_hip[0] - t_ankle[0]) ** 2 + (t_hip[2] - t_ankle[2]) ** 2)
        lift = float(s_ankle[1]) - floor - float(source_ankles[side])
        ankle = float(target_ankles[side]) + sizes.size_ratio * lift
        needs[side] = math.sqrt(max(reach * reach - across, 0.0)) - (float(t_hip[1]) - ankle)
    return needs


def standing_rise(cal: CalibratedRig) -> float:
    """Metres (at scale 1, ≥ 0) the target's standing height is raised by: the most a leg asks
    (:func:`leg_needs`), 0 below :data:`LEAST_RISE`, or when the rig has no legs to solve."""
    if cal.limbs.count < 2 or not all(f"{name}{bone}" in m for name in LEGS
                                      for bone in ("UpperLeg", "LowerLeg", "Foot")
                                      for m in (cal.rig.source_map, cal.rig.target_map)):
        return 0.0
    rise = float(leg_needs(cal).max())
    return rise if rise > LEAST_RISE else 0.0
