"""Seed 002's tread snapping for any clip: a planted foot standing over an edge (a riser, a
rock's face) is moved along its own heel-to-toe direction by the least amount that puts it on
one tread, instead of being lifted onto the edge (:func:`tread_fit`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.runs import segments
from footfall.grounding.clip.footstep_groups import footsteps
from footfall.metrics.swing import blend_across_swings
from footfall.terrain.base import RaySource

#: A jump of the ground between neighbouring sole samples (1 cm apart) higher than this (metres)
#: is an edge under a planted foot: a riser, a rock's face.
EDGE_JUMP = 0.02
#: A planted foot over an edge is moved along its own heel-to-toe direction, by at most this
#: share of its sole's length (in 1 cm steps, the least move first), until no edge is under it.
TREAD_FIT_REACH = 0.6
TREAD_FIT_STEP = 0.01
#: Ground samples on the line from a sole's toe end to a toe tip beyond it (ends included)
#: where a riser under raised toes is looked for (:func:`_riser_under_toes`).
TOE_LINE_SAMPLES = 6
#: Stepped ground under a planted sole higher than this (metres) above the line from its heel to
#: its toe is a crest (a stair nose met at a slant): the foot would rest on it with its rig
#: points floating, and is moved off it.
CREST_HEIGHT = 0.01
#: The frames of a contact the tread fit chooses its move on: every this many (the frames
#: between only carry it on to the same tread, :func:`tread_fit`; judging every frame for every
#: move made ``footfall ground`` of 3,000 frames at 120 fps 4.95 -> 6.58 s).
FIT_FRAME_STRIDE = 3
#: Points of a planted foot lower than this over the floor (metres) are the ones it stands on.
TOUCH_HEIGHT = 0.03
#: How far either side of a sole's line (metres) an edge under it is looked for, to tell one
#: across the foot from one beside it.
EDGE_PROBE = 0.03

def tread_fit(feet: ClipFeet, shift: FloatArray, terrain: RaySource, floor: float,
               contacts: NDArray[np.bool_], kept: NDArray[np.bool_] | None = None,
               blend: int = 1) -> FloatArray:
    """Horizontal shift ``(F, 2, 2)`` (x, z metres) that moves each planted foot standing over
    an edge along its own heel-to-toe direction, by the least amount that puts it on one tread
    (seed 002's tread snapping, for any clip), held over the contact and blended from one
    contact to the next over the swing between (:func:`blend_across_swings`).

    A frame stands over an edge when the ground jumps by more than :data:`EDGE_JUMP` between
    neighbouring sole samples, heel to toe (a slope is no edge: the sole tilts to it), or a riser
    beyond the sole's toe end would cut its raised toe tips (:func:`_riser_under_toes`), and
    either the ground under the points that touch (sole samples and touch points within
    :data:`TOUCH_HEIGHT` of the floor; the lowest where none is) differs by more than that, or
    another point of the foot would be in the ground if the foot stood on the highest of it (a
    toe tip in the riser of the next step). Only an edge across the foot moves it
    (:func:`_edge_across`). A frame also cannot fit when stepped ground under the sole rises
    more than :data:`CREST_HEIGHT` above the line from its heel to its toe (a stair nose met at
    a slant, which the three lines may not take as across the foot), where the foot would rest
    on the nose with its rig points floating; the least move that fits most frames is taken.
    Frames are judged every :data:`FIT_FRAME_STRIDE`; where frames between them still stand
    across a riser (on an edge, not a crest), the move is carried on the same way, as good on
    the judged frames, to the least that puts every frame on one tread: a move that fitted every
    third frame left a landing's frames between over the edge, the stance lift raised them onto
    the upper tread and the toes cut the riser (mixamo_stepping circling right, backward, on the
    stairs: 18 mm at frames 43-46). The frames between choosing the move outright sent another
    footstep to the tread on the other side (swings 13.2 -> 34.1 mm there); counting crests
    among them moved feet on the rocks onto worse ground (mixamo_stepping at 60 fps: stance
    1.2 -> 8.5 mm). A contact with a frame in ``kept (F, 2)`` (a kneeling foot of a kneel
    placed to fit, :func:`~footfall.grounding.clip.kneels.kneel_fit`) is not moved.
    (On smooth ground, a rock under the arch, the same rule moved some turning walks' feet onto
    worse ground: games105 turning backwards on the rocks 5.6 -> 22.9 mm; not applied.)"""
    fit = np.zeros((*contacts.shape, 2))
    spans = [(f, a, b) for f in range(contacts.shape[1]) for a, b in segments(contacts[:, f])]
    # a contact broken by swings shorter than ``blend`` frames is one footstep, fitted as one
    # (footstep_groups.footsteps, restep's rule): fitted apart, a one-frame contact between two
    # one-frame swings got its own move and the foot swerved 19 cm sideways and back in three
    # frames (pybvh_test1_zup_inches circling right, backward, on the stairs, frames 17-20)
    for step in footsteps(spans, blend, [False] * len(spans)):
        foot, start, stop = spans[step[0]][0], spans[step[0]][1], spans[step[-1]][2]
        if kept is not None and kept[start:stop, foot].any():
            continue
        frames = np.concatenate([np.arange(spans[k][1], spans[k][2]) for k in step])
        points = np.concatenate([feet.sole[frames, foot], feet.touch[frames, foot]], axis=1)
        points = points[:, np.isfinite(points).all(axis=(0, 2))]  # (n, N, 3)
        sole = feet.sole[frames[len(frames) // 2], foot]
        sole = sole[np.isfinite(sole[:, 0])]
        heading = (sole[-1] - sole[0])[[0, 2]] if len(sole) > 1 else np.zeros(2)
        length = float(np.hypot(*heading))
        if points.shape[1] < 2 or length < 1e-6:
            continue
        heading /= length
        steps = np.arange(1, int(TREAD_FIT_REACH * length / TREAD_FIT_STEP) + 1) * TREAD_FIT_STEP
        moves = np.concatenate([[0.0], np.stack([-steps, steps], axis=1).ravel()])
        ground_xz = points[..., [0, 2]] + shift[frames, foot][:, None]
        over = points[..., 1] - floor  # (n, N) each point's height over the floor
        samples = int(np.isfinite(feet.sole[start, foot, :, 0]).sum())  # heel to toe
        judged = np.arange(len(points)) % FIT_FRAME_STRIDE == 0
        on_edge, crest = _unfit(terrain, ground_xz[judged], over[judged], samples, moves,
                                heading)
        count = on_edge.sum(axis=-1) + crest.sum(axis=-1)  # (C,) frames the foot cannot fit
        middle = ground_xz[judged][judged.sum() // 2, :samples]
        if not ((crest[0].any() or on_edge[0].any()) and (
                crest[0].any() or _edge_across(terrain, middle, heading))):
            continue
        best = int(np.argmin(count))
        if not judged.all():
            # on to the same tread over every frame: further the same way while as good on the
            # judged frames, to the least move that puts none of the frames between across a
            # riser (on an edge, not a crest: the stance lift would raise them onto the upper
            # tread, their toes or heel then cut into the riser as the lift is smoothed into
            # the frames around them)
            onward = np.nonzero((np.sign(moves) == np.sign(moves[best])) & (
                np.abs(moves) >= np.abs(moves[best])) & (count == count[best]))[0]
            between = ground_xz[~judged], over[~judged], samples
            edge, nose = _unfit(terrain, *between, moves[onward[:1]], heading)
            if np.any(edge & ~nose) and len(onward) > 1:
                edge, nose = _unfit(terrain, *between, moves[onward[1:]], heading)
                clear = ~np.any(edge & ~nose, axis=-1)
                if clear.any():
                    best = int(onward[1:][np.argmax(clear)])
        fit[frames, foot] = moves[best] * heading
    return np.stack([blend_across_swings(fit[..., k], contacts, feet.ankle) for k in range(2)],
                    axis=-1)


def _unfit(terrain: RaySource, xz: FloatArray, over: FloatArray, samples: int,
           moves: FloatArray, heading: FloatArray) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Frames ``(C, n)`` a foot cannot fit, for each move ``moves (C,)`` along ``heading (2,)``
    of its points ``xz (n, N, 2)`` (the ``samples`` sole samples heel to toe, the heel, the toe
    tips; ``over (n, N)`` their heights over the floor): standing on an edge, and on a crest
    (see :func:`tread_fit`)."""
    ground = terrain.height(xz[None] + moves[:, None, None, None] * heading)
    touching = (over < TOUCH_HEIGHT) | (over == over.min(axis=1, keepdims=True))
    with np.errstate(invalid="ignore"):
        known = touching & np.isfinite(ground)
        top = np.where(known, ground, -np.inf).max(axis=-1)  # (C, n)
        bottom = np.where(known, ground, np.inf).min(axis=-1)
        enters = np.any(ground - top[..., None] > over + EDGE_JUMP, axis=-1)
        # a slope under the foot is no edge (the sole tilts to it): a jump between
        # neighbouring sole samples is, and so is a riser under raised toes
        # (:func:`_riser_under_toes`)
        rises = np.abs(np.diff(ground[..., :samples], axis=-1))
        jump = np.where(np.isfinite(rises), rises, 0.0).max(axis=-1, initial=0.0) > EDGE_JUMP
        jump |= _riser_under_toes(terrain, xz, over, samples, moves, heading)
        on_edge = jump & ((top - bottom > EDGE_JUMP) | enters)
        # a crest under the sole (a stair nose at a slant): stepped ground rising above
        # the line from heel to toe, the foot would rest on it and its rig points float
        sole = ground[..., :samples]
        chord = sole[..., :1] + (sole[..., -1:] - sole[..., :1]) * np.linspace(
            0.0, 1.0, samples)
        bulge = np.where(np.isfinite(sole - chord), sole - chord, 0.0).max(axis=-1)
        crest = (bulge > CREST_HEIGHT) & jump
    return on_edge, crest


def _riser_under_toes(terrain: RaySource, xz: FloatArray, over: FloatArray, samples: int,
                      moves: FloatArray, heading: FloatArray) -> NDArray[np.bool_]:
    """Whether ``(C, n)`` a foot's toe tips, beyond its sole's toe end, are over a riser that
    would cut them: for each move ``moves (C,)`` along ``heading (2,)`` of its points ``xz (n,
    N, 2)`` (the ``samples`` sole samples heel to toe, the heel, the toe tips; ``over (n, N)``
    their heights over the floor), the ground rises from under the sole's toe end to under a
    toe tip by more than the tip is held over the floor plus :data:`EDGE_JUMP`, by a jump of
    more than :data:`EDGE_JUMP` between neighbouring samples on the line between them (a
    riser, not a slope: the sole's own rule). A foot standing on its heel with its toes raised
    over the next riser (cmu_131_01 walked backward up the stairs) has no edge under its sole
    samples, and was lifted by its toe tips onto the upper tread instead of moved back."""
    tips = xz[:, samples + 1:]  # (n, T, 2)
    if tips.shape[1] == 0 or samples == 0:
        return np.zeros((len(moves), len(xz)), dtype=bool)
    end = xz[:, samples - 1:samples]  # (n, 1, 2) the sole's toe end
    share = np.linspace(0.0, 1.0, TOE_LINE_SAMPLES)
    line = end[:, :, None] + (tips - end)[:, :, None] * share[:, None]  # (n, T, K, 2)
    ground = terrain.height(line[None] + moves[:, None, None, None, None] * heading)
    with np.errstate(invalid="ignore"):
        steps = np.abs(np.diff(ground, axis=-1))
        riser = np.where(np.isfinite(steps), steps, 0.0).max(axis=-1, initial=0.0) > EDGE_JUMP
        cuts = ground[..., -1] - ground[..., 0] > over[:, samples + 1:] + EDGE_JUMP
    return np.any(riser & cuts, axis=-1)


def _edge_across(terrain: RaySource, sole_xz: FloatArray, heading: FloatArray) -> bool:
    """Whether the edge under a foot's sole samples ``sole_xz (S, 2)`` (heel to toe, one frame)
    runs across the foot — a riser ahead of the toes or behind the heel, which moving the foot
    along ``heading (2,)`` clears — rather than along it (an edge beside the foot: it stands on
    its upper side, as it did). Found on three lines, the sole's and one either side
    (:data:`EDGE_PROBE`): across when each crosses it, within 45° of square."""
    side = np.array([-heading[1], heading[0]])
    lines = sole_xz[None] + np.array([-EDGE_PROBE, 0.0, EDGE_PROBE])[:, None, None] * side
    with np.errstate(invalid="ignore"):
        jumps = np.abs(np.diff(terrain.height(lines), axis=-1))  # (3, S - 1)
    crossed = np.nanmax(np.where(np.isfinite(jumps), jumps, 0.0), axis=-1) > EDGE_JUMP
    if not crossed.all():
        return False
    where = (lines[:, :-1] + lines[:, 1:]) / 2 @ heading  # along the foot
    at = where[np.arange(3), np.nanargmax(np.where(np.isfinite(jumps), jumps, -1.0), axis=-1)]
    return bool(abs(at[2] - at[0]) <= 2 * EDGE_PROBE + 0.01)  # one sample spacing of slack
