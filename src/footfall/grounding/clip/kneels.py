"""A kneeling knee kept out of the ground: grounding moves the feet, and a knee on the floor is
no foot. mocapbank_zxy_cm kneels on its right knee for about 200 of its 455 frames; on the stairs
that knee went up to 127 mm into the treads (PhysDiff's penetration 375 -> 54 mm after grounding,
all of it the knee), on the rocks up to 114 mm into a rock.

The hips rise as far as a kneeling knee needs (when a leg kneels: :mod:`footfall.footing.kneeling`,
judged on the source over its own floor): first as planned (:func:`kneeling_lift`), then by what
the solved clip still leaves inside the ground (:func:`clear_kneeling_knees`) — a leg solved to a
foot moved off a crest carries its knee with it, and folds it lower.

Where no height of the hips fits a kneel — its knee and its foot on two treads, the knee left
hanging over the lower one (straight on the stairs: 157 mm over it) — the whole kneel, its body
and its feet, is moved by the least amount that puts the knee and the foot on one tread
(:func:`kneel_fit`, issue 36's principle for footsteps). The foot is judged by the points it
stands on, not by its sole rising off the ground (the eight on the stairs: 150 -> 0 mm).

A kneeling foot standing on its toes turns about them (:func:`shin_pivot`): its ankle goes
where the shin from the knee the hips carry puts it, and the leg bends to that knee. Held at its
planted height, the ankle straightened the leg off the rock its knee's lift was for
(mocapbank_zxy_cm walked backward on the rocks: the knee 56 -> 3 mm over its source height).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.kneeling import kneeling
from footfall.footing.runs import segments
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.smoothing import smooth, smooth_above
from footfall.grounding.clip.tread_fit import EDGE_JUMP, TOUCH_HEIGHT
from footfall.humanoid.limbs import body_joints
from footfall.metrics import ground_gaps
from footfall.metrics.swing import blend_across_swings

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from footfall.footing.clip_feet import ClipFeet
    from footfall.grounding.clip.plan import Plan
    from footfall.skeleton import Clip
    from footfall.terrain.base import RaySource

#: Kneeling knees measured on the solved clip and the hips raised again at most this many times.
CLEAR_ROUNDS = 2
#: A kneeling knee this far inside the ground (metres) is left as it is (PhysDiff's tolerance).
KNEE_TOLERANCE = 0.005
#: The hips' extra lift is smoothed from above over this long (seconds), as the hips are.
LIFT_SECONDS = 0.25
#: The moves of a kneel tried (:func:`kneel_fit`): this many directions, in steps of this long
#: (metres) up to this far (more than half a tread is deep: a kneel that fits a 30 cm tread
#: fits one within 15 cm along the walk; up to 40 cm, a kneel at the end of cmu_131_01 circling
#: right, backward, on the stairs, moved 38 cm and its swings went 2.8 -> 4.9 mm).
KNEEL_FIT_DIRECTIONS = 16
KNEEL_FIT_STEP = 0.005
KNEEL_FIT_REACH = 0.2
#: The frames of a kneel its moves are judged on: at most this many, evenly spaced over the
#: frames it kneels in full (the pose barely changes).
KNEEL_FIT_FRAMES = 24
#: The ground on the line from a kneeling knee to its foot is sampled at least this often
#: (metres), as a sole is (:data:`~footfall.grounding.clip.tread_fit.EDGE_JUMP`).
KNEEL_LINE_SPACING = 0.01


def knee_heights(prepared: PreparedClip) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The source's knees ``(F, 2, 3)`` (world metres), how much each leg kneels ``(F, 2)``
    (1 … 0, :func:`~footfall.footing.kneeling.kneeling` of the leg's length, thigh + shin) and
    each knee's height over the clip's floor ``(F, 2)``."""
    clip, floor = prepared.clip, prepared.floor
    knees = prepared.positions[:, [leg.lower for leg in prepared.legs]]
    offsets = clip.skeleton.offsets
    length = np.array([np.linalg.norm(offsets[leg.lower]) + np.linalg.norm(offsets[leg.foot])
                       for leg in prepared.legs])
    height = knees[..., 1] - floor
    return knees, kneeling(height, length), height


