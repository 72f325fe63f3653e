"""How a foot stands flat in a clip: :func:`flat_frame`, the frame a foot stands flat in (heel
down, pitched as it mostly is in its stances). The retargeter's calibration pose sets each foot
as it stands there (``retarget.standing_pose``), and its standing heights are measured in that
pose: what the contact rule (:mod:`footfall.footing.tracker`) measures a foot's height from."""

from __future__ import annotations

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.footing.tracker import CONTACT_RULE, horizontal_speeds
from footfall.skeleton import Skeleton

#: A standing foot's heel is down when its ankle is this close above its lowest (metres).
HEEL_BAND = 0.01


def below_foot(skeleton: Skeleton, foot: int) -> list[int]:
    """The joints below joint ``foot`` (its toes and their children), in skeleton order."""
    return [j for j in range(skeleton.joint_count) if j != foot and foot in skeleton.chain(j)]


def foot_point_offsets(skeleton: Skeleton, foot: int) -> list[tuple[int, FloatArray]]:
    """A foot's own points below joint ``foot`` as ``(joint, offset in that joint's frame)``:
    the joints below it (offset 0), then the End Sites of the foot and of them — the one rule
    of which points of a rig are a foot's (its support points beyond the ankle: ball, toe
    tips); empty when the foot has neither."""
    below = below_foot(skeleton, foot)
    points: list[tuple[int, FloatArray]] = [(joint, np.zeros(3)) for joint in below]
    for joint in [foot, *below]:
        site = skeleton.end_sites.get(joint)
        if site is not None:
            points.append((joint, np.asarray(site, dtype=np.float64)))
    return points


def foot_points(skeleton: Skeleton, grot: FloatArray, gpos: FloatArray, foot: int) -> FloatArray:
    """``(F, P, 3)`` the points of :func:`foot_point_offsets` in the world, from world
    rotations ``(F, J, 4)`` and positions ``(F, J, 3)`` (the foot itself when it has none)."""
    offsets = foot_point_offsets(skeleton, foot)
    if not offsets:
        return gpos[:, [foot]]
    return np.stack([gpos[:, joint] + quat.rotate(grot[:, joint], offset)
                     for joint, offset in offsets], axis=1)


def flat_frame(points: FloatArray, ankle: FloatArray, fps: float) -> int | None:
    """Of the stance frames (low and slow) whose heel is down — the ankle within
    :data:`HEEL_BAND` of its lowest in the stances — the one whose heel stands above the foot's
    lowest point ``points (F, P, 3)`` (:func:`foot_points`) by the median of them (between a
    heel strike's raised toes and a toe pressed down: the foot flat), or None when the foot
    never stands; the first of equals (to the micrometre: the same frame whatever the file's
    joint orients). ``ankle (F, 3)``, world metres, at ``fps``."""
    toe = points[..., 1].min(axis=1)
    lowest = np.minimum(toe, ankle[:, 1])
    speed = horizontal_speeds(ankle, fps)
    # low and slow by the one contact rule, over the foot's own low level
    stance = ((lowest < np.percentile(lowest, 5) + CONTACT_RULE.lift)
              & (speed < CONTACT_RULE.speed))
    if not stance.any():
        return None
    heel = np.where(stance, ankle[:, 1], np.inf)
    down = np.flatnonzero(heel < np.percentile(ankle[stance, 1], 5) + HEEL_BAND)
    if len(down) == 0:
        down = np.flatnonzero(stance)
    pitch = ankle[down, 1] - toe[down]  # how far the heel stands above the toes
    return int(down[np.argmin(np.round(np.abs(pitch - np.median(pitch)), 6))])
