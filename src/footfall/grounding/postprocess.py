"""Ground any clip on a terrain (seed 003's recipe as a post-process, seed 004 #09's locks).

Given a clip animated on a flat floor: place it on the terrain, find its contacts from the feet
themselves, lock planted feet in world space, offset each foot by the ground under it, lower the
pelvis, solve the legs and align the soles — the same :class:`GroundingPipeline` as the walker,
run over all frames at once (frames are the batch). Offline, the pelvis is smoothed without lag
(a moving minimum, then a moving average: never above the height the feet need) and a
correction pass puts each planted sole's lowest point exactly on the ground. Only rotations and
the root translation change, so bone lengths are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from footfall import metrics, quat
from footfall.errors import SkeletonError
from footfall.grounding.contacts import (
    bridge_gaps,
    detect_contacts,
    hold_contacts,
    horizontal_speed,
)
from footfall.grounding.feet import (
    FootModel,
    Leg,
    foot_model_from_motion,
    legs_of,
    toe_tips,
)
from footfall.grounding.locks import ball_locks, contact_plan, release_over_swing, turn_xz
from footfall.grounding.params import DEFAULT_PARAMS, GroundingParams
from footfall.grounding.pipeline import FootPlan, GroundingPipeline
from footfall.skeleton import Clip, forward_kinematics

FloatArray = NDArray[np.float64]
#: Frames per pipeline call (bounds memory on long clips; progress is reported per chunk).
CHUNK = 1024
PELVIS_SMOOTH_SECONDS = 0.25
LIFT_BLEND_SECONDS = 0.1
CORRECTION_PASSES = 3
#: Candidate places along x tried by :func:`place_clip`, and the margin kept to the terrain's ends.
PLACE_CANDIDATES = 64
PLACE_MARGIN = 0.5
#: A swinging foot whose ball moves faster than SWING_SPEED keeps the ball at least
#: BALL_CLEARANCE over the ground under it. Below that, a fast foot is a foot dragged along the
#: ground: it scuffs over bumps and stair noses, and GMD's foot-skate test (ball under 5 cm,
#: over 0.5 m/s) counts it as skating. ``ground_clip(..., ball_clearance=0)`` turns it off.
BALL_CLEARANCE = metrics.SKATE_HEIGHT
SWING_SPEED = metrics.SKATE_SPEED
#: The correction passes reach an asked height from below; aiming this much (metres) above it
#: keeps a foot that got there from ending a rounding error under it.
CLEARANCE_MARGIN = 1e-3


@dataclass(frozen=True)
class ClipFeet:
    """Where a clip's feet are: sole samples ``(F, 2, S, 3)`` (NaN-padded when the two soles
    differ in length), ankles and toes (the ball joint) ``(F, 2, 3)``, and the points that touch
    the floor ``(F, 2, P, 3)`` (NaN-padded): the heel and the rig's own toe points (ball, toe
    tip), which bend with the toes where the rigid sole cannot; world metres."""

    sole: FloatArray
    ankle: FloatArray
    toe: FloatArray
    touch: FloatArray | None = None


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


def place_clip(clip: Clip, terrain: Any) -> Clip:
    """The clip turned about +Y so its root travels along +X and moved over the terrain's
    interesting part: the up flight of stairs, else the stretch along x (at the middle z) where
    the ground under the clip's lowest points varies most (the middle on flat ground)."""
    root = int(np.nonzero(clip.skeleton.parents < 0)[0][0])
    path = clip.positions[:, root]
    travel = path[-1] - path[0]
    yaw = np.arctan2(travel[0], travel[2]) if np.hypot(travel[0], travel[2]) > 0.2 else np.pi / 2
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2 - yaw)
    rotations = clip.rotations.copy()
    positions = clip.positions.copy()
    rotations[:, root] = quat.mul(turn, rotations[:, root])
    positions[:, root] = quat.rotate(turn, positions[:, root])
    params = getattr(terrain, "params", {}) or {}
    (x_min, z_min), (x_max, z_max) = terrain.bounds
    if "stairs_start" in params and "landing_start" in params:
        centre = np.array([(params["stairs_start"] + params["landing_start"]) / 2, 0.0])
    else:
        centre = np.array([(x_min + x_max) / 2, (z_min + z_max) / 2])
    turned = positions[:, root][:, [0, 2]]
    middle = (turned.min(axis=0) + turned.max(axis=0)) / 2
    positions[:, root, 0] += centre[0] - middle[0]
    positions[:, root, 2] += centre[1] - middle[1]
    placed = Clip(clip.skeleton, rotations, positions, clip.fps)
    if "stairs_start" not in params:
        positions[:, root, 0] += _roughest_shift(placed, terrain, (x_min, x_max))
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def _roughest_shift(clip: Clip, terrain: Any, x_range: tuple[float, float]) -> float:
    """Shift along x (metres) that puts the clip's lowest points ``(F,)`` over the most uneven
    ground (largest spread of heights) while they stay on the terrain; 0 when all is level."""
    _, gpos = clip.forward_kinematics()
    lowest = np.take_along_axis(gpos, gpos[..., 1].argmin(axis=1)[:, None, None], axis=1)[:, 0]
    points = lowest[:, [0, 2]]  # (F, 2)
    low = x_range[0] + PLACE_MARGIN - points[:, 0].min()
    high = x_range[1] - PLACE_MARGIN - points[:, 0].max()
    if high <= low:
        return 0.0
    shifts = np.linspace(low, high, PLACE_CANDIDATES)
    shifts = np.append(shifts, 0.0)  # the middle wins ties
    moved = points[None] + np.stack([shifts, np.zeros_like(shifts)], axis=-1)[:, None]
    heights = np.asarray(terrain.height(moved), np.float64)
    spread = np.where(np.isfinite(heights), heights, 0.0).std(axis=1)
    best = int(np.argmax(spread))
    return float(shifts[best]) if spread[best] > spread[-1] + 1e-6 else 0.0


