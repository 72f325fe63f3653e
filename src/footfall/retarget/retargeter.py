"""The retargeter: motion of one skeleton onto another (seed 001's CustomRetargetingScript).

``Retargeter`` is the one object a user holds: it keeps the settings a user (or the remote
control) changes, and composes three parts —

- :class:`~footfall.retarget.saved_calibration.Calibration`: what is saved and loaded per
  avatar (the calibration poses and every setting), a value object (:attr:`Retargeter.calibration`);
- :func:`~footfall.retarget.offline.retarget_clip`: a whole clip, batched over frames
  (``apply``);
- :class:`~footfall.retarget.live_state.LiveRetarget`: what a live stream keeps between frames
  (``step``), handed the capture's stance level explicitly.

Both solve with :mod:`.solve` on the rig as calibrated (:mod:`.rig`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SettingsError, SkeletonError
from footfall.footing.tracker import planted_median
from footfall.humanoid.upright import upright_pose
from footfall.retarget.body_floor import BodyPoints
from footfall.retarget.calibration import Correspondence, Measures, SolePoints, facing_forward
from footfall.retarget.fingers import FINGERS, HANDS, FingerRig, preset
from footfall.retarget.floor import auto_floor_height, left_leg_length
from footfall.retarget.head import auto_avatar_scale, head_forward_offset_deg
from footfall.retarget.limbs import Limbs
from footfall.retarget.live_state import LiveRetarget
from footfall.retarget.offline import (
    clip_limb_weights,
    retarget_clip,
    scaled_skeleton,
    track_clip,
)
from footfall.retarget.props import PropAttachments
from footfall.retarget.rig import CalibratedRig, RetargetRig
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.settings import (
    HEAD_OFFSET_KEYS,
    RetargetSettings,
    load_settings,
    save_settings,
)
from footfall.retarget.solve import solve_frames
from footfall.retarget.standing_pose import standing_pose
from footfall.retarget.weights import LimbWeights
from footfall.skeleton import Clip, Skeleton


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
        #: The two skeletons matched bone to bone (fixed).
        self.rig = RetargetRig(source, target, mapping, target_mapping,
                               target_rest=target_rest, target_feet=target_feet,
                               target_hands=target_hands, target_body=target_body)
        self.source, self.target = source, target
        self.source_map, self.target_map = self.rig.source_map, self.rig.target_map
        self.correspondence: Correspondence = self.rig.correspondence
        self.target_rest = self.rig.target_rest
        self.target_sole_depth = self.rig.target_sole_depth
        self.body_points = self.rig.body_points
        #: The settings a user or the remote control changes (the values of
        #: :attr:`calibration`).
        self.settings = settings if settings is not None else RetargetSettings()
        #: The live stream's state (``step``).
        self.live = LiveRetarget()
        self._calibrated: CalibratedRig
        self.props: PropAttachments
        self.calibrate()

    # ------------------------------------------------------------------ calibration

    @property
    def calibration(self) -> Calibration:
        """The current calibration: its poses and the settings' values (a snapshot)."""
        cal = self._calibrated
        return Calibration(cal.source_pose, cal.standing_pose, cal.match_directions,
                           self.settings.values)

    @property
    def calibrated(self) -> CalibratedRig:
        """The rig as calibrated now (offsets, calibration pose, measures, limbs)."""
        return self._calibrated

    def calibrate(
        self,
        source_pose: ArrayLike | None = None,
        target_pose: ArrayLike | None = None,
        *,
        match_directions_first: bool = True,
    ) -> None:
        """Calibrate ``offset = inv(source_world) * target_world`` per matched bone.

        Args:
            source_pose: ``(Js, 4)`` source local rotations in a T- or I-pose (default: rest,
                turned upright when it lies on its side, see ``footfall.humanoid.upright``).
            target_pose: ``(Jt, 4)`` target local rotations (default: ``target_rest``, the
                same way).
            match_directions_first: turn the target's arms and legs to the source's directions
                first, so the two poses need not be the same (T against I).

        The props are attached afresh and the live stream starts again.
        """
        src = (quat.normalize(source_pose) if source_pose is not None else upright_pose(
            self.source, self.source_map, quat.identity((self.source.joint_count,))))
        tgt = (quat.normalize(target_pose) if target_pose is not None
               else upright_pose(self.target, self.target_map, self.target_rest))
        self._calibrated = self.rig.calibrated(
            Calibration(src, tgt, match_directions_first, self.settings.values))
        self.props = PropAttachments.build(self.target, self.target_map,
                                           self._calibrated.calibration_pose)
        self.live.reset()

    def calibrate_for(self, clip: Clip, frame: int | str | None = None) -> str:
        """Calibrate from the motion of ``clip``; returns what was done, in words (reports).

        ``frame``: None or ``"auto"`` — the pose the motion stands in
        (:func:`~footfall.retarget.standing_pose.standing_pose`: the most standing frame, each
        foot flat as it stands in its stances, stood up — legs straight, trunk upright — when
        no frame of the clip stands); an int — that frame as it is. Either is turned
        to face +Z. The pose is chosen by what the motion is in the world, never by how the
        file defines its rest rotations: the same animation written with other joint orients
        (a Maya-style export baking them into the channels) calibrates, and retargets, to the
        same joint positions."""
        if clip.skeleton.names != self.source.names:
            raise SkeletonError("clip skeleton does not match the retargeter's source skeleton")
        if clip.frame_count == 0:
            raise SkeletonError("an empty clip has no frame to calibrate from")
        if frame is None or frame == "auto":
            index, pose, stood = standing_pose(self.source, self.source_map, clip)
            self.calibrate(source_pose=pose)
            return (f"calibrated from frame {index} (the most standing, feet flat"
                    + ("; it does not stand: legs straightened, trunk upright)" if stood
                       else ")"))
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
                               source_positions: ArrayLike, *,
                               stance_level: ArrayLike | None = None) -> FloatArray:
        """Set the head rotation offset so the head looks straight ahead of the body in this
        source frame (``(Js, 4)`` local rotations, ``(Js, 3)`` translations; ``stance_level``:
        as ``step``'s); returns it (°)."""
        if "Head" not in self.target_map:
            raise SettingsError("the target has no Head bone to calibrate")
        self.settings.update(dict.fromkeys(HEAD_OFFSET_KEYS, 0.0))
        source = (np.asarray(source_rotations, dtype=np.float64)[None],
                  np.asarray(source_positions, dtype=np.float64)[None])
        cal, values = self._calibrated, self.settings.values
        levels = _stance_level(stance_level)
        limbs = cal.limbs
        shift = limbs.foot_shift(limbs.body_yaw(self.rig.source_fk(*source)[0]),
                                 cal.sizes(values, levels))
        # The legs on IK, the arms on FK.
        fixed = LimbWeights(np.zeros((1, limbs.count - 2)), np.ones((1, 2)), np.ones(1))
        rotations, positions = solve_frames(cal, values, *source, fixed, shift, levels)
        world = self.rig.target_fk(rotations, positions)[0][0]
        head = self.target.index(self.target_map["Head"])
        hips = self.correspondence.hips[0]
        offset = head_forward_offset_deg(world[head], world[hips],
                                         cal.calibration_world[head],
                                         cal.calibration_world[hips])
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
            _, spos = self.rig.source_fk(source_rotations, source_positions)
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
        """Save the :attr:`calibration` (settings and calibration poses) for ``avatar`` (JSON,
        atomic); returns the path."""
        return save_settings(self.calibration.settings(), avatar, folder)

    def load(self, avatar: str, folder: str | Path | None = None) -> None:
        """Load ``avatar``'s settings; a stored calibration is re-applied when it fits (files
        of every earlier save read the same)."""
        self.settings = load_settings(avatar, folder)
        stored = Calibration.of_settings(self.settings)
        src, tgt = stored.source_pose, stored.target_pose
        if (src is not None and tgt is not None and src.shape == (self.source.joint_count, 4)
                and tgt.shape == (self.target.joint_count, 4)):
            self.calibrate(src, tgt, match_directions_first=stored.match_directions)
        else:
            self.calibrate()

    # ------------------------------------------------------------------ the calibration's

    @property
    def offsets(self) -> FloatArray:
        """``(M, 4)`` ``inv(source_world) * target_world`` per matched bone."""
        return self._calibrated.offsets

    @property
    def source_pose(self) -> FloatArray:
        """``(Js, 4)`` the source's calibration pose."""
        return self._calibrated.source_pose

    @property
    def calibration_pose(self) -> FloatArray:
        """``(Jt, 4)`` the target's calibration pose (limbs turned to the source's)."""
        return self._calibrated.calibration_pose

    @property
    def calibration_world(self) -> FloatArray:
        """``(Jt, 4)`` the target's world rotations in its calibration pose."""
        return self._calibrated.calibration_world

    @property
    def source_measures(self) -> Measures:
        """The source's sizes in its calibration pose."""
        return self._calibrated.source_measures

    @property
    def target_measures(self) -> Measures:
        """The target's sizes standing (at scale 1)."""
        return self._calibrated.target_measures

    @property
    def fingers(self) -> FingerRig:
        """The target's fingers in its calibration pose."""
        return self._calibrated.fingers

    @property
    def source_fingers(self) -> FingerRig:
        """The source's fingers in its calibration pose."""
        return self._calibrated.source_fingers

    @property
    def limbs(self) -> Limbs:
        """The four-limb IK, calibrated."""
        return self._calibrated.limbs

    @property
    def avatar_scale(self) -> float:
        """Uniform size of the target (setting ``avatar_scale``)."""
        return float(self.settings["avatar_scale"])

    @property
    def size_ratio(self) -> float:
        """Target leg length (scaled) / source leg length: scales the travel, strides and hips."""
        return self._calibrated.size_ratio(self.avatar_scale)

    def output_skeleton(self) -> Skeleton:
        """The target skeleton at the current avatar scale."""
        return scaled_skeleton(self.target, self.avatar_scale)

    def prop_transforms(self, rotations: ArrayLike, translations: ArrayLike
                        ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """World ``(position (..., 3), rotation (..., 4))`` of every attached prop for target
        local ``rotations (..., Jt, 4)`` and ``translations (..., Jt, 3)`` (a retargeted pose)."""
        grot, gpos = self.rig.target_fk(rotations, translations)
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
        """Retarget a whole clip (batched over frames); returns a clip of the target
        (:func:`~footfall.retarget.offline.retarget_clip` with :attr:`calibration`, whose
        arguments these are)."""
        return retarget_clip(self.rig, self.calibration, clip, props=props, chairs=chairs,
                             chunk=chunk, progress=progress, stance_level=stance_level).clip

    def source_contacts(self, clip: Clip) -> NDArray[np.bool_]:
        """``(F, 2)`` whether the source's left / right foot is planted in each frame of
        ``clip``, as ``apply`` (and ``step`` fed the clip) finds it: the one contact rule of
        ``footfall.footing``."""
        return track_clip(self.rig, self.calibration, clip)[0]

    def stance_level(self, clip: Clip) -> FloatArray:
        """``(2,)`` how high each source foot of ``clip`` stands above its standing height when
        planted (the median of its stance level over its planted frames), metres."""
        planted, levels, _ = track_clip(self.rig, self.calibration, clip)
        return planted_median(levels, planted, np.zeros(2))

    def stance_levels(self, clip: Clip) -> FloatArray:
        """``(F, 2)`` each source foot's stance level frame by frame, metres — what ``apply``
        takes off ``clip``'s foot heights (``footfall.footing``: the learned floor, raised to
        a planted foot's lowest point)."""
        return track_clip(self.rig, self.calibration, clip)[1]

    def limb_weights(self, clip: Clip, *, props: ArrayLike | None = None,
                     chairs: ArrayLike | None = None) -> LimbWeights:
        """The smoothed IK weights ``apply`` uses for ``clip``: arms ``(F, A)``, legs ``(F, 2)``
        (1 = IK on), hips ``(F,)`` — to see where the automatic layers hand a limb to FK."""
        return clip_limb_weights(self.rig, self.calibration, clip, props=props, chairs=chairs)

    def step(
        self,
        rotations: ArrayLike,
        positions: ArrayLike,
        dt: float = 1.0 / 60.0,
        *,
        props: ArrayLike | None = None,
        chairs: ArrayLike | None = None,
        timestamp: float | None = None,
        stance_level: ArrayLike | None = None,
    ) -> tuple[FloatArray, FloatArray]:
        """Retarget one live frame: source ``(..., Js, 4)`` local rotations and ``(..., Js, 3)``
        translations → target ``(..., Jt, 4)``, ``(..., Jt, 3)``
        (:meth:`LiveRetarget.step <footfall.retarget.live_state.LiveRetarget.step>` on
        :attr:`live`). ``stance_level``: ``(2,)`` how high each source foot stands above its
        standing height when planted, metres — the capture's floor; 0 (default) for a
        capture system whose ground plane is y = 0 (Motive's)."""
        return self.live.step(self._calibrated, self.settings.values, rotations, positions,
                              dt, stance_level=_stance_level(stance_level), props=props,
                              chairs=chairs, timestamp=timestamp)


def _stance_level(level: ArrayLike | None) -> FloatArray:
    """A stance level as the ``(2,)`` float array the solve takes (0 when None)."""
    if level is None:
        return np.zeros(2)
    return np.asarray(level, dtype=np.float64).reshape(2)
