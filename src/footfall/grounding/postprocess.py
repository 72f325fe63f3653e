"""Ground any clip on a terrain (the engine recipe as a post-process), doing no harm.

Every change is a *correction of the source*, zero where nothing needs correcting:

- each foot is offset by the ground under it relative to the clip's own floor (the engine
  recipe's ``offset = hit − trace end``); on level ground at that floor the offset is zero;
- a swinging foot keeps its animated height above the real ground under each of its points,
  and rises above that only where the terrain would cut it (smoothed from above);
- the pelvis is lowered (or raised on a flight of stairs) with the lower foot, smoothed from
  below, so a leg never has to stretch further than the animation did;
- a planted foot is corrected only by the source's own defect: its lowest point put on the
  ground (it sank or floated) and its ball held where it landed (it slid), both blended in and
  out within 0.1 s; a lock lets go as soon as the source moves the foot faster than a stance
  slip, so a swing or a kick is never held back;
- the sole turns by the slope under it on top of its animated angle (none on level ground).

The legs are solved analytically (two-bone IK keeping the animated knee plane) only where a
correction is non-zero; only leg rotations and the root translation change, so bone lengths are
exact. A correction pass then measures the solved feet and removes what the tilt left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from footfall import metrics, quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.grounding.contacts import (
    bridge_gaps,
    detect_contacts,
    hold_contacts,
    horizontal_speed,
    segments,
)
from footfall.grounding.feet import (
    FootModel,
    Leg,
    calibration_frames,
    foot_model_from_motion,
    legs_of,
    toe_tips,
)
from footfall.grounding.foot_align import align_rotation, slope_angles
from footfall.grounding.locks import slip_locks
from footfall.grounding.params import DEFAULT_PARAMS, GroundingParams
from footfall.grounding.placement import frame_ranges, place_clip, turned
from footfall.humanoid.limbs import body_joints, pelvis_joint
from footfall.humanoid.topology import Hierarchy
from footfall.ik import solve_two_bone
from footfall.skeleton import Clip, chain_local_rotations, forward_kinematics
from footfall.terrain.hits import RayHits

if TYPE_CHECKING:
    from footfall.terrain.base import BoundedRaySource, RaySource

PELVIS_SMOOTH_SECONDS = 0.25
#: Corrections of a planted foot are blended in and out over this long (seconds);
#: swing offsets are smoothed from above over the same time.
BLEND_SECONDS = 0.1
#: Solves after the first that measure the solved feet and correct what is left.
CORRECTION_PASSES = 2
#: Optional extra clearance (off by default): a swinging ball faster than SWING_SPEED m/s kept
#: ``ball_clearance`` metres over the ground. It changes the motion and is reported.
SWING_SPEED = 0.5
#: A correction smaller than this (metres) is none: the leg keeps its animated rotations.
NO_CORRECTION = 1e-9
#: A planted foot within this of its planted height (metres, above or below: capture noise,
#: PhysDiff's tolerance) is not corrected; beyond it, only the excess is.
STANCE_TOLERANCE = 0.005
#: A foot's planted height is the low percentile of its support joints' heights in stance.
REST_PERCENTILE = 5
#: A detected contact in which every support joint is higher than this over its planted height
#: (metres) is a slow low swing (a shuffle, a last small step), not a stance: left as animated.
CONTACT_FLOAT = 0.015
#: The ball is held only while it rests: within this of its planted height (metres); it is let
#: go when the heel rises onto the toes.
BALL_REST = 0.01


@dataclass(frozen=True)
class ClipFeet:
    """Where a clip's feet are, world metres: sole samples ``(F, 2, S, 3)`` (NaN-padded), ankles
    and toes (the ball joint) ``(F, 2, 3)``, and the points that touch the floor ``(F, 2, P,
    3)`` (NaN-padded): the heel and the rig's toe points, which bend where the sole cannot."""

    sole: FloatArray
    ankle: FloatArray
    toe: FloatArray
    touch: FloatArray


def clip_feet(
    rotations: FloatArray, positions: FloatArray, skeleton: Any, legs: tuple[Leg, Leg],
    models: tuple[FootModel, FootModel],
) -> ClipFeet:
    """Sole samples, ankles and toes of poses ``(F, J, 4)``, ``(F, J, 3)``."""
    grot, gpos = forward_kinematics(skeleton.parents, rotations, positions)
    samples = max(len(m.sole) for m in models)
    sole = np.full((gpos.shape[0], 2, samples, 3), np.nan)
    toe = np.empty((gpos.shape[0], 2, 3))
    tips = [toe_tips(skeleton, leg) for leg in legs]
    touch = np.full((gpos.shape[0], 2, 1 + max(len(t) for t in tips), 3), np.nan)
    for side, (leg, model) in enumerate(zip(legs, models, strict=True)):
        world = metrics.sole_world(grot[:, leg.foot], gpos[:, leg.foot], model.sole)
        sole[:, side, : len(model.sole)] = world
        toe[:, side] = world[:, -1] if leg.toes is None else gpos[:, leg.toes]  # ball joint
        touch[:, side, 0] = world[:, 0]  # heel
        for i, (joint, offset) in enumerate(tips[side], start=1):
            touch[:, side, i] = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
    ankle = gpos[:, [leg.foot for leg in legs]]
    return ClipFeet(sole, ankle, toe, touch)