def animation_floor(clip: Clip) -> float:
    """Height of the floor a clip was animated on: the 5th percentile over frames of its lowest
    joint or end site, metres."""
    grot, gpos = clip.forward_kinematics()
    lowest = gpos[..., 1].min(axis=1)
    for joint, offset in clip.skeleton.end_sites.items():
        tip = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
        lowest = np.minimum(lowest, tip[:, 1])
    return float(np.percentile(lowest, 5))


def _smooth_below(values: FloatArray, window: int) -> FloatArray:
    """A smooth curve ``(F,)`` never above ``values``: moving minimum, then moving average."""
    if window < 2 or values.shape[0] < 2:
        return values.copy()
    half = window // 2
    padded = np.pad(values, half, mode="edge")
    eroded = sliding_window_view(padded, 2 * half + 1).min(axis=-1)
    padded = np.pad(eroded, half, mode="edge")
    return sliding_window_view(padded, 2 * half + 1).mean(axis=-1)


def _smooth_mean(values: FloatArray, window: int) -> FloatArray:
    """Centred moving average ``(F, ...)`` along frames over ``window`` frames (edges held)."""
    if window < 2 or values.shape[0] < 2:
        return values.copy()
    half = window // 2
    pad = [(half, half)] + [(0, 0)] * (values.ndim - 1)
    return sliding_window_view(np.pad(values, pad, mode="edge"), 2 * half + 1, axis=0).mean(-1)


def _smooth_above(values: FloatArray, window: int) -> FloatArray:
    """A smooth curve ``(F, ...)`` never below ``values``: moving maximum, then moving average
    (per column along frames)."""
    if window < 2 or values.shape[0] < 2:
        return values.copy()
    half = window // 2
    pad = [(half, half)] + [(0, 0)] * (values.ndim - 1)
    dilated = sliding_window_view(np.pad(values, pad, mode="edge"), 2 * half + 1, axis=0)
    dilated = dilated.max(axis=-1)
    averaged = sliding_window_view(np.pad(dilated, pad, mode="edge"), 2 * half + 1, axis=0)
    return averaged.mean(axis=-1)


def _carry_shift(
    shift: FloatArray, pinned: NDArray[np.bool_], weight: FloatArray
) -> FloatArray:
    """Lock shifts ``(F, feet, 2)`` carried from each lock's last fully pinned frame over the
    frames in which that lock is let go (``0 < weight < 1``), so releasing it does not jump."""
    frames = shift.shape[0]
    index = np.where(pinned, np.arange(frames)[:, None], -1)
    last = np.maximum.accumulate(index, axis=0)  # (F, feet) last pinned frame so far
    carried = np.take_along_axis(shift, np.maximum(last, 0)[..., None], axis=0)
    releasing = ~pinned & (weight > 0.0) & (last >= 0)
    return np.where(releasing[..., None], carried, shift)


