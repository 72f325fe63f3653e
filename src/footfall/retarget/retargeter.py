"""The retargeter: motion of one skeleton onto another (seed 001's CustomRetargetingScript).

Per frame, batched over frames (``apply``) or for one live frame (``step``), with one code path:

1. Source FK.
2. Rotations: every matched target bone gets ``source_world * offset`` (offsets calibrated in a
   T- or I-pose); spine and neck chains follow grouped source bones; other joints keep their
   calibration-pose local rotation.
3. Hips: the source hips position, horizontally scaled by the size ratio (target / source leg
   length: the hip joints' height, ``Measures.leg_length``), raised by the hips-height
   difference times the hips (sitting) weight plus the floor height; standing, the hips' rise
   and fall around their standing height is scaled by the size ratio too. The hips height is
   measured from the hips joint to the floor, so feet reach the floor whatever the pelvis and
   foot proportions; the size ratio is the legs', not the hips joint's (a stylised rig may hang
   its legs from a joint well above or below its hips joint).
4. Four-limb two-bone IK (``limbs.py``), weighted by the automatic layers (``weights.py``).
5. Head rotation offset, finger curls and spread (when enabled).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SettingsError, SkeletonError
from footfall.filters import OneEuroFilter
from footfall.footing.tracker import planted_median
from footfall.humanoid.upright import upright_pose
from footfall.retarget.body_floor import BodyPoints
from footfall.retarget.calibration import (
    Correspondence,
    Measures,
    SolePoints,
    canonical_mapping,
    check_limb_lengths,
    correspond,
    facing_forward,
    joint_hand_reach,
    joint_sole_points,
    match_directions,
    sole_depth,
)
from footfall.retarget.fingers import FINGERS, HANDS, FingerRig, preset
from footfall.retarget.floor import auto_floor_height, left_leg_length
from footfall.retarget.head import (
    apply_head_offset,
    auto_avatar_scale,
    head_forward_offset_deg,
)
from footfall.retarget.limbs import Limbs, Sizes
from footfall.retarget.props import PropAttachments
from footfall.retarget.settings import (
    HEAD_OFFSET_KEYS,
    RetargetSettings,
    load_settings,
    save_settings,
)
from footfall.retarget.standing_pose import standing_pose
from footfall.retarget.toes import Toes
from footfall.retarget.weights import (
    LimbWeights,
    WeightSmoother,
    WeightThresholds,
    points_array,
    smooth_weights,
    source_goal_kernel,
)
from footfall.skeleton import Clip, FKPlan, Skeleton

#: Times the hips are raised (and the legs solved again) for a thigh or shin under the floor,
#: and the metres of it left under the floor that end the passes early.
LEG_PASSES = 4
LEG_TOLERANCE = 0.002


class Retargeter:
    """Retarget motion from a ``source`` skeleton onto a ``target`` skeleton.

    Args:
        source, target: the two skeletons (metres, Y up, facing +Z in their calibration poses).
        mapping, target_mapping: ``{canonical bone: joint}`` overrides (dict or JSON path) of
            the guesses of ``footfall.humanoid``.
        settings: initial settings (defaults otherwise).
        target_rest: ``(J, 4)`` local rotations of the target's rest pose (glTF); identity by
            default.
        target_feet: the points of the left and right foot's sole — a skinned avatar's
            (``footfall.skinning.avatar_feet``).
            A planted foot stands its lowest sole point on the floor, and no sole point goes
            below it. By default the feet's joints (and End Sites) are all there is, and the
            sole is the rest pose's floor (y = 0) when the rest pose stands on it.
        target_hands: ``(2,)`` how far each hand reaches from its wrist, metres — a skinned
            avatar's (``footfall.skinning.avatar_hands``); by default its joints'. A hand is
            kept that high above the floor.
        target_body: the points of the trunk's and arms' surface — a skinned avatar's
            (``footfall.skinning.avatar_body``). The hips rise where the trunk would go
            through the floor, and an arm that would is swung up at the shoulder
            (:mod:`footfall.retarget.body_floor`), as is a foot the leg left pointing down
            through it. By default a target without hand bones
            (whose hands the arm IK cannot hold up) is guarded by its joints; one with hand
            bones is not.

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
        target_feet: SolePoints | None = None,
        target_hands: ArrayLike | None = None,
        target_body: BodyPoints | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.source_map = canonical_mapping(source, mapping, "source")
        self.target_map = canonical_mapping(target, target_mapping, "target")
        self.settings = settings if settings is not None else RetargetSettings()
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
        self._source_fk = FKPlan(source.parents)
        self._target_fk = FKPlan(target.parents)
        self.limbs = Limbs(source, target, self.source_map, self.target_map,
                           self.correspondence)
        self.limbs.soles = soles
        self.limbs.set_hand_reach(
            joint_hand_reach(target, self.target_map, self.target_rest) if target_hands is None
            else np.asarray(target_hands, dtype=np.float64))
        handless = not all(f"{side}Hand" in self.target_map for side in ("Left", "Right"))
        self.body_points = (target_body if target_body is not None or not handless
                           else BodyPoints.of_joints(target, self.target_map, self.target_rest))
        self._body_fk = (None if self.body_points is None
                        else self.body_points.plan(target.parents))
        self._smoother = WeightSmoother()
        self._thresholds: tuple[tuple[Any, ...], WeightThresholds] | None = None
        #: ``(2,)`` how high each source foot stands above its standing height when planted in
        #: live frames (``step``), metres: the capture's floor; 0 for a capture system whose
        #: ground plane is y = 0 (Motive's). ``apply`` measures it per clip (``stance_level``).
        self.live_stance_level = np.zeros(2)
        self._filter: OneEuroFilter | None = None
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
            source_pose: ``(Js, 4)`` source local rotations in a T- or I-pose (default: rest,
                turned upright when it lies on its side, see ``footfall.humanoid.upright``).
            target_pose: ``(Jt, 4)`` target local rotations (default: ``target_rest``, the
                same way).
            match_directions_first: turn the target's arms and legs to the source's directions
                first, so the two poses need not be the same (T against I).
        """
        src = (quat.normalize(source_pose) if source_pose is not None else upright_pose(
            self.source, self.source_map, quat.identity((self.source.joint_count,))))
        tgt = (quat.normalize(target_pose) if target_pose is not None
               else upright_pose(self.target, self.target_map, self.target_rest))
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
        source_world, source_pos = self._source_fk(src, self.source.offsets)
        target_world = self._target_fk(tgt, self.target.offsets)[0]
        c = self.correspondence
        self.offsets = quat.inv_mul(source_world[c.source_joints], target_world[c.target_joints])
        self.source_pose = src
        self.calibration_pose = tgt
        self._calibration_world = target_world
        standing_world, standing_positions = self._target_fk(standing,
                                                self.target.offsets)
        self.source_measures = Measures.of(self.source, self.source_map, src)
        self.target_measures = Measures.of(self.target, self.target_map, standing,
                                           self.target_sole_depth)
        unmapped = np.setdiff1d(np.arange(self.target.joint_count), c.target_joints)
        self._unmapped_fk = FKPlan(self.target.parents, unmapped, ancestors=False)
        self.props = PropAttachments.build(self.target, self.target_map, tgt)
        self.fingers = FingerRig.build(self.target, self.target_map, tgt)
        self.source_fingers = FingerRig.build(self.source, self.source_map, src)
        self.settings.calibration = {
            "source_pose": src.tolist(),
            "target_pose": standing.tolist(),
            "match_directions": bool(match_directions_first),
        }
        self._smoother.reset()
        self.limbs.calibrate(source_pos, source_world, standing_world, standing_positions,
                             Toes.of(self.source, self.source_map, src))

    def calibrate_for(self, clip: Clip, frame: int | str | None = None) -> str:
        """Calibrate from the motion of ``clip``; returns what was done, in words (reports).

        ``frame``: None or ``"auto"`` — the pose the motion stands in
        (:func:`~footfall.retarget.standing_pose.standing_pose`: the most standing frame, each
        foot flat as it stands in its stances); an int — that frame as it is. Either is turned
        to face +Z. The pose is chosen by what the motion is in the world, never by how the
        file defines its rest rotations: the same animation written with other joint orients
        (a Maya-style export baking them into the channels) calibrates, and retargets, to the
        same joint positions."""
        if clip.skeleton.names != self.source.names:
            raise SkeletonError("clip skeleton does not match the retargeter's source skeleton")
        if clip.frame_count == 0:
            raise SkeletonError("an empty clip has no frame to calibrate from")
        if frame is None or frame == "auto":
            index, pose = standing_pose(self.source, self.source_map, clip)
            self.calibrate(source_pose=pose)
            return f"calibrated from frame {index} (the most standing, feet flat)"
        if not (isinstance(frame, int) and not isinstance(frame, bool)
                and -clip.frame_count <= frame < clip.frame_count):
            raise SettingsError(f"calibration frame {frame!r} is not a frame of the clip "
                                f"(0…{clip.frame_count - 1}, or 'auto')")
        index = frame % clip.frame_count
        self.calibrate(source_pose=facing_forward(self.source, self.source_map,
                                                  clip.rotations[index]))
        return f"calibrated from frame {index}"

    def calibrate_i_pose(self, source_rotations: ArrayLike,
                         source_positions: ArrayLike | None = None) -> None:
        """Calibrate with this source frame (``(Js, 4)`` local rotations) as the I-pose; the
        target's arms and legs are turned to match it, its fingers keep their rest pose."""
        del source_positions  # rotations alone define the pose
        self.calibrate(source_pose=source_rotations)

    def character_data(self) -> dict[str, Any]:
        """JSON-ready state for a remote control: every setting with its description, the
        actions, sizes and the bones matched."""
        from footfall.retarget.settings import ACTIONS, PARAMETERS

        return {
            "values": dict(self.settings.values),
            "parameters": [p.describe() for p in PARAMETERS.values()],
            "actions": [a.describe() for a in ACTIONS.values()],
            "size_ratio": self.size_ratio,
            "hips_height": {"source": self.source_measures.hips_height,
                            "target": self.target_measures.hips_height},
            "target_bones": dict(self.target_map),
            "limbs": list(self.correspondence.limbs),
        }

    def reset_calibration(self) -> None:
        """Forget the calibration and recalibrate from the rest poses."""
        self.calibrate()

    def calibrate_head_forward(self, source_rotations: ArrayLike,
                               source_positions: ArrayLike) -> FloatArray:
        """Set the head rotation offset so the head looks straight ahead of the body in this
        source frame (``(Js, 4)`` local rotations, ``(Js, 3)`` translations); returns it (°)."""
        if "Head" not in self.target_map:
            raise SettingsError("the target has no Head bone to calibrate")
        self.settings.update(dict.fromkeys(HEAD_OFFSET_KEYS, 0.0))
        source = (np.asarray(source_rotations, dtype=np.float64)[None],
                  np.asarray(source_positions, dtype=np.float64)[None])
        levels = self._live_fixed()
        shift = self.limbs.foot_shift(self.limbs.body_yaw(self._source_fk(*source)[0]),
                                      self._sizes(levels))
        # The legs on IK, the arms on FK.
        fixed = LimbWeights(np.zeros((1, self.limbs.count - 2)), np.ones((1, 2)), np.ones(1))
        rotations, positions = self._solve(*source, fixed, shift, levels)
        world = self._target_fk(rotations, positions)[0][0]
        head = self.target.index(self.target_map["Head"])
        hips = self.correspondence.hips[0]
        offset = head_forward_offset_deg(world[head], world[hips],
                                         self._calibration_world[head],
                                         self._calibration_world[hips])
        offset = (offset + 180.0) % 360.0 - 180.0
        self.settings.update(dict(zip(HEAD_OFFSET_KEYS, (float(v) for v in offset),
                                      strict=True)))
        return offset

    def auto_calibrate(self, source_rotations: ArrayLike | None = None,
                       source_positions: ArrayLike | None = None, *,
                       head_forward: bool = True) -> float:
        """Seed 001's automatic calibration: avatar scale from the neck height ratio (clamped
        0.1–3), the floor height from the leg length and ``floor_comfort_ratio``, then head
        forward (when a source frame is given and ``head_forward``). Returns the scale."""
        self.settings["avatar_scale"] = 1.0
        source_neck = self.source_measures.neck_height
        if source_rotations is not None and source_positions is not None:
            _, spos = self._source_fk(source_rotations, source_positions)
            neck_bone = self.source_map.get("Neck", self.source_map.get("Head", None))
            if neck_bone is not None:
                source_neck = float(spos[self.source.index(neck_bone), 1])
        scale = auto_avatar_scale(source_neck, self.target_measures.neck_height)
        self.settings["avatar_scale"] = scale
        self.settings["floor_height"] = auto_floor_height(
            left_leg_length(self.target, self.target_map, self.calibration_pose),
            self.settings["floor_comfort_ratio"], scale)
        if (head_forward and source_rotations is not None and source_positions is not None
                and "Head" in self.target_map):
            self.calibrate_head_forward(source_rotations, source_positions)
        return scale

    # ------------------------------------------------------------------ settings

    def set_hand_pose(self, name: str) -> None:
        """Apply a finger preset (rock, paper, scissors, v, index, reset) to both hands."""
        curl, spread = preset(name)
        changes: dict[str, Any] = {
            f"{hand}_{finger}_{what}": float(values[h, f])
            for h, hand in enumerate(HANDS) for f, finger in enumerate(FINGERS)
            for what, values in (("curl", curl), ("spread", spread))}
        changes["fingers_enabled"] = name not in ("reset", "초기화")
        self.settings.update(changes)

    def save(self, avatar: str, folder: str | Path | None = None) -> Path:
        """Save settings and calibration for ``avatar`` (JSON, atomic); returns the path."""
        return save_settings(self.settings, avatar, folder)

    def load(self, avatar: str, folder: str | Path | None = None) -> None:
        """Load ``avatar``'s settings; a stored calibration is re-applied when it fits."""
        self.settings = load_settings(avatar, folder)
        calibration = self.settings.calibration
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
        """Target leg length (scaled) / source leg length (the hip joints' heights,
        ``Measures.leg_length``): scales the travel, the strides and the hips' motion."""
        return (self.target_measures.leg_length * self.avatar_scale
                / max(self.source_measures.leg_length, 1e-9))

    def output_skeleton(self) -> Skeleton:
        """The target skeleton at the current avatar scale."""
        scale = self.avatar_scale
        if scale == 1.0:
            return self.target
        return Skeleton(self.target.names, self.target.parents, self.target.offsets * scale,
                        {j: v * scale for j, v in self.target.end_sites.items()})

    def prop_transforms(self, rotations: ArrayLike, translations: ArrayLike
                        ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """World ``(position (..., 3), rotation (..., 4))`` of every attached prop for target
        local ``rotations (..., Jt, 4)`` and ``translations (..., Jt, 3)`` (a retargeted pose)."""
        grot, gpos = self._target_fk(rotations, translations)
        return self.props.prop_transforms(grot, gpos)

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
        stance_level: ArrayLike | None = None,
    ) -> Clip:
        """Retarget a whole clip (batched over frames); returns a clip of the target.

        Args:
            clip: source motion (its skeleton must have the source's joint names).
            props: ``(P, 3)`` prop positions in the target's world for the arm weights.
            chairs: ``(C, 3)`` chair positions for the hips and leg weights.
            chunk: frames solved per batch (bounds memory).
            progress: called with the number of frames done after each batch.
            stance_level: ``(2,)`` how high each source foot stands when planted, metres
                (default: measured from the clip, stance by stance and blended through the
                swings between them, see ``Limbs.stance_levels``).
        """
        srot_all, spos_all = self._source_series(clip, check_finite=True)
        # The source's contacts and stance levels by the one rule, frame after frame as a live
        # stream of the clip would have them (``footfall.footing``).
        fixed = (np.zeros(2) if stance_level is None
                 else np.asarray(stance_level, dtype=np.float64).reshape(2))
        planted, series, lowest = self.limbs.track_series(
            srot_all, spos_all, clip.fps, self._sizes(fixed), fixed,
            plant=bool(self.settings["plant_feet"]))
        goals = self._goal_weights(spos_all, props, chairs)
        shift = self.limbs.held_shift_series(srot_all, clip.fps, self._sizes(fixed), planted,
                                             lowest - series)
        weights = smooth_weights(goals, self.settings["weight_smooth_speed"], 1.0 / clip.fps)
        parts_rot, parts_pos = [], []
        self.limbs.reset_series()
        for start in range(0, clip.frame_count, chunk):
            part = slice(start, start + chunk)
            w = LimbWeights(weights.arms[part], weights.legs[part], weights.hips[part])
            rot, pos = self._solve(clip.rotations[part], clip.positions[part], w, shift[part],
                                   series[part],
                                   (srot_all[part], spos_all[part]), "series")
            parts_rot.append(rot)
            parts_pos.append(pos)
            if progress is not None:
                progress(min(start + chunk, clip.frame_count))
        # One chunk: keep the solver's (joint-major) arrays as they are, no copy.
        out_rot = parts_rot[0] if len(parts_rot) == 1 else np.concatenate(parts_rot)
        out_pos = parts_pos[0] if len(parts_pos) == 1 else np.concatenate(parts_pos)
        return Clip(self.output_skeleton(), out_rot, out_pos, clip.fps)

    def source_contacts(self, clip: Clip) -> np.ndarray:
        """``(F, 2)`` whether the source's left / right foot is planted in each frame of
        ``clip``, as ``apply`` (and ``step`` fed the clip) finds it: the one contact rule of
        ``footfall.footing``."""
        return self._track(clip)[0]

    def _track(self, clip: Clip) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
        """``clip``'s source contacts, stance levels and lowest points ``(F, 2)``, as ``apply``
        tracks them with its default stance level."""
        srot, spos = self._source_series(clip)
        return self.limbs.track_series(srot, spos, clip.fps, self._sizes(np.zeros(2)),
                                       np.zeros(2),
                                       plant=bool(self.settings["plant_feet"]))

    def limb_weights(self, clip: Clip, *, props: ArrayLike | None = None,
                     chairs: ArrayLike | None = None) -> LimbWeights:
        """The smoothed IK weights ``apply`` uses for ``clip``: arms ``(F, A)``, legs ``(F, 2)``
        (1 = IK on), hips ``(F,)`` — to see where the automatic layers hand a limb to FK."""
        goals = self._goal_weights(self._source_series(clip)[1], props, chairs)
        return smooth_weights(goals, self.settings["weight_smooth_speed"], 1.0 / clip.fps)

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
        calls (``dt`` seconds per step); the raw source joint positions that feet, hands and hips
        follow are One Euro filtered when ``filter_enabled``."""
        rotations = np.asarray(rotations, dtype=np.float64)
        positions = np.asarray(positions, dtype=np.float64)
        joints = self.source.joint_count
        if (rotations.ndim < 2 or rotations.shape[-2:] != (joints, 4)
                or positions.shape != rotations.shape[:-1] + (3,)):
            raise SkeletonError(
                f"step: expected rotations (..., {joints}, 4) and translations (..., {joints}, 3)"
                f" of the source skeleton, got {rotations.shape} and {positions.shape}"
            )
        if not (np.isfinite(rotations).all() and np.isfinite(positions).all()):
            bad = ~(np.isfinite(rotations).all(-1) & np.isfinite(positions).all(-1))
            joint = int(np.argwhere(bad)[0][-1])
            raise SkeletonError(f"step: NaN or inf at joint {joint} "
                                f"({self.source.names[joint]!r}); frame skipped")
        if not (np.isfinite(dt) and dt > 0):
            raise SettingsError(f"step: dt must be positive seconds, got {dt!r}")
        srot = self._source_fk.rotations(rotations)
        spos = self.limbs.source_position_fk.positions(srot, positions)
        if self.settings["filter_enabled"]:
            read = self.limbs.source_position_fk.joints
            spos[..., read, :] = self._live_filter(dt)(spos[..., read, :], timestamp)
        self._smoother.speed = self.settings["weight_smooth_speed"]
        weights = self._smoother(self._goal_weights(spos, props, chairs), dt)
        planted, levels = self.limbs.track_live(
            srot, spos, dt, self._sizes(self._live_fixed()), self._live_fixed(),
            plant=bool(self.settings.values["plant_feet"]))
        shift = self.limbs.held_shift_live(srot, dt, self._sizes(levels), planted)
        return self._solve(rotations, positions, weights, shift, levels, (srot, spos), "live")

    # ------------------------------------------------------------------ internals

    def _live_filter(self, dt: float) -> OneEuroFilter:
        """The live One Euro filter on raw source joint positions (rebuilt when its settings
        change; its rate comes from ``dt`` unless timestamps are given)."""
        cutoff, beta = self.settings["filter_min_cutoff"], self.settings["filter_beta"]
        if self._filter is None or (self._filter.min_cutoff, self._filter.beta) != (cutoff, beta):
            self._filter = OneEuroFilter(1.0 / dt, cutoff, beta)
        return self._filter

    def _source_series(self, clip: Clip, check_finite: bool = False
                       ) -> tuple[FloatArray, FloatArray]:
        """Source world rotations and raw positions ``(F, Js, ·)`` of ``clip`` (the positions
        One Euro filtered when ``filter_enabled``)."""
        if clip.skeleton.names != self.source.names:
            raise SkeletonError("clip skeleton does not match the retargeter's source skeleton")
        # One sum is finite exactly when every value is (or overflows: then look closely).
        if check_finite and not (np.isfinite(np.sum(clip.rotations))
                                 and np.isfinite(np.sum(clip.positions))):
            clip.check_finite()
        srot = self._source_fk.rotations(clip.rotations)
        spos = self.limbs.source_position_fk.positions(srot, clip.positions)
        if self.settings["filter_enabled"]:
            read = self.limbs.source_position_fk.joints
            filt = OneEuroFilter(clip.fps, self.settings["filter_min_cutoff"],
                                 self.settings["filter_beta"])
            spos[:, read] = filt.filter_series(spos[:, read])
        return srot, spos

    def _live_fixed(self) -> FloatArray:
        """``live_stance_level`` as a ``(2,)`` float array (a user may set any sequence)."""
        level = self.live_stance_level
        if not (isinstance(level, np.ndarray) and level.shape == (2,)
                and level.dtype == np.float64):
            level = self.live_stance_level = np.asarray(level, dtype=np.float64).reshape(2)
        return level

    def stance_level(self, clip: Clip) -> FloatArray:
        """``(2,)`` how high each source foot of ``clip`` stands above its standing height when
        planted (the median of its stance level over its planted frames), metres."""
        planted, levels, _ = self._track(clip)
        return planted_median(levels, planted, np.zeros(2))

    def stance_levels(self, clip: Clip) -> FloatArray:
        """``(F, 2)`` each source foot's stance level frame by frame, metres — what ``apply``
        takes off ``clip``'s foot heights (``footfall.footing``: the learned floor, raised to
        a planted foot's lowest point)."""
        return self._track(clip)[1]

    def _sizes(self, levels: FloatArray) -> Sizes:
        """The current sizes and settings the limbs solve with, for the source feet's stance
        ``levels`` ``(2,)`` or ``(..., 2)`` (the frames being solved)."""
        values = self.settings.values
        return Sizes(self.size_ratio, self.avatar_scale, self.source_measures,
                     self.target_measures, values["floor_height"],
                     values["foot_front_back_offset"], values["foot_in_out_offset"],
                     levels, self._calibration_world,
                     values["ik_mode"] != "fk")

    def _goal_weights(self, spos: FloatArray, props: ArrayLike | None,
                      chairs: ArrayLike | None) -> LimbWeights:
        """Goal weights ``(..., arms 2)``, ``(..., legs 2)``, ``(...)`` from source positions."""
        batch = spos.shape[:-2]
        arm_count = self.limbs.count - 2  # legs come first
        mode = self.settings["ik_mode"]
        values = self.settings.values
        switch = (float(values["left_arm_ik"]), float(values["right_arm_ik"]))
        value = 1.0 if mode == "ik" else 0.0
        if mode != "auto" and not batch:
            # One live frame with fixed weights: three small arrays, no arithmetic on them.
            return LimbWeights(np.array([value * switch[side] for side in self.limbs.arm_sides]),
                               np.array([value, value]), np.array(1.0))
        if mode != "auto":
            arms = np.full((*batch, arm_count), value)
            legs = np.full((*batch, 2), value)
            hips = np.ones(batch)
        else:
            frames = math.prod(batch)
            tips = self.limbs.source_tips
            arm_tips = tips[2:] if arm_count == 2 else tips[:0]
            raise_by = (self.target_measures.hips_height * self.avatar_scale
                        - self.source_measures.hips_height + self.settings["floor_height"])
            arms, legs, hips = np.empty((*batch, 2)), np.empty((*batch, 2)), np.empty(batch)
            source_goal_kernel(
                np.ascontiguousarray(spos.reshape(frames, -1, 3)), tips, arm_tips,
                self.correspondence.hips[1], self.size_ratio, raise_by,
                self.source_measures.ankle_height, max(self.source_measures.hips_height, 1e-9),
                points_array(props), points_array(chairs), self._weight_thresholds().as_array,
                arms.reshape(frames, 2), legs.reshape(frames, 2), hips.reshape(frames))
            arms = arms[..., :arm_count]
        if arm_count:
            arms = arms * np.array([switch[side] for side in self.limbs.arm_sides])
        return LimbWeights(np.asarray(arms, dtype=float), np.asarray(legs, dtype=float),
                           np.asarray(hips, dtype=float))

    def _weight_thresholds(self) -> WeightThresholds:
        """The automatic weights' thresholds of the current settings (rebuilt when they
        change; the thresholds keep their kernel array)."""
        values = self.settings.values
        key = tuple(values[name] for name in WeightThresholds.SETTINGS.values())
        if self._thresholds is None or self._thresholds[0] != key:
            self._thresholds = (key, WeightThresholds.from_settings(values))
        return self._thresholds[1]

    def _hips_target(self, hips_source: FloatArray, hips_weight: FloatArray,
                     levels: FloatArray) -> FloatArray:
        """Target hips world position ``(..., 3)`` from the source hips ``(..., 3)`` and the
        hips weight ``(...)`` (0: seated)."""
        s = self.size_ratio
        raise_by = (self.target_measures.hips_height * self.avatar_scale
                    - self.source_measures.hips_height)
        # The capture's floor (how high its planted feet stand) is taken off with the feet's.
        floor = levels
        # Standing, the hips' rise and fall around their standing height scales with the legs.
        above = hips_source[..., 1] - 0.5 * (floor[..., 0] + floor[..., 1])
        bob = above - self.source_measures.hips_height
        y = (above + (raise_by + (s - 1.0) * bob) * hips_weight
             + self.settings["floor_height"]
             + self.settings["chair_seat_height_offset"] * (1.0 - hips_weight))
        return np.stack([s * hips_source[..., 0], y, s * hips_source[..., 2]], axis=-1)

    def _solve(self, src_rot: FloatArray, src_lpos: FloatArray, weights: LimbWeights,
               foot_shift: FloatArray, levels: FloatArray,
               source_global: tuple[FloatArray, FloatArray] | None = None,
               toe_hold: str = "none") -> tuple[FloatArray, FloatArray]:
        """Target local ``(rotations, translations)`` for source local ones ``(..., Js, ·)``
        with the source feet's stance ``levels`` ``(2,)`` / ``(..., 2)`` (``source_global``:
        their FK when already known; ``toe_hold``: see ``Limbs.solve``)."""
        c = self.correspondence
        scale = self.avatar_scale
        srot, spos = (self._source_fk(src_rot, src_lpos) if source_global is None
                      else source_global)
        batch = srot.shape[:-2]
        joints = self.target.joint_count
        # Joint-major memory behind the usual (..., J, 4) view: joint gathers are contiguous.
        # ``world_jm`` is that memory as (J, ..., 4); one frame needs no view at all.
        world_jm = np.empty((joints, *batch, 4))
        source_jm = srot if not batch else np.moveaxis(srot, -2, 0)
        offsets = (self.offsets if not batch  # (M, 4) → (M, 1, …, 1, 4)
                   else self.offsets.reshape((len(self.offsets),) + (1,) * len(batch) + (4,)))
        world_jm[c.target_joints] = quat.mul(source_jm[c.source_joints], offsets)
        world = world_jm if not batch else np.moveaxis(world_jm, 0, -2)
        # Unmapped joints keep their calibration rotation below their (mapped) parents.
        self._unmapped_fk.rotations(self.calibration_pose, out=world)

        # Hips.
        hips_t, hips_s = c.hips
        hips_pos = self._hips_target(spos[..., hips_s, :], weights.hips, levels)
        lpos_jm = np.empty((joints, *batch, 3))
        lpos = lpos_jm if not batch else np.moveaxis(lpos_jm, 0, -2)
        lpos[...] = self.target.offsets * scale
        mover = self.limbs.mover
        parent = int(self.target.parents[mover])
        if mover == hips_t and parent < 0:
            lpos[..., hips_t, :] = hips_pos
        else:
            # Move the joint the hips and both legs hang from, so the legs come along.
            gpos = self.limbs.position_fk.positions(world, lpos)
            delta = hips_pos - gpos[..., hips_t, :]
            if parent >= 0:
                delta = quat.inv_rotate(world[..., parent, :], delta)
            lpos[..., mover, :] += delta

        # The trunk above the floor: the hips rise where it would go through (the legs then
        # reach down from there).
        if self.body_points is not None and self._body_fk is not None:
            rise = self.body_points.trunk_rise(world, self._body_fk.positions(world, lpos),
                                               self.settings["floor_height"], scale)
            if np.any(rise > 0.0):
                up = np.zeros(rise.shape + (3,))
                up[..., 1] = rise
                hips_pos = hips_pos + up
                if parent >= 0:
                    up = quat.inv_rotate(world[..., parent, :], up)
                lpos[..., mover, :] += up

        # Four-limb IK.
        if self.limbs.count:
            self.limbs.solve(world_jm, lpos_jm, srot, spos, hips_pos, weights, foot_shift,
                             self._sizes(levels), toe_hold)
        if self.body_points is not None and self._body_fk is not None:
            positions = self._legs_above_floor(world_jm, lpos_jm, world, lpos, scale)
            self.body_points.lift_limbs(world, positions, self.settings["floor_height"], scale)

        local = self._target_fk.local_rotations(world)
        return self._finish(local, src_rot), lpos

    def _legs_above_floor(self, world_jm: FloatArray, lpos_jm: FloatArray, world: FloatArray,
                          lpos: FloatArray, scale: float) -> FloatArray:
        """Where a solved leg's thigh or shin is under the floor (a thick shin in a deep crouch
        or a kneel), raise the hips by what it lacks and solve the legs again to the same feet,
        up to :data:`LEG_PASSES` times (the knee rises less than the hips). ``world_jm`` /
        ``lpos_jm``: the joint-major memory behind the ``(..., J, ·)`` views ``world``, ``lpos``.
        Returns the body's joint positions ``(..., J, 3)`` after (those the body points need).
        """
        assert self.body_points is not None and self._body_fk is not None
        body, floor = self.body_points, self.settings["floor_height"]
        positions = self._body_fk.positions(world, lpos)
        rise = body.leg_rise(world, positions, floor, scale)
        if not np.any(rise > 0.0) or np.any(body.legs < 0):
            return positions
        feet = positions[..., body.legs[:, 2], :].copy()  # (..., 2, 3) where the feet are
        mover = self.limbs.mover
        parent = int(self.target.parents[mover])
        for _ in range(LEG_PASSES):
            up = np.zeros(rise.shape + (3,))
            up[..., 1] = rise
            if parent >= 0:
                up = quat.inv_rotate(world[..., parent, :], up)
            lpos[..., mover, :] += up
            self.limbs.reach_again(world_jm, lpos_jm, feet)
            positions = self._body_fk.positions(world, lpos)
            rise = body.leg_rise(world, positions, floor, scale)
            if not np.any(rise > LEG_TOLERANCE):
                break
        return positions

    def _finish(self, local: FloatArray, source_local: FloatArray) -> FloatArray:
        """Head offset and finger pose on the local rotations (``source_local``: the source's
        local rotations, for ``finger_copy``)."""
        values = self.settings.values
        copy = values["finger_copy"]
        if copy != "rotation" and self.fingers.present:
            if copy == "curl" and self.source_fingers.present:
                curl, spread = self.source_fingers.measure(source_local)
            else:  # "none", or a source without fingers: the calibration pose
                curl = spread = np.zeros(source_local.shape[:-2] + (2, 5))
            local = self.fingers.apply(local, curl, spread)
        offset = [values[k] for k in HEAD_OFFSET_KEYS]
        if any(offset) and "Head" in self.target_map:
            local = apply_head_offset(local, self.target.index(self.target_map["Head"]), offset)
        if values["fingers_enabled"] and self.fingers.present:
            curl = np.array([[values[f"{h}_{f}_curl"] for f in FINGERS] for h in HANDS])
            spread = np.array([[values[f"{h}_{f}_spread"] for f in FINGERS] for h in HANDS])
            local = self.fingers.apply(local, curl, spread,
                                       (values["left_hand_enabled"], values["right_hand_enabled"]))
        return local
