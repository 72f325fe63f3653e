"""The two rigs of a retargeting and what a calibration makes of them.

:class:`RetargetRig` is what is fixed once the source and target skeletons are known (bone
matching, the target's soles, hands and body surface, FK plans); :meth:`RetargetRig.calibrated`
turns a :class:`~footfall.retarget.saved_calibration.Calibration`'s poses into a
:class:`CalibratedRig` — per-bone rotation offsets, the calibration pose, both skeletons'
measures and the limbs calibrated for them — which the offline function
(:mod:`.offline`) and the live state (:mod:`.live_state`) solve with. Nothing here changes
while frames are retargeted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray, IntArray
from footfall.errors import SkeletonError
from footfall.humanoid.upright import upright_pose
from footfall.retarget.body_floor import BodyPoints
from footfall.retarget.calibration import (
    Correspondence,
    Measures,
    SolePoints,
    canonical_mapping,
    check_limb_lengths,
    correspond,
    joint_hand_reach,
    joint_sole_points,
    leg_extension,
    match_directions,
    sole_depth,
)
from footfall.retarget.fingers import FingerRig
from footfall.retarget.limbs import Limbs, Sizes
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.toes import Toes
from footfall.retarget.weights import WeightThresholds
from footfall.skeleton import FKPlan, Skeleton, forward_kinematics


def foot_points(skeleton: Skeleton, mapping: Mapping[str, str], rest: FloatArray
                ) -> SolePoints:
    """Each foot's points as a rig without a mesh shows them — the foot joint, the joints below
    it and their End Sites, a point below the toe joint riding on it — from the ``rest (J, 4)``
    pose (the points issue 35 judges a source foot's contact by)."""
    world, positions = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
    points, weights = [], []
    for bone, toe_bone in (("LeftFoot", "LeftToes"), ("RightFoot", "RightToes")):
        foot = skeleton.index(mapping[bone])
        toe = skeleton.index(mapping[toe_bone]) if toe_bone in mapping else -1
        found, ride = [], []
        for j in range(skeleton.joint_count):
            if foot not in skeleton.chain(j):
                continue
            found.append(positions[j])
            ride.append(float(toe >= 0 and j != toe and toe in skeleton.chain(j)))
            if j in skeleton.end_sites:
                found.append(positions[j] + quat.rotate(
                    world[j], np.asarray(skeleton.end_sites[j], dtype=np.float64)))
                ride.append(float(toe >= 0 and toe in skeleton.chain(j)))
        points.append(np.array(found))
        weights.append(np.array(ride))
    return SolePoints.gather(skeleton, mapping, rest, points, weights)


class RetargetRig:
    """A ``source`` and a ``target`` skeleton matched bone to bone (see ``Retargeter`` for
    the arguments). Raises :class:`MappingError` if a mapping names missing joints or a
    skeleton has no legs."""

    def __init__(
        self,
        source: Skeleton,
        target: Skeleton,
        mapping: Mapping[str, str | None] | str | None = None,
        target_mapping: Mapping[str, str | None] | str | None = None,
        *,
        target_rest: ArrayLike | None = None,
        target_feet: SolePoints | None = None,
        target_hands: ArrayLike | None = None,
        target_body: BodyPoints | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.source_map = canonical_mapping(source, mapping, "source")
        self.target_map = canonical_mapping(target, target_mapping, "target")
        self.correspondence: Correspondence = correspond(source, target, self.source_map,
                                                         self.target_map)
        self.target_rest = (quat.identity((target.joint_count,)) if target_rest is None
                            else quat.normalize(target_rest))
        if self.target_rest.shape != (target.joint_count, 4):
            raise SkeletonError(
                f"target_rest has shape {self.target_rest.shape}, expected "
                f"({target.joint_count}, 4)"
            )
        soles = (joint_sole_points(target, self.target_map, rest=self.target_rest)
                 if target_feet is None else target_feet)
        standing_rest = upright_pose(target, self.target_map, self.target_rest)
        self.target_sole_depth = sole_depth(target, self.target_map, standing_rest, soles)
        if target_feet is None and np.any(self.target_sole_depth > 0.0):
            # a rig whose rest pose stands on y = 0 has its soles there, under its joints
            soles = joint_sole_points(target, self.target_map, self.target_sole_depth,
                                      self.target_rest)
        #: The target feet's sole points and each hand's reach from its wrist (metres).
        self.soles = soles
        #: The points each foot's contact patch is judged by (``limb_kernel._hold_patch``):
        #: the source's joints and End Sites (as issue 35 judges its contact), the target's
        #: mesh soles, or without a mesh its joints and End Sites (as a viewer sees them).
        self.source_patch = foot_points(source, self.source_map,
                                        quat.identity((source.joint_count,)))
        self.target_patch = (self.soles if self.soles.from_mesh else
                             foot_points(target, self.target_map, self.target_rest))
        self.hand_reach = (joint_hand_reach(target, self.target_map, self.target_rest)
                           if target_hands is None
                           else np.asarray(target_hands, dtype=np.float64))
        self.source_fk = FKPlan(source.parents)
        self.target_fk = FKPlan(target.parents)
        handless = not all(f"{side}Hand" in self.target_map for side in ("Left", "Right"))
        self.body_points = (target_body if target_body is not None or not handless
                            else BodyPoints.of_joints(target, self.target_map, self.target_rest))
        self.body_fk = (None if self.body_points is None
                        else self.body_points.plan(target.parents))
        unmapped = np.setdiff1d(np.arange(target.joint_count),
                                self.correspondence.target_joints)
        self.unmapped_fk = FKPlan(target.parents, unmapped, ancestors=False)
        self._thresholds: tuple[tuple[Any, ...], WeightThresholds] | None = None
        self._last: tuple[Calibration, CalibratedRig] | None = None

    def rest_calibration(self) -> Calibration:
        """The calibration of the rest poses (each turned upright) with default settings."""
        return Calibration(
            upright_pose(self.source, self.source_map, quat.identity((self.source.joint_count,))),
            upright_pose(self.target, self.target_map, self.target_rest))

    def calibrated(self, calibration: Calibration) -> CalibratedRig:
        """The rig calibrated with ``calibration``'s poses (the last one asked for is kept:
        a live stream asks for the same every frame).

        Raises :class:`SkeletonError` if a pose has the wrong shape or a limb bone of a
        calibration pose has zero length."""
        last = self._last
        if last is not None and (last[0] is calibration or (
                last[0].source_pose is calibration.source_pose
                and last[0].target_pose is calibration.target_pose
                and last[0].match_directions == calibration.match_directions)):
            return last[1]
        rest = self.rest_calibration() if (calibration.source_pose is None
                                           or calibration.target_pose is None) else None
        source_pose = calibration.source_pose if rest is None else rest.source_pose
        target_pose = calibration.target_pose if rest is None else rest.target_pose
        assert source_pose is not None and target_pose is not None
        result = self._calibrate(source_pose, target_pose, calibration.match_directions)
        self._last = (calibration, result)
        return result

    def _calibrate(self, src: FloatArray, standing: FloatArray, turn: bool) -> CalibratedRig:
        """Offsets ``inv(source_world) * target_world`` per matched bone, sizes and limbs for
        calibration poses ``src (Js, 4)`` and ``standing (Jt, 4)``."""
        source, target = self.source, self.target
        if src.shape != (source.joint_count, 4) or standing.shape != (target.joint_count, 4):
            raise SkeletonError(
                f"calibration poses must be ({source.joint_count}, 4) and "
                f"({target.joint_count}, 4), got {src.shape} and {standing.shape}"
            )
        check_limb_lengths(source, self.source_map, "source", src)
        check_limb_lengths(target, self.target_map, "target", standing)
        tgt = (match_directions(source, target, self.source_map, self.target_map, src, standing)
               if turn else standing)
        source_world, source_pos = self.source_fk(src, source.offsets)
        target_world = self.target_fk(tgt, target.offsets)[0]
        c = self.correspondence
        standing_world, standing_positions = self.target_fk(standing, target.offsets)
        limbs = Limbs(source, target, self.source_map, self.target_map, c)
        limbs.soles = self.soles
        limbs.patch_points = (self.target_patch, self.source_patch)
        limbs.set_hand_reach(self.hand_reach)
        limbs.calibrate(source_pos, source_world, standing_world, standing_positions,
                        Toes.of(source, self.source_map, src))
        calibrated = CalibratedRig(
            rig=self,
            offsets=quat.inv_mul(source_world[c.source_joints], target_world[c.target_joints]),
            source_pose=src, standing_pose=standing, match_directions=turn,
            calibration_pose=tgt, calibration_world=target_world,
            source_measures=Measures.of(source, self.source_map, src),
            target_measures=Measures.of(  # at least as extended as the source stands
                target, self.target_map, standing, self.target_sole_depth,
                leg_extension(source, self.source_map, source_pos)),
            fingers=FingerRig.build(target, self.target_map, tgt),
            source_fingers=FingerRig.build(source, self.source_map, src),
            limbs=limbs)
        # The standing height as the solve stands the target in the source's calibration pose
        # (the solve imports this module: imported here).
        from footfall.retarget.standing_height import standing_rise

        rise = standing_rise(calibrated)
        if rise <= 0.0:
            return calibrated
        return replace(calibrated, target_measures=calibrated.target_measures.raised(rise))

    def weight_thresholds(self, values: Mapping[str, Any]) -> WeightThresholds:
        """The automatic weights' thresholds of the settings ``values`` (kept while they stay
        the same: the thresholds keep their kernel array)."""
        key = tuple(values[name] for name in WeightThresholds.SETTINGS.values())
        if self._thresholds is None or self._thresholds[0] != key:
            self._thresholds = (key, WeightThresholds.from_settings(values))
        return self._thresholds[1]


@dataclass(frozen=True, eq=False)
class CalibratedRig:
    """A :class:`RetargetRig` in one calibration: what the solve reads of it.

    Attributes:
        rig: the rig.
        offsets: ``(M, 4)`` ``inv(source_world) * target_world`` per matched bone.
        source_pose, standing_pose: ``(Js, 4)``, ``(Jt, 4)`` the calibration poses (the
            target's standing, before its limbs were turned).
        match_directions: whether they were.
        calibration_pose: ``(Jt, 4)`` the target's calibration pose (limbs turned).
        calibration_world: ``(Jt, 4)`` its world rotations.
        source_measures, target_measures: sizes in the calibration poses (target at scale 1).
        fingers, source_fingers: both rigs' fingers in their calibration poses.
        limbs: the four-limb IK calibrated for the poses.
    """

    rig: RetargetRig
    offsets: FloatArray
    source_pose: FloatArray
    standing_pose: FloatArray
    match_directions: bool
    calibration_pose: FloatArray
    calibration_world: FloatArray
    source_measures: Measures
    target_measures: Measures
    fingers: FingerRig
    source_fingers: FingerRig
    limbs: Limbs

    @cached_property
    def source_knees(self) -> IntArray:
        """``(2,)`` the source's left and right knee joints (the legs' middle joints; no leg:
        the hips joint, a knee never on the floor), what the hips weight's kneel layer reads
        (``weights.source_goal_kernel``)."""
        limbs, hips = self.rig.correspondence.limbs, self.rig.correspondence.hips[1]
        return np.array([limbs[name][1][1] if name in limbs else hips
                         for name in ("left_leg", "right_leg")], dtype=np.int64)

    @cached_property
    def hip_joints_rise(self) -> tuple[float, float]:
        """How high the midpoint of the hip joints (upper legs) stands over the hips joint in
        the calibration poses, the source's and the target's (at scale 1), metres: where
        :func:`~footfall.retarget.solve.hip_joints_shift` measures their rise and fall from."""
        rises = []
        for skeleton, pose, (hips, legs) in (
                (self.rig.source, self.source_pose,
                 (self.rig.correspondence.hips[1], self.limbs.source_hip_joints)),
                (self.rig.target, self.calibration_pose,
                 (self.rig.correspondence.hips[0], self.limbs.hip_joints))):
            _, positions = forward_kinematics(skeleton.parents, pose, skeleton.offsets)
            rises.append(float(positions[legs, 1].mean() - positions[hips, 1]))
        return rises[0], rises[1]

    def size_ratio(self, avatar_scale: float) -> float:
        """Target leg length (scaled) / source leg length (the hip joints' heights,
        ``Measures.leg_length``): scales the travel, the strides and the hips' motion (a
        stylised rig may hang its legs from a joint well above or below its hips joint)."""
        return (self.target_measures.leg_length * avatar_scale
                / max(self.source_measures.leg_length, 1e-9))

    def sizes(self, values: Mapping[str, Any], levels: FloatArray) -> Sizes:
        """The sizes and settings (``values``) the limbs solve with, for the source feet's
        stance ``levels`` ``(2,)`` or ``(..., 2)`` (the frames being solved), metres."""
        scale = float(values["avatar_scale"])
        return Sizes(self.size_ratio(scale), scale, self.source_measures,
                     self.target_measures, values["floor_height"],
                     values["foot_front_back_offset"], values["foot_in_out_offset"],
                     levels, self.calibration_world, values["ik_mode"] != "fk")