def animation_floor(clip: Clip, legs: Any = None) -> float:
    """Height of the floor a clip was animated on: the 5th percentile over its motion's frames
    (not a calibration frame, :func:`~footfall.grounding.feet.calibration_frames`) of its lowest
    body joint or end site (:func:`footfall.humanoid.body_joints`), metres."""
    clip = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    grot, gpos = clip.forward_kinematics()
    body = body_joints(clip.skeleton, legs_of(clip.skeleton, legs))
    lowest = gpos[:, body, 1].min(axis=1)
    for joint, offset in clip.skeleton.end_sites.items():
        if joint in body:
            tip = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
            lowest = np.minimum(lowest, tip[:, 1])
    return float(np.percentile(lowest, 5))


def _smooth(values: FloatArray, window: int, reduce: Callable[..., Any] = np.mean) -> FloatArray:
    """Centred moving average (or ``reduce``: ``np.max``) ``(F, ...)`` along frames over
    ``window`` frames (edges held)."""
    if window < 2 or values.shape[0] < 2:
        return values.copy()
    half = window // 2
    pad = [(half, half)] + [(0, 0)] * (values.ndim - 1)
    view = sliding_window_view(np.pad(values, pad, mode="edge"), 2 * half + 1, axis=0)
    return reduce(view, axis=-1)


def _smooth_above(values: FloatArray, window: int) -> FloatArray:
    """A smooth curve ``(F, ...)`` never below ``values``: moving maximum, then moving average
    (per column along frames)."""
    return _smooth(_smooth(values, window, np.max), window)


def _blend_out(lift: FloatArray, contacts: NDArray[np.bool_], frames: int) -> FloatArray:
    """Per-foot lift ``(F, 2)`` held in contact, faded to zero over ``frames ≥ 1`` outside it."""
    out = np.where(contacts, lift, 0.0)
    index = np.arange(lift.shape[0])
    for foot in range(lift.shape[1]):
        contact_frames = np.nonzero(contacts[:, foot])[0]
        if contact_frames.size == 0:
            continue
        after = np.searchsorted(contact_frames, index)
        nearest = contact_frames[np.clip(after, 0, contact_frames.size - 1)]
        before = contact_frames[np.clip(after - 1, 0, contact_frames.size - 1)]
        closer = np.where(np.abs(before - index) < np.abs(nearest - index), before, nearest)
        distance = np.abs(closer - index)
        weight = np.clip(1.0 - distance / (frames + 1), 0.0, 1.0)
        out[:, foot] = np.where(contacts[:, foot], out[:, foot], lift[closer, foot] * weight)
    return out


def _fill_missing(values: FloatArray) -> FloatArray:
    """``(F, ...)`` with NaN replaced by the nearest earlier finite value along frames (the
    next one before the first; 0 where a column has none)."""
    finite = np.isfinite(values)
    index = np.where(finite, np.arange(len(values)).reshape(-1, *([1] * (values.ndim - 1))), -1)
    last = np.maximum.accumulate(index, axis=0)
    first = np.argmax(finite, axis=0)
    last = np.where(last < 0, first, last)
    out = np.take_along_axis(values, last, axis=0)
    return np.where(np.isfinite(out), out, 0.0)


def contact_segments(contacts: NDArray[np.bool_]) -> dict[str, list[list[int]]]:
    """Contacts ``(F, 2)`` as ``{"left": [[start, stop], ...], "right": [...]}`` (stop
    exclusive): the report's list a user can check, and what ``--contacts`` reads back."""
    return {side: [[int(a), int(b)] for a, b in segments(contacts[:, i])]
            for i, side in enumerate(("left", "right"))}


def contacts_from_segments(data: Any, frames: int, where: str = "contacts") -> NDArray[np.bool_]:
    """Contacts ``(F, 2)`` from :func:`contact_segments`' JSON (or a report holding it under
    ``"contacts"``); raises :class:`SkeletonError` naming the field at fault."""
    if isinstance(data, dict) and "contacts" in data and "left" not in data:
        data = data["contacts"]
    if not isinstance(data, dict):
        raise SkeletonError(f"{where}: expected an object with 'left' and 'right' lists")
    out = np.zeros((frames, 2), dtype=bool)
    for i, side in enumerate(("left", "right")):
        spans = data.get(side)
        if not isinstance(spans, list):
            raise SkeletonError(f"{where}: '{side}' must be a list of [start, stop] frames")
        for k, span in enumerate(spans):
            ok = (isinstance(span, list) and len(span) == 2
                  and all(isinstance(v, int) and not isinstance(v, bool) for v in span))
            if not ok or not 0 <= span[0] < span[1] <= frames:
                raise SkeletonError(
                    f"{where}: {side}[{k}] = {span!r} is not [start, stop] with "
                    f"0 <= start < stop <= {frames}"
                )
            out[span[0]:span[1], i] = True
    return out


