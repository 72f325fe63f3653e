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

:func:`standing_rise` asks the solve itself. It solves the source's calibration pose (the frame
the capture stands in, or the rest pose; settings at their defaults) and measures, per leg, how
much higher the hips would have to stand for the target's leg to stand as extended as the
performer's (hip joint to ankle over thigh + shin); the standing height is raised by the most a
leg asks, never lowered (a target standing straighter is measured as it stands, as before). The
straighter leg decides: near straight a millimetre is degrees of knee, on a bent knee a fraction
of one. The other leg is never stretched by it: frame by frame the solve's reach rule lowers the
hips where a leg would stand straighter than the performer's (or than ``REACH``), as it did
before. Nothing is added to the solve: no cost per frame. pybvh_test1_zup_inches raises
CesiumMan's standing height 2.9 mm, RobotExpressive's 11.4 mm (knees 17° → 14° off the
performer's).

The calibration pose may stand its feet at two heights (a shorter leg, a foot's toes off the
floor, a rest pose's feet posed apart). The solve stands each foot on the floor from its own
stance level and the hips over their mean: a pose's two heights are then partly the solve's own
doing (the lower foot lifted to the floor, the hips dropped to the other leg's reach) and partly
the pose's. So the pose is solved twice, each foot from its own lowest point and both from their
mean, and the standing height is raised by what both ask for (the smaller rise). The same
skeleton asks for nothing on one floor (its rest pose stands exactly as the source;
bvhio_example's, feet 1.65 cm apart in height, asked for 1.65 cm on two); cmu_01_01_fairmotion's
straight left leg, 1.7 cm shorter than its right, asks vrm1_debug_robot for 0.3 mm from its own
level (13 mm on one floor: knees 3° → 10° off).

The target's ankles count at their standing height over the floor (lifted as the source's over
it, scaled) or, for a leg the performer stands nearly straight (at least
``limb_kernel.REACH`` extended: the solve lowers the hips to its extension) in a captured pose,
where the solve stands them if that is higher, by no more than the feet's turn in the target's
calibration pose lifts them (:func:`turn_lift`; the same skeleton's is none, whatever the
solve's floor rules do: unbounded, mocapbank_zxy_cm retargeted onto itself stood its hips
2.1 mm over the capture's). The calibration turns the target's feet as it pairs them with the
performer's, and the solve stands a planted foot so through the clip:
CesiumMan's calibration pose on pybvh_test1_zup_inches stands its ankles 6.5 and 11 mm higher
over their soles than its standing pose, the solve its planted ankles 3–6 mm over the standing
height; left out, the hips stood that much too low for the straight leg (knees 13.4° off the
performer's, mirrored 15.1°; counted, 7.3° and 9.1°). A bent leg takes those millimetres in its
knee at a fraction of a degree each; counted there too, they raised CesiumMan 4.8 mm on
cmu_131_01 (legs 0.94–0.95 extended; knees 12° → 10° off, but 9° → 11° played backward). In a
pose stood up by footfall (legs straightened, ``standing_pose``; both legs at
:data:`STRAIGHTENED`) the feet's turn is not the capture's and is left out (it lifted
vrm1_debug_robot's left ankle 3 cm on bvhio_example: a 2.8 cm rise, knees 4° → 13° off).
"""

from __future__ import annotations

import math

import numpy as np

from footfall.arrays import FloatArray
from footfall.retarget.calibration import leg_chains
from footfall.retarget.limb_kernel import REACH
from footfall.retarget.rig import CalibratedRig
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.solve import solve_frames
from footfall.retarget.weights import LimbWeights

LEGS = ("Left", "Right")
#: A calibration pose whose legs both stand at least this extended (hip joint to ankle over
#: thigh + shin) was straightened by footfall (``standing_pose.stood_up``), not captured.
STRAIGHTENED = 1.0 - 1e-6


def leg_needs(cal: CalibratedRig, one_floor: bool) -> FloatArray:
    """``(2,)`` how many metres higher (negative: lower) the target's hips would have to stand,
    at scale 1, for its left and right leg to stand as extended (hip joint to ankle over thigh
    + shin) as the source's in the source's calibration pose.

    The target is solved in that pose by :func:`~footfall.retarget.solve.solve_frames`
    (settings at their defaults: scale 1, floor 0; the legs on IK), each source foot stood on
    the floor from its own lowest point (as the solve stands each foot from its own stance
    level), or with ``one_floor`` both from the mean of their lowest points (the feet keep
    their heights relative to each other). The hip joints are read
    where the solve put them, the ankles where the legs reached them (horizontally) and at
    their standing height over the floor, lifted as the source's over that floor, scaled
    (``Measures.ankle_height``), or, for a leg at least ``limb_kernel.REACH`` extended, where
    the solve stood them (the feet turned as the calibration pairs them) if higher, by at most
    :func:`turn_lift` — unless the pose's legs were straightened by footfall (both at
    :data:`STRAIGHTENED`): then its feet's turn is not the capture's."""
    rig, limbs = cal.rig, cal.limbs
    values = dict(Calibration().values)
    src_rot = cal.source_pose[None]
    src_lpos = rig.source.offsets[None]
    srot, spos = rig.source_fk(src_rot, src_lpos)
    sole = np.asarray(cal.source_measures.sole, dtype=np.float64)
    levels = (np.full((1, 2), float(sole.mean())) if one_floor else sole[None]).copy()
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
    extensions = [float(np.linalg.norm(
        source[rig.source.index(rig.source_map[f"{name}Foot"])]
        - source[rig.source.index(rig.source_map[f"{name}UpperLeg"])]))
        / max(float(source_chains[side]), 1e-9) for side, name in enumerate(LEGS)]
    captured = min(extensions) < STRAIGHTENED
    turned = turn_lift(cal)
    needs = np.empty(2)
    for side, name in enumerate(LEGS):
        t_hip, t_ankle = (target[rig.target.index(rig.target_map[f"{name}{bone}"])]
                          for bone in ("UpperLeg", "Foot"))
        s_ankle = source[rig.source.index(rig.source_map[f"{name}Foot"])]
        reach = min(extensions[side], 1.0) * float(target_chains[side])
        across = float((t_hip[0] - t_ankle[0]) ** 2 + (t_hip[2] - t_ankle[2]) ** 2)
        lift = float(s_ankle[1]) - float(levels[0, side]) - float(source_ankles[side])
        ankle = float(target_ankles[side]) + sizes.size_ratio * lift
        if captured and extensions[side] >= REACH:  # where the solve stands the ankle
            ankle = max(ankle, min(float(t_ankle[1]), ankle + float(turned[side])))
        needs[side] = math.sqrt(max(reach * reach - across, 0.0)) - (float(t_hip[1]) - ankle)
    return needs


def turn_lift(cal: CalibratedRig) -> FloatArray:
    """``(2,)`` metres (≥ 0, at scale 1) each target ankle stands higher over its lowest sole
    point with the foot turned as the calibration pairs it with the source's calibration pose
    (``CalibratedRig.calibration_pose``) than in its standing pose (``Measures.ankle_height``).
    """
    rig = cal.rig
    target, mapping = rig.target, rig.target_map
    _, positions = rig.target_fk(cal.calibration_pose, target.offsets)
    lowest = rig.soles.lowest(target, mapping, cal.calibration_pose)
    ankles = np.array([positions[target.index(mapping[f"{name}Foot"]), 1] for name in LEGS])
    return np.maximum(ankles - lowest - cal.target_measures.ankle_height, 0.0)


def standing_rise(cal: CalibratedRig) -> float:
    """Metres (at scale 1, ≥ 0) the target's standing height is raised by: the most a leg asks
    (:func:`leg_needs`), the smaller of the two ways of standing the pose's feet (each from its
    own lowest point, both from their mean); 0 when the rig has no legs to solve."""
    if cal.limbs.count < 2 or not all(f"{name}{bone}" in m for name in LEGS
                                      for bone in ("UpperLeg", "LowerLeg", "Foot")
                                      for m in (cal.rig.source_map, cal.rig.target_map)):
        return 0.0
    rise = min(float(leg_needs(cal, False).max()), float(leg_needs(cal, True).max()))
    return max(rise, 0.0)
