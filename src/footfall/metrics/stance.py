"""A planted foot's height defect over a terrain, judged by the joints it stands on (ankle, ball,
toe tips: its *support joints*): their heights over the ground under them
(:func:`support_heights`) against their planted heights, by the stance rule of
:mod:`footfall.footing.stance_level` (:func:`defect_over`).

What ``footfall ground`` reports as ``stance_height_error_m`` is simpler and measured on the rig
alone (:func:`stance_height_error`): each planted foot's lowest point — the foot joint, the
joints below it and their End Sites (:func:`foot_joint_points`) — over the terrain, against the
source's lowest point over its own floor in the same frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.footing.stance_level import stance_defect
from footfall.footing.standing import foot_points
from footfall.metrics.measures import ground_gaps

if TYPE_CHECKING:
    from footfall.footing.clip_feet import ClipFeet
    from footfall.skeleton import Skeleton
    from footfall.terrain.base import RaySource


def support_heights(feet: ClipFeet, terrain: RaySource,
                    shift: FloatArray | None = None) -> FloatArray:
    """Heights ``(F, 2, P)`` of the joints each foot stands on
    (:meth:`~footfall.footing.clip_feet.ClipFeet.support_points`: ankle, ball, toe tips) over
    the ground straight under them (NaN off the terrain, NaN padding). ``shift (F, 2, 2)``
    moves each foot horizontally first."""
    points = feet.support_points()
    if shift is not None:
        points[..., [0, 2]] += shift[:, :, None, :]
    return ground_gaps(terrain, points)


def defect_over(over: FloatArray, rest: FloatArray, ankle: FloatArray | None = None,
                floor: float | None = None) -> FloatArray:
    """Each foot's stance defect ``(F, 2)`` over the terrain (metres, + above planted), from
    its support joints' heights over the ground under them ``over (F, 2, P)``
    (:func:`support_heights`) against their planted heights ``rest (2, P)``.

    Feet still as animated on the clip's ``floor`` (their ``ankle (F, 2, 3)`` and the floor's
    height given): the ground's height under the ankle above that floor is taken out before
    :func:`stance_defect`'s rule and put back after, so the rule judges the foot's own pose and
    only how uneven the ground is across the foot (a foot on its toe tips stays one, not a
    sunken foot). Feet already put on the terrain (no ``floor``) are judged as they stand.
    """
    if ankle is None or floor is None:
        return stance_defect(over, rest)
    ankle_ground = ankle[..., 1] - over[..., 0] - floor
    lift = np.where(np.isfinite(ankle_ground), ankle_ground, 0.0)
    return stance_defect(over + lift[..., None], rest) - lift


def foot_joint_points(skeleton: Skeleton, feet: tuple[int, int], world_rotations: FloatArray,
                      world_positions: FloatArray) -> FloatArray:
    """Every point of each foot ``(F, 2, P, 3)`` (NaN padding), world metres: the foot joint
    (``feet``: the left and right foot joint indices) and the foot's own points below it (the
    joints below it and the End Sites, :func:`footfall.footing.standing.foot_points`) — the
    rig's own points, no modelled sole — from the clip's world rotations ``(F, J, 4)`` and
    positions ``(F, J, 3)``."""
    per_foot = [np.concatenate([world_positions[:, [foot]],
                                foot_points(skeleton, world_rotations, world_positions, foot)],
                               axis=1) for foot in feet]
    width = max(p.shape[1] for p in per_foot)
    out = np.full((world_positions.shape[0], 2, width, 3), np.nan)
    for side, found in enumerate(per_foot):
        out[:, side, : found.shape[1]] = found
    return out


def lowest_over(points: FloatArray, terrain: RaySource) -> FloatArray:
    """Each foot's lowest point over the ground straight under it ``(F, 2)`` (metres; NaN where
    none of its points ``(F, 2, P, 3)`` is over the terrain)."""
    gaps = ground_gaps(terrain, points)
    low = np.min(np.where(np.isfinite(gaps), gaps, np.inf), axis=-1)
    return np.where(np.isfinite(low), low, np.nan)


def stance_height_error(over: FloatArray, source: FloatArray, contacts: NDArray[np.bool_]
                        ) -> float:
    """Mean over the planted frames ``contacts (F, 2)`` of |each foot's lowest point over the
    terrain ``over (F, 2)`` − the source foot's lowest point over its own floor ``source (F, 2)``|
    (metres; 0 without a planted frame over the terrain): how far a planted foot stands off the
    ground, beyond what it did in the source (a heel raised at push-off stays raised)."""
    error = np.abs(over - source)[contacts]
    error = error[np.isfinite(error)]
    return float(error.mean()) if error.size else 0.0
