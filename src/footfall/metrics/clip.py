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
from footfall.metrics.stance import defect_over, support_heights
from footfall.skeleton import Clip

if TYPE_CHECKING:
    from footfall.grounding.clip.feet import ClipFeet
    from footfall.grounding.feet import Leg
    from footfall.terrain.base import RaySource


def score(clip: Clip, feet: ClipFeet, contacts: NDArray[np.bool_], terrain: RaySource,
          legs: tuple[Leg, Leg], rest: FloatArray, floor: float | None = None
          ) -> dict[str, float]:
    """Every metric of a clip on ``terrain``, each under the name of what it is.

    Over the body's joints (:func:`footfall.humanoid.body_joints`): ``gmd_foot_skate_ratio``
    (GMD's released code, its own floor, not the terrain) and ``physdiff_*_mm`` (the lowest
    joint against the terrain); footfall's own, over the ``contacts (F, 2)``:
    ``contact_error_m`` and ``support_defect_ratio`` (seed 002, sole samples),
    ``stance_sink_m`` and ``stance_float_m`` (lowest sole sample below / above the ground),
    ``stance_slip_m`` (ankle travel per frame), ``contact_skate_ratio`` (pairs of contact frames
    faster than 0.5 m/s) and, from the feet's planted support-joint heights ``rest (2, P)``,
    ``stance_height_error_m`` (mean |height above or below planted| of the planted feet's
    support joints: ankle, ball, toe tips, over the terrain:
    :func:`~footfall.metrics.stance.defect_over`; ``floor`` is the clip's floor height while its
    feet are still as animated, None once they stand on the terrain).
    """
    _, gpos = clip.forward_kinematics()
    body = body_joints(clip.skeleton, legs)  # a still node above the pelvis is no body part
    # The (left, right) toe-base joints GMD's ratio follows (the foot where there is none).
    toes = np.searchsorted(body, [leg.foot if leg.toes is None else leg.toes for leg in legs])
    gpos = gpos[:, body]
    out = {"gmd_foot_skate_ratio": gmd_foot_skate_ratio(gpos, clip.fps, *toes)}
    heights = joint_heights(gpos, terrain)
    physdiff = physdiff_metrics(heights, gpos[..., [0, 2]])
    out.update({f"physdiff_{key}": value for key, value in physdiff.items()})
    stance = contact_metrics(ground_gaps(terrain, feet.sole), contacts)
    renamed = {"penetration_m": "stance_sink_m", "floating_m": "stance_float_m"}
    out.update({renamed.get(key, key): value for key, value in stance.items()})
    out["stance_slip_m"] = stance_slip(feet.ankle, contacts)
    out["contact_skate_ratio"] = contact_skate_ratio(feet.ball, contacts, clip.fps)
    defect = defect_over(support_heights(feet.ankle, feet.touch, terrain), rest, feet.ankle,
                         floor)
    out["stance_height_error_m"] = float(np.abs(defect[contacts]).mean()) if contacts.any() \
        else 0.0
    return out


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