def resting_knees(prepared: PreparedClip) -> NDArray[np.bool_]:
    """Where ``(F, 2)`` each leg kneels (:func:`knee_heights`) with its knee resting on the
    floor: lower over it than :data:`~footfall.grounding.clip.tread_fit.TOUCH_HEIGHT`, as a
    point of a foot that stands on it is (mocapbank_zxy_cm's kneeling knee 9-11 mm). A lunge
    kneels too (its knee under :data:`~footfall.footing.kneeling.KNEELING`'s leg share) with
    its knee off the floor (cmu_131_01: 68 mm at the lowest): its knee never rests on the
    ground, and its foot carries it."""
    _, share, height = knee_heights(prepared)
    return (share > 0.0) & (height < TOUCH_HEIGHT)


def _farthest_touching(over: FloatArray, reach: FloatArray
                       ) -> tuple[NDArray[np.bool_], NDArray[np.intp]]:
    """Which points of a foot ``(..., N)`` touch the floor, from their heights over it ``over
    (..., N)`` (metres, NaN for padding) — those under
    :data:`~footfall.grounding.clip.tread_fit.TOUCH_HEIGHT`, and the lowest — and the index
    ``(...)`` of the one of them farthest from its knee (``reach (..., N)``, metres): the point
    a kneeling foot stands on farthest from its knee, as :func:`kneel_fit` and
    :func:`shin_pivot` judge it."""
    with np.errstate(invalid="ignore"):
        lowest = np.nanmin(np.where(np.isfinite(over), over, np.inf), axis=-1, keepdims=True)
        touching = (over < TOUCH_HEIGHT) | (over == lowest)
    far = np.argmax(np.where(touching & np.isfinite(reach), reach, -1.0), axis=-1)
    return touching, far


def kneeling_lift(prepared: PreparedClip, shift: FloatArray, terrain: RaySource,
                  feet_ground: FloatArray, hips_offset: FloatArray) -> FloatArray:
    """How much higher ``(F,)`` the hips must go than ``hips_offset (F,)`` (metres, over the
    clip's floor) for a kneeling knee to keep its animated height over the ground under it. The
    knee is taken where its foot's horizontal ``shift (F, 2, 2)`` moves it (a kneeling shin lies
    on the ground: moved off a crest, the foot carried the knee 15 cm onto a rock). A kneeling
    leg whose foot stands on higher ground than its knee (``feet_ground (F, 2)``, over the
    floor) lifts the hips by the foot's: the leg keeps its fold, its knee over a lower tread,
    where lifting it less folded the leg further and swung the knee 34 cm sideways into a
    riser."""
    knees, share, _ = knee_heights(prepared)
    if not np.any(share > 0.0):
        return np.zeros(hips_offset.shape)
    knees[..., [0, 2]] += shift
    ground = knees[..., 1] - ground_gaps(terrain, knees) - prepared.floor  # under each knee
    ground = np.fmax(ground, feet_ground)
    lift = share * np.maximum(ground - hips_offset[:, None], 0.0)
    return np.max(np.where(np.isfinite(lift), lift, 0.0), axis=1)


class ShinPivot(NamedTuple):
    """What :func:`shin_pivot` decides: the ankle targets ``(F, 2, 3)`` (world metres), the
    feet's turns ``(F, 2, 4)`` (world rotations, as the plan's sole tilts are), and the knees
    ``(F, 2, 3)`` (world metres) each leg bends toward by its ``weight (F, 2)`` (0 … 1: as a
    pole, the IK's bend goal)."""

    targets: FloatArray
    tilt: FloatArray
    knees: FloatArray
    weight: FloatArray