@dataclass
class GroundResult:
    """A grounded clip and its report (``before`` / ``after`` metrics, contacts, warnings)."""

    clip: Clip
    before: dict[str, float]
    after: dict[str, float]
    contacts: NDArray[np.bool_]
    off_terrain_frames: int = 0
    warnings: list[str] = field(default_factory=list)
    swing_lift_max_m: float = 0.0

    def report(self) -> dict[str, Any]:
        """The JSON report: ``{"before": {...}, "after": {...}, "contacts": {...}, ...}``."""
        return {
            "before": self.before,
            "after": self.after,
            "frames": self.clip.frame_count,
            "fps": self.clip.fps,
            "contact_ratio": float(self.contacts.mean()) if self.contacts.size else 0.0,
            "contacts": contact_segments(self.contacts),
            "off_terrain_frames": self.off_terrain_frames,
            "swing_lift_max_m": self.swing_lift_max_m,
            "warnings": self.warnings,
        }


def score(clip: Clip, feet: ClipFeet, contacts: NDArray[np.bool_], terrain: RaySource,
          legs: tuple[Leg, Leg], rest: FloatArray, floor: float | None = None
          ) -> dict[str, float]:
    """Every metric of a clip on ``terrain``, each under the name of what it is.

    Over the body's joints (:func:`footfall.humanoid.body_joints`): ``gmd_foot_skate_ratio``
    (GMD's released code, its own floor, not the terrain) and ``physdiff_*_mm`` (the lowest
    joint against the terrain); footfall's own, over the ``contacts (F, 2)``:
    ``contact_error_m`` and ``support_defect_ratio`` (seed 002, sole samples),
    ``stance_sink_m`` and ``stance_float_m`` (lowest sole sample below / above the ground),
    ``stance_slip_m`` (ankle travel per frame), ``contact_skate_ratio`` (pairs of contact frames
    faster than 0.5 m/s) and, from the feet's planted support-joint heights ``rest (2, P)``,
    ``stance_height_error_m`` (mean |height above or below planted| of the planted feet's
    support joints: ankle, ball, toe tips, over the terrain: :func:`_defect_over`; ``floor`` is
    the clip's floor height while its feet are still as animated, None once they stand on the
    terrain).
    """
    _, gpos = clip.forward_kinematics()
    body = body_joints(clip.skeleton, legs)  # a still node above the pelvis is no body part
    # The (left, right) toe-base joints GMD's ratio follows (the foot where there is none).
    toes = np.searchsorted(body, [leg.foot if leg.toes is None else leg.toes for leg in legs])
    gpos = gpos[:, body]
    out = {"gmd_foot_skate_ratio": metrics.gmd_foot_skate_ratio(gpos, clip.fps, *toes)}
    heights = _joint_heights(gpos, terrain)
    physdiff = metrics.physdiff_metrics(heights, gpos[..., [0, 2]])
    out.update({f"physdiff_{key}": value for key, value in physdiff.items()})
    stance = metrics.contact_metrics(metrics.ground_gaps(terrain, feet.sole), contacts)
    renamed = {"penetration_m": "stance_sink_m", "floating_m": "stance_float_m"}
    out.update({renamed.get(key, key): value for key, value in stance.items()})
    out["stance_slip_m"] = metrics.stance_slip(feet.ankle, contacts)
    out["contact_skate_ratio"] = metrics.contact_skate_ratio(feet.toe, contacts, clip.fps)
    defect = _defect_over(_support_heights(feet, terrain), rest, feet, floor)
    out["stance_height_error_m"] = float(np.abs(defect[contacts]).mean()) if contacts.any() \
        else 0.0
    return out


def _joint_heights(positions: FloatArray, terrain: RaySource) -> FloatArray:
    """Every joint's height ``(F, J)`` over the ground under it, with rays cast only for the
    joints that can be the lowest over the ground (within the terrain's height span of the
    frame's lowest joint); the others get +inf, which no minimum picks."""
    low, high = getattr(terrain, "height_range", (-np.inf, np.inf))
    span = float(high - low) if np.isfinite(high - low) else np.inf
    y = positions[..., 1]
    candidate = y <= y.min(axis=1, keepdims=True) + span + 1e-9
    heights = np.full(y.shape, np.inf)
    heights[candidate] = metrics.ground_gaps(terrain, positions[candidate])
    return heights


def _clip_setup(
    clip: Clip, legs: Any
) -> tuple[tuple[Leg, Leg], tuple[FootModel, FootModel], float, ClipFeet]:
    """Legs, soles measured on the motion, the animation's floor and where the feet are."""
    leg_pair = legs_of(clip.skeleton, legs)
    floor = animation_floor(clip, leg_pair)
    grot, gpos = clip.forward_kinematics()
    usable = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    models = (foot_model_from_motion(clip.skeleton, leg_pair[0], grot, gpos, floor, usable=usable),
              foot_model_from_motion(clip.skeleton, leg_pair[1], grot, gpos, floor, usable=usable))
    feet = clip_feet(clip.rotations, clip.positions, clip.skeleton, leg_pair, models)
    return leg_pair, models, floor, feet


def _contacts(feet: ClipFeet, floor: float, fps: float) -> NDArray[np.bool_]:
    """Contacts from the motion (low and slow), held while the heel or toe still touches the
    floor and slides slower than a swing (see :mod:`footfall.grounding.contacts`)."""
    lowest = np.nanmin(feet.sole[..., 1], axis=-1)  # (F, 2)
    contacts = detect_contacts(
        lowest - floor, horizontal_speed(feet.ankle, fps), horizontal_speed(feet.toe, fps), fps
    )
    heights = np.where(np.isfinite(feet.touch[..., 1]), feet.touch[..., 1], np.inf)
    low = heights.argmin(axis=-1)  # (F, 2) the touching point: heel, ball or toe tip
    point = np.take_along_axis(feet.touch, low[..., None, None], axis=2)[:, :, 0]
    held = hold_contacts(contacts, point[..., 1] - floor, horizontal_speed(point, fps))
    return bridge_gaps(held, feet.toe, fps)


