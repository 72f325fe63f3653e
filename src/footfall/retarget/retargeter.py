"""The retargeter: motion of one skeleton onto another (seed 001's CustomRetargetingScript).

Per frame, batched over frames (``apply``) or for one live frame (``step``), with one code path:

1. Source FK (by depth level).
2. Rotations: every matched target bone gets ``source_world * offset`` (offsets calibrated in a
   T- or I-pose); spine and neck chains follow grouped source bones; other joints keep their
   calibration-pose local rotation.
3. Hips: the source hips position, horizontally scaled by the size ratio (target / source hips
   height), vertically raised by the hips-height difference times the hips (sitting) weight,
   plus the floor height. Seed 001 adds the *leg length* difference; the leg length here is
   measured from the hips joint to the floor in the calibration pose, so feet reach the floor
   whatever the pelvis and foot proportions.
4. Four-limb two-bone IK (``footfall.ik``): feet go to the source ankle (scaled horizontally,
   ankle-height corrected vertically, foot offsets, floor height) with the knee copied from the
   source (``knee_from_source``); hands go to the source hands relative to the hips, scaled, and
   bend toward the copied elbow. Weights come from the automatic limb layers (``weights.py``).
   A limb whose tip is already on its target is left alone (do no harm).
5. Head rotation offset, finger curls and spread (when enabled).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import SettingsError, SkeletonError
from footfall.filters import OneEuroFilter
from footfall.ik import knee_from_source, solve_two_bone
from footfall.retarget.calibration import (
    Correspondence,
    Measures,
    canonical_mapping,
    check_limb_lengths,
    correspond,
    match_directions,
)
from footfall.retarget.fingers import FINGERS, HANDS, FingerRig, preset
from footfall.retarget.head import auto_avatar_scale, head_forward_offset_deg, head_offset_rotation
from footfall.retarget.kinematics import Levels, fk, local_rotations, positions_from_world
from footfall.retarget.props import PropAttachments
from footfall.retarget.settings import (
    RetargetSettings,
    load_settings,
    save_settings,
)
from footfall.retarget.weights import (
    LimbWeights,
    WeightSmoother,
    WeightThresholds,
    goal_weights,
    smooth_weights,
)
from footfall.skeleton import Clip, Skeleton

FloatArray = NDArray[np.float64]
_HEAD_OFFSET_KEYS = ("head_rotation_offset_x_deg", "head_rotation_offset_y_deg",
                     "head_rotation_offset_z_deg")
_DO_NO_HARM = 1e-7  # metres: a tip this close to its target is not touched by IK


class Retargeter:
    """Retarget motion from a ``source`` skeleton onto a ``target`` skeleton.

    Args:
        source, target: the two skeletons (metres, Y up, facing +Z in their calibration poses).
        mapping: source ``{canonical bone: joint}`` override (dict or JSON path); guessed by
            ``footfall.humanoid`` otherwise.
        target_mapping: the same for the target.
        settings: initial settings (defaults otherwise).
        target_rest: ``(J, 4)`` local rotations of the target's rest pose (glTF avatars have
            non-identity rest rotations); identity by default.

    Raises :class:`MappingError` if a mapping names missing joints or a skeleton has no legs,
    and :class:`SkeletonError` if a limb bone of a calibration pose has zero length.
    """

    def __init__(
        self,
        source: Skeleton,
        target: Skeleton,
        mapping: Mapping[str, str | None] | str | None = None,
        target_mapping: Mapping[str, str | None] | str | None = None,
        *,
        settings: RetargetSettings | None = None,
        target_rest: ArrayLike | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.source_map = canonical_mapping(source, mapping, "source")
        self.target_map = canonical_mapping(target, target_mapping, "target")
        self.settings = settings if settings is not None else RetargetSettings()
        self.correspondence: Correspondence = correspond(source, target, self.source_map,
                                                         self.target_map)
        self.target_rest = (quat.identity((target.joint_count,)) if target_rest is None
                            else quat.normalize(np.asarray(target_rest, dtype=np.float64)))
        if self.target_rest.shape != (target.joint_count, 4):
            raise SkeletonError(
                f"target_rest has shape {self.target_rest.shape}, expected "
                f"({target.joint_count}, 4)"
            )
        self._source_levels = Levels.of(source.parents)
        self._target_levels = Levels.of(target.parents)
        self._limb_names = list(self.correspondence.limbs)
        chains = [self.correspondence.limbs[n] for n in self._limb_names]
        self._t_chain = np.array([c[0] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._s_chain = np.array([c[1] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._is_leg = np.array(["leg" in n for n in self._limb_names])
        self._side = np.array([0 if n.startswith("left") else 1 for n in self._limb_names])
        self._paths = self._limb_paths()
        toes = [(target.index(self.target_map[b]), source.index(self.source_map[b]))
                for b in ("LeftToes", "RightToes") if b in self.target_map and b in self.source_map]
        self._toes = np.array(toes, dtype=np.int64).reshape(-1, 2) if len(toes) == 2 else None
        self._smoother = WeightSmoother()
        self._filter: OneEuroFilter | None = None
        self.props: PropAttachments
        self.fingers: FingerRig
        self.calibrate()

    # ------------------------------------------------------------------ calibration

    def calibrate(
        self,
        source_pose: ArrayLike | None = None,
        target_pose: ArrayLike | None = None,
        *,
        match_directions_first: bool = True,
    ) -> None:
        """Cache ``offset = inv(source_world) * target_world`` per matched bone.

        Args:
            source_pose: ``(Js, 4)`` source local rotations in a T- or I-pose (default: rest).
            target_pose: ``(Jt, 4)`` target local rotations (default: ``target_rest``).
            match_directions_first: turn the target's arms and legs to the source's directions
                first, so the two poses need not be the same (T against I).
        """
        src = (quat.identity((self.source.joint_count,)) if source_pose is None
               else quat.normalize(np.asarray(source_pose, dtype=np.float64)))
        tgt = (self.target_rest.copy() if target_pose is None
               else quat.normalize(np.asarray(target_pose, dtype=np.float64)))
        if src.shape != (self.source.joint_count, 4) or tgt.shape != (self.target.joint_count, 4):
            raise SkeletonError(
                f"calibration poses must be ({self.source.joint_count}, 4) and "
                f"({self.target.joint_count}, 4), got {src.shape} and {tgt.shape}"
            )
        check_limb_lengths(self.source, self.source_map, "source", src)
        check_limb_lengths(self.target, self.target_map, "target", tgt)
        if match_directions_first:
            tgt = match_directions(self.source, self.target, self.source_map, self.target_map,
                                   src, tgt)
        source_world = fk(self._source_levels, src, self.source.offsets)[0]
        target_world = fk(self._target_levels, tgt, self.target.offsets)[0]
        c = self.correspondence
        self.offsets = quat.inv_mul(source_world[c.source_joints], target_world[c.target_joints])
        self.source_pose = src
        self.calibration_pose = tgt
        self._calibration_world = target_world
        self.source_measures = Measures.of(self.source, self.source_map, src)
        self.target_measures = Measures.of(self.target, self.target_map, tgt)
        mapped = np.zeros(self.target.joint_count, dtype=bool)
        mapped[c.target_joints] = True
        self._unmapped = Levels.of(self.target.parents, np.nonzero(~mapped)[0])
        self.props = PropAttachments.build(self.target, self.target_map, tgt)
        self.fingers = FingerRig.build(self.target, self.target_map, tgt)
        self.settings.calibration = {
            "source_pose": src.tolist(),
            "target_pose": tgt.tolist(),
        }
        self._smoother.reset()

    def reset_calibration(self) -> None:
        """Forget the calibration and recalibrate from the rest poses."""
        self.calibrate()

    def calibrate_head_forward(self, source_rotations: ArrayLike,
                               source_positions: ArrayLike) -> FloatArray:
        """Set the head rotation offset so the head looks straight ahead of the body in this
        source frame (``(Js, 4)`` local rotations, ``(Js, 3)`` translations); returns it (°)."""
        if "Head" not in self.target_map:
            raise SettingsError("the target has no Head bone to calibrate")
        for key in _HEAD_OFFSET_KEYS:
            self.settings[key] = 0.0
        rotations, positions = self._solve(np.asarray(source_rotations, dtype=np.float64)[None],
                                           np.asarray(source_positions, dtype=np.float64)[None],
                                           self._fixed_weights(1))
        world = fk(self._target_levels, rotations, positions)[0][0]
        head = self.target.index(self.target_map["Head"])
        hips = self.correspondence.hips[0]
        offset = head_forward_offset_deg(world[head], world[hips],
                                         self._calibration_world[head],
                                         self._calibration_world[hips])
        offset = (offset + 180.0) % 360.0 - 180.0
        self.settings.update(dict(zip(_HEAD_OFFSET_KEYS, (float(v) for v in offset),
                                      strict=True)))
        return offset

    def auto_calibrate(self, source_rotations: ArrayLike | None = None,
                       source_positions: ArrayLike | None = None) -> float:
        """Seed 001's automatic calibration: avatar scale from the neck height ratio (clamped
        0.1–3), then head forward (when a source frame is given). Returns the scale."""
        self.settings["avatar_scale"] = 1.0
        source_neck = self.source_measures.neck_height
        if source_rotations is not None and source_positions is not None:
            _, spos = fk(self._source_levels, source_rotations, source_positions)
            neck_bone = self.source_map.get("Neck", self.source_map.get("Head", None))
            if neck_bone is not None:
                source_neck = float(spos[self.source.index(neck_bone), 1])
        scale = auto_avatar_scale(source_neck, self.target_measures.neck_height)
        self.settings["avatar_scale"] = scale
        if source_rotations is not None and source_positions is not None:
            if "Head" in self.target_map:
                self.calibrate_head_forward(source_rotations, source_positions)
        return scale

    # ------------------------------------------------------------------ settings

    def set_hand_pose(self, name: str) -> None:
        """Apply a finger preset (rock, paper, scissors, v, index, reset) to both hands."""
        curl, spread = preset(name)
        changes: dict[str, Any] = {}
        for h, hand in enumerate(HANDS):
            for f, finger in enumerate(FINGERS):
                changes[f"{hand}_{finger}_curl"] = float(curl[h, f])
                changes[f"{hand}_{finger}_spread"] = float(spread[h, f])
        changes["fingers_enabled"] = name not in ("reset", "초기화")
        self.settings.update(changes)

    def save(self, avatar: str, folder: str | Path | None = None) -> Path:
        """Save settings and calibration for ``avatar`` (JSON, atomic); returns the path."""
        return save_settings(self.settings, avatar, folder)

    def load(self, avatar: str, folder: str | Path | None = None) -> None:
        """Load ``avatar``'s settings; a stored calibration is re-applied when it fits."""
        settings = load_settings(avatar, folder)
        calibration = settings.calibration
        self.settings = settings
        try:
            src = np.asarray(calibration.get("source_pose"), dtype=np.float64)
            tgt = np.asarray(calibration.get("target_pose"), dtype=np.float64)
            fits = (src.shape == (self.source.joint_count, 4)
                    and tgt.shape == (self.target.joint_count, 4))
        except (TypeError, ValueError):
            fits = False
        if fits:
            self.calibrate(src, tgt, match_directions_first=False)
        else:
            self.calibrate()

    # ------------------------------------------------------------------ derived sizes

    @property
    def avatar_scale(self) -> float:
        """Uniform size of the target (setting ``avatar_scale``)."""
        return float(self.settings["avatar_scale"])

    @property
    def size_ratio(self) -> float:
        """Target hips height (scaled) / source hips height: scales horizontal motion."""
        return (self.target_measures.hips_height * self.avatar_scale
                / max(self.source_measures.hips_height, 1e-9))

    def output_skeleton(self) -> Skeleton:
        """The target skeleton at the current avatar scale."""
        scale = self.avatar_scale
        if scale == 1.0:
            return self.target
        return Skeleton(self.target.names, self.target.parents, self.target.offsets * scale,
                        {j: v * scale for j, v in self.target.end_sites.items()})

    def joint_scales(self) -> FloatArray:
        """``(Jt,)`` uniform scale per joint: the head scale on the head, 1 elsewhere."""
        scales = np.ones(self.target.joint_count)
        if "Head" in self.target_map:
            scales[self.target.index(self.target_map["Head"])] = self.settings["head_scale"]
        return scales

    # ------------------------------------------------------------------ runtime

    def apply(
        self,
        clip: Clip,
        *,
        props: ArrayLike | None = None,
        chairs: ArrayLike | None = None,
        chunk: int = 4096,
        progress: Callable[[int], None] | None = None,
    ) -> Clip:
        """Retarget a whole clip (batched over frames); returns a clip of the target.

        Args:
            clip: source motion (its skeleton must have the source's joint names).
            props: ``(P, 3)`` prop positions in the target's world for the arm weights.
            chairs: ``(C, 3)`` chair positions for the hips and leg weights.
            chunk: frames solved per batch (bounds memory).
            progress: called with the number of frames done after each batch.
        """
        if clip.skeleton.names != self.source.names:
            raise SkeletonError("clip skeleton does not match the retargeter's source skeleton")
        clip.check_finite()
        rotations, positions = clip.rotations, clip.positions
        if self.settings["filter_enabled"]:
            positions = self._filtered_series(clip)
        spos_all = fk(self._source_levels, rotations, positions)[1]
        goals = self._goal_weights(spos_all, props, chairs)
        weights = smooth_weights(goals, self.settings["weight_smooth_speed"], 1.0 / clip.fps)
        out_rot = np.empty((clip.frame_count, self.target.joint_count, 4))
        out_pos = np.empty((clip.frame_count, self.target.joint_count, 3))
        for start in range(0, clip.frame_count, chunk):
            part = slice(start, start + chunk)
            w = LimbWeights(weights.arms[part], weights.legs[part], weights.hips[part])
            out_rot[part], out_pos[part] = self._solve(rotations[part], positions[part], w)
            if progress is not None:
                progress(min(start + chunk, clip.frame_count))
        return Clip(self.output_skeleton(), out_rot, out_pos, clip.fps)

    def step(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        dt: float = 1.0 / 60.0,
        *,
        props: ArrayLike | None = None,
        chairs: ArrayLike | None = None,
        timestamp: float | None = None,
    ) -> tuple[FloatArray, FloatArray]:
        """Retarget one live frame: source ``(..., Js, 4)`` local rotations and ``(..., Js, 3)``
        translations → target ``(..., Jt, 4)``, ``(..., Jt, 3)``. Weights are smoothed over
        calls (``dt`` seconds per step); raw positions are One Euro filtered when enabled."""
        rotations = np.asarray(rotations, dtype=np.float64)
        positions = np.asarray(positions, dtype=np.float64)
        if self.settings["filter_enabled"]:
            positions = self._live_filter()(positions, timestamp)
        spos = fk(self._source_levels, rotations, positions)[1]
        goals = self._goal_weights(spos, props, chairs)
        self._smoother.speed = self.settings["weight_smooth_speed"]
        weights = self._smoother(goals, dt)
        return self._solve(rotations, positions, weights)

    # ------------------------------------------------------------------ internals

    def _limb_paths(self) -> dict[str, NDArray[np.int64]]:
        """Joints turned by each limb's upper and lower deltas (twist bones included)."""
        upper_joints, upper_limbs, lower_joints, lower_limbs = [], [], [], []
        for k, (upper, lower, tip) in enumerate(self._t_chain):
            for joints, limbs, top, bottom in ((upper_joints, upper_limbs, upper, lower),
                                               (lower_joints, lower_limbs, lower, tip)):
                path = self.target.chain(int(bottom))
                between = path[path.index(int(top)):-1]
                joints.extend(between)
                limbs.extend([k] * len(between))
        as_array = {"upper_joints": upper_joints, "upper_limbs": upper_limbs,
                    "lower_joints": lower_joints, "lower_limbs": lower_limbs}
        return {k: np.array(v, dtype=np.int64) for k, v in as_array.items()}

    def _live_filter(self) -> OneEuroFilter:
        cutoff, beta = self.settings["filter_min_cutoff"], self.settings["filter_beta"]
        if self._filter is None or (self._filter.min_cutoff, self._filter.beta) != (cutoff, beta):
            self._filter = OneEuroFilter(60.0, cutoff, beta)
        return self._filter

    def _filtered_series(self, clip: Clip) -> FloatArray:
        filt = OneEuroFilter(clip.fps, self.settings["filter_min_cutoff"],
                             self.settings["filter_beta"])
        return filt.filter_series(clip.positions)

    def _fixed_weights(self, frames: int) -> LimbWeights:
        count = len(self._limb_names)
        legs = int(np.sum(self._is_leg))
        return LimbWeights(np.zeros((frames, count - legs)), np.ones((frames, legs)),
                           np.ones(frames))

    def _goal_weights(self, spos: FloatArray, props: ArrayLike | None,
                      chairs: ArrayLike | None) -> LimbWeights:
        """Goal weights ``(..., arms 2)``, ``(..., legs 2)``, ``(...)`` from source positions."""
        batch = spos.shape[:-2]
        arm_count = int(np.sum(~self._is_leg))
        mode = self.settings["ik_mode"]
        if mode != "auto":
            value = 1.0 if mode == "ik" else 0.0
            arms = np.full((*batch, arm_count), value)
            legs = np.full((*batch, 2), value)
            hips = np.ones(batch)
        else:
            s = self.size_ratio
            hips_s = spos[..., self.correspondence.hips[1], :]
            hips_t = self._hips_target(hips_s, np.ones(batch), np.zeros(batch))
            leg_rows = np.nonzero(self._is_leg)[0]
            feet_s = spos[..., self._s_chain[leg_rows, 2], :]
            lift = feet_s[..., 1] - self.source_measures.ankle_height[self._side[leg_rows]]
            feet_t = feet_s * np.array([s, 1.0, s])
            arm_rows = np.nonzero(~self._is_leg)[0]
            if arm_count == 2:
                hands = hips_t[..., None, :] + s * (spos[..., self._s_chain[arm_rows, 2], :]
                                                    - hips_s[..., None, :])
            else:
                hands = np.repeat(hips_t[..., None, :], 2, axis=-2)
                hands[..., 1, 0] += 10.0  # no arms: never "hands together"
            ratio = hips_s[..., 1] / max(self.source_measures.hips_height, 1e-9)
            thresholds = WeightThresholds.from_settings(self.settings.values)
            goals = goal_weights(hands, lift, feet_t, hips_t, ratio, props, chairs, thresholds)
            arms, legs, hips = goals.arms[..., :arm_count], goals.legs, goals.hips
        if arm_count:
            enabled = np.array([self.settings["left_arm_ik"], self.settings["right_arm_ik"]],
                               dtype=float)[self._side[~self._is_leg]]
            arms = arms * enabled
        return LimbWeights(np.asarray(arms, dtype=float), np.asarray(legs, dtype=float),
                           np.asarray(hips, dtype=float))

    def _hips_target(self, hips_source: FloatArray, hips_weight: FloatArray,
                     seated: FloatArray) -> FloatArray:
        """Target hips world position ``(..., 3)`` from the source hips ``(..., 3)``."""
        s = self.size_ratio
        raise_by = (self.target_measures.hips_height * self.avatar_scale
                    - self.source_measures.hips_height)
        y = (hips_source[..., 1] + raise_by * hips_weight + self.settings["floor_height"]
             + self.settings["chair_seat_height_offset"] * seated)
        return np.stack([s * hips_source[..., 0], y, s * hips_source[..., 2]], axis=-1)

    def _solve(self, src_rot: FloatArray, src_lpos: FloatArray,
               weights: LimbWeights) -> tuple[FloatArray, FloatArray]:
        """Target local ``(rotations, translations)`` for source local ones ``(..., Js, ·)``."""
        c = self.correspondence
        scale = self.avatar_scale
        srot, spos = fk(self._source_levels, src_rot, src_lpos)
        batch = srot.shape[:-2]
        joints = self.target.joint_count
        world = np.empty((*batch, joints, 4))
        world[..., c.target_joints, :] = quat.mul(srot[..., c.source_joints, :], self.offsets)
        calib = self.calibration_pose
        if len(self._unmapped.roots):
            world[..., self._unmapped.roots, :] = calib[self._unmapped.roots]
        for idx, par in zip(self._unmapped.joints, self._unmapped.parents, strict=True):
            world[..., idx, :] = quat.mul(world[..., par, :], calib[idx])

        # Hips.
        hips_t, hips_s = c.hips
        seated = 1.0 - weights.hips
        hips_pos = self._hips_target(spos[..., hips_s, :], weights.hips, seated)
        lpos = np.broadcast_to(self.target.offsets * scale, (*batch, joints, 3)).copy()
        parent = int(self.target.parents[hips_t])
        if parent < 0:
            lpos[..., hips_t, :] = hips_pos
        else:
            gpos = positions_from_world(self._target_levels, world, lpos)
            lpos[..., hips_t, :] = quat.inv_rotate(world[..., parent, :],
                                                   hips_pos - gpos[..., parent, :])

        # Four-limb IK.
        if len(self._limb_names):
            world = self._solve_limbs(world, lpos, srot, spos, hips_pos, weights)

        local = local_rotations(self.target.parents, world)
        return self._finish(local), lpos

    def _solve_limbs(self, world: FloatArray, lpos: FloatArray, srot: FloatArray,
                     spos: FloatArray, hips_pos: FloatArray, weights: LimbWeights) -> FloatArray:
        c = self.correspondence
        s = self.size_ratio
        gpos = positions_from_world(self._target_levels, world, lpos)
        root = gpos[..., self._t_chain[:, 0], :]
        mid = gpos[..., self._t_chain[:, 1], :]
        tip = gpos[..., self._t_chain[:, 2], :]
        source_tip = spos[..., self._s_chain[:, 2], :]
        hips_s = spos[..., c.hips[1], :]
        # Hands: relative to the hips, scaled. Feet: scaled horizontally, ankle height kept.
        target = hips_pos[..., None, :] + s * (source_tip - hips_s[..., None, :])
        legs = self._is_leg
        ankle_shift = (self.target_measures.ankle_height * self.avatar_scale
                       - self.source_measures.ankle_height)[self._side[legs]]
        feet = source_tip[..., legs, :] * np.array([s, 1.0, s])
        feet[..., 1] += ankle_shift + self.settings["floor_height"]
        front, out = self.settings["foot_front_back_offset"], self.settings["foot_in_out_offset"]
        if front or out:
            turn = quat.mul_inv(world[..., self._t_chain[legs, 2], :],
                                self._calibration_world[self._t_chain[legs, 2]])
            outward = np.where(self._side[legs] == 0, 1.0, -1.0)[:, None] * np.array([1, 0, 0])
            shift = front * np.array([0.0, 0.0, 1.0]) + out * outward
            feet = feet + quat.rotate(turn, shift)
        if self._toes is not None:
            feet = self._toe_pivot(feet, spos, gpos)
        target[..., legs, :] = feet
        # Bend goals: legs copy the source knee; arms bend toward the copied elbow.
        pole = mid.copy()
        upper_length = np.linalg.norm(mid - root, axis=-1)
        lower_length = np.linalg.norm(tip - mid, axis=-1)
        pole[..., legs, :] = knee_from_source(
            spos[..., self._s_chain[legs, 0], :], spos[..., self._s_chain[legs, 1], :],
            spos[..., self._s_chain[legs, 2], :], root[..., legs, :], target[..., legs, :],
            upper_length[..., legs], lower_length[..., legs])
        weight = np.empty(root.shape[:-1])
        weight[..., legs] = weights.legs
        weight[..., ~legs] = weights.arms
        weight = np.where(np.linalg.norm(tip - target, axis=-1) < _DO_NO_HARM, 0.0, weight)
        result = solve_two_bone(root, mid, tip, target, pole, position_weight=weight)
        p = self._paths
        world = world.copy()
        world[..., p["upper_joints"], :] = quat.mul(result.upper_rotation[..., p["upper_limbs"], :],
                                                    world[..., p["upper_joints"], :])
        world[..., p["lower_joints"], :] = quat.mul(result.lower_rotation[..., p["lower_limbs"], :],
                                                    world[..., p["lower_joints"], :])
        return world

    def _toe_pivot(self, feet: FloatArray, spos: FloatArray, gpos: FloatArray) -> FloatArray:
        """Ankle targets that keep the toes on the source's toe path while the heel is up,
        and never lower than the source's toes.

        When the source foot rolls over its toes (heel raised, toes down), the toes are the
        pivot: following the ankle alone would slide the target's toes (its foot has another
        length). The ankle target then becomes the mapped source toe minus the target's own
        ankle→toe vector (the foot's world rotation is already the source's).
        """
        s = self.size_ratio
        source_ankle = spos[..., self._s_chain[self._is_leg, 2], :]
        source_toe = spos[..., self._toes[:, 1], :]
        heel_up = source_ankle[..., 1] - self.source_measures.ankle_height
        toe_rest = self.target_measures.toe_height * self.avatar_scale
        toe_height = source_toe[..., 1] - self.source_measures.toe_height
        pivot = (_ramp(heel_up, 0.005, 0.03) * (1.0 - _ramp(toe_height, 0.02, 0.06)))[..., None]
        toe_target = source_toe * np.array([s, 1.0, s])
        toe_target[..., 1] += (toe_rest - self.source_measures.toe_height
                               + self.settings["floor_height"])
        foot_vector = gpos[..., self._toes[:, 0], :] - gpos[..., self._t_chain[self._is_leg, 2], :]
        feet = feet + pivot * (toe_target - foot_vector - feet)
        # Never let the target's toes dip below the source's (a foot of other proportions
        # pitched toe-down in the swing would otherwise scrape the floor).
        dip = toe_target[..., 1] - (feet[..., 1] + foot_vector[..., 1])
        feet[..., 1] += np.maximum(dip, 0.0)
        return feet

    def _finish(self, local: FloatArray) -> FloatArray:
        """Head offset and finger pose on the local rotations."""
        values = self.settings.values
        offset = [values[k] for k in _HEAD_OFFSET_KEYS]
        if any(offset) and "Head" in self.target_map:
            head = self.target.index(self.target_map["Head"])
            local[..., head, :] = quat.mul(local[..., head, :], head_offset_rotation(offset))
        if values["fingers_enabled"] and self.fingers.present:
            curl = np.array([[values[f"{h}_{f}_curl"] for f in FINGERS] for h in HANDS])
            spread = np.array([[values[f"{h}_{f}_spread"] for f in FINGERS] for h in HANDS])
            local = self.fingers.apply(local, curl, spread,
                                       (values["left_hand_enabled"], values["right_hand_enabled"]))
        return local


def _ramp(value: FloatArray, start: float, end: float) -> FloatArray:
    return np.clip((value - start) / (end - start), 0.0, 1.0)