def shin_pivot(prepared: PreparedClip, targets: FloatArray, tilt: FloatArray,
               hips_offset: FloatArray, body: FloatArray, contacts: NDArray[np.bool_]
               ) -> ShinPivot | None:
    """The ankle targets and foot turns of kneeling feet that stand on their toes, from those
    planned (``targets (F, 2, 3)``, the sole tilts ``tilt (F, 2, 4)``), and the knees their
    legs bend to (:class:`ShinPivot`; None where no foot pivots). The knee goes where the hips
    carry it (raised by ``hips_offset (F,)``, moved by ``body (F, 2)``, x and z metres), the
    toes stay where the plan puts them, and the ankle goes where the shin puts it: on the
    source's shin length from the knee and its foot's length from the toes, the point of that
    circle nearest the planned ankle, the foot turned about its toes to meet it. A planted foot
    (``contacts (F, 2)``) pivots by how much its leg kneels (:func:`knee_heights`) and how far
    its heel is off the floor (none at :data:`~footfall.grounding.clip.tread_fit.TOUCH_HEIGHT`,
    fully at twice it: a lunge standing on a flat back foot, cmu_131_01's, keeps its ankle).

    Held at its planted height, the ankle of a foot on its toes kept the leg from following
    the hips its knee's rock lifted (99 mm): the leg straightened and the knee swung down the
    slope, 56 mm over its source height (mocapbank walked backward on the rocks, median over
    the full kneel; pivoting, 3 mm). The leg bends toward the carried knee (the IK's pole):
    kept in its own plane turned to the new ankle, the knee swung 16 mm sideways (15 mm over).

    The toes are the farthest from the knee of the rig's own toe points (its joints below the
    ankle and End Sites) that touch the floor, as :func:`kneel_fit` judges a foot: a foot whose
    knee rises turns its nearer points up, none down into the ground. They stay where the plan
    puts the foot at its height over the ground: a foot on its toes has no sole on the ground,
    and the turn about them takes the place of the sole's tilt (tilted by the slope about its
    ankle first, the eight's kneeling foot swung its toes 97 mm into a rock, was lifted out,
    and they stood 7 mm lower than the source's). Where the hips carry the knee as far as the
    toes go (level ground, no lift) nothing turns."""
    knees, share, _ = knee_heights(prepared)
    feet, floor = prepared.feet, prepared.floor
    heel = feet.touch[:, :, 0, 1] - floor
    weight = share * np.clip(heel / TOUCH_HEIGHT - 1.0, 0.0, 1.0) * contacts
    weight = np.where(np.isfinite(weight), weight, 0.0)
    if not np.any(weight > 0.0):
        return None
    carried = knees.copy()
    carried[..., 1] += hips_offset[:, None]
    carried[..., [0, 2]] += body[:, None]
    toes = feet.touch[:, :, 1:]  # (F, 2, N, 3) the rig's own, NaN-padded
    if toes.shape[2] == 0:
        return None
    reach = np.linalg.norm((toes - knees[:, :, None])[..., [0, 2]], axis=-1)
    _, far = _farthest_touching(toes[..., 1] - floor, reach)
    toe = np.take_along_axis(toes, far[..., None, None], axis=2)[:, :, 0]  # (F, 2, 3) source
    weight = np.where(np.isfinite(toe).all(axis=-1), weight, 0.0)
    if not np.any(weight > 0.0):
        return None
    foot = toe - feet.ankle
    shin = np.linalg.norm(knees - feet.ankle, axis=-1)
    foot_length = np.linalg.norm(foot, axis=-1)
    pivot = targets + foot  # the toes where the plan puts them, at their height over the ground
    apart = carried - pivot
    distance = np.maximum(np.linalg.norm(apart, axis=-1), 1e-9)
    along = apart / distance[..., None]
    # the circle of ankles: shin length from the knee, foot length from the toes
    offset = np.clip((foot_length**2 - shin**2 + distance**2) / (2.0 * distance),
                     -foot_length, foot_length)
    radius = np.sqrt(np.maximum(foot_length**2 - offset**2, 0.0))
    planned = targets - pivot
    across = planned - np.sum(planned * along, axis=-1, keepdims=True) * along
    across /= np.maximum(np.linalg.norm(across, axis=-1, keepdims=True), 1e-12)
    ankle = pivot + offset[..., None] * along + radius[..., None] * across
    turn = quat.slerp(tilt, quat.between(foot, pivot - ankle), weight)
    pivoted = (weight > 0.0)[..., None]
    return ShinPivot(np.where(pivoted, targets + weight[..., None] * (ankle - targets), targets),
                     np.where(pivoted, turn, tilt), carried, weight)


