"""A toe the source bends through its own floor, bent back up by its toe joint
(:func:`bend_toes`), not the foot lifted for it.

Captures bend toes through the floor: cmu_01_01's left toe End Site goes 56 mm under the floor
through a whole stance (frames 2005-2040) while the toe joint, the ball, stands on it — the toe
turned 57° down. Held out of the ground by lifting the foot, the ball and heel floated 8-28 mm
over that stance and the lift came and went as the ball crossed the tolerance; the lowest
joint of the clip rose with it, and GMD's ratio, which takes that joint as its floor, went
0.0153 -> 0.0524 on level ground. Turning the toe joint about the foot's side axis raises the
tip and moves nothing else: the least change that takes the toe out of the floor.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.clip_feet import clip_feet
from footfall.grounding.clip.plan import STANCE_TOLERANCE, blend_frames
from footfall.grounding.clip.prepared import PreparedClip
from footfall.grounding.clip.smoothing import smooth_above
from footfall.skeleton import Clip

#: A tip turned up by less than this (radians) is left as it is.
NO_BEND = 1e-6


def toe_lift(ball: FloatArray, tip: FloatArray, floor: float) -> FloatArray:
    """The turn ``(F,)`` (radians, ≥ 0) that raises a toe tip ``tip (F, 3)`` about its toe
    joint ``ball (F, 3)`` (world metres) to no deeper than :data:`STANCE_TOLERANCE` under the
    ``floor``, frame by frame: 0 where it is not that deep; never past level with the ball (a
    ball under that depth is a sunken foot, the stance rules' to lift, not a bent toe)."""
    toe = tip - ball
    length = np.linalg.norm(toe, axis=-1)
    target = np.minimum(floor - STANCE_TOLERANCE, ball[:, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        now = np.arcsin(np.clip(toe[:, 1] / length, -1.0, 1.0))
        wanted = np.arcsin(np.clip((target - ball[:, 1]) / length, -1.0, 1.0))
    turn = np.where(tip[:, 1] < target, wanted - now, 0.0)
    return np.where(np.isfinite(turn) & (length > 0.0), np.maximum(turn, 0.0), 0.0)


def bend_toes(prepared: PreparedClip) -> PreparedClip:
    """``prepared`` with every toe joint's End Site raised to no deeper than the tolerance
    under the clip's floor (:func:`toe_lift`), the toe turned up about the foot's side axis
    (the axis across the toe, level), frame by frame; its feet measured again on the bent
    clip. The floor, the soles and the contacts stay as the source's motion gave them. Legs
    without a toe joint, or whose toe joint has no End Site, are left as they are. The turn is
    smoothed from above over 0.05 s, so next to a frame that needs more a toe may turn a few
    degrees past level with its ball (cmu_01_01's left toe: 13 frames, 3.5° at most)."""
    clip = prepared.clip
    sites = clip.skeleton.end_sites
    toes = [leg.toes for leg in prepared.legs if leg.toes is not None and leg.toes in sites]
    if not toes:
        return prepared
    grot, gpos = clip.forward_kinematics()
    rotations = clip.rotations.copy()
    parents = clip.skeleton.parents
    bent = False
    for toe in toes:
        tip = gpos[:, toe] + quat.rotate(grot[:, toe], sites[toe])
        # never less than the frame's need, smooth in time: cut off frame by frame, a tip
        # running out of the floor at 12 mm a frame (cmu_01_01's left toe-off, 120 fps) let go
        # in one frame, 8.8 mm a frame² where the source's own foot reaches 6.6
        turn = smooth_above(toe_lift(gpos[:, toe], tip, prepared.floor),
                            blend_frames(clip.fps) // 2)
        if not np.any(turn > NO_BEND):
            continue
        direction = tip - gpos[:, toe]
        side = np.cross(direction, [0.0, 1.0, 0.0])  # turning about it raises the tip
        norm = np.linalg.norm(side, axis=-1, keepdims=True)
        usable = (turn > NO_BEND) & (norm[:, 0] > 1e-9)
        axis = np.where(norm > 1e-9, side / np.maximum(norm, 1e-12), [1.0, 0.0, 0.0])
        world = quat.mul(quat.from_axis_angle(axis, np.where(usable, turn, 0.0)), grot[:, toe])
        parent = grot[:, parents[toe]]
        local = quat.normalize(quat.inv_mul(parent, world))
        rotations[:, toe] = np.where(usable[:, None], local, rotations[:, toe])
        bent = bent or bool(usable.any())
    if not bent:
        return prepared
    out = Clip(clip.skeleton, rotations, clip.positions, clip.fps)
    feet = clip_feet(out.rotations, out.positions, out.skeleton, prepared.legs, prepared.models)
    return replace(prepared, clip=out, feet=feet)