def _blend_out(lift: FloatArray, contacts: NDArray[np.bool_], frames: int) -> FloatArray:
    """Per-foot lift ``(F, 2)`` held in contact and faded to zero over ``frames`` outside it."""
    out = np.where(contacts, lift, 0.0)
    if frames < 1:
        return out
    index = np.arange(lift.shape[0])
    for foot in range(lift.shape[1]):
        contact_frames = np.nonzero(contacts[:, foot])[0]
        if contact_frames.size == 0:
            continue
        nearest = contact_frames[np.clip(np.searchsorted(contact_frames, index), 0,
                                         contact_frames.size - 1)]
        before = contact_frames[np.clip(np.searchsorted(contact_frames, index) - 1, 0,
                                        contact_frames.size - 1)]
        closer = np.where(np.abs(before - index) < np.abs(nearest - index), before, nearest)
        distance = np.abs(closer - index)
        weight = np.clip(1.0 - distance / (frames + 1), 0.0, 1.0)
        out[:, foot] = np.where(contacts[:, foot], out[:, foot], lift[closer, foot] * weight)
    return out


@dataclass
class GroundResult:
    """A grounded clip and its report (``before`` / ``after`` metrics, fallbacks, warnings)."""

    clip: Clip
    before: dict[str, float]
    after: dict[str, float]
    contacts: NDArray[np.bool_]
    fallback_frames: int = 0
    warnings: list[str] = field(default_factory=list)
    swing_lift_max_m: float = 0.0

    def report(self) -> dict[str, Any]:
        """The JSON report: ``{"before": {...}, "after": {...}, ...}``."""
        return {
            "before": self.before,
            "after": self.after,
            "frames": self.clip.frame_count,
            "fps": self.clip.fps,
            "contact_ratio": float(self.contacts.mean()) if self.contacts.size else 0.0,
            "fallback_frames": self.fallback_frames,
            "swing_lift_max_m": self.swing_lift_max_m,
            "warnings": self.warnings,
        }


def score(feet: ClipFeet, contacts: NDArray[np.bool_], terrain: Any, fps: float) -> dict:
    """The clip metrics of the issue on ``feet`` over ``terrain`` during ``contacts (F, 2)``."""
    gaps = metrics.ground_gaps(terrain, feet.sole)  # (F, 2, S)
    out = metrics.contact_metrics(gaps, contacts)
    # GMD: the foot (toe/ball) joints' own height above the ground, 5 cm / 0.5 m/s.
    toe_height = metrics.ground_gaps(terrain, feet.toe)
    out["foot_skate_ratio"] = metrics.foot_skate_ratio(
        feet.toe, np.where(np.isfinite(toe_height), toe_height, np.inf), fps
    )
    out["stance_slip_m"] = metrics.stance_slip(feet.ankle, contacts)
    out["contact_skate_ratio"] = metrics.contact_skate_ratio(feet.toe, contacts, fps)
    return out


def _clip_setup(
    clip: Clip, legs: Any
) -> tuple[tuple[Leg, Leg], tuple[FootModel, FootModel], float, ClipFeet]:
    """Legs, soles measured on the motion, the animation's floor and where the feet are."""
    leg_pair = legs_of(clip.skeleton, legs)
    floor = animation_floor(clip)
    grot, gpos = clip.forward_kinematics()
    models = tuple(foot_model_from_motion(clip.skeleton, g, grot, gpos, floor) for g in leg_pair)
    feet = clip_feet(clip.rotations, clip.positions, clip.skeleton, leg_pair, models)
    return leg_pair, models, floor, feet


def _contacts(feet: ClipFeet, floor: float, fps: float) -> NDArray[np.bool_]:
    """Contacts from the motion (low and slow), held while the heel or toe still touches the
    floor and slides slower than a swing (see :mod:`footfall.grounding.contacts`)."""
    lowest = np.nanmin(feet.sole[..., 1], axis=-1)  # (F, 2)
    contacts = detect_contacts(
        lowest - floor, horizontal_speed(feet.ankle, fps), horizontal_speed(feet.toe, fps), fps
    )
    assert feet.touch is not None
    heights = np.where(np.isfinite(feet.touch[..., 1]), feet.touch[..., 1], np.inf)
    low = heights.argmin(axis=-1)  # (F, 2) the touching point: heel, ball or toe tip
    point = np.take_along_axis(feet.touch, low[..., None, None], axis=2)[:, :, 0]
    held = hold_contacts(contacts, point[..., 1] - floor, horizontal_speed(point, fps))
    return bridge_gaps(held, feet.toe, fps)


