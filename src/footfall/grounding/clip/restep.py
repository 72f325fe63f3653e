"""Footsteps moved off what a sole cannot fit (issue 36: a rock's crest under the ball), decided
on the solved clip: :func:`restep`."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.runs import segments
from footfall.grounding.clip.plan import Plan, blend_frames, blend_to_edges, plan
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.solve import solve
from footfall.grounding.params import GroundingParams
from footfall.metrics.stance import support_heights
from footfall.metrics.swing import blend_across_swings, swing_spans
from footfall.skeleton import Clip
from footfall.terrain.base import RaySource
from footfall.terrain.level import LevelGround

#: A planted stance of the solved clip whose lowest rig point is more than this from its source
#: height over the ground (mean over the stance, metres, :func:`_heights`) stands on something
#: its sole cannot fit (a rock's crest under the ball): its footstep is moved
#: (:func:`restep`).
RESTEP_FLOAT = 0.01
#: The moves tried along the foot's heel-to-toe direction (metres), the least first (±6 cm
#: fixed more than ±4 cm on the rocks: swings over 20 mm 11 -> 10 runs).
RESTEP_MOVES = (0.02, -0.02, 0.04, -0.04, 0.06, -0.06)
#: A moved stance must float at least this much less (metres), and no other may float more
#: than this much more.
RESTEP_GAIN = 0.001
#: ... and no swing may move further from its source height than this more (metres, mean over
#: the swing).
RESTEP_SWING = 0.002
#: Solves with the moves together before giving up (the least helpful dropped after each).
RESTEP_TRIES = 3

Solved = tuple[Plan, Clip, ClipFeet, FloatArray]


def restep(prepared: PreparedClip, terrain: RaySource, found: NDArray[np.bool_],
            params: GroundingParams, ball_clearance: float, first: Solved) -> Solved:
    """The solve ``first`` (plan, clip, solved feet, swing lift) with each planted stance that
    is more than :data:`RESTEP_FLOAT` from its source height over the terrain on the solved
    feet (:func:`_heights`: its lowest rig point, mean over the stance; the sole rests on a
    crest that lowering would enter) moved along its foot's heel-to-toe direction by the one of
    :data:`RESTEP_MOVES` that lowers that float the most (the least on a tie), measured on the
    clip solved again with the move (:func:`_heights`); kept only when, solved with every kept
    move, no stance is more than :data:`RESTEP_GAIN` and no swing more than
    :data:`RESTEP_SWING` further from its source height than it was — else the least helpful
    move is dropped and the rest solved again, up to :data:`RESTEP_TRIES` times, then the
    first solve. Measured on the solved clip, not predicted: a prediction from the ground
    under the source's foot disagreed with the solve (turning walks on the rocks got worse:
    games105 circle_right_backward 5.6 -> 17.7 mm). Stances shorter than the blend, or next
    to a swing that is, are not moved. Cost: one solve per move tried and up to
    :data:`RESTEP_TRIES` more, only for clips with a floating stance."""
    planned, _, solved, _ = first
    contacts = planned.contacts
    spans = [(f, a, b) for f in range(2) for a, b in segments(contacts[:, f])]
    before, swings = _heights(prepared, solved, terrain, contacts, spans)
    # a stance shorter than the blend, or next to a swing of its foot that is (a contact broken
    # for a frame or two), is no footstep of its own: moving it alone makes the foot jump
    # (pybvh_test1_zup_inches on the stairs: swings 7.1 -> 15.8 mm, independent scorer)
    blend = blend_frames(prepared.clip.fps)
    short = {(foot, start) for foot, start, stop, _, _ in swing_spans(contacts)
             if stop - start < blend}
    short |= {(foot, stop) for foot, start, stop, _, _ in swing_spans(contacts)
              if stop - start < blend}
    floating = [k for k, (value, (foot, start, stop))
                in enumerate(zip(before, spans, strict=True))
                if value > RESTEP_FLOAT and stop - start >= blend
                and (foot, start) not in short and (foot, stop) not in short]
    if not floating:
        return first
    feet = prepared.feet
    headings = {}
    for k in floating:
        foot, start, stop = spans[k]
        sole = feet.sole[(start + stop) // 2, foot]
        sole = sole[np.isfinite(sole[:, 0])]
        heading = (sole[-1] - sole[0])[[0, 2]] if len(sole) > 1 else np.zeros(2)
        length = float(np.hypot(*heading))
        if length > 1e-6:
            headings[k] = heading / length
    best = {k: (before[k] - RESTEP_GAIN, 0.0) for k in headings}
    for move in RESTEP_MOVES:
        tried = _with_steps(prepared, terrain, found, params, ball_clearance, contacts, spans,
                            {k: move * h for k, h in headings.items()})
        floats = _heights(prepared, tried[2], terrain, contacts, spans)[0]
        for k in headings:
            if floats[k] < best[k][0]:
                best[k] = (floats[k], move)
    moves = {k: best[k][1] * headings[k] for k in headings if best[k][1] != 0.0}
    # the moves together, the least helpful dropped while any stance floats more than it did
    # (a move blended across a short swing lifts the foot's next stance)
    for _ in range(RESTEP_TRIES):
        if not moves:
            break
        out = _with_steps(prepared, terrain, found, params, ball_clearance, contacts, spans,
                          moves)
        after, swung = _heights(prepared, out[2], terrain, contacts, spans)
        if not (_worse(after, before, RESTEP_GAIN) or _worse(swung, swings, RESTEP_SWING)):
            return out
        del moves[min(moves, key=lambda k: before[k] - best[k][0])]
    return first


def _worse(after: list[float], before: list[float], by: float) -> bool:
    """Whether any of ``after`` is more than ``by`` over the same of ``before`` (NaN: no)."""
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.asarray(after) > np.asarray(before) + by))


def _with_steps(prepared: PreparedClip, terrain: RaySource, found: NDArray[np.bool_],
                params: GroundingParams, ball_clearance: float,
                contacts: NDArray[np.bool_], spans: list[tuple[int, int, int]],
                moves: dict[int, FloatArray]) -> Solved:
    """The clip planned and solved with the stances ``spans[k]`` (of the planned ``contacts``)
    moved by ``moves[k] (2,)``
    (x, z metres), each move held over its stance and blended across the swings."""
    step = np.zeros((*found.shape, 2))
    for k, move in moves.items():
        foot, start, stop = spans[k]
        step[start:stop, foot] = move
    step = np.stack([blend_across_swings(step[..., i], contacts, prepared.feet.ankle)
                     for i in range(2)], axis=-1)
    planned = plan(prepared, terrain, found, params, ball_clearance, step)
    out, solved, lift = solve(prepared, planned, terrain)
    return planned, out, solved, lift


def _heights(prepared: PreparedClip, solved: ClipFeet, terrain: RaySource,
             contacts: NDArray[np.bool_], spans: list[tuple[int, int, int]]
             ) -> tuple[list[float], list[float]]:
    """How far from its source height each stance ``spans[k]`` (foot, start, stop) and each
    swing (:func:`~footfall.metrics.swing.swing_spans` of ``contacts``) of the ``solved``
    feet is, mean over its frames (metres, NaN where it has no ground): |the lowest rig point
    (ankle, ball, toe tips) over the terrain, or in a swing over the ground under it blended
    from lift-off to touch-down, − the source's lowest over its floor|; swing frames where the
    terrain forces a lift (the foot at its source height would enter it) left out."""
    # the support joints (ankle, ball, toe tips) of the solved and the source feet
    gaps = support_heights(solved, terrain)  # (F, 2, P) over the terrain
    heights = support_heights(solved, LevelGround(0.0))  # world y
    with np.errstate(invalid="ignore"):
        source = np.fmin.reduce(support_heights(prepared.feet,
                                                LevelGround(prepared.floor)), axis=-1)
        over = np.fmin.reduce(gaps, axis=-1)  # (F, 2)
        low = np.fmin.reduce(heights, axis=-1)
    under = np.where(np.isfinite(over), low - over, 0.0)  # the terrain under the foot
    blended = blend_to_edges(np.where(contacts, under, 0.0), contacts, solved.ankle, under)
    error = np.abs(np.where(contacts, over, low - blended) - source)
    # a swing frame where the foot at its source height over the blended ground would enter
    # the terrain is lifted by force, not judged
    with np.errstate(invalid="ignore"):
        forced = np.fmin.reduce(gaps + (blended + source - low)[..., None], axis=-1) < 0.0
    error = np.where(~contacts & forced, np.nan, error)

    def mean(foot: int, start: int, stop: int) -> float:
        values = error[start:stop, foot]
        values = values[np.isfinite(values)]
        return float(values.mean()) if len(values) else float("nan")

    return ([mean(*span) for span in spans],
            [mean(foot, start, stop) for foot, start, stop, _, _ in swing_spans(contacts)])
