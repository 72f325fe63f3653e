"""A kneeling knee kept out of the ground: grounding moves the feet, and a knee on the floor is
no foot. mocapbank_zxy_cm kneels on its right knee for about 200 of its 455 frames; on the stairs
that knee went up to 127 mm into the treads (PhysDiff's penetration 375 -> 54 mm after grounding,
all of it the knee), on the rocks up to 114 mm into a rock.

The hips rise as far as a kneeling knee needs (when a leg kneels: :mod:`footfall.footing.kneeling`,
judged on the source over its own floor): first as planned (:func:`kneeling_lift`), then by what
the solved clip still leaves inside the ground (:func:`clear_kneeling_knees`) — a leg solved to a
foot moved off a crest carries its knee with it, and folds it lower.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from footfall.arrays import FloatArray
from footfall.footing.kneeling import kneeling
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.smoothing import smooth_above
from footfall.metrics import ground_gaps

if TYPE_CHECKING:
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


def knee_heights(prepared: PreparedClip) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The source's knees ``(F, 2, 3)`` (world metres), how much each leg kneels ``(F, 2)``
    (1 … 0, :func:`~footfall.footing.kneeling.kneeling` of the leg's length, thigh + shin) and
    each knee's height over the clip's floor ``(F, 2)``."""
    clip, floor = prepared.clip, prepared.floor
    _, positions = clip.forward_kinematics()
    knees = positions[:, [leg.lower for leg in prepared.legs]]
    offsets = clip.skeleton.offsets
    length = np.array([np.linalg.norm(offsets[leg.lower]) + np.linalg.norm(offsets[leg.foot])
                       for leg in prepared.legs])
    height = knees[..., 1] - floor
    return knees, kneeling(height, length), height


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