def _check_contacts(contacts: Any, frames: int) -> NDArray[np.bool_]:
    contacts = np.asarray(contacts, dtype=bool)
    if contacts.shape != (frames, 2):
        raise SkeletonError(f"contacts have shape {contacts.shape}; expected ({frames}, 2)")
    return contacts


def measure_clip(clip: Clip, terrain: RaySource, contacts: Any = None, legs: Any = None) -> dict:
    """:func:`score` of a clip's motion (without calibration frames, as :func:`ground_clip`
    measures it) as it stands on ``terrain`` (contacts found in the motion when not given)."""
    clip.check_finite()
    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    if contacts is not None:
        contacts = _check_contacts(contacts, clip.frame_count)[motion]
    clip = clip[motion]
    leg_pair, _, floor, feet = _clip_setup(clip, legs)
    if contacts is None:
        contacts = _contacts(feet, floor, clip.fps)
    rest = _planted_heights(_support_heights(feet, LevelGround(floor)), contacts)
    return score(clip, feet, contacts, terrain, leg_pair, rest, floor)


#: Sole samples taken every this many (of 1 cm) when finding the ground under a foot.
SOLE_STRIDE = 3


def _points(feet: ClipFeet) -> FloatArray:
    """The points of each foot that can touch the ground ``(F, 2, N, 3)`` (NaN-padded): the
    sole every 3 cm with its toe end, and the touch points (heel, ball, toe tips)."""
    sole = feet.sole[:, :, ::SOLE_STRIDE]
    return np.concatenate([sole, feet.sole[:, :, -1:], feet.touch], axis=2)


def _ground_offsets(points: FloatArray, shift: FloatArray, terrain: RaySource, floor: float
                    ) -> tuple[FloatArray, NDArray[np.bool_]]:
    """How far each foot must move up ``(F, 2)`` so every point ``(F, 2, N, 3)`` (moved by the
    horizontal ``shift (F, 2, 2)``) keeps its animated height over the ground under it, and
    where the ground under a foot is missing ``(F, 2)``."""
    moved = points.copy()
    moved[..., [0, 2]] += shift[:, :, None, :]
    below = metrics.ground_gaps(terrain, np.where(np.isfinite(moved), moved, np.nan))
    ground = moved[..., 1] - below  # (F, 2, N) NaN where there is no ground
    off = np.any(np.isfinite(points[..., 1]) & ~np.isfinite(ground), axis=-1)
    with np.errstate(invalid="ignore"):
        need = np.nanmax(np.where(np.isfinite(ground), ground - floor, -np.inf), axis=-1)
    need = np.where(np.isfinite(need), need, np.nan)
    return _fill_missing(need), off


def _support_heights(feet: ClipFeet, terrain: RaySource, shift: FloatArray | None = None
                     ) -> FloatArray:
    """Heights ``(F, 2, P)`` of the joints each foot stands on over the ground straight under
    them (NaN off the terrain, NaN padding): the ankle (standing on the heel), the ball and the
    toe tips (pushing off) — measured joints, not the modelled sole. ``shift (F, 2, 2)`` moves
    each foot horizontally first."""
    points = np.concatenate([feet.ankle[:, :, None], feet.touch[:, :, 1:]], axis=2)
    if shift is not None:
        points[..., [0, 2]] += shift[:, :, None, :]
    return metrics.ground_gaps(terrain, points)


def _planted_heights(heights: FloatArray, contacts: NDArray[np.bool_]) -> FloatArray:
    """Each foot's support joint heights ``(2, P)`` when planted: a low percentile over its
    contact frames (over every frame for a foot that never touches down)."""
    rest = np.empty(heights.shape[1:])
    for foot in range(heights.shape[1]):
        frames = contacts[:, foot] if contacts[:, foot].any() else slice(None)
        rest[foot] = np.nanpercentile(heights[frames, foot], REST_PERCENTILE, axis=0)
    return rest


def _stance_defect(heights: FloatArray, rest: FloatArray) -> FloatArray:
    """How far each foot ``(F, 2)`` is above (+) or below (−) planted, from its support joints'
    ``heights (F, 2, P)`` (ankle, ball, toe tips) against their planted heights ``rest (2, P)``.

    It floats by what its lowest support joint is above planted (a foot on its toe tips at
    push-off is planted); it sinks by what the lower of its ankle and ball is below planted — a
    toe tip alone under the floor is a bent toe, not a sunken foot.
    """
    relative = heights - rest
    lifted = np.min(np.where(np.isfinite(relative), relative, np.inf), axis=-1)
    sunk = np.min(np.where(np.isfinite(relative[..., :2]), relative[..., :2], np.inf), axis=-1)
    defect = np.where(lifted > 0, lifted, np.minimum(sunk, 0.0))
    return np.where(np.isfinite(defect) & np.isfinite(lifted), defect, 0.0)