Solved = tuple["Plan", "Clip", "ClipFeet", FloatArray]


def clear_kneeling_knees(prepared: PreparedClip, terrain: RaySource, solved: Solved,
                         solve: Callable[[Plan], tuple[Clip, ClipFeet, FloatArray]]
                         ) -> Solved:
    """``solved`` (plan, clip, feet, swing lift) with the hips raised again, and the clip
    solved again by ``solve(plan)``, wherever a kneeling knee of the solved clip is more than
    :data:`KNEE_TOLERANCE` inside the ground, back to its animated height over it (at most
    :data:`CLEAR_ROUNDS` times; a clip that never kneels is returned as it is)."""
    _, share, wanted = knee_heights(prepared)
    if not np.any(share > 0.0):
        return solved
    window = max(1, int(round(LIFT_SECONDS * prepared.clip.fps)))
    legs = [leg.lower for leg in prepared.legs]
    for _ in range(CLEAR_ROUNDS):
        planned, clip = solved[0], solved[1]
        _, positions = clip.forward_kinematics()
        over = ground_gaps(terrain, positions[:, legs])
        # a knee inside the ground beyond the tolerance goes back to its animated height over
        # it; one merely lower than the source's is left (on level ground a foot's correction
        # moved a kneeling knee 2 mm, and the whole body with it)
        need = np.where(over < -KNEE_TOLERANCE, share * (wanted - over), 0.0)
        need = np.max(np.where(np.isfinite(need), need, 0.0), axis=1)
        if not np.any(need > 0.0):
            break
        planned = replace(planned, hips_offset=planned.hips_offset + smooth_above(need, window))
        solved = (planned, *solve(planned))
    return solved


class KneelFit(NamedTuple):
    """What :func:`kneel_fit` decides: horizontal moves (x, z metres) of the feet ``(F, 2, 2)``
    and of the body ``(F, 2)``, and where a leg kneels in a kneel it moved ``(F, 2)`` (the
    tread fit leaves the contacts there as they are)."""

    feet: FloatArray
    body: FloatArray
    kept: NDArray[np.bool_]

    @property
    def moved(self) -> bool:
        """Whether a kneel moved."""
        return bool(np.any(self.body != 0.0))

    def unmoved(self) -> KneelFit:
        """No kneel moved, none kept: as grounding was without :func:`kneel_fit`."""
        return KneelFit(np.zeros_like(self.feet), np.zeros_like(self.body),
                        np.zeros_like(self.kept))


