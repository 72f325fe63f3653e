"""The legs solved to a :class:`~footfall.grounding.clip.plan.Plan`: analytic two-bone IK keeping
the animated knee plane, only where a correction is non-zero, then correction passes that
measure the solved feet and remove what the tilt left."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.clip_feet import ClipFeet
from footfall.footing.foot_model import Leg
from footfall.grounding.clip.kneels import shin_pivot
from footfall.grounding.clip.plan import (
    NO_LIFT,
    STANCE_TOLERANCE,
    Plan,
    allowed_dip,
    blend_frames,
    blend_to_edges,
    least_lift,
    swing_ends,
    swing_points,
    swing_rig,
)
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.smoothing import rate_limited_above, smooth_above
from footfall.grounding.clip.tread_fit import EDGE_JUMP
from footfall.ik import solve_two_bone
from footfall.metrics import ground_gaps
from footfall.metrics.stance import defect_over, support_heights
from footfall.skeleton import Clip, chain_local_rotations, forward_kinematics
from footfall.terrain.base import RaySource

#: Solves after the first that measure the solved feet and correct what is left.
CORRECTION_PASSES = 2
#: A planted ankle this far (metres) above its target stopped short: its leg is at full reach.
REACH_TOLERANCE = 1e-4
#: A correction smaller than this (metres) is none: the leg keeps its animated rotations.
NO_CORRECTION = 1e-9
#: How fast a foot's height correction may change: :data:`CORRECTION_SPEED` (metres per
#: second) plus :data:`CORRECTION_SLOPE` metres per metre the foot travels horizontally — a
#: foot standing still rises by a tread (15 cm) over 0.1 s at the least, one swinging fast
#: follows the treads it passes. Where the plan steps faster (a planted foot the source slides
#: over a riser, a swing lifted over a nose landing just past it) the foot is held higher,
#: rising before the step and settling after it. Without it such feet jumped up to 150 mm in
#: one frame (cmu_131_01 circling right, backward, at 120 fps on the stairs, frame 227: a
#: planted foot sliding 3 mm a frame). Slower (0.75 m/s and 1 m/m) the ramps held swings up
#: where the plan lifted them for a few frames: mixamo_stepping circling right, backward, on
#: the stairs, swing 10.5 -> 25.7 mm (14.3 at these; independent scorer).
CORRECTION_SPEED = 1.5
CORRECTION_SLOPE = 2.0


def solve(prepared: PreparedClip, plan: Plan, terrain: RaySource,
          progress: Callable[[int, int], None] | None = None
          ) -> tuple[Clip, ClipFeet, FloatArray]:
    """The solved clip, its feet and the swings' lift ``(F, 2)`` (metres): legs solved to the
    plan's targets, then :data:`CORRECTION_PASSES` more times removing the planted feet's
    measured defect and lock drift (never lowering a planted target past where its leg, at full
    reach, stopped short). A planted foot's correction moves the ground its swings are
    judged against (blended from lift-off to touch-down), and the swings are lifted again on
    the solved feet wherever they would enter the terrain; every target height is then held
    up so it changes no faster than :data:`CORRECTION_SPEED` and :data:`CORRECTION_SLOPE`
    allow (the swings' lift returned includes that, over the line between the heights it held
    the planted feet at on either side); ``progress(done, total)`` after each solve."""
    source, feet = prepared.clip, prepared.feet
    blend = blend_frames(source.fps)
    total = 2 + CORRECTION_PASSES
    correction = np.zeros(plan.contacts.shape)  # stance height corrections found on the solved feet
    drift = np.zeros((*plan.contacts.shape, 2))
    # A ball a lock holds (its source slipping beyond the tolerance) stays where the plan puts
    # it: the sole tilted to a slope turns the foot about its ankle and carries the ball away
    # (cmu_131_01 on the rocks, 44 mm; mocapbank's first footstep 66 mm), so the ankle is moved
    # back by the drift measured on the solved feet. The drift is carried from one held run to
    # the next through the frames between (the rest of the footstep, the swing) by the foot's
    # progress: applied only where held, the foot slid back 58 mm in a frame when the lock let
    # go (cmu_131_01, frame 394), and 25 of 189 runs slid a foot faster than 2 m/s (0 now).
    # Holding every planted ball, not only the locked ones, moved ankles up to 65 mm and
    # knelt mocapbank's knee 18 mm off its source height on the rocks.
    held = plan.locked & (plan.slip > STANCE_TOLERANCE)
    offset, lift, solved = plan.ankle_offset, plan.swing_lift, feet
    # how far a foot's height correction may change between two frames (metres)
    travel = np.zeros(plan.contacts.shape)
    travel[1:] = np.linalg.norm(np.diff(feet.ankle[..., [0, 2]] + plan.shift, axis=0), axis=-1)
    rate = CORRECTION_SPEED / source.fps + CORRECTION_SLOPE * np.nan_to_num(travel)
    for step in range(1 + CORRECTION_PASSES):
        if step > 0:
            # Lifted again on the solved feet (turned by the sole tilt fading out, moved by a
            # stance correction blended into the swing), taken back to no vertical offset.
            unlifted = plan.ankle_offset - plan.swing_lift + blend_to_edges(
                correction, plan.contacts, feet.ankle, np.zeros(correction.shape))
            points = swing_points(solved)
            points[..., 1] -= offset[..., None]
            lift = least_lift(points, terrain, prepared.floor, unlifted,
                              unlifted - plan.swing_clearance, plan.contacts, blend,
                              swing_rig(solved), solved.ball[..., 1] - offset, swing_ends(solved),
                              own=swing_points(feet)[..., 1])
            offset = unlifted + lift
        # no foot jumps: a step of its height correction (a tread's edge crossed in a frame,
        # a swing landing just past a nose) is met by a ramp at CORRECTION_SPEED, never lower
        ramped = rate_limited_above(offset, rate)
        raised, offset = ramped - offset, ramped
        targets = feet.ankle.copy()
        targets[..., [0, 2]] += plan.shift + _carried(drift, held, feet.ankle)
        targets[..., 1] += offset
        # a kneeling foot on its toes: its shin follows the knee the hips carry
        pivot = shin_pivot(prepared, targets, plan.tilt, plan.hips_offset, plan.kneel.body,
                           plan.contacts)
        tilt, bend = plan.tilt, None
        if pivot is not None:
            targets, tilt, bend = pivot.targets, pivot.tilt, (pivot.knees, pivot.weight)
        out = solve_legs(source, prepared.legs, plan.hips_offset, targets, tilt,
                         prepared.root, plan.kneel.body, bend)
        solved = prepared.feet_of(out)
        if progress is not None:
            progress(step + 1, total)
        if step == CORRECTION_PASSES:
            break
        # The planted feet's defect beyond what may stay of the source's own: the next solve
        # removes it.
        defect = defect_over(support_heights(solved, terrain), plan.rest)
        error = np.where(plan.contacts & ~plan.off_terrain, defect - plan.allowed, 0.0)
        # ... but never so far down that a point of the foot goes deeper into the terrain than
        # the source has it under its floor (a toe tip tilted down onto a rock's far side at
        # toe-off: games105 on the rocks, 14 mm), and raised out where one already is: the
        # defect rule judges the ankle and ball, not a toe tip
        entry = _stance_entry(solved, feet, terrain, prepared.floor, plan.contacts, blend)
        error = np.where(plan.contacts & ~plan.off_terrain, np.minimum(error, -entry), error)
        # ... nor where the ramp holds a planted foot up (it would come back as a jump)
        error = np.where(raised > NO_CORRECTION, np.minimum(error, 0.0), error)
        # never below where the leg reached: a leg at full reach (the hips kept high by the
        # other foot) stops short of a lower target, and a swing is judged against the ground
        # its foot really stood on at lift-off and touch-down
        reached = solved.ankle[..., 1] - feet.ankle[..., 1] - plan.ankle_offset
        short = plan.contacts & (solved.ankle[..., 1] > targets[..., 1] + REACH_TOLERANCE)
        correction = np.where(short, np.maximum(correction - error, reached), correction - error)
        wanted = feet.ball[..., [0, 2]] + plan.shift
        moved = solved.ball[..., [0, 2]] - wanted
        drift = drift - np.where(held[..., None], moved, 0.0)
    # the swings' lift as the output shows it: over the line between the heights the planted
    # feet were held at on either side (a ramp may hold a planted foot up too), and with where
    # a leg at full reach stopped short of its target (a foot carried along by a planted
    # ball's hold: games105 straight on the rocks, 19 mm)
    held_up = raised + np.maximum(solved.ankle[..., 1] - targets[..., 1], 0.0)
    edges = blend_to_edges(np.where(plan.contacts, held_up, 0.0), plan.contacts, feet.ankle,
                           np.zeros(raised.shape))
    return out, solved, lift + np.where(plan.contacts, 0.0, held_up - edges)


def _carried(drift: FloatArray, held: NDArray[np.bool_], ankle: FloatArray) -> FloatArray:
    """The held balls' horizontal correction ``drift (F, 2, 2)`` (x, z metres) carried through
    the frames between two runs of ``held (F, 2)`` by the foot's horizontal progress
    (``ankle (F, 2, 3)``), from the one before to the one after (to none at the clip's ends):
    no foot slides in a frame where a hold starts or ends."""
    none = np.zeros(held.shape)
    return np.stack([blend_to_edges(np.where(held, drift[..., axis], 0.0), held, ankle, none)
                     for axis in (0, 1)], axis=-1)


def _stance_entry(solved: ClipFeet, source: ClipFeet, terrain: RaySource, floor: float,
                  contacts: NDArray[np.bool_], blend: int) -> FloatArray:
    """How far ``(F, 2)`` (metres, − when clear) each planted foot's deepest rig point — the
    ankle, ball and toe tips (not the modelled heel) — of the ``solved`` feet is in the
    terrain beyond how far the same point of the ``source`` feet is under the clip's
    ``floor`` (no more than :func:`~footfall.grounding.clip.plan.allowed_dip` allows),
    smoothed from above within each contact over ``blend`` frames (−inf out of contact)."""
    points = np.concatenate([solved.ankle[:, :, None], solved.touch[:, :, 1:]], axis=2)
    own = np.concatenate([source.ankle[:, :, None], source.touch[:, :, 1:]], axis=2)[..., 1] - floor
    gaps = ground_gaps(terrain, np.where(np.isfinite(points), points, np.nan))
    with np.errstate(invalid="ignore"):
        cut = allowed_dip(own, np.ones(own.shape[-1], dtype=bool),
                          source.ball[..., 1] - floor) - gaps
        # a point deeper than a step's edge is in a riser or a rock's face: moving the foot
        # along the walk (the plan's tread fit) takes it out, lifting it would float the foot
        cut = np.where(cut > EDGE_JUMP, np.nan, cut)
    cut = np.where(np.isfinite(cut), cut, -np.inf).max(axis=-1, initial=-np.inf)
    inside = smooth_above(np.where(contacts & (cut >= NO_LIFT), cut, 0.0), blend)
    return np.where(contacts, np.where(inside > 0.0, np.maximum(cut, inside), cut), -np.inf)


def solve_legs(clip: Clip, legs: tuple[Leg, Leg], hips_offset: FloatArray, targets: FloatArray,
               tilt: FloatArray, root: int, body_shift: FloatArray | None = None,
               bend: tuple[FloatArray, FloatArray] | None = None) -> Clip:
    """The clip with its root raised by ``hips_offset (F,)`` metres (and moved horizontally by
    ``body_shift (F, 2)``, x and z metres, when given) and each leg solved so its ankle reaches
    ``targets (F, 2, 3)`` (world) with the foot turned by ``tilt (F, 2, 4)``; legs that need no
    correction keep their animated rotations. ``bend``, when given: the knees ``(F, 2, 3)``
    (world) the legs bend toward and by how much ``(F, 2)`` (the IK's pole and its weight; else
    each leg keeps its animated bend plane)."""
    rotations = clip.rotations.copy()
    positions = clip.positions.copy()
    positions[:, root, 1] += hips_offset
    if body_shift is not None:
        positions[:, root, 0] += body_shift[:, 0]
        positions[:, root, 2] += body_shift[:, 1]
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
        toward = {} if bend is None else {"pole": bend[0][:, side],
                                          "pole_weight": bend[1][:, side]}
        solved = solve_two_bone(hip, knee, ankle, target, **toward,
                                max_reach=np.clip(reach + 1e-9, 0.999, 1.0))
        chain = [leg.upper, leg.lower, leg.foot]
        world = quat.mul(np.stack([solved.upper_rotation, solved.lower_rotation, turn], axis=1),
                         grot[:, chain])
        parent = grot[:, parents[leg.upper]] if parents[leg.upper] >= 0 else quat.identity(
            (clip.frame_count,))
        local = quat.normalize(chain_local_rotations(parent, world))
        rotations[:, chain] = np.where(active[:, None, None], local, rotations[:, chain])
    return Clip(clip.skeleton, rotations, positions, clip.fps)