def _defect_over(over: FloatArray, rest: FloatArray, feet: ClipFeet | None = None,
                 floor: float | None = None) -> FloatArray:
    """Each foot's stance defect ``(F, 2)`` over the terrain (metres, + above planted), from
    its support joints' heights over the ground under them ``over (F, 2, P)``
    (:func:`_support_heights`) against their planted heights ``rest (2, P)``.

    Feet still as animated on the clip's ``floor`` (``feet`` and the floor's height given): the
    ground's height under the ankle above that floor is taken out before
    :func:`_stance_defect`'s rule and put back after, so the rule judges the foot's own pose and
    only how uneven the ground is across the foot (a foot on its toe tips stays one, not a
    sunken foot). Feet already put on the terrain (no ``floor``) are judged as they stand.
    """
    if feet is None or floor is None:
        return _stance_defect(over, rest)
    ankle_ground = feet.ankle[..., 1] - over[..., 0] - floor
    lift = np.where(np.isfinite(ankle_ground), ankle_ground, 0.0)
    return _stance_defect(over + lift[..., None], rest) - lift


def _sustained(defect: FloatArray, contacts: NDArray[np.bool_], window: int) -> FloatArray:
    """The part ``(F, 2)`` of a stance defect that is real: beyond :data:`STANCE_TOLERANCE` and
    held for ``window`` frames inside a contact. A foot still coming down after heel strike or
    already rising at toe-off is moving, not floating; capture noise is within the tolerance."""
    excess = np.sign(defect) * np.maximum(np.abs(defect) - STANCE_TOLERANCE, 0.0)
    excess = np.where(contacts, excess, 0.0)
    above = -_smooth(-np.maximum(excess, 0.0), window, np.max)  # moving minimum of the float
    below = _smooth(np.minimum(excess, 0.0), window, np.max)  # moving maximum of the sink
    return np.where(contacts, above + below, 0.0)


def _foot_tilt(feet: ClipFeet, shift: FloatArray, terrain: RaySource, contacts: NDArray[np.bool_],
               params: GroundingParams, blend: int) -> FloatArray:
    """World rotations ``(F, 2, 4)`` turning each planted sole by the slope under it (seed
    004's NormalToRotator in 3D; steep faces ignored, clamped), faded in and out around
    contacts and smoothed; the identity on level ground."""
    hits = terrain.raycast_down(feet.ankle[..., [0, 2]] + shift)
    forward = feet.toe - feet.ankle
    normal = np.where(hits.hit[..., None], hits.normal, np.array([0.0, 1.0, 0.0]))
    pitch, roll = slope_angles(normal, forward, params.steep_normal_y, params.max_slope)
    angles = np.stack([pitch, roll], axis=-1) * _blend_out(
        np.ones(contacts.shape), contacts, blend
    )[..., None]
    angles = _smooth(angles, blend)
    tilt = align_rotation(angles[..., 0], angles[..., 1], forward)
    level = np.all(np.abs(angles) < 1e-12, axis=-1)
    return np.where(level[..., None], quat.identity(level.shape), tilt)


def _solve_legs(clip: Clip, legs: tuple[Leg, Leg], lift: FloatArray, targets: FloatArray,
                tilt: FloatArray, root: int) -> Clip:
    """The clip with its root raised by ``lift (F,)`` and each leg solved so its ankle reaches
    ``targets (F, 2, 3)`` (world) with the foot turned by ``tilt (F, 2, 4)``; legs that need
    no correction keep their animated rotations."""
    rotations = clip.rotations.copy()
    positions = clip.positions.copy()
    positions[:, root, 1] += lift
    grot, gpos = forward_kinematics(clip.skeleton.parents, rotations, positions)
    parents = clip.skeleton.parents
    for side, leg in enumerate(legs):
        hip, knee, ankle = gpos[:, leg.upper], gpos[:, leg.lower], gpos[:, leg.foot]
        target = targets[:, side]
        turn = tilt[:, side]
        active = (np.linalg.norm(target - ankle, axis=-1) > NO_CORRECTION) | (
            np.abs(turn[:, 0]) < 1.0 - 1e-15
        )
        if not np.any(active):
            continue
        limb = np.linalg.norm(knee - hip, axis=-1) + np.linalg.norm(ankle - knee, axis=-1)
        reach = np.linalg.norm(ankle - hip, axis=-1) / np.maximum(limb, 1e-12)
        solved = solve_two_bone(hip, knee, ankle, target,
                                max_reach=np.clip(reach + 1e-9, 0.999, 1.0))
        chain = [leg.upper, leg.lower, leg.foot]
        world = quat.mul(np.stack([solved.upper_rotation, solved.lower_rotation, turn], axis=1),
                         grot[:, chain])
        parent = grot[:, parents[leg.upper]] if parents[leg.upper] >= 0 else quat.identity(
            (clip.frame_count,))
        local = quat.normalize(chain_local_rotations(parent, world))
        rotations[:, chain] = np.where(active[:, None, None], local, rotations[:, chain])
    return Clip(clip.skeleton, rotations, positions, clip.fps)