def kneel_fit(prepared: PreparedClip, shift: FloatArray, terrain: RaySource,
              contacts: NDArray[np.bool_]) -> KneelFit:
    """The horizontal moves (x, z metres) that put each kneel (frames where a leg kneels,
    :func:`knee_heights`) where its knees and feet fit the ground: the feet's, on top of their
    ``shift (F, 2, 2)``, and the body's (:class:`KneelFit`).

    A kneel does not fit where the ground jumps by more than
    :data:`~footfall.grounding.clip.tread_fit.EDGE_JUMP` (a riser, a rock's face) between
    neighbouring samples on the line from a kneeling knee to the farthest point of its foot
    that touches the floor (of its heel, ball, toe tips and ankle: never a sample along its
    sole, :func:`_least_kneel_move`), where a point that touches is over ground more than that
    higher or lower than the knee's (:func:`_kneel_unfit`): no height of the hips puts both on
    the ground (the knee left over a lower tread, 16 cm up, or the foot's toes over one). The
    whole kneel — the contacts of both feet it overlaps, its frames, the body — is moved by the
    least of the moves tried (:data:`KNEEL_FIT_DIRECTIONS`, :data:`KNEEL_FIT_STEP`,
    :data:`KNEEL_FIT_REACH`) that fits the most of its judged frames (:data:`KNEEL_FIT_FRAMES`,
    where a leg kneels in full), when that is more than where it was. The feet's moves are held
    over those contacts and blended across the swings to the others (unmoved); the body
    follows the mean of the two feet, smoothed over :data:`LIFT_SECONDS`. A slope is no edge:
    on smooth ground a kneel is never moved.

    A kneel moved keeps its kneeling feet where it put them (``kept``): the tread fit judges a
    sole standing flat, and a foot standing on its toes, its heel over the next tread, it moved
    2 cm on, onto that tread (straight on the stairs). One that fits as it is is left to the
    tread fit as it was (kept, cmu_131_01's last steps circling right, backward, on the stairs:
    swings 2.8 -> 4.9 mm)."""
    frames = contacts.shape[0]
    feet_move = np.zeros((frames, 2, 2))
    kept = np.zeros((frames, 2), dtype=bool)
    knees, share, height = knee_heights(prepared)
    held = contacts.copy()
    moved = False
    for start, stop in segments(np.any(share > 0.0, axis=1)):
        full = np.nonzero(np.any(share[start:stop] >= 1.0, axis=1))[0] + start
        if full.size == 0:
            continue
        pick = np.linspace(0, full.size - 1, min(KNEEL_FIT_FRAMES, full.size))
        judged = np.unique(full[np.round(pick).astype(int)])
        entries = [(f, leg) for f in judged.tolist() for leg in range(2) if share[f, leg] >= 1.0]
        move = _least_kneel_move(prepared, shift, terrain, knees, height, entries)
        if move is None:
            continue
        kept[start:stop] = share[start:stop] > 0.0
        moved = True
        for foot in range(2):
            for a, b in segments(contacts[:, foot]):
                if a < stop and b > start:
                    feet_move[a:b, foot] = move
            feet_move[start:stop, foot] = move
        held[start:stop] = True
    if not moved:
        return KneelFit(feet_move, np.zeros((frames, 2)), kept)
    feet_move = np.stack([blend_across_swings(feet_move[..., k], held, prepared.feet.ankle)
                          for k in range(2)], axis=-1)
    window = max(1, int(round(LIFT_SECONDS * prepared.clip.fps)))
    return KneelFit(feet_move, smooth(feet_move.mean(axis=1), window), kept)


