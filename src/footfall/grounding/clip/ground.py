"""Ground a clip on a terrain (:func:`ground_clip`) and measure one as it stands
(:func:`measure_clip`): the steps of :mod:`footfall.grounding.clip` in order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.errors import SkeletonError
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.foot_model import Leg, calibration_frames, legs_of
from footfall.grounding.clip.contacts import check_contacts, contact_segments
from footfall.grounding.clip.followers import follow, followers
from footfall.grounding.clip.hands import hand_clearance
from footfall.grounding.clip.kneels import clear_kneeling_knees, kneel_kept_if_better
from footfall.grounding.clip.placement import (
    Placement,
    centring_shift,
    frame_ranges,
    place_clip,
    turned,
)
from footfall.grounding.clip.plan import Plan, plan
from footfall.grounding.clip.prepared import prepare_clip
from footfall.grounding.clip.restep import restep
from footfall.grounding.clip.solve import CORRECTION_PASSES, solve
from footfall.grounding.clip.toe_bend import bend_toes
from footfall.grounding.params import DEFAULT_PARAMS, GroundingParams
from footfall.metrics import ground_gaps
from footfall.metrics.clip import score, source_heights
from footfall.metrics.swing import swing_spans
from footfall.sizes import check_size
from footfall.skeleton import Clip

if TYPE_CHECKING:
    from footfall.terrain.base import BoundedRaySource, RaySource

@dataclass
class GroundResult:
    """A grounded clip and its report (``before`` / ``after`` metrics, contacts, warnings)."""

    clip: Clip
    before: dict[str, float]
    after: dict[str, float]
    contacts: NDArray[np.bool_]
    off_terrain_frames: int = 0
    warnings: list[str] = field(default_factory=list)
    #: The largest lift ``ball_clearance`` gave a swing (0 without it), metres.
    swing_lift_max_m: float = 0.0
    #: The largest lift the terrain forced on a swing (where it would cut the foot), metres.
    terrain_lift_max_m: float = 0.0
    #: Every swing: ``{"foot": "left"|"right", "frames": [start, stop], "lift_m": …,
    #: "terrain_lift_m": …, "clearance_lift_m": …}`` — how far it rose above its animated height
    #: over the ground blended from lift-off to touch-down, and of that how much where the
    #: terrain would cut the foot and how much for ``ball_clearance`` (largest over the swing,
    #: metres). Measured from the heights the planted feet were held at on either side: where a
    #: ramp (:data:`~footfall.grounding.clip.solve.CORRECTION_SPEED`) holds a planted foot up
    #: next to a swing that needs no lift, the swing reads below 0.
    swings: list[dict[str, Any]] = field(default_factory=list)
    #: ``(F, 2)`` that lift frame by frame (0 in contact), metres.
    swing_lift: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 2)))
    #: The floor the source was animated on (metres, its own coordinates: placing turns and
    #: moves a clip horizontally only), what ``stance_height_error_m`` measures it against.
    floor: float = 0.0
    #: How far the ground under a clip walked in place travels (its root motion, taken out;
    #: metres, at its furthest from where it started, as :func:`footfall.footing.
    #: treadmill_travel` judges it; 0 for a clip that travels itself): every sliding figure of
    #: ``before`` and ``after`` is measured against that ground (:func:`score`).
    ground_travel_m: float = 0.0
    #: With ``place="under"``: where the terrain's origin lies in the clip's coordinates (x, z).
    scene_offset_xz: tuple[float, float] | None = None

    def report(self, **about: Any) -> dict[str, Any]:
        """The JSON report: ``{"before": {...}, "after": {...}, "contacts": {...}, ...}``, then
        ``about`` (the command adds the clip's and the terrain's names)."""
        out = {
            "before": self.before,
            "after": self.after,
            "frames": self.clip.frame_count,
            "fps": self.clip.fps,
            "contact_ratio": float(self.contacts.mean()) if self.contacts.size else 0.0,
            "contacts": contact_segments(self.contacts),
            "off_terrain_frames": self.off_terrain_frames,
            "swing_lift_max_m": self.swing_lift_max_m,
            "terrain_lift_max_m": self.terrain_lift_max_m,
            "floor_m": self.floor,
            "ground_travel_m": self.ground_travel_m,
            "swings": self.swings,
            "warnings": self.warnings,
            **about,
        }
        if self.scene_offset_xz is not None:
            out["scene_offset_xz"] = list(self.scene_offset_xz)
        return out


def ground_clip(
    clip: Clip,
    terrain: BoundedRaySource,
    params: GroundingParams = DEFAULT_PARAMS,
    *,
    place: Placement = True,
    legs: Any = None,
    contacts: ArrayLike | None = None,
    progress: Callable[[int, int], None] | None = None,
    ball_clearance: float = 0.0,
) -> GroundResult:
    """Ground ``clip`` (metres, Y up, animated on a flat floor) on ``terrain``, doing no harm
    (see :mod:`footfall.grounding.clip`).

    place: :data:`~footfall.grounding.clip.placement.Placement`; legs: as
    :func:`~footfall.footing.foot_model.legs_of` takes them (found when None); contacts: ``(F, 2)``
    bool to use instead of the ones found in the motion; ball_clearance: optional extra
    clearance (metres, default 0 = as animated) for swinging balls faster than
    :data:`~footfall.grounding.clip.plan.SWING_SPEED`. How far each swing rose above its
    animated height over the ground blended from lift-off to touch-down (that clearance, and
    where the terrain would cut the foot) is in ``swings``; the largest lift the clearance gave
    in ``swing_lift_max_m``, the largest the terrain forced in ``terrain_lift_max_m``. A clip
    holding NaN raises :class:`SkeletonError` naming the frame and joint.
    """
    clip.check_finite()
    check_size(clip, "ground_clip", min_frames=1)
    if not (np.isfinite(ball_clearance) and 0.0 <= ball_clearance <= 0.5):
        raise SkeletonError(f"ball_clearance must be in [0, 0.5] m, got {ball_clearance}")
    if contacts is not None:
        contacts = check_contacts(contacts, clip.frame_count)
    leg_pair = legs_of(clip.skeleton, legs)
    if place != "under":
        return _ground(clip, terrain, params, bool(place), leg_pair, contacts, progress,
                       ball_clearance)
    shift = centring_shift(clip, terrain.bounds, leg_pair)
    result = _ground(turned(clip, quat.identity(), shift), terrain, params, False, leg_pair,
                     contacts, progress, ball_clearance)
    result.clip = turned(result.clip, quat.identity(), -shift)
    result.scene_offset_xz = (-float(shift[0]), -float(shift[2]))
    return result


def _ground(clip: Clip, terrain: BoundedRaySource, params: GroundingParams, place: bool,
            legs: tuple[Leg, Leg], contacts: NDArray[np.bool_] | None,
            progress: Callable[[int, int], None] | None, ball_clearance: float) -> GroundResult:
    """:func:`ground_clip` of a checked clip: a calibration pose as first or last frame is no
    motion, so the motion is grounded without it, and it comes back as it was (moved and turned
    with the clip where it was placed)."""
    cut = calibration_frames(clip.rotations, clip.skeleton.parents)
    start, stop = int(cut[0]), clip.frame_count - int(cut[-1])
    motion = clip[start:stop] if cut.any() else clip
    result, solved = _ground_motion(motion, terrain, params, place, legs,
                                    None if contacts is None else contacts[start:stop],
                                    progress, ball_clearance, (start, clip.frame_count))
    if cut.any():
        result.clip = _with_frames_back(clip, start, stop, result.clip)
        result.contacts = np.pad(result.contacts,
                                 ((start, clip.frame_count - stop), (0, 0)))
        result.swing_lift = np.pad(result.swing_lift, ((start, clip.frame_count - stop), (0, 0)))
        for swing in result.swings:
            swing["frames"] = [swing["frames"][0] + start, swing["frames"][1] + start]
    _off_terrain(result, solved, terrain, start)
    return result


def _ground_motion(clip: Clip, terrain: BoundedRaySource, params: GroundingParams, place: bool,
                   legs: tuple[Leg, Leg], contacts: NDArray[np.bool_] | None,
                   progress: Callable[[int, int], None] | None, ball_clearance: float,
                   within: tuple[int, int] | None = None) -> tuple[GroundResult, ClipFeet]:
    """:func:`ground_clip` of a clip without calibration frames: placed, prepared, planned,
    scored, solved (its hands kept out of the ground, :mod:`~footfall.grounding.clip.hands`),
    scored again, its followers put back; the result and its solved feet. ``within``: the
    clip's first frame and the frame count of the clip it was cut from (warnings name those
    frames)."""
    first, frames = (0, clip.frame_count) if within is None else within
    source = place_clip(clip, terrain, legs) if place else clip.copy()
    # a toe the source bends through its floor is bent back up before anything is planned
    prepared = bend_toes(prepare_clip(source, legs))
    found = prepared.contacts if contacts is None else contacts
    planned = plan(prepared, terrain, found, params, ball_clearance)
    heights = source_heights(source, legs, prepared.floor)
    before = score(source, prepared.feet, planned.contacts, terrain, legs, heights,
                   prepared.travel)
    # every solve keeps the hands out of the ground (grounding.clip.hands): a kneel is judged
    # with its arms bent as they will be written
    hands = hand_clearance(prepared.clip, prepared.floor)

    def solve_clear(again: Plan, report: Callable[[int, int], None] | None = None
                    ) -> tuple[Clip, ClipFeet, NDArray[np.float64]]:
        solved_clip, solved_feet, lifted = solve(prepared, again, terrain, report)
        return hands.clear(solved_clip, terrain), solved_feet, lifted

    out, solved, swing_lift = solve_clear(planned, progress)

    def still() -> tuple[Plan, Clip, ClipFeet, NDArray[np.float64]]:
        # no kneel moved: the plan and solve as they were without the kneel fit
        again = plan(prepared, terrain, found, params, ball_clearance,
                     kneel=planned.kneel.unmoved())
        return (again, *solve_clear(again))

    planned, out, solved, swing_lift = kneel_kept_if_better(
        prepared, terrain, (planned, out, solved, swing_lift), still)
    planned, out, solved, swing_lift = restep(prepared, terrain, found, params, ball_clearance,
                                               (planned, out, solved, swing_lift), solve_clear)
    planned, out, solved, swing_lift = clear_kneeling_knees(
        prepared, terrain, (planned, out, solved, swing_lift), solve_clear)
    unreached = hands.unreached(out, terrain)
    out = follow(out, followers(source, legs))
    # measured on what is written: the solved clip with its followers, its feet read off it
    after = score(out, prepared.feet_of(out), planned.contacts, terrain, legs, heights,
                  prepared.travel)
    if progress is not None:
        progress(2 + CORRECTION_PASSES, 2 + CORRECTION_PASSES)
    clearance = planned.swing_clearance
    lift = swing_lift + clearance
    swings = [{"foot": ("left", "right")[foot], "frames": [start, stop],
               "lift_m": float(lift[start:stop, foot].max()),
               "terrain_lift_m": float(swing_lift[start:stop, foot].max()),
               "clearance_lift_m": float(clearance[start:stop, foot].max())}
              for foot, start, stop, _, _ in swing_spans(planned.contacts)]
    result = GroundResult(out, before, after, planned.contacts,
                          swing_lift_max_m=float(np.max(clearance, initial=0.0)),
                          terrain_lift_max_m=float(np.max(swing_lift, initial=0.0)),
                          swings=swings, swing_lift=lift, floor=prepared.floor,
                          ground_travel_m=0.0 if prepared.travel is None
                          else float(np.linalg.norm(prepared.travel, axis=-1).max()))
    for index, hand in enumerate(hands.hands):
        if np.any(unreached[:, index] > 0.0):
            stuck = np.pad(unreached[:, index] > 0.0, (first, frames - first - clip.frame_count))
            result.warnings.append(
                f"the {hand.side} hand stays in the ground in frames "
                f"{frame_ranges(stuck)} of {frames}, up to "
                f"{1000 * unreached[:, index].max():.0f} mm: its arm is too short to lift it out "
                "(stretched as far as it goes)")
    return result, solved


def measure_clip(clip: Clip, terrain: RaySource, contacts: Any = None, legs: Any = None) -> dict:
    """:func:`~footfall.metrics.clip.score` of a clip's motion (without calibration frames, as
    :func:`ground_clip` measures it) as it stands on ``terrain`` (contacts found in the motion
    when not given)."""
    clip.check_finite()
    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    if contacts is not None:
        contacts = check_contacts(contacts, clip.frame_count)[motion]
    clip = clip[motion]
    prepared = prepare_clip(clip, legs_of(clip.skeleton, legs))
    if contacts is None:
        contacts = prepared.contacts
    return score(clip, prepared.feet, contacts, terrain, prepared.legs,
                 source_heights(clip, prepared.legs, prepared.floor), prepared.travel)


def _off_terrain(result: GroundResult, solved: ClipFeet, terrain: RaySource,
                 first: int = 0) -> None:
    """Count and name in a warning the frames where a solved foot (frames ``first`` on) has no
    ground under it."""
    frames = result.contacts.shape[0]
    points = solved.ground_points()
    gaps = ground_gaps(terrain, points)
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
