"""When a foot is planted and where the floor under it is: one rule, for a clip and a live stream.

A foot is *planted* when one of its support points (ankle, toe) is low — within
``ContactRule.lift`` above the floor — and slow — slower than ``ContactRule.speed``
horizontally; once planted it stays planted while a point is still low and slower than
``ContactRule.release_speed`` (hysteresis: a planted toe rolling at push-off is not released and
re-planted frame by frame).

The *floor* under each foot is learned from its stances (a capture's feet often stand a little
higher one than the other: a marker set, a shoe; a floor drifts): through each stance it is the
mean height of the foot's lowest point over the stance so far, and between stances the last
stance's (before a foot's first stance, the other foot's floor). A dip or a slow raise within a
stance moves it by its share of the stance only: a foot raised slowly onto something keeps most
of its lift. Each foot's *stance level*
is the floor, raised while the foot is planted to its lowest point when that is a few
centimetres of noise above the floor (all of ``rise`` and none from ``rise + rise_fade``: a foot
held still higher is a lift, and keeps it), blended in and out over ``blend_seconds``.

Everything is decided from the frames so far, one frame after the other, by one compiled step
(:func:`_track`): a clip is tracked by running it over the clip's frames (:func:`track_feet`),
a live stream by feeding a :class:`FootTracker` frame by frame — the same arithmetic, so a
clip retargeted offline and the same clip streamed live plant the same feet at the same heights.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import BoolArray, FloatArray, IntArray
from footfall.jit import helper, kernel


@dataclass(frozen=True)
class ContactRule:
    """The contact rule's parameters (metres, m/s, seconds), stated once.

    Attributes:
        lift: a support point lower than this above the floor may be planted.
        speed: ... and planted when it is slower than this (horizontal).
        release_speed: a planted foot stays planted while a low point is slower than this.
        blend_seconds: a stance level's rise is blended in and out over this.
        rise: a planted foot's rise above the floor taken as stance noise, all of it ...
        rise_fade: ... fading to none of it over this much more.
        vote_seconds: a clip's options (:func:`footfall.footing.clip_contacts`, the whole
            clip known): each frame's contact is the majority over this window centred on it
            (a flicker of one or two frames is no step) ...
        hold_lift: ... a contact is held through the frames around it in which the foot's
            lowest touching point is lower than this above the floor ...
        hold_speed: ... and slower than this (a swinging foot moves at 2–4 m/s): a toe rolling
            at push-off is still planted ...
        bridge_seconds: ... and a break shorter than this ...
        bridge_distance: ... over which the foot moves less than this (horizontally) is a
            weight shift, not a step: bridged.
    """

    lift: float = 0.12
    speed: float = 0.3
    release_speed: float = 0.5
    blend_seconds: float = 0.1
    rise: float = 0.03
    rise_fade: float = 0.02
    vote_seconds: float = 5 / 60
    hold_lift: float = 0.02
    hold_speed: float = 1.0
    bridge_seconds: float = 0.2
    bridge_distance: float = 0.05

    def as_array(self) -> FloatArray:
        """The parameters in field order, for the compiled step."""
        return np.array(astuple(self), dtype=np.float64)


#: The rule every part of footfall plants feet by, as a stream applies it (the retargeter
#: offline and live, live grounding): the floor is learned from the stances so far, so a point
#: may be planted up to 12 cm over it (a capture's floor is unknown until its first stance, and
#: its feet often stand a few cm apart in height), and released by speed alone (hysteresis).
CONTACT_RULE = ContactRule()
#: The same rule as a clip applies it over a floor measured beforehand (clip grounding,
#: ``measure`` and ``import``; :func:`footfall.footing.clip_contacts`), with no number of its
#: own: a stream puts a planted foot on its floor only within ``rise + rise_fade`` of it (higher,
#: the foot keeps its lift), so over a known floor — where planted means put on the ground —
#: that is the lift (a foot held still a few cm higher, cmu_131_01's left foot at 4–9 cm for
#: much of the clip, is no contact: with the stream's 12 cm it was pulled down, and the shared
#: clips' floors and stairs stances failed their tests). And, the clip known ahead, its
#: hysteresis is the hold both ways around each contact instead of a release speed (grown
#: forward by 0.5 m/s too, a push-off's contact ran 9 frames into the swing on the circling
#: walk over stairs, and that swing's lift was judged against the wrong ground).
CLIP_RULE = replace(CONTACT_RULE, lift=CONTACT_RULE.rise + CONTACT_RULE.rise_fade,
                    release_speed=CONTACT_RULE.speed)


def horizontal_speeds(points: ArrayLike, fps: float, centred: bool = False) -> FloatArray:
    """Horizontal speed ``(F, ...)`` m/s of points ``(F, ..., 3)``: from each frame to the one
    before (0 in the first frame: what a live stream knows of it), or, ``centred``, by central
    differences (one-sided at the ends) — the option of a consumer that knows the clip ahead
    (clip grounding's contacts, locks and swing clearance), which sees a lift-off in the frame
    it begins, not a frame later."""
    xz = np.asarray(points, dtype=np.float64)[..., [0, 2]]
    speed = np.zeros(xz.shape[:-1])
    if len(xz) > 1:
        if centred:
            return np.linalg.norm(np.gradient(xz, axis=0) * fps, axis=-1)
        speed[1:] = np.linalg.norm(np.diff(xz, axis=0), axis=-1) * fps
    return speed


class FootTracker:
    """The contact rule's state for the two feet of ``C`` characters, fed one frame (live) or
    many (a clip) at a time.

    ``planted (C, 2)``: whether each foot was planted in the last frame; ``weight (C, 2)``:
    each stance level's blend; ``floor (C, 2)``: the floor learned so far under each foot above
    ``fixed`` (NaN before its first plant); ``last (C, 2, P, 2)``: the support points' last
    (x, z) for their speeds. The state is made for the batch of the first frames tracked, and
    made anew when the batch changes."""

    def __init__(self, rule: ContactRule = CONTACT_RULE) -> None:
        self.rule = rule
        self._params = rule.as_array()
        self.reset()

    def reset(self) -> None:
        """Forget the state: no foot planted, no floor learned."""
        self.planted = np.zeros((1, 2), dtype=bool)
        self.weight = np.zeros((1, 2))
        self.floor = np.full((1, 2), np.nan)
        self.count = np.zeros((1, 2), dtype=np.int64)
        self.last: FloatArray | None = None
        self._frame: tuple[FloatArray, FloatArray, BoolArray, FloatArray, FloatArray] | None = None

    def track(self, heights: ArrayLike, points: ArrayLike, dt: float, fixed: ArrayLike,
              plant: bool = True, centred: bool = False
              ) -> tuple[BoolArray, FloatArray, FloatArray]:
        """Contacts, stance levels and lowest points of frames in order.

        Args:
            heights: ``(F, ..., 2, P)`` how high each foot's support points are above where
                they stand when the foot is flat on the floor (their standing heights), metres;
                the axes between frames and feet are characters.
            points: ``(F, ..., 2, P, 3)`` the same points in the world (their horizontal
                speeds).
            dt: seconds per frame.
            fixed: ``(2,)`` a known floor under each foot (metres above the standing heights;
                the learned floor is added to it).
            plant: learn the floor and raise a planted foot's level to its lowest point (the
                rules above); without, every level is ``fixed``.
            centred: the rule's offline option: the points' speeds by central differences over
                these frames (:func:`horizontal_speeds`), for a consumer that has the whole
                clip ahead; a stream (the default) knows each frame and the one before.

        Returns ``planted (F, ..., 2)``, ``levels (F, ..., 2)`` (each foot's stance level above
        its standing height, metres) and ``lowest (F, ..., 2)`` (each foot's lowest point,
        likewise).
        """
        heights = np.asarray(heights, dtype=np.float64)
        batch = heights.shape[:-1]
        frames, support = heights.shape[0], heights.shape[-1]
        characters = int(np.prod(batch[1:-1], dtype=np.int64))
        rows = np.ascontiguousarray(heights.reshape(frames, characters, 2, support))
        xz = np.ascontiguousarray(np.asarray(points, dtype=np.float64)[..., [0, 2]]).reshape(
            frames, characters, 2, support, 2)
        if self.planted.shape[0] != characters:
            self.planted = np.zeros((characters, 2), dtype=bool)
            self.weight = np.zeros((characters, 2))
            self.floor = np.full((characters, 2), np.nan)
            self.count = np.zeros((characters, 2), dtype=np.int64)
            self.last = None
        if centred:
            speeds = horizontal_speeds(np.asarray(points, dtype=np.float64).reshape(
                frames, characters, 2, support, 3), 1.0 / dt, centred=True)
        else:
            speeds = np.zeros(rows.shape)
            if frames and self.last is not None and self.last.shape == xz.shape[1:]:
                speeds[0] = np.linalg.norm(xz[0] - self.last, axis=-1) / dt
            if frames > 1:
                speeds[1:] = np.linalg.norm(np.diff(xz, axis=0), axis=-1) / dt
        if frames:
            self.last = xz[-1].copy()
        planted = np.empty((frames, characters, 2), dtype=bool)
        levels, lowest = np.empty((frames, characters, 2)), np.empty((frames, characters, 2))
        _track(rows, speeds, float(dt), np.ascontiguousarray(fixed, dtype=np.float64).reshape(2),
               self._params, bool(plant), self.planted, self.weight, self.floor, self.count,
               planted, levels, lowest)
        return planted.reshape(batch), levels.reshape(batch), lowest.reshape(batch)


    def track_frame(self, heights: FloatArray, points: FloatArray, dt: float,
                    fixed: FloatArray, plant: bool = True) -> tuple[BoolArray, FloatArray]:
        """:meth:`track` for one character's one frame — ``heights (2, P)``, ``points (2, P,
        3)`` — without the batch machinery (a live frame's budget is a fraction of a
        millisecond); returns ``planted (2,)`` and ``levels (2,)``, views of buffers reused by
        the next call. The same state as :meth:`track`, and the same arithmetic."""
        support = heights.shape[-1]
        buffers = self._frame
        if (self.planted.shape[0] != 1 or buffers is None
                or buffers[0].shape[-1] != support):
            if self.planted.shape[0] != 1:
                self.reset()
            buffers = self._frame = (np.empty((1, 1, 2, support)),
                                     np.zeros((1, 1, 2, support)),
                                     np.empty((1, 1, 2), dtype=bool), np.empty((1, 1, 2)),
                                     np.empty((1, 1, 2)))
            self.last = None
        rows, speeds, planted, levels, lowest = buffers
        rows[0, 0] = heights
        xz = points[..., ::2]  # (x, z)
        last = self.last
        if last is not None and last.shape == (1, 2, support, 2):
            speeds[0, 0] = np.hypot(xz[..., 0] - last[0, ..., 0], xz[..., 1] - last[0, ..., 1]) / dt
        else:
            speeds.fill(0.0)
        self.last = xz[None].copy()
        _track(rows, speeds, float(dt), fixed, self._params, plant, self.planted, self.weight,
               self.floor, self.count, planted, levels, lowest)
        return planted[0, 0], levels[0, 0]


def track_feet(heights: ArrayLike, points: ArrayLike, fps: float, fixed: ArrayLike,
               plant: bool = True, rule: ContactRule = CONTACT_RULE, centred: bool = False
               ) -> tuple[BoolArray, FloatArray, FloatArray]:
    """:meth:`FootTracker.track` over a whole clip at ``fps`` from a fresh state: the contacts,
    stance levels and lowest points ``(F, ..., 2)`` a live stream of the clip would have (or,
    ``centred``, the rule's offline option: speeds by central differences)."""
    return FootTracker(rule).track(heights, points, 1.0 / fps, fixed, plant, centred)


@kernel(error_model="numpy")
def _track(heights: FloatArray, speeds: FloatArray, dt: float, fixed: FloatArray,
           params: FloatArray, plant: bool, was: BoolArray, weight: FloatArray,
           floor: FloatArray, count: IntArray, planted: BoolArray, levels: FloatArray,
           lowest: FloatArray) -> None:  # pragma: no cover (compiled)
    """The rule of the module docstring over frames ``heights``, ``speeds (F, C, 2, P)`` of
    ``C`` characters; the state ``was``, ``weight``, ``floor``, ``count (C, 2)`` (frames of the
    current stance) updated in place; writes ``planted``, ``levels`` and ``lowest (F, C, 2)``."""
    lift, speed, release, blend, rise_all, rise_fade = (
        params[0], params[1], params[2], params[3], params[4], params[5])
    step = dt / blend
    for f in range(heights.shape[0]):
        for c in range(heights.shape[1]):
            for side in range(2):
                learned = _learned(floor, c, side)
                base = fixed[side] + learned
                limit = release if was[c, side] else speed
                low = np.inf
                down = False
                for p in range(heights.shape[3]):
                    h = heights[f, c, side, p]
                    low = min(low, h)
                    if h - base < lift and speeds[f, c, side, p] < limit:
                        down = True
                if down and plant:  # the mean of this stance so far
                    count[c, side] = 1 if not was[c, side] else count[c, side] + 1
                    target = low - fixed[side]
                    now = floor[c, side]
                    floor[c, side] = (target if count[c, side] == 1 or now != now
                                      else now + (target - now) / count[c, side])
                was[c, side] = down
                planted[f, c, side] = down
                lowest[f, c, side] = low
            for side in range(2):
                w = weight[c, side] + (step if was[c, side] else -step)
                w = 0.0 if w < 0.0 else (1.0 if w > 1.0 else w)
                weight[c, side] = w
                base = fixed[side] + _learned(floor, c, side)
                rise = lowest[f, c, side] - base
                value = base
                if plant and rise > 0.0:
                    kept = min(max((rise - rise_all) / rise_fade, 0.0), 1.0)
                    value = base + w * rise * (1.0 - kept)
                levels[f, c, side] = value


@helper
def _learned(floor: FloatArray, c: int, side: int) -> float:
    """The floor learned under foot ``side`` of character ``c`` (``floor (C, 2)``): its own
    once it has been planted, else the other foot's, else 0."""
    own, other = floor[c, side], floor[c, 1 - side]
    if own == own:
        return float(own)
    return float(other) if other == other else 0.0


def planted_median(values: FloatArray, planted: NDArray[np.bool_],
                   default: FloatArray) -> FloatArray:
    """``(2,)`` the median of ``values (F, 2)`` over each foot's planted frames
    (``planted (F, 2)``); ``default (2,)`` for a foot never planted."""
    out = np.array(default, dtype=np.float64).reshape(2)
    for side in range(2):
        if planted[:, side].any():
            out[side] = float(np.median(values[planted[:, side], side]))
    return out