class LevelGround:
    """Endless level ground at one height (a clip's own floor), answering rays like a terrain."""

    name = "level"
    params: dict[str, Any] = {}

    def __init__(self, height: float) -> None:
        self.height_value = float(height)
        self.bounds = ((-1e6, -1e6), (1e6, 1e6))
        self.height_range = (self.height_value, self.height_value)

    def height(self, xz: FloatArray) -> FloatArray:
        """``(...)`` the ground height under points ``(..., 2)``."""
        return np.full(np.shape(xz)[:-1], self.height_value)

    def raycast_down(self, xz: FloatArray) -> RayHits:
        xz = np.asarray(xz, dtype=np.float64)
        point = np.stack([xz[..., 0], np.full(xz.shape[:-1], self.height_value), xz[..., 1]], -1)
        shape = xz.shape[:-1]
        return RayHits(point, np.broadcast_to([0.0, 1.0, 0.0], (*shape, 3)),
                       np.ones(shape, dtype=bool), np.zeros(shape))


@dataclass
class _Plan:
    """What grounding a clip decides before solving, per frame and foot ``(F, 2[, 2])``.

    contacts: planted frames; rest: ``(2, 3)`` planted heights of the support joints;
    allowed: the part of the source's stance defect that may stay;
    shift / pinned / slip: horizontal slip-lock shift of each foot beyond the tolerance, where
    a lock holds it, and the whole slip it holds ``(F, 2)``;
    offset: vertical target offset of each ankle; pelvis: ``(F,)`` pelvis offset; tilt: sole
    tilt; off: feet with no ground under them; lift_extra: the optional ball clearance lift.
    """

    contacts: NDArray[np.bool_]
    rest: FloatArray
    allowed: FloatArray
    shift: FloatArray
    pinned: NDArray[np.bool_]
    slip: FloatArray
    offset: FloatArray
    pelvis: FloatArray
    tilt: Any
    off: NDArray[np.bool_]
    lift_extra: FloatArray


def _plan_stances(planted: FloatArray, contacts: NDArray[np.bool_], blend: int
                  ) -> tuple[NDArray[np.bool_], FloatArray, FloatArray, FloatArray]:
    """Contacts, planted heights, the source's stance defect and the part of it that may stay
    (see :class:`_Plan`) from the support joints' heights over the clip's floor ``planted``: a
    "contact" with every support joint well above its planted height is a slow swing."""
    rest = _planted_heights(planted, contacts)
    source_defect = _stance_defect(planted, rest)
    contacts = contacts & (source_defect <= CONTACT_FLOAT)
    rest = _planted_heights(planted, contacts)
    source_defect = _stance_defect(planted, rest)
    allowed = source_defect - _sustained(source_defect, contacts, blend)
    return contacts, rest, source_defect, allowed


def _plan_slips(feet: ClipFeet, planted: FloatArray, contacts: NDArray[np.bool_], rest: FloatArray,
                fps: float) -> tuple[FloatArray, NDArray[np.bool_], FloatArray]:
    """Resting balls held where they landed, by no more than the source slid beyond the
    tolerance: the horizontal shift ``(F, 2, 2)``, where a lock holds ``(F, 2)`` and the whole
    slip it holds ``(F, 2)``."""
    with np.errstate(invalid="ignore"):
        ball_rests = planted[:, :, 1] - rest[None, :, 1] <= BALL_REST
    shift, pinned = slip_locks(feet.toe, contacts & ball_rests, fps)
    size = np.linalg.norm(shift, axis=-1, keepdims=True)
    shift = shift * np.maximum(size - STANCE_TOLERANCE, 0.0) / np.maximum(size, 1e-12)
    return shift, pinned, size[..., 0]


def _plan(feet: ClipFeet, terrain: RaySource, floor: float, contacts: NDArray[np.bool_],
          params: GroundingParams, fps: float, ball_clearance: float) -> _Plan:
    """Everything :func:`ground_clip` decides before solving (see :class:`_Plan`)."""
    blend = max(1, int(round(BLEND_SECONDS * fps)))
    planted = _support_heights(feet, LevelGround(floor))
    contacts, rest, source_defect, allowed = _plan_stances(planted, contacts, blend)
    shift, pinned, slip = _plan_slips(feet, planted, contacts, rest, fps)
    # Vertical: each foot offset by the ground under it relative to the clip's floor; swings
    # smoothed from above (rise early before a stair nose, come down after it).
    need, off = _ground_offsets(_points(feet), shift, terrain, floor)
    swing_need = _smooth_above(need, blend)
    lift_extra = np.zeros(contacts.shape)
    if ball_clearance > 0:
        ball_gap = feet.toe[..., 1] - floor  # the ball's animated height over its floor
        speed = horizontal_speed(feet.toe, fps)
        fast = (speed > SWING_SPEED) & ~contacts
        lift_extra = np.where(fast, np.maximum(ball_clearance - ball_gap, 0.0), 0.0)
        lift_extra = np.where(contacts, 0.0, _smooth_above(lift_extra, blend))
    # A planted foot stands on the ground by its support joints, keeping only what may stay of
    # the source's own defect (within the tolerance, or not sustained).
    support = _support_heights(feet, terrain, shift)
    standing = allowed - _defect_over(support, rest, feet, floor)
    standing = np.where(np.isfinite(support[..., :2]).all(axis=-1), standing, need)
    offset = np.where(contacts, standing, swing_need + lift_extra)
    # The pelvis follows the ground, not the defect corrections (a floating foot is lowered by
    # its own leg, not by lowering the body).
    ground_part = np.where(contacts, standing + (source_defect - allowed), swing_need)
    # Smoothed from below (moving minimum, then average): never above the lower foot's ground.
    pelvis_window = max(1, int(round(PELVIS_SMOOTH_SECONDS * fps)))
    pelvis = _smooth(-_smooth(-ground_part.min(axis=1), pelvis_window, np.max), pelvis_window)
    tilt = _foot_tilt(feet, shift, terrain, contacts, params, blend)
    return _Plan(contacts, rest, allowed, shift, pinned, slip, offset, pelvis, tilt, off,
                 lift_extra)


