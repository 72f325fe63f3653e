"""What grounding a clip decides before solving (:class:`Plan`): which frames are planted, how
far each ankle moves up and sideways, the hips offset and the sole tilt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing import horizontal_speeds
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.stance_level import planted_heights, stance_defect
from footfall.grounding.clip.kneels import KneelFit, kneel_fit, kneeling_lift
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.smoothing import (
    fill_missing,
    smooth,
    smooth_above,
    spread_above,
)
from footfall.grounding.clip.sole_tilt import foot_tilt
from footfall.grounding.clip.tread_fit import tread_fit
from footfall.grounding.locks import slip_locks
from footfall.grounding.params import GroundingParams
from footfall.metrics import ground_gaps
from footfall.metrics.stance import defect_over, support_heights
from footfall.metrics.swing import blend_across_swings, swing_spans
from footfall.terrain.base import RaySource
from footfall.terrain.level import LevelGround

HIPS_SMOOTH_SECONDS = 0.25
#: Corrections of a planted foot are blended in and out over this long (seconds);
#: swing offsets are smoothed from above over the same time.
BLEND_SECONDS = 0.1
#: Optional extra clearance (off by default): a swinging ball faster than SWING_SPEED m/s kept
#: ``ball_clearance`` metres over the ground. It changes the motion and is reported.
SWING_SPEED = 0.5
#: A planted foot within this of its planted height (metres, above or below: capture noise,
#: PhysDiff's tolerance) is not corrected; beyond it, only the excess is.
STANCE_TOLERANCE = 0.005
#: A detected contact in which every support joint is higher than this over its planted height
#: (metres) is a slow low swing (a shuffle, a last small step), not a stance: left as animated.
CONTACT_FLOAT = 0.015
#: The ball is held only while it rests: within this of its planted height (metres); it is let
#: go when the heel rises onto the toes.
BALL_REST = 0.01
#: A swing cut by the terrain by less than this (metres: rounding) is not lifted.
NO_LIFT = 1e-9
#: A swinging foot's point within this of lower ground (metres, horizontally) grazes a riser's
#: face, no deeper in it than this, rather than cutting the tread above: it is not lifted over
#: that tread (games105 circle_right_backward on the stairs: walking backward, the modelled
#: heel 0.4-4 mm short of a riser, one frame on its plane, read the upper tread and was lifted
#: 97 mm for it). Under the 5 mm a foot point may go deeper than the source's own dip. Only a
#: face steeper than ``GRAZE_STEEP`` (rise over run) is grazed: a point on a slope is in it.
GRAZE, GRAZE_STEEP = 0.002, 5.0


def blend_frames(fps: float) -> int:
    """:data:`BLEND_SECONDS` in frames at ``fps`` (at least 1)."""
    return max(1, int(round(BLEND_SECONDS * fps)))


@dataclass
class Plan:
    """What grounding a clip decides before solving, per frame and foot ``(F, 2[, 2])``.

    contacts: planted frames; rest: ``(2, P)`` planted heights of the support joints;
    allowed: the part of the source's stance defect that may stay;
    shift / locked / slip: horizontal slip-lock shift of each foot beyond the tolerance, where
    a lock holds it, and the whole slip it holds ``(F, 2)``;
    ankle_offset: vertical target offset of each ankle; hips_offset: ``(F,)`` how far the
    hips move up; tilt: sole tilt ``(F, 2, 4)``; off_terrain: feet with no ground under
    them; swing_clearance: the optional ball clearance lift; kneel: the kneels moved where they
    fit the ground (:func:`~footfall.grounding.clip.kneels.kneel_fit`; its ``body (F, 2)``: how
    far the body, its root, moves horizontally, x and z metres).
    """

    contacts: NDArray[np.bool_]
    rest: FloatArray
    allowed: FloatArray
    shift: FloatArray
    locked: NDArray[np.bool_]
    slip: FloatArray
    ankle_offset: FloatArray
    hips_offset: FloatArray
    tilt: FloatArray
    off_terrain: NDArray[np.bool_]
    swing_clearance: FloatArray
    swing_lift: FloatArray
    kneel: KneelFit


def plan(prepared: PreparedClip, terrain: RaySource, contacts: NDArray[np.bool_],
         params: GroundingParams, ball_clearance: float,
         step: FloatArray | None = None, kneel: KneelFit | None = None) -> Plan:
    """Everything :func:`~footfall.grounding.clip.ground.ground_clip` decides before solving
    (see :class:`Plan`); ``step (F, 2, 2)`` (x, z metres), when given, moves the feet further
    horizontally (a footstep moved off a crest found on a solved clip); ``kneel``, when given,
    places the kneels instead of :func:`~footfall.grounding.clip.kneels.kneel_fit` (decided
    once: the same for every footstep moved)."""
    feet, floor, fps = prepared.feet, prepared.floor, prepared.clip.fps
    blend = blend_frames(fps)
    over_floor = support_heights(feet, LevelGround(floor))
    contacts, rest, source_defect, allowed = _plan_stances(over_floor, contacts, blend)
    shift, locked, slip = _plan_slips(feet, over_floor, contacts, rest, fps, prepared.travel)
    if kneel is None:
        kneel = kneel_fit(prepared, shift, terrain, contacts)
    shift = shift + kneel.feet
    shift = shift + tread_fit(feet, shift, terrain, floor, contacts, kneel.kept, blend)
    if step is not None:
        shift = shift + step
    # Vertical: each foot offset by the ground under it relative to the clip's floor.
    need, off_terrain = _ground_offsets(feet.ground_points(), shift, terrain, floor)
    swing_clearance = np.zeros(contacts.shape)
    if ball_clearance > 0:
        ball_gap = feet.ball[..., 1] - floor  # the ball's animated height over its floor
        speed = horizontal_speeds(feet.ball, fps, centred=True)
        fast = (speed > SWING_SPEED) & ~contacts
        swing_clearance = np.where(fast, np.maximum(ball_clearance - ball_gap, 0.0), 0.0)
        swing_clearance = np.where(contacts, 0.0, smooth_above(swing_clearance, blend))
    # A planted foot stands on the ground by its support joints, keeping only what may stay of
    # the source's own defect (within the tolerance, or not sustained).
    support = support_heights(feet, terrain, shift)
    standing = allowed - defect_over(support, rest, feet.ankle, floor)
    standing = np.where(np.isfinite(support[..., :2]).all(axis=-1), standing, need)
    # The ground a planted foot stands on (relative to the floor; not the source's own defect
    # corrections): a swing keeps its animated height over that ground blended from lift-off to
    # touch-down (at the clip's start or end from or to the ground under the foot there; a
    # foot that never touches down: over the ground under it, smoothed from above), and rises
    # above it only where the terrain would cut it, by the least amount.
    stance_ground = standing + (source_defect - allowed)
    # out of contact, the ground the foot would stand on where it is: a swing at the clip's
    # start or end is blended from or to it there
    under = stance_ground
    stance_lift = _stance_lift(feet, shift, terrain, floor, standing, stance_ground, contacts,
                               blend)
    standing, stance_ground = standing + stance_lift[0], stance_ground + stance_lift[1]
    swing_ground = blend_to_edges(np.where(contacts, stance_ground, 0.0), contacts, feet.ankle,
                                  under)
    swing_ground = np.where(~contacts.any(axis=0), smooth_above(need, blend), swing_ground)
    points = swing_points(feet)
    points[..., [0, 2]] += shift[:, :, None, :]
    swing_lift = least_lift(points, terrain, floor, swing_ground + swing_clearance, swing_ground,
                            contacts, blend, swing_rig(feet), feet.ball[..., 1],
                            swing_ends(feet))
    ankle_offset = np.where(contacts, standing, swing_ground + swing_clearance + swing_lift)
    # The hips follow the ground, not the defect corrections (a floating foot is lowered by
    # its own leg, not by lowering the body).
    ground_part = np.where(contacts, stance_ground, swing_ground)
    # Smoothed from below (moving minimum, then average): never above the lower foot's ground.
    hips_window = max(1, int(round(HIPS_SMOOTH_SECONDS * fps)))
    hips_offset = smooth(-smooth(-ground_part.min(axis=1), hips_window, np.max),
                           hips_window)
    hips_offset = hips_offset + smooth_above(
        kneeling_lift(prepared, shift, terrain, ground_part, hips_offset), hips_window)
    tilt = foot_tilt(feet, shift, terrain, contacts, params, blend, fps)
    return Plan(contacts, rest, allowed, shift, locked, slip, ankle_offset, hips_offset, tilt,
                off_terrain, swing_clearance, swing_lift, kneel)


def blend_to_edges(values: FloatArray, contacts: NDArray[np.bool_], positions: FloatArray,
                   edges: FloatArray) -> FloatArray:
    """``values (F, 2)`` blended across every swing by the foot's horizontal progress along
    ``positions (F, 2, 3)`` (:func:`blend_across_swings`), a swing at the clip's start (end)
    from (to) ``edges (F, 2)`` at the clip's first (last) frame instead of held at its one
    contact's value. A foot never planted keeps ``values``.

    Held at the contact's value, a foot standing on its heel through the clip's first frames
    on a tread three steps below its first contact stayed that contact's height over it, 0.57 m
    in the air (cmu_131_01 backward on the stairs, frames 0-56)."""
    ends = np.zeros(contacts.shape, dtype=bool)
    ends[[0, -1]] = True
    ends &= ~contacts & contacts.any(axis=0)
    return blend_across_swings(np.where(ends, edges, values), contacts | ends, positions)


def _plan_stances(over_floor: FloatArray, contacts: NDArray[np.bool_], blend: int
                  ) -> tuple[NDArray[np.bool_], FloatArray, FloatArray, FloatArray]:
    """Contacts, planted heights, the source's stance defect and the part of it that may stay
    (see :class:`Plan`) from the support joints' heights over the clip's floor ``over_floor``:
    a "contact" with every support joint well above its planted height is a slow swing."""
    rest = planted_heights(over_floor, contacts)
    source_defect = stance_defect(over_floor, rest)
    contacts = contacts & (source_defect <= CONTACT_FLOAT)
    rest = planted_heights(over_floor, contacts)
    source_defect = stance_defect(over_floor, rest)
    # Only a planted foot sunk under its planted height is the source's defect to correct; one
    # held higher stands on something (a lift keeps its height: the contact rule's too), and
    # on any ground it keeps that height over the ground under it.
    allowed = source_defect - np.minimum(_sustained(source_defect, contacts, blend), 0.0)
    return contacts, rest, source_defect, allowed


def _plan_slips(feet: ClipFeet, over_floor: FloatArray, contacts: NDArray[np.bool_],
                rest: FloatArray, fps: float, travel: FloatArray | None = None
                ) -> tuple[FloatArray, NDArray[np.bool_], FloatArray]:
    """Resting balls held where they landed, by no more than the source slid beyond the
    tolerance: the horizontal shift ``(F, 2, 2)``, where a lock holds ``(F, 2)`` and the whole
    slip it holds ``(F, 2)``. A clip walked in place holds them on the ground that travels
    under it (``travel (F, 2)``, x and z metres: :attr:`PreparedClip.travel`)."""
    rise = over_floor[:, :, 1] - rest[None, :, 1] - BALL_REST  # over its resting band
    with np.errstate(invalid="ignore"):
        ball_rests = rise <= 0.0
    ball = feet.ball.copy()
    if travel is not None:
        ball[..., [0, 2]] -= travel[:, None]
    shift, locked = slip_locks(ball, contacts & ball_rests, rise, fps)
    size = np.linalg.norm(shift, axis=-1, keepdims=True)
    shift = shift * np.maximum(size - STANCE_TOLERANCE, 0.0) / np.maximum(size, 1e-12)
    return shift, locked, size[..., 0]


def _ground_offsets(points: FloatArray, shift: FloatArray, terrain: RaySource, floor: float
                    ) -> tuple[FloatArray, NDArray[np.bool_]]:
    """How far each foot must move up ``(F, 2)`` so every point ``(F, 2, N, 3)`` (moved by the
    horizontal ``shift (F, 2, 2)``) keeps its animated height over the ground under it, and
    where the ground under a foot is missing ``(F, 2)``."""
    moved = points.copy()
    moved[..., [0, 2]] += shift[:, :, None, :]
    below = ground_gaps(terrain, np.where(np.isfinite(moved), moved, np.nan))
    ground = moved[..., 1] - below  # (F, 2, N) NaN where there is no ground
    off = np.any(np.isfinite(points[..., 1]) & ~np.isfinite(ground), axis=-1)
    with np.errstate(invalid="ignore"):
        need = np.nanmax(np.where(np.isfinite(ground), ground - floor, -np.inf), axis=-1)
    need = np.where(np.isfinite(need), need, np.nan)
    return fill_missing(need), off


def swing_points(feet: ClipFeet) -> FloatArray:
    """Every point of each foot a swing must keep out of the terrain ``(F, 2, N, 3)``
    (NaN-padded): the sole samples (every cm), the touch points and the ankle — a foot turned
    far from standing (a kick, a foot swung sideways) can put its ankle lower than the sole
    modelled under it (cmu_131_01 mirrored on the rocks: the ankle 38 mm inside a rock)."""
    return np.concatenate([feet.sole, feet.touch, feet.ankle[:, :, None]], axis=2)


def swing_rig(feet: ClipFeet) -> NDArray[np.bool_]:
    """Which of :func:`swing_points` ``(N,)`` are the rig's own (the toe tips and the ankle),
    not modelled (the sole samples and the heel, ``touch[0]``)."""
    sole, touch = feet.sole.shape[2], feet.touch.shape[2]
    return np.r_[np.zeros(sole + 1, dtype=bool), np.ones(touch, dtype=bool)]


def swing_ends(feet: ClipFeet) -> NDArray[np.bool_]:
    """Which of :func:`swing_points` ``(F, 2, N)`` end the foot — the heel, the toe tips and
    the sole's first and last samples (at the heel and the tip): the only ones that can graze
    a riser's face (:func:`grazing_gaps`); a sole sample between them has the sole on both
    sides of it, over the nose."""
    sole = np.isfinite(feet.sole[..., 1])  # (F, 2, S)
    first = sole.argmax(axis=-1)
    last = sole.shape[-1] - 1 - sole[..., ::-1].argmax(axis=-1)
    ends = np.zeros(sole.shape, dtype=bool)
    index = np.arange(sole.shape[-1])
    ends |= (index == first[..., None]) | (index == last[..., None])
    rest = np.ones((*sole.shape[:2], feet.touch.shape[2]), dtype=bool)
    return np.concatenate([ends & sole, rest, np.zeros((*sole.shape[:2], 1), dtype=bool)],
                          axis=-1)


def allowed_dip(over_floor: FloatArray, rig: NDArray[np.bool_], ball: FloatArray
                ) -> FloatArray:
    """How deep ``(..., N)`` (metres, ≤ 0) a foot's points may be in the ground: as deep as the
    source has them under its floor (their heights over it ``over_floor (..., N)``) — but a
    point of the rig (``rig (N,)``: its joints and toe tips) of a foot off its ball no deeper
    than :data:`STANCE_TOLERANCE`: beyond that the dip is the source's defect and only the
    excess is corrected, as a planted foot's is.

    Off its ball: the ball's height over the floor ``ball (...)`` beyond the tolerance, fully
    at twice it (blended in between). A toe the source bends through its floor with the ball
    on it keeps its dip (cmu_01_01, frames 2030-2040: the toe End Site 51 mm under the floor,
    the ball on it; lifted, the ball floated 46 mm). Kept whole, a toe End Site the source puts
    5.9 mm under its floor at push-off, the ball 44 mm up, stood 5.9 mm inside every terrain
    (games105_walk60 bent into a circle); lifted whole, to the floor, the clip's lowest planted
    frames rose and its floor with them (+3.9 to +5.9 mm on level ground, independent scorer).
    A modelled point (the sole, the heel) keeps the source's dip: the model's error is no
    defect of the source."""
    dip = np.minimum(over_floor, 0.0)
    raised = np.clip(ball / STANCE_TOLERANCE - 1.0, 0.0, 1.0)[..., None]
    return np.where(rig, dip + raised * (np.maximum(dip, -STANCE_TOLERANCE) - dip), dip)


def entry_depth(points: FloatArray, terrain: RaySource, floor: float, offset: FloatArray,
                ground: FloatArray, rig: NDArray[np.bool_], ball: FloatArray,
                gaps: FloatArray | None = None, own: FloatArray | None = None) -> FloatArray:
    """How deep ``(F, 2)`` (metres, − when clear) the deepest of each foot's points
    ``(F, 2, N, 3)``, moved up by ``offset (F, 2)``, is in the terrain, beyond how deep it would
    be in level ground at the height the foot stands or swings over: the clip's ``floor``
    raised by ``ground (F, 2)`` (a point the source puts under its floor may stay as deep as
    :func:`allowed_dip` lets it: ``rig (N,)`` the rig's own points, ``ball (F, 2)`` the
    balls' heights, moved as the points are); −inf where no point is over the terrain.
    ``gaps (F, 2, N)``: the points' heights over the ground under them, when known. ``own
    (F, 2, N)``: the heights the source animates the points at, when ``points`` are of solved
    feet (a sole tilted down onto a slope is no dip of the source's)."""
    if gaps is None:
        gaps = ground_gaps(terrain, np.where(np.isfinite(points), points, np.nan))
    lift = offset - ground
    heights = points[..., 1] if own is None else own
    dip = allowed_dip(heights - floor + lift[..., None], rig, ball - floor + lift)
    with np.errstate(invalid="ignore"):
        cut = dip - (gaps + offset[..., None])
    return np.where(np.isfinite(cut), cut, -np.inf).max(axis=-1, initial=-np.inf)


def grazing_gaps(terrain: RaySource, points: FloatArray, reach: float = GRAZE) -> FloatArray:
    """The height ``(...)`` of points ``(..., 3)`` over the lowest ground within ``reach``
    (metres) of them along x or z across a face (a riser: the ground falls more than
    :data:`GRAZE_STEEP` × ``reach`` there): over the ground straight under them, or under one
    of the four points ``reach`` away where a face drops to it and the point is deeper than
    ``reach`` under the ground above (a point at a riser's face grazes it; one on a slope, or
    one at the nose, its way out straight up shorter, does not). NaN where there is no ground
    straight under a point."""
    points = np.where(np.isfinite(points), points, np.nan)
    straight = ground_gaps(terrain, points)
    gaps = straight.copy()
    for axis in (0, 2):
        for sign in (-1.0, 1.0):
            moved = points.copy()
            moved[..., axis] += sign * reach
            beside = ground_gaps(terrain, moved)
            with np.errstate(invalid="ignore"):  # deeper than reach under the tread above
                face = (beside - straight > GRAZE_STEEP * reach) & (straight < -reach)
            gaps = np.where(face, np.maximum(gaps, beside), gaps)
    return gaps


def least_lift(points: FloatArray, terrain: RaySource, floor: float, offset: FloatArray,
               ground: FloatArray, contacts: NDArray[np.bool_], blend: int,
               rig: NDArray[np.bool_], ball: FloatArray, ends: NDArray[np.bool_],
               own: FloatArray | None = None) -> FloatArray:
    """The least lift ``(F, 2)`` (metres, 0 in contact) that keeps every point ``(F, 2, N, 3)``
    of a swinging foot (:func:`swing_points`; ``rig (N,)``: :func:`swing_rig`; ``ball (F, 2)``
    the balls' heights, as :func:`entry_depth` takes them; ``own``: as it takes them), moved up by
    ``offset (F, 2)`` over the blended ``ground (F, 2)``, out of the terrain
    (:func:`entry_depth`; the foot's ``ends (F, 2, N)``, :func:`swing_ends`, may graze a riser's
    face: :func:`grazing_gaps`), each frame's lift spread to
    the frames around it over half of ``blend`` frames (rising before a stair nose, coming down
    after it; :func:`~footfall.grounding.clip.smoothing.spread_above`) — but not next to a
    contact, where there is no before or after (:func:`_near_contacts`)."""
    gaps = ground_gaps(terrain, np.where(np.isfinite(points), points, np.nan))
    cut = entry_depth(points, terrain, floor, offset, ground, rig, ball, gaps=gaps, own=own)
    cuts = ~contacts & (cut >= NO_LIFT)
    if cuts.any():  # an end grazing a riser's face is not lifted over the tread above it
        grazing = cuts[..., None] & ends
        up = np.broadcast_to(offset[..., None], gaps.shape)[grazing]  # judged where it swings
        at = points[grazing]
        at[:, 1] += up
        gaps[grazing] = grazing_gaps(terrain, at) - up
        cut = entry_depth(points, terrain, floor, offset, ground, rig, ball, gaps=gaps, own=own)
    lift = np.where(contacts | (cut < NO_LIFT), 0.0, cut)
    # smoothed over half the blend: over the whole of it the lift reached 0.1 s before and
    # after the frames that need it (stairs swings 23.5 -> 21.3 mm mean over the blended
    # ground, independent scorer; unsmoothed 20.2 mm, and a jump at every stair nose).
    # Spread, not smoothed from above: a moving maximum filled the valley between two noses
    # before averaging, the foot held 21-39 mm higher than either nose needed (games105
    # circle_right_backward on the stairs, frames 119-122: swing 20.5 -> 19.2 mm)
    rise = spread_above(lift, max(1, blend // 2))
    return np.where(contacts, 0.0, _near_contacts(lift, rise, contacts, blend))


def _near_contacts(least: FloatArray, smoothed: FloatArray, contacts: NDArray[np.bool_],
                   blend: int) -> FloatArray:
    """The swing lift ``(F, 2)`` (metres): ``smoothed`` (the least lift spread over the frames
    around it, never below it) ``blend`` frames or more from a contact; nearer, blended down to
    the most the ``least (F, 2)`` lift needs between the frame and the contact (none at all in
    its first and last swing frames, exactly the least). Spreading carries a cut later in the
    swing back to the lift-off frame (and one earlier forward to touch-down): the foot jumped
    from its planted height to a lift that frame did not need (games105's circle on the stairs:
    89 mm at lift-off, 109 mm clear)."""
    out = smoothed.copy()
    for foot, start, stop, lift_off, touch_down in swing_spans(contacts):
        frames = np.arange(start, stop)
        since = np.full(frames.shape, np.inf)  # frames from the nearest contact (0 next to it)
        held = smoothed[start:stop, foot].copy()
        if lift_off is not None:
            since = np.minimum(since, frames - start)
            held = np.minimum(held, np.maximum.accumulate(least[start:stop, foot]))
        if touch_down is not None:
            since = np.minimum(since, stop - 1 - frames)
            held = np.minimum(held, np.maximum.accumulate(least[start:stop, foot][::-1])[::-1])
        share = np.clip(since / blend, 0.0, 1.0)
        out[start:stop, foot] = held + (smoothed[start:stop, foot] - held) * share
    return out


def _stance_lift(feet: ClipFeet, shift: FloatArray, terrain: RaySource, floor: float,
                 standing: FloatArray, ground: FloatArray, contacts: NDArray[np.bool_],
                 blend: int) -> tuple[FloatArray, FloatArray]:
    """The least lift ``(F, 2)`` (metres, 0 out of contact) that keeps a planted foot's joints
    and toe tips and its heel (``touch``), moved up by ``standing (F, 2)`` over the ``ground
    (F, 2)`` it stands on, out of the terrain (:func:`entry_depth`): where no tread fits the
    whole foot (:func:`~footfall.grounding.clip.tread_fit.tread_fit`), it stands on the upper
    tread by its toes or its heel instead of putting them in the riser. Smoothed from above
    within each contact. Also the part ``(F, 2)`` of it the ground forces, not the source's
    own defect: the same lift with every point as deep as the source has it under its floor
    (no point of the rig, :func:`allowed_dip`) — the ground the foot's swings are blended to and
    the hips follow (a toe End Site under the floor at a landing lifted with it raised the
    swing before it by up to 2.9 mm for 0.2 s: cmu_01_01 on level ground). The rest, the
    source's dip held to the tolerance, is the least lift frame by frame (as smooth as the
    source's dip): smoothed from above, a foot rolling off a toe bent 30-50 mm through the
    floor was held up to 15 mm higher than the dip needed, the solve lowered it back, and that
    correction, blended into the swing after it, moved the swing (cmu_01_01, frames 2041-2064:
    3.5 mm)."""
    points = np.concatenate([feet.ankle[:, :, None], feet.touch], axis=2)
    points[..., [0, 2]] += shift[:, :, None, :]
    rig = np.ones(points.shape[2], dtype=bool)
    rig[1] = False  # the modelled heel
    gaps = ground_gaps(terrain, np.where(np.isfinite(points), points, np.nan))
    lifts = []
    for capped in (np.zeros_like(rig), rig):
        cut = entry_depth(points, terrain, floor, standing, ground, capped, feet.ball[..., 1],
                          gaps)
        lifts.append(np.where(contacts & (cut >= NO_LIFT), cut, 0.0))
    forced = np.where(contacts, smooth_above(lifts[0], blend), 0.0)
    return np.maximum(forced, lifts[1]), forced


def _sustained(defect: FloatArray, contacts: NDArray[np.bool_], window: int) -> FloatArray:
    """The part ``(F, 2)`` of a stance defect that is real: beyond :data:`STANCE_TOLERANCE` and
    held for ``window`` frames inside a contact. A foot still coming down after heel strike or
    already rising at toe-off is moving, not floating; capture noise is within the tolerance."""
    excess = np.sign(defect) * np.maximum(np.abs(defect) - STANCE_TOLERANCE, 0.0)
    excess = np.where(contacts, excess, 0.0)
    above = -smooth(-np.maximum(excess, 0.0), window, np.max)  # moving minimum of the float
    below = smooth(np.minimum(excess, 0.0), window, np.max)  # moving maximum of the sink
    return np.where(contacts, above + below, 0.0)
