"""Every metric of a clip on a terrain, each under the name of what it is (:func:`score`): what
``footfall ground`` reports before and after grounding."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.humanoid.limbs import body_joints
from footfall.metrics.measures import (
    contact_metrics,
    contact_skate_ratio,
    gmd_foot_skate_ratio,
    ground_gaps,
    physdiff_metrics,
    stance_slip,
)
from footfall.metrics.stance import foot_joint_points, lowest_over, stance_height_error
from footfall.skeleton import Clip
from footfall.terrain.level import LevelGround

if TYPE_CHECKING:
    from footfall.footing.clip_feet import ClipFeet
    from footfall.footing.foot_model import Leg
    from footfall.terrain.base import RaySource


def score(clip: Clip, feet: ClipFeet, contacts: NDArray[np.bool_], terrain: RaySource,
          legs: tuple[Leg, Leg], source_heights: FloatArray,
          travel: FloatArray | None = None) -> dict[str, float]:
    """Every metric of a clip on ``terrain``, each under the name of what it is.

    Over the body's joints (:func:`footfall.humanoid.body_joints`): ``gmd_foot_skate_ratio``
    (GMD's released code, its own floor, not the terrain) and ``physdiff_*_mm`` (the lowest
    joint against the terrain); footfall's own, over the ``contacts (F, 2)``:
    ``contact_error_m`` and ``support_defect_ratio`` (seed 002, sole samples),
    ``stance_sink_m`` and ``stance_float_m`` (lowest sole sample below / above the ground),
    ``stance_slip_m`` (ankle travel per frame), ``contact_skate_ratio`` (pairs of contact frames
    faster than 0.5 m/s) and ``stance_height_error_m``: mean |lowest foot point (the foot joint,
    the joints below it, their End Sites) over the terrain − the source's over its own floor,
    ``source_heights (F, 2)``| of the planted feet
    (:func:`~footfall.metrics.stance.stance_height_error`).

    A clip walked in place slides over the ground as its ground slides under it: with the
    ground's ``travel (F, 2)`` (x, z metres by frame, :func:`footfall.footing.treadmill_travel`;
    None for a clip that travels itself) every horizontal figure — GMD's speeds, PhysDiff's
    sliding, the stance slip and skate — is measured against that ground, not the world.
    """
    grot, gpos = clip.forward_kinematics()
    foot_points = foot_joint_points(clip.skeleton, (legs[0].foot, legs[1].foot), grot, gpos)
    body = body_joints(clip.skeleton, legs)  # a still node above the hips is no body part
    # The (left, right) toe-base joints GMD's ratio follows (the foot where there is none).
    toes = np.searchsorted(body, [leg.foot if leg.toes is None else leg.toes for leg in legs])
    gpos = gpos[:, body]
    back = np.zeros((clip.frame_count, 3))
    if travel is not None:
        back[:, [0, 2]] = travel
    on_ground = gpos - back[:, None]  # horizontal positions over the ground the clip stands on
    out = {"gmd_foot_skate_ratio": gmd_foot_skate_ratio(on_ground, clip.fps, *toes)}
    heights = joint_heights(gpos, terrain)
    physdiff = physdiff_metrics(heights, on_ground[..., [0, 2]])
    out.update({f"physdiff_{key}": value for key, value in physdiff.items()})
    stance = contact_metrics(ground_gaps(terrain, feet.sole), contacts)
    renamed = {"penetration_m": "stance_sink_m", "floating_m": "stance_float_m"}
    out.update({renamed.get(key, key): value for key, value in stance.items()})
    out["stance_slip_m"] = stance_slip(feet.ankle - back[:, None], contacts)
    out["contact_skate_ratio"] = contact_skate_ratio(feet.ball - back[:, None], contacts, clip.fps)
    out["stance_height_error_m"] = stance_height_error(lowest_over(foot_points, terrain),
                                                       source_heights, contacts)
    return out


def source_heights(clip: Clip, legs: tuple[Leg, Leg], floor: float) -> FloatArray:
    """Each foot's lowest point (the foot joint, the joints below it, their End Sites) over the
    clip's own ``floor`` ``(F, 2)``, metres: what :func:`score` holds a planted foot to."""
    grot, gpos = clip.forward_kinematics()
    points = foot_joint_points(clip.skeleton, (legs[0].foot, legs[1].foot), grot, gpos)
    return lowest_over(points, LevelGround(floor))


def joint_heights(positions: FloatArray, terrain: RaySource) -> FloatArray:
    """Every joint's height ``(F, J)`` over the ground under it, with rays cast only for the
    joints that can be the lowest over the ground (within the terrain's height span of the
    frame's lowest joint); the others get +inf, which no minimum picks."""
    low, high = getattr(terrain, "height_range", (-np.inf, np.inf))
    span = float(high - low) if np.isfinite(high - low) else np.inf
    y = positions[..., 1]
    candidate = y <= y.min(axis=1, keepdims=True) + span + 1e-9
    heights = np.full(y.shape, np.inf)
    heights[candidate] = ground_gaps(terrain, positions[candidate])
    return heights