def _solve_with_corrections(
    source: Clip, feet: ClipFeet, plan: _Plan, terrain: RaySource, leg_pair: tuple[Leg, Leg],
    models: tuple[FootModel, FootModel], root: int, blend: int,
    progress: Callable[[int, int], None] | None,
) -> tuple[Clip, ClipFeet]:
    """The solved clip and its feet: legs solved to the plan's targets, then
    :data:`CORRECTION_PASSES` more times removing the planted feet's measured defect and lock
    drift."""
    total = 2 + CORRECTION_PASSES
    correction = np.zeros(plan.contacts.shape)  # stance height corrections found on the solved feet
    drift = np.zeros((*plan.contacts.shape, 2))
    for step in range(1 + CORRECTION_PASSES):
        targets = feet.ankle.copy()
        targets[..., [0, 2]] += plan.shift + drift
        targets[..., 1] += plan.offset + correction
        out = _solve_legs(source, leg_pair, plan.pelvis, targets, plan.tilt, root)
        solved = clip_feet(out.rotations, out.positions, source.skeleton, leg_pair, models)
        if progress is not None:
            progress(step + 1, total)
        if step == CORRECTION_PASSES:
            break
        # The planted feet's defect beyond what may stay of the source's own: the next solve
        # removes it.
        defect = _defect_over(_support_heights(solved, terrain), plan.rest)
        error = np.where(plan.contacts & ~plan.off, defect - plan.allowed, 0.0)
        correction = correction - _blend_out(error, plan.contacts, blend)
        wanted = feet.toe[..., [0, 2]] + plan.shift
        moved = solved.toe[..., [0, 2]] - wanted
        held = plan.pinned & (plan.slip > STANCE_TOLERANCE)
        drift = drift - np.where(held[..., None], moved, 0.0)
    return out, solved


def _off_terrain(result: GroundResult, solved: ClipFeet, terrain: RaySource,
                 first: int = 0) -> None:
    """Count and name in a warning the frames where a solved foot (frames ``first`` on) has no
    ground under it."""
    frames = result.contacts.shape[0]
    points = _points(solved)
    gaps = metrics.ground_gaps(terrain, points)
    left_terrain = np.any(np.isfinite(points[..., 1]) & ~np.isfinite(gaps), axis=-1)
    # Frames ahead of the solved ones (a calibration frame) never leave it.
    left_terrain = np.pad(left_terrain, ((first, frames - first - len(left_terrain)), (0, 0)))
    result.off_terrain_frames = int(left_terrain.any(axis=1).sum())
    for side, name in enumerate(("left", "right")):
        if left_terrain[:, side].any():
            result.warnings.append(
                f"the {name} foot leaves the terrain in frames "
                f"{frame_ranges(left_terrain[:, side])} of {frames}: the ground under it is "
                "missing there (it keeps its animated height over the nearest ground it had)"
            )


def ground_clip(
    clip: Clip,
    terrain: BoundedRaySource,
    params: GroundingParams = DEFAULT_PARAMS,
    *,
    place: bool = True,
    legs: Any = None,
    contacts: ArrayLike | None = None,
    progress: Callable[[int, int], None] | None = None,
    ball_clearance: float = 0.0,
) -> GroundResult:
    """Ground ``clip`` (metres, Y up, animated on a flat floor) on ``terrain``, doing no harm
    (see the module docstring).

    place: turn and move the clip over the terrain first (:func:`place_clip`); contacts:
    ``(F, 2)`` bool to use instead of the ones found in the motion; ball_clearance: optional
    extra clearance (metres, default 0 = as animated) for swinging balls faster than
    :data:`SWING_SPEED`; how far it raised any swing is ``swing_lift_max_m``. A clip holding
    NaN raises :class:`SkeletonError` naming the frame and joint.
    """
    clip.check_finite()
    if clip.frame_count < 1:
        raise SkeletonError("the clip has no frames")
    if not (np.isfinite(ball_clearance) and 0.0 <= ball_clearance <= 0.5):
        raise SkeletonError(f"ball_clearance must be in [0, 0.5] m, got {ball_clearance}")
    if contacts is not None:
        contacts = _check_contacts(contacts, clip.frame_count)
    # A calibration pose as first or last frame is no motion: the motion is grounded without
    # it, and it comes back as it was (moved and turned with the clip where it was placed).
    cut = calibration_frames(clip.rotations, clip.skeleton.parents)
    start, stop = int(cut[0]), clip.frame_count - int(cut[-1])
    motion = clip[start:stop] if cut.any() else clip
    result, solved = _ground_motion(motion, terrain, params, place, legs,
                                    None if contacts is None else contacts[start:stop],
                                    progress, ball_clearance)
    if cut.any():
        result.clip = _with_frames_back(clip, start, stop, result.clip)
        result.contacts = np.pad(result.contacts,
                                 ((start, clip.frame_count - stop), (0, 0)))
    _off_terrain(result, solved, terrain, start)
    return result