def measure_clip(clip: Clip, terrain: Any, contacts: Any = None, legs: Any = None) -> dict:
    """:func:`score` of a clip as it stands (see :func:`footfall.metrics.score_clip`)."""
    clip.check_finite()
    _, _, floor, feet = _clip_setup(clip, legs)
    if contacts is None:
        contacts = _contacts(feet, floor, clip.fps)
    contacts = np.asarray(contacts, dtype=bool)
    if contacts.shape != (clip.frame_count, 2):
        raise SkeletonError(
            f"contacts have shape {contacts.shape}; expected ({clip.frame_count}, 2)"
        )
    return score(feet, contacts, terrain, clip.fps)


def ground_clip(
    clip: Clip,
    terrain: Any,
    params: GroundingParams = DEFAULT_PARAMS,
    *,
    place: bool = True,
    legs: Any = None,
    progress: Callable[[int, int], None] | None = None,
    ball_clearance: float = BALL_CLEARANCE,
) -> GroundResult:
    """Ground ``clip`` (metres, Y up, animated on a flat floor) on ``terrain``.

    Swinging feet keep the clearance each sole sample had over the animation's floor, and a
    ball moving faster than :data:`SWING_SPEED` stays ``ball_clearance`` metres (default
    :data:`BALL_CLEARANCE`; 0 = off) over the ground; the report's ``swing_lift_max_m`` says
    how far any swing was raised for these.

    Raises :class:`SkeletonError` naming the frame and joint when the clip holds NaN.
    """
    clip.check_finite()
    if clip.frame_count < 1:
        raise SkeletonError("the clip has no frames")
    if not (np.isfinite(ball_clearance) and 0.0 <= ball_clearance <= 0.5):
        raise SkeletonError(f"ball_clearance must be in [0, 0.5] m, got {ball_clearance}")
    skeleton = clip.skeleton
    source = place_clip(clip, terrain) if place else clip.copy()
    root = int(np.nonzero(skeleton.parents < 0)[0][0])
    leg_pair, models, floor, feet = _clip_setup(source, legs)
    fps = clip.fps
    contacts = _contacts(feet, floor, fps)
    before = score(feet, contacts, terrain, fps)

    rotations = source.rotations.copy()
    positions = source.positions.copy()
    positions[:, root, 1] -= floor  # the animation's floor becomes y = 0
    ankle_xz = feet.ankle[..., [0, 2]]
    lock_xz, lock_weight, lock_turn = ball_locks(feet.ankle, feet.toe, contacts, fps)
    stance, swing, plant, next_plant = contact_plan(ankle_xz, contacts)
    lock_weight = release_over_swing(lock_weight, contacts, swing)
    # Where each locked ball should be: the ankle lock plus the animated ankle → ball offset,
    # turned with the foot. Tilting the sole to the ground turns it about the ankle, so the
    # correction passes move the ankle lock until the solved ball is back there.
    ball_goal = lock_xz + turn_xz((feet.toe - feet.ankle)[..., [0, 2]], lock_turn)
    pinned = lock_weight > 1.0 - 1e-9
    offline = replace(params, smoothing=False)
    frames = clip.frame_count
    chunks = [(s, min(s + CHUNK, frames)) for s in range(0, frames, CHUNK)]
    passes = 2 * (1 + CORRECTION_PASSES)
    done = 0
    pipelines: dict[int, GroundingPipeline] = {}

    def run(
        lift: FloatArray, pelvis: FloatArray | None, angles: FloatArray | None
    ) -> tuple[FloatArray, FloatArray, Any]:
        nonlocal done
        out_rot, out_pos = np.empty_like(rotations), np.empty_like(positions)
        offsets, fallback = np.empty(frames), np.zeros((frames, 2), dtype=bool)
        applied = np.zeros((frames, 2, 2))
        for start, stop in chunks:
            size = stop - start
            if size not in pipelines:
                pipelines[size] = GroundingPipeline(
                    skeleton, terrain, size, offline, leg_pair, feet=models
                )
            pipe = pipelines[size]
            pipe.reset()
            part = slice(start, stop)
            plan = FootPlan(stance[part], swing[part], plant[part], next_plant[part],
                            lock_xz[part] + lock_shift[part], lock_weight[part], lock_turn[part])
            frame = pipe.step(rotations[part], positions[part], plan, 1.0 / fps,
                              foot_lift=lift[part],
                              pelvis_offset=None if pelvis is None else pelvis[part],
                              sole_angles=None if angles is None else angles[part])
            out_rot[part], out_pos[part] = frame.rotations, frame.positions
            offsets[part], fallback[part] = frame.pelvis_offset, frame.fallback
            applied[part] = np.stack([frame.sole_pitch, frame.sole_roll], axis=-1)
            done += 1
            if progress is not None:
                progress(done, passes * len(chunks))
        return out_rot, out_pos, (offsets, fallback, applied)

    window = max(1, int(round(PELVIS_SMOOTH_SECONDS * fps)))
    swing_window = max(1, int(round(LIFT_BLEND_SECONDS * fps)))
    # What each sole sample cleared over the animation's floor: a swinging foot keeps at least
    # that clearance over the ground actually under it (a toe must not cut through a stair
    # riser); on flat ground this asks for nothing, and a sample the animation itself put below
    # its floor (toes bent past the rigid sole) is not lifted.
    clearance = feet.sole[..., 1] - floor  # (F, 2, S)
    lift = np.zeros((frames, 2))
    swing_lift = np.zeros((frames, 2))
    lock_shift = np.zeros((frames, 2, 2))
    angles = None
    for correction in range(1 + CORRECTION_PASSES):
        _, _, (goal, _, found) = run(lift + swing_lift, None, angles)
        if angles is None:
            # The sole angles of the first pass, smoothed over time and then held: on a
            # faceted mesh the normal under a moving ankle jumps from face to face, and angles
            # that changed from pass to pass would undo the lock correction below.
            angles = _smooth_mean(found, swing_window)
        out_rot, out_pos, (_, fallback, _) = run(
            lift + swing_lift, _smooth_below(goal, window), angles
        )
        if correction == CORRECTION_PASSES:
            break
        solved = clip_feet(out_rot, out_pos, skeleton, leg_pair, models)
        if correction == 0:  # the locks first; later passes correct heights at those places
            drift = solved.toe[..., [0, 2]] - ball_goal
            lock_shift = _carry_shift(
                lock_shift - np.where((pinned & ~fallback)[..., None], drift, 0.0),
                pinned, lock_weight,
            )
        gaps = metrics.ground_gaps(terrain, solved.sole)
        low = np.nanmin(np.where(np.isfinite(gaps), gaps, np.inf), axis=-1)
        error = np.where(np.isfinite(low) & contacts & ~fallback, low, 0.0)
        lift = lift - _blend_out(error, contacts, int(round(LIFT_BLEND_SECONDS * fps)))
        with np.errstate(invalid="ignore"):
            short = np.nanmax(np.where(np.isfinite(gaps), clearance - gaps, -np.inf), axis=-1)
        short = np.where(np.isfinite(short) & ~contacts & ~fallback, np.maximum(short, 0.0), 0.0)
        # A fast ball keeps its clearance (speed to the next frame, as the skate test takes it).
        ball_gap = metrics.ground_gaps(terrain, solved.toe)  # (F, 2)
        step = np.linalg.norm(np.diff(solved.toe[..., [0, 2]], axis=0), axis=-1) * fps
        fast = np.concatenate([step, step[-1:]]) > SWING_SPEED
        fast &= np.isfinite(ball_gap) & ~contacts & ~fallback
        ask = ball_clearance + CLEARANCE_MARGIN if ball_clearance > 0 else 0.0
        short = np.maximum(short, np.where(fast, ask - ball_gap, 0.0))
        swing_lift = np.where(
            contacts, 0.0, swing_lift + _smooth_above(short, swing_window)
        )

    grounded = Clip(skeleton, out_rot, out_pos, fps)
    after = score(clip_feet(out_rot, out_pos, skeleton, leg_pair, models), contacts, terrain, fps)
    result = GroundResult(grounded, before, after, contacts)
    result.swing_lift_max_m = float(np.max(swing_lift, initial=0.0))
    missing = int(fallback.any(axis=1).sum())
    result.fallback_frames = missing
    if missing:
        result.warnings.append(
            f"{missing} of {frames} frames: the ground under a foot was missing or out of reach "
            "(hole, cliff or off the terrain); the animated foot was kept there"
        )
    return result
