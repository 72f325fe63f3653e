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
   Where a planted foot is out of reach (the rig stands straighter than the capture) the hips
   are lowered just enough, never raised (SPEC §4.4).
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
from footfall.errors import MappingError, SettingsError, SkeletonError
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
from footfall.retarget.head import (
    auto_avatar_scale,
    head_forward_offset_deg,
    head_offset_rotation,
)
from footfall.retarget.kinematics import (
    Levels,
    fk,
    local_rotations,
    positions_from_world,
    qmul,
    qrotate,
)
from footfall.retarget.props import PropAttachments
from footfall.retarget.settings import (
    RetargetSettings,
    load_settings,
    save_settings,
)
from footfall.retarget.stance import (
    PLANTED_LIFT,
    PLANTED_SPEED,
    RELEASE_SECONDS,
    PlantedHold,
    hold_while_planted,
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
_REACH = 0.995  # share of a leg's length the hips may ask of it before they are lowered
_CONJUGATE = np.array([1.0, -1.0, -1.0, -1.0])
_MAX_TOE_RAISE = 0.03  # metres the ankle may be raised to keep the toes above the source's


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
        hips_and_legs = [self.correspondence.hips[0]] + [
            target.index(self.target_map[b]) for b in ("LeftUpperLeg", "RightUpperLeg")]
        self._mover = _common_ancestor(target, hips_and_legs)
        self._under_mover = np.array([self._mover in target.chain(j)
                                      for j in range(target.joint_count)])
        toes = [(target.index(self.target_map[b]), source.index(self.source_map[b]))
                for b in ("LeftToes", "RightToes") if b in self.target_map and b in self.source_map]
        self._toes = np.array(toes, dtype=np.int64).reshape(-1, 2) if len(toes) == 2 else None
        # Joints whose positions the solve reads (limbs, toes, hips, parents), with ancestors.
        needed = {int(j) for j in self._t_chain.ravel()} | {self.correspondence.hips[0]}
        needed |= {int(target.parents[j]) for j in self._t_chain[:, 2]}
        needed |= {int(target.parents[self._mover])}
        if self._toes is not None:
            needed |= {int(j) for j in self._toes[:, 0]}
        closure = {a for j in needed if j >= 0 for a in target.chain(j)}
        self._position_levels = Levels.of(target.parents, sorted(closure))
        source_needed = {int(j) for j in self._s_chain.ravel()} | {self.correspondence.hips[1]}
        if self._toes is not None:
            source_needed |= {int(j) for j in self._toes[:, 1]}
        source_needed |= {source.index(self.source_map[b]) for b in ("Neck", "Head")
                          if b in self.source_map}
        self._source_position_levels = Levels.of(
            source.parents, sorted({a for j in source_needed for a in source.chain(j)}))
        self._smoother = WeightSmoother()
        self._capture_floor = 0.0
        self._hold = PlantedHold()
        self._last_ankles: FloatArray | None = None
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
        standing = tgt  # sizes are measured before any turning
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
        standing_world, calibration_positions = fk(self._target_levels, standing,
                                                   self.target.offsets)
        lower, tip = self._t_chain[:, 1], self._t_chain[:, 2]
        self._tip_offsets = quat.inv_rotate(
            standing_world[lower], calibration_positions[tip] - calibration_positions[lower])
        self.source_measures = Measures.of(self.source, self.source_map, src)
        self.target_measures = Measures.of(self.target, self.target_map, standing)
        mapped = np.zeros(self.target.joint_count, dtype=bool)
        mapped[c.target_joints] = True
        self._unmapped = Levels.of(self.target.parents, np.nonzero(~mapped)[0])
        self.props = PropAttachments.build(self.target, self.target_map, tgt)
        self.fingers = FingerRig.build(self.target, self.target_map, tgt)
        self.settings.calibration = {
            "source_pose": src.tolist(),
            "target_pose": standing.tolist(),
            "match_directions": bool(match_directions_first),
        }
        self._smoother.reset()
        source_pos = fk(self._source_levels, src, self.source.offsets)[1]
        legs = self._t_chain[self._is_leg]
        source_legs = self._s_chain[self._is_leg]
        hips_t, hips_s = self.correspondence.hips
        self._source_hips_world = source_world[hips_s]
        self._hold.reset()
        self._last_ankles = None
        self._source_leg_lengths = (
            np.linalg.norm(source_pos[source_legs[:, 1]] - source_pos[source_legs[:, 0]], axis=-1)
            + np.linalg.norm(source_pos[source_legs[:, 2]] - source_pos[source_legs[:, 1]],
                             axis=-1))
        self._hip_offsets = (calibration_positions[legs[:, 0]] - calibration_positions[hips_t],
                             source_pos[source_legs[:, 0]] - source_pos[hips_s])

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
        source = (np.asarray(source_rotations, dtype=np.float64)[None],
                  np.asarray(source_positions, dtype=np.float64)[None])
        shift = self._foot_shift(self._body_yaw(fk(self._source_levels, *source)[0]))
        rotations, positions = self._solve(*source, self._fixed_weights(1), shift)
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
            self.calibrate(src, tgt,
                           match_directions_first=bool(calibration.get("match_directions", True)))
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
        srot_all = fk(self._source_levels, rotations, positions, positions=False)[0]
        spos_all = positions_from_world(self._source_position_levels, srot_all, positions)
        self._capture_floor = self._estimate_capture_floor(spos_all)
        goals = self._goal_weights(spos_all, props, chairs)
        shift = self._held_shift_series(srot_all, spos_all, clip.fps)
        weights = smooth_weights(goals, self.settings["weight_smooth_speed"], 1.0 / clip.fps)
        parts_rot, parts_pos = [], []
        for start in range(0, clip.frame_count, chunk):
            part = slice(start, start + chunk)
            w = LimbWeights(weights.arms[part], weights.legs[part], weights.hips[part])
            rot, pos = self._solve(rotations[part], positions[part], w, shift[part],
                                   (srot_all[part], spos_all[part]))
            parts_rot.append(rot)
            parts_pos.append(pos)
            if progress is not None:
                progress(min(start + chunk, clip.frame_count))
        # One chunk: keep the solver's (joint-major) arrays as they are, no copy.
        out_rot = parts_rot[0] if len(parts_rot) == 1 else np.concatenate(parts_rot)
        out_pos = parts_pos[0] if len(parts_pos) == 1 else np.concatenate(parts_pos)
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
        srot = fk(self._source_levels, rotations, positions, positions=False)[0]
        spos = positions_from_world(self._source_position_levels, srot, positions)
        goals = self._goal_weights(spos, props, chairs)
        self._smoother.speed = self.settings["weight_smooth_speed"]
        weights = self._smoother(goals, dt)
        return self._solve(rotations, positions, weights, self._held_shift_live(srot, spos, dt),
                           (srot, spos))

    # ------------------------------------------------------------------ internals

    def _limb_paths(self) -> dict[str, NDArray[np.int64]]:
        """Joints turned by each limb's upper and lower deltas (twist bones included).

        A tip that is not below its lower bone (IK rigs whose feet hang from the root, like
        RobotExpressive) is "detached": it is placed where the lower bone carries it.
        """
        upper_joints, upper_limbs, lower_joints, lower_limbs = [], [], [], []
        detached = []
        for k, (upper, lower, tip) in enumerate(self._t_chain):
            upper_path = self.target.chain(int(lower))
            if int(upper) not in upper_path:
                name = self._limb_names[k]
                raise MappingError(
                    f"target {name}: {self.target.names[lower]!r} is not below "
                    f"{self.target.names[upper]!r}; a limb must be a joint chain"
                )
            tip_path = self.target.chain(int(tip))
            attached = int(lower) in tip_path
            detached.append(not attached)
            spans = [(upper_joints, upper_limbs, upper_path[upper_path.index(int(upper)):-1])]
            spans.append((lower_joints, lower_limbs,
                          tip_path[tip_path.index(int(lower)):-1] if attached else [int(lower)]))
            for joints, limbs, between in spans:
                joints.extend(between)
                limbs.extend([k] * len(between))
        self._detached = np.array(detached, dtype=bool)
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

    def _solve(self, src_rot: FloatArray, src_lpos: FloatArray, weights: LimbWeights,
               foot_shift: FloatArray,
               source_global: tuple[FloatArray, FloatArray] | None = None
               ) -> tuple[FloatArray, FloatArray]:
        """Target local ``(rotations, translations)`` for source local ones ``(..., Js, ·)``
        (``source_global``: their FK when already known)."""
        c = self.correspondence
        scale = self.avatar_scale
        srot, spos = (fk(self._source_levels, src_rot, src_lpos) if source_global is None
                      else source_global)
        batch = srot.shape[:-2]
        joints = self.target.joint_count
        # Joint-major memory behind the usual (..., J, 4) view: joint gathers are contiguous.
        world = np.moveaxis(np.empty((joints, *batch, 4)), 0, -2)
        world[..., c.target_joints, :] = qmul(srot[..., c.source_joints, :], self.offsets)
        calib = self.calibration_pose
        if len(self._unmapped.roots):
            world[..., self._unmapped.roots, :] = calib[self._unmapped.roots]
        for idx, par in zip(self._unmapped.joints, self._unmapped.parents, strict=True):
            world[..., idx, :] = qmul(world[..., par, :], calib[idx])

        # Hips.
        hips_t, hips_s = c.hips
        seated = 1.0 - weights.hips
        hips_pos = self._hips_target(spos[..., hips_s, :], weights.hips, seated)
        lpos = np.moveaxis(np.empty((joints, *batch, 3)), 0, -2)
        lpos[...] = self.target.offsets * scale
        mover = self._mover
        parent = int(self.target.parents[mover])
        if mover == hips_t and parent < 0:
            lpos[..., hips_t, :] = hips_pos
        else:
            # Move the joint the hips and both legs hang from, so the legs come along.
            gpos = positions_from_world(self._position_levels, world, lpos)
            delta = hips_pos - gpos[..., hips_t, :]
            if parent >= 0:
                delta = qrotate(world[..., parent, :] * _CONJUGATE, delta)
            lpos[..., mover, :] += delta

        # Four-limb IK.
        if len(self._limb_names):
            world = self._solve_limbs(world, lpos, srot, spos, hips_pos, weights, foot_shift)

        local = local_rotations(self.target.parents, world)
        return self._finish(local), lpos

    def _solve_limbs(self, world: FloatArray, lpos: FloatArray, srot: FloatArray,
                     spos: FloatArray, hips_pos: FloatArray, weights: LimbWeights,
                     foot_shift: FloatArray) -> FloatArray:
        c = self.correspondence
        s = self.size_ratio
        gpos = positions_from_world(self._position_levels, world, lpos)
        root = gpos[..., self._t_chain[:, 0], :]
        mid = gpos[..., self._t_chain[:, 1], :]
        tip = gpos[..., self._t_chain[:, 2], :]
        if np.any(self._detached):
            carried = mid + qrotate(world[..., self._t_chain[:, 1], :],
                                    self._tip_offsets * self.avatar_scale)
            tip = np.where(self._detached[:, None], carried, tip)
        source_tip = spos[..., self._s_chain[:, 2], :]
        hips_s = spos[..., c.hips[1], :]
        legs = self._is_leg
        # Feet: scaled horizontally (plus the stance-width shift), ankle height kept.
        ankle_shift = (self.target_measures.ankle_height * self.avatar_scale
                       - self.source_measures.ankle_height)[self._side[legs]]
        feet = source_tip[..., legs, :] * np.array([s, 1.0, s]) + foot_shift
        feet[..., 1] += ankle_shift + self.settings["floor_height"]
        front, out = self.settings["foot_front_back_offset"], self.settings["foot_in_out_offset"]
        if front or out:
            turn = quat.mul_inv(world[..., self._t_chain[legs, 2], :],
                                self._calibration_world[self._t_chain[legs, 2]])
            outward = np.where(self._side[legs] == 0, 1.0, -1.0)[:, None] * np.array([1, 0, 0])
            shift = front * np.array([0.0, 0.0, 1.0]) + out * outward
            feet = feet + quat.rotate(turn, shift)
        if self._toes is not None:
            feet, pitch = self._toe_pivot(feet, spos, gpos, foot_shift)
            foot_joints = self._t_chain[legs, 2]
            world = world.copy(order="K")
            world[..., foot_joints, :] = qmul(pitch, world[..., foot_joints, :])
        upper_length = np.linalg.norm(mid - root, axis=-1)
        lower_length = np.linalg.norm(tip - mid, axis=-1)
        # Lower (never raise) the hips where a foot on IK could not be reached.
        source_extension = (
            np.linalg.norm(source_tip[..., legs, :] - spos[..., self._s_chain[legs, 0], :], axis=-1)
            / self._source_leg_lengths)
        reach = (np.clip(source_extension, _REACH, 1.0)
                 * (upper_length + lower_length)[..., legs])
        thigh = root[..., legs, :]
        across = np.sum((thigh - feet)[..., [0, 2]] ** 2, axis=-1)
        highest = feet[..., 1] + np.sqrt(np.maximum(reach**2 - across, 0.0))
        drop = np.max(np.maximum(thigh[..., 1] - highest, 0.0) * weights.legs, axis=-1)
        drop = np.where(drop > 1e-9, drop, 0.0)
        if np.any(drop > 0):
            down = np.zeros(drop.shape + (3,))
            down[..., 1] = -drop
            root, mid, tip = (v + down[..., None, :] for v in (root, mid, tip))
            gpos = gpos + down[..., None, :] * self._under_mover[:, None]
            hips_pos = hips_pos + down
            parent = int(self.target.parents[self._mover])
            lpos[..., self._mover, :] += (down if parent < 0 else
                                          qrotate(world[..., parent, :] * _CONJUGATE, down))
        # Hands: relative to the hips, scaled.
        target = hips_pos[..., None, :] + s * (source_tip - hips_s[..., None, :])
        target[..., legs, :] = feet
        # Bend goals: legs copy the source knee; arms bend toward the copied elbow.
        pole = mid.copy()
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
        world = world.copy(order="K")
        world[..., p["upper_joints"], :] = qmul(result.upper_rotation[..., p["upper_limbs"], :],
                                                world[..., p["upper_joints"], :])
        world[..., p["lower_joints"], :] = qmul(result.lower_rotation[..., p["lower_limbs"], :],
                                                world[..., p["lower_joints"], :])
        for k in np.nonzero(self._detached)[0]:
            joint = int(self._t_chain[k, 2])
            parent = int(self.target.parents[joint])
            place = result.tip[..., k, :]
            if parent >= 0:
                place = qrotate(world[..., parent, :] * _CONJUGATE, place - gpos[..., parent, :])
            lpos[..., joint, :] = place
        return world

    def _body_yaw(self, srot: FloatArray) -> FloatArray:
        """Yaw ``(...)`` of the source hips relative to their calibration heading, radians."""
        hips_s = self.correspondence.hips[1]
        turn = quat.mul_inv(srot[..., hips_s, :], self._source_hips_world)
        forward = qrotate(turn, np.array([0.0, 0.0, 1.0]))
        return np.arctan2(forward[..., 0], forward[..., 2])

    def _estimate_capture_floor(self, spos: FloatArray) -> float:
        """How high the capture's feet float when down (5th percentile of the lowest foot
        point above its standing height, ≥ 0), metres. Live frames assume 0."""
        if self._toes is None or len(spos) < 10:
            return 0.0
        ankles = (spos[:, self._s_chain[self._is_leg, 2], 1]
                  - self.source_measures.ankle_height)
        toes = spos[:, self._toes[:, 1], 1] - self.source_measures.toe_height
        return float(max(np.percentile(np.minimum(ankles, toes), 5), 0.0))

    def _planted(self, spos: FloatArray, speed: FloatArray | None) -> FloatArray:
        """Whether each source foot is planted ``(..., 2)`` (low and slow, see ``stance``)."""
        ankles = spos[..., self._s_chain[self._is_leg, 2], 1]
        planted = ankles - self.source_measures.ankle_height < PLANTED_LIFT
        return planted if speed is None else planted & (speed < PLANTED_SPEED)

    def _held_shift_series(self, srot: FloatArray, spos: FloatArray, fps: float) -> FloatArray:
        """Stance-width shift per frame ``(F, 2, 3)``, frozen while each foot is planted."""
        ankles = spos[:, self._s_chain[self._is_leg, 2]][..., [0, 2]]
        speed = np.zeros(ankles.shape[:-1])
        if len(ankles) > 1:
            step = np.linalg.norm(np.diff(ankles, axis=0), axis=-1) * fps
            speed = np.concatenate([step[:1], step], axis=0)
        return hold_while_planted(self._foot_shift(self._body_yaw(srot)),
                                  self._planted(spos, speed))

    def _held_shift_live(self, srot: FloatArray, spos: FloatArray, dt: float) -> FloatArray:
        ankles = spos[..., self._s_chain[self._is_leg, 2], :][..., [0, 2]]
        speed = None
        if self._last_ankles is not None and self._last_ankles.shape == ankles.shape:
            speed = np.linalg.norm(ankles - self._last_ankles, axis=-1) / dt
        self._last_ankles = ankles
        self._hold.fade = max(round(RELEASE_SECONDS / dt), 1)
        return self._hold(self._foot_shift(self._body_yaw(srot)), self._planted(spos, speed))

    def _foot_shift(self, yaw: FloatArray) -> FloatArray:
        """Stance-width shift ``(..., 2, 3)`` of the feet for a smoothed body ``yaw (...)``.

        Scaling the source's foot paths keeps the source's (scaled) stance width; a rig with
        other hip proportions (RobotExpressive's legs stand 1.3 m apart) then needs each foot
        moved by ``target_hip_offset − size_ratio · source_hip_offset``, turned with the body.
        Callers freeze it while a foot is planted (``stance.py``).
        """
        target_offset, source_offset = self._hip_offsets
        delta = target_offset * self.avatar_scale - self.size_ratio * source_offset
        delta[:, 1] = 0.0
        turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.asarray(yaw)[..., None])
        return qrotate(turn, delta)

    def _toe_pivot(self, feet: FloatArray, spos: FloatArray, gpos: FloatArray,
                   foot_shift: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Ankle targets ``(..., 2, 3)`` and foot pitch corrections ``(..., 2, 4)``.

        On the floor the foot is pitched so its toes sit as high above the floor as the
        source's (calibration poses rarely agree on the foot's pitch: CMU's rest foot points
        down). While the heel is up the toes stay on the source's toe path; in the air they
        never go lower than the source's.

        When the source foot rolls over its toes (heel raised, toes down), the toes are the
        pivot: following the ankle alone would slide the target's toes (its foot has another
        length). The ankle target then becomes the mapped source toe minus the target's own
        ankle→toe vector (the foot's world rotation is already the source's).
        """
        s = self.size_ratio
        source_ankle = spos[..., self._s_chain[self._is_leg, 2], :]
        source_toe = spos[..., self._toes[:, 1], :]
        floor = self._capture_floor
        heel_up = source_ankle[..., 1] - self.source_measures.ankle_height - floor
        toe_rest = self.target_measures.toe_height * self.avatar_scale
        toe_height = source_toe[..., 1] - self.source_measures.toe_height - floor
        pivot = (_ramp(heel_up, 0.005, 0.03) * (1.0 - _ramp(toe_height, 0.02, 0.06)))[..., None]
        toe_target = source_toe * np.array([s, 1.0, s]) + foot_shift
        toe_target[..., 1] += (toe_rest - self.source_measures.toe_height
                               + self.settings["floor_height"])
        foot_vector = gpos[..., self._toes[:, 0], :] - gpos[..., self._t_chain[self._is_leg, 2], :]
        pitch = _pitch_to_height(foot_vector, toe_target[..., 1] - feet[..., 1],
                                 1.0 - _ramp(toe_height, 0.02, 0.06))
        foot_vector = qrotate(pitch, foot_vector)
        feet = feet + pivot * (toe_target - foot_vector - feet)
        # Never let the target's toes dip below the source's (a foot of other proportions
        # pitched toe-down in the swing would otherwise scrape the floor).
        # Only in the air: on the floor the toe may sit where the foot's shape puts it.
        dip = toe_target[..., 1] - (feet[..., 1] + foot_vector[..., 1])
        feet[..., 1] += np.clip(dip, 0.0, _MAX_TOE_RAISE) * _ramp(toe_height, 0.01, 0.03)
        return feet, pitch

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


def _common_ancestor(skeleton: Skeleton, joints: list[int]) -> int:
    """The deepest joint that is an ancestor of (or equal to) every joint in ``joints``."""
    chains = [skeleton.chain(j) for j in joints]
    common = joints[0]
    for depth, candidate in enumerate(chains[0]):
        if all(depth < len(c) and c[depth] == candidate for c in chains):
            common = candidate
        else:
            break
    return common


def _pitch_to_height(vector: FloatArray, height: FloatArray, weight: FloatArray) -> FloatArray:
    """Rotation ``(..., 4)`` about the horizontal axis across ``vector (..., 3)`` that brings
    its vertical component to ``height (...)`` (as near as its length allows), scaled by
    ``weight (...)`` and limited to ±0.6 rad."""
    axis = np.cross(vector, np.array([0.0, 1.0, 0.0]))
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    axis = np.where(length > 1e-12, axis / np.maximum(length, 1e-12), np.array([1.0, 0, 0]))
    across = np.cross(axis, vector)
    # vector'(φ).y = A cos φ + B sin φ = height
    a, b = vector[..., 1], across[..., 1]
    radius = np.maximum(np.hypot(a, b), 1e-12)
    centre = np.arctan2(b, a)
    spread = np.arccos(np.clip(height / radius, -1.0, 1.0))
    roots = np.stack([centre - spread, centre + spread])
    roots = (roots + np.pi) % (2.0 * np.pi) - np.pi
    angle = np.where(np.abs(roots[0]) <= np.abs(roots[1]), roots[0], roots[1])
    return quat.from_axis_angle(axis, np.clip(angle, -0.6, 0.6) * weight)