def _ground_motion(clip: Clip, terrain: BoundedRaySource, params: GroundingParams, place: bool,
                   legs: Any, contacts: NDArray[np.bool_] | None,
                   progress: Callable[[int, int], None] | None, ball_clearance: float
                   ) -> tuple[GroundResult, ClipFeet]:
    """:func:`ground_clip` of a clip without calibration frames; the result and its solved
    feet."""
    source = place_clip(clip, terrain, legs) if place else clip.copy()
    root = int(np.nonzero(clip.skeleton.parents < 0)[0][0])
    leg_pair, models, floor, feet = _clip_setup(source, legs)
    fps = clip.fps
    found = _contacts(feet, floor, fps) if contacts is None else contacts
    plan = _plan(feet, terrain, floor, found, params, fps, ball_clearance)
    before = score(source, feet, plan.contacts, terrain, leg_pair, plan.rest, floor)
    blend = max(1, int(round(BLEND_SECONDS * fps)))
    out, solved = _solve_with_corrections(source, feet, plan, terrain, leg_pair, models, root,
                                          blend, progress)
    after = score(out, solved, plan.contacts, terrain, leg_pair, plan.rest)
    out = _follow(out, _followers(source, leg_pair))
    if progress is not None:
        progress(2 + CORRECTION_PASSES, 2 + CORRECTION_PASSES)
    return GroundResult(out, before, after, plan.contacts,
                        swing_lift_max_m=float(np.max(plan.lift_extra, initial=0.0))), solved


#: A joint outside the body that stays this close (metres) to a body joint in every frame
#: carries that joint's pose, and within this angle (radians) its turn too.
FOLLOW_DISTANCE = 1e-3
FOLLOW_ANGLE = 0.01


def _followers(clip: Clip, legs: tuple[Leg, Leg]) -> list[tuple[int, int, bool]]:
    """``(follower, leader, turns too)`` for each joint outside the body that carries a body
    joint's world position in every frame (Unreal's ``ik_foot_l`` / ``ik_foot_r``, which an
    engine's IK reads), and whether it carries its world rotation as well. Parents first."""
    body = body_joints(clip.skeleton, legs)
    pelvis = pelvis_joint(clip.skeleton, legs)
    hierarchy = Hierarchy(tuple(clip.skeleton.names), clip.skeleton.parents)
    inside = set(body.tolist())
    # Not the joints the body hangs from: moving one would move its leader too.
    outside = [j for j in range(clip.skeleton.joint_count)
               if j not in inside and not hierarchy.is_ancestor(j, pelvis)]
    if not outside or clip.frame_count == 0:
        return []
    grot, gpos = clip.forward_kinematics()
    found = []
    for joint in outside:
        distance = np.linalg.norm(gpos[:, body] - gpos[:, joint, None], axis=-1).max(axis=0)
        nearest = int(np.argmin(distance))
        if distance[nearest] < FOLLOW_DISTANCE:
            leader = int(body[nearest])
            alike = np.abs(np.sum(grot[:, joint] * grot[:, leader], axis=-1))
            found.append((int(joint), leader, bool(alike.min() > np.cos(FOLLOW_ANGLE / 2))))
    return found  # joint order: a BVH or glTF skeleton lists parents first


def _follow(clip: Clip, followers: list[tuple[int, int, bool]]) -> Clip:
    """``clip`` with each follower's local translation (and rotation, where it turns too) set
    so that it carries its leader's world pose, frame by frame."""
    if not followers:
        return clip
    rotations, positions = clip.rotations.copy(), clip.positions.copy()
    parents = clip.skeleton.parents
    for joint, leader, turns in followers:
        grot, gpos = forward_kinematics(parents, rotations, positions)
        parent = int(parents[joint])
        turn = grot[:, parent] if parent >= 0 else quat.identity((clip.frame_count,))
        at = gpos[:, parent] if parent >= 0 else np.zeros((clip.frame_count, 3))
        positions[:, joint] = quat.inv_rotate(turn, gpos[:, leader] - at)
        if turns:
            rotations[:, joint] = quat.normalize(quat.inv_mul(turn, grot[:, leader]))
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def _with_frames_back(clip: Clip, start: int, stop: int, grounded: Clip) -> Clip:
    """``grounded`` (frames ``start:stop`` of ``clip``) with ``clip``'s other frames put back,
    turned about +Y and moved horizontally as placing moved the clip (read off the roots' first
    grounded frame: grounding changes no root rotation and moves roots only vertically)."""
    roots = np.nonzero(clip.skeleton.parents < 0)[0]
    turn = quat.mul(grounded.rotations[0, roots[0]], quat.inv(clip.rotations[start, roots[0]]))
    shift = grounded.positions[0, roots[0]] - quat.rotate(turn, clip.positions[start, roots[0]])
    shift[1] = 0.0
    out = turned(clip, turn, shift)
    out.rotations[start:stop], out.positions[start:stop] = grounded.rotations, grounded.positions
    return out
