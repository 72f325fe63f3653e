"""Footsteps moved off what a sole cannot fit (issue 36: a rock's crest under the ball, a foot
perched on one with its heel hanging), decided on the solved clip: :func:`restep`."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.runs import segments
from footfall.grounding.clip.footstep_groups import (
    apart,
    footsteps,
    near,
    per_span,
    step_float,
)
from footfall.grounding.clip.kneels import KneelFit, kneel_error, kneel_spoiled, resting_knees
from footfall.grounding.clip.plan import Plan, blend_frames, blend_to_edges, plan
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.solve import solve
from footfall.grounding.clip.tread_fit import EDGE_JUMP
from footfall.grounding.params import GroundingParams
from footfall.metrics import ground_gaps
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
#: the swing) ...
RESTEP_SWING = 0.002
#: ... or, a short swing, than this over its duration (metres times seconds: what it adds to the
#: clip's swing figure grows with its frames). A 3-frame swing that a moved footstep sends
#: over a rock may end 6 mm worse, a 14-frame one 2 mm: the 2 mm for all refused every move
#: off a crest next to pybvh_test1_zup_inches mirrored's 3-6 frame swings on the rocks (stance
#: 12.4 -> 7.6 mm, swing 13.4 -> 13.9 mm, independent scorer), 5 mm for all let mocapbank's
#: eight move a footstep 6 cm for 0.7 mm, over a rock (swing 23.0 -> 41.1 mm) — its floating
#: kneeling footstep, which floats no more since the kneeling foot pivots on its toes
#: (:func:`~footfall.grounding.clip.kneels.shin_pivot`): no shared clip's run on the rocks now
#: tells 2 mm from 5 mm by a swing sent over a rock (``tests/test_grounding_restep.py``).
RESTEP_SWING_TIME = 0.0006
#: A planted foot's modelled heel (:class:`~footfall.footing.clip_feet.ClipFeet`'s first touch
#: point) higher over the ground under it than the source's heel over its floor by more than
#: this (metres) hangs: the foot is perched on a crest by its ball, which its lowest rig point
#: does not show, and the excess counts in its stance's float (:func:`_heights`; games105_walk60
#: straight on the rocks, frames 125-154: the ball on a 185 mm crest, the heel 60-106 mm over
#: the ground behind it where the source's stands on its floor).
RESTEP_HANG = 0.02
#: The moves tried across the foot (metres, to its left first) for a footstep whose heel hangs,
#: after those along it: a rock's crest under the ball is no narrower across the walk than along
#: it, but a foot moved along by more than its stride's slack is dragged by the leg through the
#: stance (games105 straight on the rocks, 24 cm back: heel 19 -> 140 mm over the flat ground
#: as the stance went on), while 15 cm across costs the leg ~13 mm of reach.
RESTEP_ACROSS = (0.05, -0.05, 0.1, -0.1, 0.15, -0.15, 0.2, -0.2)
#: Solves with the moves together before giving up (the least helpful dropped after each).
RESTEP_TRIES = 3

Solved = tuple[Plan, Clip, ClipFeet, FloatArray]
#: How a plan is solved: the clip, its solved feet and the swing lift (by default
#: :func:`~footfall.grounding.clip.solve.solve`; ``footfall ground`` passes it with the hands
#: kept out of the ground, :mod:`~footfall.grounding.clip.hands`).
Solver = Callable[[Plan], tuple[Clip, ClipFeet, FloatArray]]


def restep(prepared: PreparedClip, terrain: RaySource, found: NDArray[np.bool_],
            params: GroundingParams, ball_clearance: float, first: Solved,
            solver: Solver | None = None) -> Solved:
    """The solve ``first`` (plan, clip, solved feet, swing lift) with each planted footstep
    (``footstep_groups.footsteps``: a stance, or stances broken by swings shorter than the
    blend) that is more than :data:`RESTEP_FLOAT` from its source height over the terrain on the
    solved feet (:func:`_heights`: its lowest rig point, mean over its stance frames, plus how
    far its modelled heel hangs beyond :data:`RESTEP_HANG` over the source's, :func:`_hang`; the
    sole rests on a crest that lowering would enter, or the foot is perched on one by its ball)
    moved along its foot's heel-to-toe direction by the one of :data:`RESTEP_MOVES` — or, a
    footstep whose heel hangs, across it by one of :data:`RESTEP_ACROSS` — that lowers that
    float the most (the least on a tie) among those that leave the stances and swings around it
    (:func:`~footfall.grounding.clip.footstep_groups.near`) no worse, measured on the clip
    solved again with the move (:func:`_heights`; every other footstep of a foot moved at a
    time, so its neighbours stand as they were: the best move alone, refused for spoiling a
    swing, left a footstep on its crest with a lesser move at hand — cmu_131_01 at 30 fps on the
    rocks, stance 10.4 mm, independent scorer); kept only when, solved with every kept move, no
    stance is more than :data:`RESTEP_GAIN` and no swing more than :data:`RESTEP_SWING` (a short
    one: :data:`RESTEP_SWING_TIME` over its duration) further from its source height than it was
    (:func:`_worse_parts`) — else the least helpful move is dropped and the rest solved again,
    up to :data:`RESTEP_TRIES` times, then the first solve. A footstep in which its leg kneels
    with its knee on the floor (:func:`~footfall.grounding.clip.kneels.resting_knees`) is moved
    only where the kneel is no worse (:func:`~footfall.grounding.clip.kneels.kneel_spoiled`); a
    lunge's, its knee off the floor, as any other; a footstep in which it kneels so in part and
    stands in the rest has each part tried on its own after (``footstep_groups.footsteps`` by
    ``kneels``), from where its footstep's move put it. Measured on the clip solved by
    ``solver`` (:data:`Solver`), not predicted: a prediction from the ground under the source's
    foot disagreed with the solve (turning walks on the rocks got worse: games105
    circle_right_backward 5.6 -> 17.7 mm). A footstep shorter than the blend is not moved. Cost:
    one solve per move tried for each of the two sets of footsteps (one set when every floating
    footstep is in one; footsteps a second apart share one, ``footstep_groups.apart``) and up
    to :data:`RESTEP_TRIES` more, only for clips with a floating footstep (as much again for
    the parts of footsteps that kneel in part)."""
    contacts = first[0].contacts
    spans = [(f, a, b) for f in range(2) for a, b in segments(contacts[:, f])]
    # a contact broken for a frame or two is one footstep: its parts move together (moved
    # alone, the foot jumped between them: pybvh_test1_zup_inches on the stairs, swings 7.1 ->
    # 15.8 mm, independent scorer; not moved at all, a footstep broken so stayed on a rock's
    # crest: pybvh eight on the rocks, 35 mm)
    blend = blend_frames(prepared.clip.fps)
    resting = resting_knees(prepared)
    kneels = [bool(resting[a:b, f].any()) for f, a, b in spans]
    steps = footsteps(spans, blend, [False] * len(spans))
    out, moved = _moved(prepared, terrain, found, params, ball_clearance, first, solver,
                        spans, steps, kneels, {}, set(range(len(steps))))
    # ... and then, where its leg kneels with its knee on the floor in part of it and stands in
    # the rest, each part on its own from where that put it: the kneel held its footstep's move
    # to those that kept its knee down, and the foot standing up after it stayed on a rock by
    # its heel (mocapbank_zxy_cm circle_right_backward on the rocks, frames 338-455: its
    # lowest point 49.5 mm from its source height, :func:`_heights`; the footstep moved 6 cm,
    # 28.9 mm; its standing part moved 6 cm further along its own foot, 3.5 mm; the clip's
    # stance 4.2 -> 0.8 mm, independent scorer). Split from the start, the kneel, floating
    # no more than 1 mm, was not moved and kept its knee 18 mm over its source height (0.8
    # moved with its footstep).
    mixed = {k for step in steps if len({kneels[j] for j in step}) > 1 for k in step}
    if not mixed:
        return out
    parts = footsteps(spans, blend, kneels)
    return _moved(prepared, terrain, found, params, ball_clearance, out, solver, spans, parts,
                  kneels, moved, {i for i, part in enumerate(parts) if part[0] in mixed})[0]


def _moved(prepared: PreparedClip, terrain: RaySource, found: NDArray[np.bool_],
           params: GroundingParams, ball_clearance: float, first: Solved,
           solver: Solver | None, spans: list[tuple[int, int, int]], steps: list[list[int]],
           kneels: list[bool], base: dict[int, FloatArray], among: set[int]
           ) -> tuple[Solved, dict[int, FloatArray]]:
    """:func:`restep`'s search over the footsteps ``steps`` (indices of the planned stances
    ``spans``; ``kneels``: which kneel with the knee on the floor) numbered in ``among``, on
    the solve ``first`` of the stances already moved by ``base`` (by span, x and z metres):
    the solve kept and every stance's move in it (``base`` plus the kept moves)."""
    planned, _, solved, _ = first
    contacts = planned.contacts
    blend = blend_frames(prepared.clip.fps)
    # the footsteps perched on a crest (their heel hanging, :func:`_hang`, more than
    # RESTEP_FLOAT, mean over their frames): their hang counts in their float, and they are
    # also tried moved across; every other footstep is judged by its lowest rig point alone
    # (the hang counted everywhere changed which moves the stances next to a perch allowed:
    # pybvh_test1_zup_inches eight on the rocks, stance 9.5 -> 12.2 mm, independent scorer)
    hang = _hang(prepared, solved, terrain)
    perched = np.zeros(contacts.shape, dtype=bool)
    hanging: set[int] = set()
    for i, step in enumerate(steps):
        first_frame, last_frame = spans[step[0]][1], spans[step[-1]][2]
        foot = spans[step[0]][0]
        if step_float([float(hang[a:b, f].mean()) for f, a, b in spans], spans,
                       step) > RESTEP_FLOAT:
            hanging.add(i)
            perched[first_frame:last_frame, foot] = True
    measured = _heights(prepared, solved, terrain, contacts, spans, perched)
    before = measured.stances
    floats = [step_float(before, spans, step) for step in steps]
    floating = [i for i, step in enumerate(steps) if i in among and floats[i] > RESTEP_FLOAT
                and spans[step[-1]][2] - spans[step[0]][1] >= blend]
    if not floating:
        return first, base
    feet = prepared.feet
    # the footsteps in which their leg kneels with its knee on the floor (a lunge's knee, off
    # it, is carried by its foot: held by its kneel, cmu_131_01's lunging footstep at 30 fps
    # was kept on its crest, stance 10.3 mm, independent scorer)
    kneeling = {i for i in floating if any(kneels[k] for k in steps[i])}
    kneel_before = kneel_error(prepared, terrain, first[1]) if kneeling else (0.0, 0.0)
    headings = {}
    for i in floating:
        foot, start, stop = max((spans[k] for k in steps[i]), key=lambda s: s[2] - s[1])
        sole = feet.sole[(start + stop) // 2, foot]
        sole = sole[np.isfinite(sole[:, 0])]
        heading = (sole[-1] - sole[0])[[0, 2]] if len(sole) > 1 else np.zeros(2)
        length = float(np.hypot(*heading))
        if length > 1e-6:
            headings[i] = heading / length
    # each footstep tried with the footsteps of its foot next to it unmoved (every other one
    # at a time), so what its own move does to the stances and swings around it is seen
    all_swings = swing_spans(contacts)
    seconds = np.array([stop - start for _, start, stop, _, _ in all_swings]) / prepared.clip.fps
    tries = [(move, 0.0) for move in RESTEP_MOVES] + [(0.0, move) for move in RESTEP_ACROSS]
    best = {i: (floats[i] - RESTEP_GAIN, (0.0, 0.0)) for i in headings}
    sets = apart(steps, spans, sorted(headings), int(round(prepared.clip.fps)))
    for parity in (0, 1):
        group = [i for i in headings if sets[i] == parity]
        for along, across in tries:
            movers = {i: along * headings[i] + across * _left(headings[i]) for i in group
                      if across == 0.0 or i in hanging}
            if not movers:
                continue
            tried = _with_steps(prepared, terrain, found, params, ball_clearance, solver,
                                contacts, spans, per_span(steps, movers, base), planned.kneel)
            got = _heights(prepared, tried[2], terrain, contacts, spans, perched)
            worse, worse_swings = _worse_parts(got, measured, seconds)
            # a kneeling footstep's move is judged by the kneel too (:func:`kneel_spoiled`)
            spoiled = any(i in kneeling for i in movers) and kneel_spoiled(
                prepared, terrain, tried[1], kneel_before)
            for i in movers:
                if spoiled and i in kneeling:
                    continue
                value = step_float(got.stances, spans, steps[i])
                # a perched footstep moved off its crest must still stand on its sole: its
                # lowest rig point no further from its source height than RESTEP_FLOAT, or
                # than it was (pybvh_test1_zup_inches eight on the rocks: 20 cm across, its
                # heel down, its lowest point 7.0 -> 15.5 mm; stance 9.5 -> 11.5 mm)
                if i in hanging and step_float(got.lowest, spans, steps[i]) > max(
                        step_float(measured.lowest, spans, steps[i]), RESTEP_FLOAT):
                    continue
                if value < best[i][0] and not near(i, steps, spans, worse, worse_swings,
                                                    all_swings):
                    best[i] = (value, (along, across))
    moves = {i: best[i][1][0] * headings[i] + best[i][1][1] * _left(headings[i])
             for i in headings if best[i][1] != (0.0, 0.0)}
    # the moves together, the least helpful dropped while any stance or swing is worse than
    # it was (a move blended across a short swing lifts the foot's next stance)
    for _ in range(RESTEP_TRIES):
        if not moves:
            break
        kept = per_span(steps, moves, base)
        out = _with_steps(prepared, terrain, found, params, ball_clearance, solver, contacts,
                          spans, kept, planned.kneel)
        worse, worse_swings = _worse_parts(
            _heights(prepared, out[2], terrain, contacts, spans, perched), measured, seconds)
        if not (worse.any() or worse_swings.any()):
            return out, kept
        # the least helpful dropped — a kneeling footstep's last: its float does not count the
        # knee it carries (mocapbank_zxy_cm circling right, backward, on the rocks: the kneel's
        # move dropped for its first footstep's, the knee 18 mm over its source height where
        # the move kept it at 0.8)
        del moves[min(moves, key=lambda i: (i in kneeling, floats[i] - best[i][0]))]
    return first, base


def _worse(after: list[float], before: list[float], by: float | FloatArray
           ) -> NDArray[np.bool_]:
    """Which of ``after`` are more than ``by`` (one, or one each) over the same of ``before``
    (NaN: not)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(after, dtype=float) > np.asarray(before, dtype=float) + by


def _worse_parts(after: Heights, before: Heights, seconds: FloatArray
                 ) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which stances of ``after`` are more than :data:`RESTEP_GAIN`, and which swings (lasting
    ``seconds (S,)``) more than :data:`RESTEP_SWING` or :data:`RESTEP_SWING_TIME` over their
    duration (the larger), further from their source heights than in ``before``."""
    allowed = np.maximum(RESTEP_SWING, RESTEP_SWING_TIME / np.maximum(seconds, 1e-9))
    return (_worse(after.stances, before.stances, RESTEP_GAIN),
            _worse(after.swings, before.swings, allowed))


def _with_steps(prepared: PreparedClip, terrain: RaySource, found: NDArray[np.bool_],
                params: GroundingParams, ball_clearance: float, solver: Solver | None,
                contacts: NDArray[np.bool_], spans: list[tuple[int, int, int]],
                moves: dict[int, FloatArray], kneel: KneelFit) -> Solved:
    """The clip planned and solved with the stances ``spans[k]`` (of the planned ``contacts``)
    moved by ``moves[k] (2,)``
    (x, z metres), each move held over its stance and blended across the swings; the kneels
    placed as in the first plan (``kneel``); solved by ``solver`` (:data:`Solver`; None:
    :func:`~footfall.grounding.clip.solve.solve`)."""
    step = np.zeros((*found.shape, 2))
    for k, move in moves.items():
        foot, start, stop = spans[k]
        step[start:stop, foot] = move
    step = np.stack([blend_across_swings(step[..., i], contacts, prepared.feet.ankle)
                     for i in range(2)], axis=-1)
    planned = plan(prepared, terrain, found, params, ball_clearance, step, kneel)
    if solver is None:
        return planned, *solve(prepared, planned, terrain)
    return planned, *solver(planned)


class Heights(NamedTuple):
    """What :func:`_heights` measures of a solved clip, per stance (``spans``) and per swing
    (:func:`~footfall.metrics.swing.swing_spans`), metres: how far from its source height
    (mean over its judged frames, NaN where none is)."""

    stances: list[float]
    swings: list[float]
    #: per stance, the same without the hang of a perched foot
    lowest: list[float]


def _heights(prepared: PreparedClip, solved: ClipFeet, terrain: RaySource,
             contacts: NDArray[np.bool_], spans: list[tuple[int, int, int]],
             perched: NDArray[np.bool_]) -> Heights:
    """How far from its source height each stance ``spans[k]`` (foot, start, stop) and each
    swing (:func:`~footfall.metrics.swing.swing_spans` of ``contacts``) of the ``solved``
    feet is, mean over its frames (metres, NaN where it has no ground): |the lowest rig point
    (ankle, ball, toe tips) over the terrain, or in a swing over the ground under it blended
    from lift-off to touch-down, − the source's lowest over its floor| (+ in the ``perched
    (F, 2)`` frames how far the heel hangs, :func:`_hang`); swing frames where the terrain
    forces a lift (the foot at its source height would enter it) left out."""
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
    # a planted foot perched by its ball, its heel hanging, floats by the excess too
    lowest = error
    error = error + np.where(contacts & perched, _hang(prepared, solved, terrain), 0.0)
    # a swing frame where the foot at its source height over the blended ground would enter
    # the terrain is lifted by force, not judged
    with np.errstate(invalid="ignore"):
        forced = np.fmin.reduce(gaps + (blended + source - low)[..., None], axis=-1) < 0.0
    error = np.where(~contacts & forced, np.nan, error)

    def mean(foot: int, start: int, stop: int, of: FloatArray = error) -> float:
        values = of[start:stop, foot]
        values = values[np.isfinite(values)]
        return float(values.mean()) if len(values) else float("nan")

    swings = [(foot, start, stop) for foot, start, stop, _, _ in swing_spans(contacts)]
    return Heights(
        [mean(*span) for span in spans],
        [mean(*swing) for swing in swings],
        [mean(*span, of=lowest) for span in spans])


def _hang(prepared: PreparedClip, solved: ClipFeet, terrain: RaySource) -> FloatArray:
    """How far ``(F, 2)`` (metres, 0 where not, nor where unknown) each ``solved`` foot's
    modelled heel is higher over the ground straight under it than the source's heel over its
    floor, beyond :data:`RESTEP_HANG`, on smooth ground rising under the sole by more than
    that over the ground under the heel: a foot perched on a crest by its ball.
    Over an edge (the ground jumping by more than
    :data:`~footfall.grounding.clip.tread_fit.EDGE_JUMP` between neighbouring sole samples: a
    riser) the heel hangs over the tread below, where the tread fit put it (counted, the moves
    off it left a foot 130 mm deep in a riser: mixamo_stepping backward on the stairs)."""
    heel = ground_gaps(terrain, solved.touch[:, :, 0])
    source = prepared.feet.touch[:, :, 0, 1] - prepared.floor
    with np.errstate(invalid="ignore"):
        excess = heel - source - RESTEP_HANG
    excess = np.where(np.isfinite(excess), np.maximum(excess, 0.0), 0.0)
    hanging = np.nonzero(excess > 0.0)
    if hanging[0].size:
        sole = solved.sole[hanging]  # (K, S, 3)
        ground = sole[..., 1] - ground_gaps(terrain, sole)
        with np.errstate(invalid="ignore"):
            rises = np.abs(np.diff(ground, axis=-1))
        edge = np.where(np.isfinite(rises), rises, 0.0).max(axis=-1, initial=0.0) > EDGE_JUMP
        # ... and only where the ground rises under the sole above the ground under the heel by
        # as much: on level ground a hanging heel is the foot's own pose, which no move mends
        # (cmu_01_01 on the stairs' level run: 29 solves for nothing, 3 times the time)
        with np.errstate(invalid="ignore"):
            rise = np.where(np.isfinite(ground), ground - ground[:, :1], 0.0).max(axis=-1)
        crest = ~edge & (rise > RESTEP_HANG)
        excess[hanging] = np.where(crest, excess[hanging], 0.0)
    return excess


def _left(heading: FloatArray) -> FloatArray:
    """The horizontal unit ``(2,)`` (x, z) to the left of a unit ``heading (2,)`` (Y up)."""
    return np.array([heading[1], -heading[0]])