def _least_kneel_move(prepared: PreparedClip, shift: FloatArray, terrain: RaySource,
                      knees: FloatArray, height: FloatArray, entries: list[tuple[int, int]]
                      ) -> FloatArray | None:
    """The least move ``(2,)`` (x, z metres) tried (:func:`kneel_fit`) that fits the most of
    the kneeling legs ``entries`` (frame, leg) — the knees ``(F, 2, 3)`` at ``height (F, 2)``
    over the floor, moved by their feet's ``shift (F, 2, 2)`` — or None when they all fit as
    they are, or none fits more of them than no move.

    A foot is judged by the points it stands on — its heel, ball and toe tips, and its ankle —
    and not by the samples along its sole: a sole touches the floor where its ends do and lies
    between them, and a sample along it lower than
    :data:`~footfall.grounding.clip.tread_fit.TOUCH_HEIGHT` beyond them is the sole of a foot
    on its toes rising to its heel (mocapbank_zxy_cm bent into an eight on the stairs: a
    sample 29 mm up, 4 mm behind the ball, made its kneel's last 100 frames 30.0-30.6 cm long
    along the stairs, where knee to ball is 29.8-30.4 cm; one move fitted 11 of its 24 judged
    frames, the knee left 150 mm over the lower tread, median; judged by the sole's ends, 16 of
    24, 0.0 mm)."""
    if not entries:
        return None
    steps = np.arange(0, int(round(KNEEL_FIT_REACH / KNEEL_FIT_STEP)) + 1) * KNEEL_FIT_STEP
    angles = 2.0 * np.pi * np.arange(KNEEL_FIT_DIRECTIONS) / KNEEL_FIT_DIRECTIONS
    ways = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # (D, 2)
    unfit = np.zeros((len(ways), len(steps)), dtype=int)
    feet = prepared.feet
    for leg in range(2):
        f = np.array([frame for frame, side in entries if side == leg], dtype=int)
        if f.size == 0:
            continue
        knee = knees[f, leg][:, [0, 2]] + shift[f, leg]  # (E, 2)
        points = np.concatenate([feet.touch[f, leg], feet.ball[f, leg][:, None],
                                 feet.ankle[f, leg][:, None]], axis=1)
        known = np.isfinite(points).all(axis=(0, 2))  # the NaN padding left out
        points = points[:, known]
        over = points[..., 1] - prepared.floor  # (E, N)
        xz = points[..., [0, 2]] + shift[f, leg][:, None]
        touching, far = _farthest_touching(over, np.linalg.norm(xz - knee[:, None], axis=-1))
        end = xz[np.arange(len(f)), far]  # (E, 2) the farthest point that touches
        length = float(np.linalg.norm(end - knee, axis=-1).max())
        count = int(np.ceil(length / KNEEL_LINE_SPACING)) + 1
        line = knee[:, None] + (end - knee)[:, None] * np.linspace(0.0, 1.0, count)[:, None]
        for d, way in enumerate(ways):
            unfit[d] += _kneel_unfit(terrain, steps[:, None] * way, knee, line, xz,
                                     touching).sum(axis=-1)
    if unfit[0, 0] == 0:
        return None
    best = np.unravel_index(np.argmin(unfit.T), unfit.T.shape)  # the least step, then way
    if unfit[best[1], best[0]] >= unfit[0, 0]:
        return None
    return np.asarray(steps[best[0]] * ways[best[1]], dtype=np.float64)


