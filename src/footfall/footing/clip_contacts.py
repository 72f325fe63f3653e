"""A clip's contacts: the contact rule (:mod:`footfall.footing.tracker`) over a whole clip whose
floor is known, with the options only a clip allows (its frames ahead are known).

:func:`clip_contacts` runs the rule's compiled step over the clip's frames with speeds by central
differences (:data:`~footfall.footing.tracker.CLIP_RULE`: the floor measured beforehand, so no
floor is learned), then

1. :func:`majority_vote`: each frame takes the majority of the ``vote_seconds`` around it, so a
   flicker of a frame or two is no step (Holden's foot locking filters contacts the same way);
2. :func:`hold_contacts`: the hysteresis both ways in time — a contact is held through the
   frames around it in which the foot still touches the floor (its lowest touching point within
   ``hold_lift``) and slides slower than a swing (``hold_speed``): a planted toe that slides at
   push-off is still planted, and must be locked, not released to skate;
3. :func:`bridge_gaps`: a break shorter than ``bridge_seconds`` over which the foot moves less
   than ``bridge_distance`` is a weight shift, not a step — released and locked again, the foot
   would jump.

A clip *walked in place* (an in-place cycle: its root motion taken out, so the ground slides
back under a planted foot and no stance is slow in the world) is judged as the walk it stands
for: :func:`treadmill_travel` finds how far the ground under its feet has travelled by each
frame, and the rule runs over the feet with that travel put back (a planted foot still again,
a swing faster; a pose held still, the ground still under it, as it is). Any other clip is
judged as it was, on the same numbers: its floor and contacts are those of the world speeds.

The floor such a clip is measured on is :func:`clip_floor`: a low percentile of its planted
feet's lowest points (found over a first guess of the floor, then again over the floor found).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.footing.runs import segments
from footfall.footing.tracker import CLIP_RULE, ContactRule, horizontal_speeds, track_feet

#: A clip's floor is this percentile (over its contact frames) of its planted feet's lowest
#: point: robust to a stray frame, and where the feet stand when flat. The 2nd, issue 36's
#: floor: the 5th put the floor up to 10 mm above the lowest planted feet of clips whose feet
#: stand at different heights, and every foot that low went into the ground by that much.
FLOOR_PERCENTILE = 2
#: A clip walks in place when the ground under its feet (:func:`treadmill_travel`) goes at least
#: this many times as far from where it started as the midpoint of its feet strays from its
#: mean. Kenney's FBX cycle: 3.6 m against 0.15 m (24x; bent into an eight, whose ground turns
#: back, 8.8x: it ends 2.7x); games105_walk60 with its root's travel taken out: 31x;
#: mixamo_stepping so, stepping forward and back, 4.1x (it ends where it began). Of the other
#: shared files and their variants (tests/conventions.py) none comes near: mocapbank standing
#: 2.7x, cmu_01_01 climbing 1.9x, the walks 0.1-0.5x.
IN_PLACE_RATIO = 4.0


def clip_floor(lowest: ArrayLike, contacts: NDArray[np.bool_]) -> float | None:
    """A clip's floor (world height, metres): the :data:`FLOOR_PERCENTILE` th percentile of
    each foot's lowest support point ``lowest (F, 2)`` over its ``contacts (F, 2)``; None
    without contacts."""
    if not contacts.any():
        return None
    return float(np.percentile(np.asarray(lowest)[contacts], FLOOR_PERCENTILE))


def treadmill_travel(points: ArrayLike, anchor: ArrayLike,
                     rule: ContactRule = CLIP_RULE) -> FloatArray | None:
    """How far the ground under a clip walked in place has travelled by each frame ``(F, 2)``
    (horizontal x, z, metres; 0 in the first frame): its root motion, taken out. None for a clip
    not walked in place.

    The ground moves as the lowest of the feet's ``points (F, 2, P, 3)`` (world metres; the one
    a walk stands on: planted, in a walk, whichever foot it is): its velocity by central
    differences, summed frame by frame. A clip walks in place when
    that travel goes at least :data:`IN_PLACE_RATIO` times as far from its start (at its
    furthest: a ground that turns back, stepping forward and back, ends near it) as the
    midpoint of the feet's ``anchor (F, 2, 3)`` strays from its mean (or from
    ``rule.bridge_distance``, a weight shift, when it strays less): a clip that travels stands
    on still feet and its ground goes nowhere; a clip that stands or drifts takes its feet's
    midpoint with the ground.
    """
    points = np.asarray(points, dtype=np.float64)
    frames = points.shape[0]
    if frames < 2:
        return None
    flat = points.reshape(frames, -1, 3)
    heights = np.where(np.isfinite(flat[..., 1]), flat[..., 1], np.inf)
    lowest = heights.argmin(axis=-1)  # (F,) the point the clip stands on
    velocity = np.gradient(flat[..., [0, 2]], axis=0)[np.arange(frames), lowest]  # m / frame
    travel = np.concatenate([np.zeros((1, 2)),
                             np.cumsum(0.5 * (velocity[1:] + velocity[:-1]), axis=0)])
    middle = np.asarray(anchor, dtype=np.float64)[..., [0, 2]].mean(axis=1)  # (F, 2)
    stray = np.linalg.norm(middle - middle.mean(axis=0), axis=-1).max()
    distance = float(np.linalg.norm(travel, axis=-1).max())
    if not (np.isfinite(distance) and np.isfinite(stray)):
        return None
    in_place = distance >= IN_PLACE_RATIO * max(float(stray), rule.bridge_distance)
    return travel if in_place else None


def majority_vote(flags: ArrayLike, window: int) -> NDArray[np.bool_]:
    """Majority of bool ``flags (F, ...)`` over a centred odd ``window`` of frames (the ends
    repeated)."""
    flags = np.asarray(flags, dtype=bool)
    window = max(1, int(window) | 1)
    if window == 1 or flags.shape[0] < window:
        return flags.copy()
    half = window // 2
    padded = np.concatenate([np.repeat(flags[:1], half, 0), flags, np.repeat(flags[-1:], half, 0)])
    votes = sliding_window_view(padded.astype(np.int8), window, axis=0).sum(axis=-1)
    return votes > half


def hold_contacts(contacts: ArrayLike, point_height: ArrayLike, point_speed: ArrayLike,
                  rule: ContactRule = CLIP_RULE) -> NDArray[np.bool_]:
    """Contacts ``(F, feet)`` held over the frames around them in which ``point_height (F,
    feet)`` (metres above the floor) is below ``rule.hold_lift`` and ``point_speed (F, feet)``
    (m/s) below ``rule.hold_speed``: every run of such frames that holds a contact is planted."""
    contacts = np.asarray(contacts, dtype=bool)
    with np.errstate(invalid="ignore"):
        touching = ((np.asarray(point_height) < rule.hold_lift)
                    & (np.asarray(point_speed) < rule.hold_speed))
    out = contacts.copy()
    for foot in range(contacts.shape[1]):
        # grown both ways through touching frames
        for start, stop in segments(contacts[:, foot] | touching[:, foot]):
            out[start:stop, foot] |= contacts[start:stop, foot].any()
    return out


def bridge_gaps(contacts: ArrayLike, positions: ArrayLike, fps: float,
                rule: ContactRule = CLIP_RULE) -> NDArray[np.bool_]:
    """Contacts ``(F, feet)`` with short breaks closed: a gap of at most ``rule.bridge_seconds``
    between two contacts, over which the foot's position ``(F, feet, 3)`` (metres) moves less
    than ``rule.bridge_distance`` horizontally, is part of one contact."""
    contacts = np.asarray(contacts, dtype=bool)
    positions = np.asarray(positions, dtype=np.float64)
    out = contacts.copy()
    longest = rule.bridge_seconds * fps
    for foot in range(contacts.shape[1]):
        steps = segments(contacts[:, foot])
        for (_, stop), (start, _) in zip(steps[:-1], steps[1:], strict=True):
            step = positions[start, foot] - positions[stop - 1, foot]
            if start - stop <= longest and np.hypot(step[0], step[2]) < rule.bridge_distance:
                out[stop:start, foot] = True
    return out


def clip_contacts(points: ArrayLike, touch: ArrayLike, anchor: ArrayLike, floor: float,
                  fps: float, rule: ContactRule = CLIP_RULE) -> NDArray[np.bool_]:
    """Contacts ``(F, 2)`` of a clip's two feet over a known ``floor`` (world height, metres).

    Args:
        points: ``(F, 2, P, 3)`` the support points the rule plants a foot by (each standing on
            the floor when the foot is flat: sole points), world metres.
        touch: ``(F, 2, T, 3)`` the points that can touch the floor (NaN-padded): the lowest
            of them holds a contact (:func:`hold_contacts`).
        anchor: ``(F, 2, 3)`` a point of each foot whose travel tells a weight shift from a step
            (:func:`bridge_gaps`); their midpoint tells a clip walked in place
            (:func:`treadmill_travel`), whose speeds and travels are judged with its root
            motion put back.
        fps: frames per second.
        rule: the parameters (default :data:`~footfall.footing.tracker.CLIP_RULE`).
    """
    points = np.asarray(points, dtype=np.float64)
    touch = np.asarray(touch, dtype=np.float64)
    anchor = np.asarray(anchor, dtype=np.float64)
    travel = treadmill_travel(points, anchor, rule)
    if travel is not None:  # walked in place: judged with its root motion put back
        back = np.zeros((len(travel), 3))
        back[:, [0, 2]] = travel
        points, touch, anchor = (points - back[:, None, None], touch - back[:, None, None],
                                 anchor - back[:, None])
    planted, _, _ = track_feet(points[..., 1] - floor, points, fps, np.zeros(2), plant=False,
                               rule=rule, centred=True)
    planted = majority_vote(planted, int(round(rule.vote_seconds * fps)))
    heights = np.where(np.isfinite(touch[..., 1]), touch[..., 1], np.inf)
    low = heights.argmin(axis=-1)  # (F, 2) the touching point: heel, ball or toe tip
    point = np.take_along_axis(touch, low[..., None, None], axis=2)[:, :, 0]
    held = hold_contacts(planted, point[..., 1] - floor, horizontal_speeds(point, fps, True), rule)
    return bridge_gaps(held, anchor, fps, rule)