def _kneel_unfit(terrain: RaySource, moves: FloatArray, knee: FloatArray, line: FloatArray,
                 xz: FloatArray, touching: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Which kneeling legs ``(C, E)`` do not fit the ground (:func:`kneel_fit`), each moved by
    each of ``moves (C, 2)``: the ground jumps on the line from the knee to its foot
    ``line (E, S, 2)`` (an edge between them: a slope is none, the leg keeps its fold over
    it), and under a point of the foot (``xz (E, N, 2)``) that touches (``touching (E, N)``)
    it is more than :data:`~footfall.grounding.clip.tread_fit.EDGE_JUMP` higher or lower than
    under the knee ``knee (E, 2)``; or there is no ground under the knee.

    The modelled sole and heel of a foot standing on its toes may lean on the riser behind
    them: held to it, a kneel 27-29 cm long fitted no 30 cm tread (mocapbank_zxy_cm straight
    on the stairs: at best 15 of 24 frames)."""
    shifted = moves[:, None, None]
    with np.errstate(invalid="ignore"):
        ground_line = terrain.height(line[None] + shifted)  # (C, E, S)
        rises = np.abs(np.diff(ground_line, axis=-1))
        edge = np.where(np.isfinite(rises), rises, 0.0).max(axis=-1, initial=0.0) > EDGE_JUMP
        under_knee = terrain.height(knee[None] + moves[:, None])[..., None]  # (C, E, 1)
        rise = terrain.height(xz[None] + shifted) - under_knee  # (C, E, N) over the knee's
        apart = touching & ~(np.abs(rise) <= EDGE_JUMP)
    return edge & np.any(apart, axis=-1) | ~np.isfinite(under_knee[..., 0])


def kneel_error(prepared: PreparedClip, terrain: RaySource, clip: Clip) -> tuple[float, float]:
    """How far a solved ``clip`` kneels from the source (metres): the median over the frames
    where a leg kneels in full of how far its knee's height over the ground under it is from
    its source's over the floor, and how deep the deepest joint of the body is in the ground
    over the frames where a leg kneels (0 when none is)."""
    _, share, wanted = knee_heights(prepared)
    legs = prepared.legs
    _, positions = clip.forward_kinematics()
    over = ground_gaps(terrain, positions[:, [leg.lower for leg in legs]])
    error = np.abs(over - wanted)[(share >= 1.0) & np.isfinite(over)]
    kneels = np.any(share > 0.0, axis=1)
    gaps = ground_gaps(terrain, positions[kneels][:, body_joints(clip.skeleton, legs)])
    deepest = -np.min(np.where(np.isfinite(gaps), gaps, 0.0), initial=0.0)
    return (float(np.median(error)) if error.size else 0.0), max(float(deepest), 0.0)


def kneel_spoiled(prepared: PreparedClip, terrain: RaySource, clip: Clip,
                  before: tuple[float, float]) -> bool:
    """Whether a solved ``clip`` kneels worse than ``before`` (:func:`kneel_error` of the clip
    it would replace): its knees more than :data:`KNEE_TOLERANCE` further from their source
    heights over the ground, or the body deeper in the ground than the tolerance and than it
    was. A footstep moved off a crest (:func:`~footfall.grounding.clip.restep.restep`) moves
    the foot and not the body: a kneeling foot moved alone may leave its knee behind, the leg
    unable to reach straightening off the ground (mocapbank_zxy_cm circling right, backward,
    on the rocks: its kneeling foot, resting on its toes by a rock, moved 20 cm to its left,
    its knee 283 mm over its source height over the ground, median over the kneel; 14 mm
    moved 20 cm to its right, the knee kept down). Not every kneeling footstep is held where it
    is: held, the eight on the rocks kept its knee 59.5 mm (median) over its source height
    where the move it takes leaves 14.7 mm."""
    error, depth = kneel_error(prepared, terrain, clip)
    return error > before[0] + KNEE_TOLERANCE or depth > max(before[1], KNEE_TOLERANCE)


def kneel_kept_if_better(prepared: PreparedClip, terrain: RaySource, moved: Solved,
                         still: Callable[[], Solved]) -> Solved:
    """``moved`` (plan, clip, feet, swing lift: solved with a kneel moved by
    :func:`kneel_fit`), or ``still()`` (solved with no kneel moved) unless the moved kneel's
    knees are more than :data:`KNEE_TOLERANCE` nearer their source heights over the ground
    (:func:`kneel_error`) without putting the body deeper in the ground than the tolerance
    or than it was — measured on the solved clips, not predicted. mocapbank_zxy_cm mirrored on
    the stairs kneels facing up them: moved 5.5 cm down onto one tread, its kneeling knee, held
    by the ankle at its planted height, crossed the riser ahead 71 mm under the next tread as it
    rose (and a hand, 35 cm ahead, went 63 mm into it), and the move was refused (its knee 38 mm
    over its tread). The move is still refused there; the kneel stays across the riser, and its
    foot pivoting on its toes (:func:`shin_pivot`) lets the knee rest on the upper tread's nose
    with the toes on the tread below: the knee 0.0 mm over its source height."""
    if not moved[0].kneel.moved:
        return moved
    other = still()
    (error, depth), (error_still, depth_still) = (kneel_error(prepared, terrain, solved[1])
                                                  for solved in (moved, other))
    if error + KNEE_TOLERANCE < error_still and depth <= max(depth_still, KNEE_TOLERANCE):
        return moved
    return other
