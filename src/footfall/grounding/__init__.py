"""Feet on uneven terrain, two ways over the same pieces (feet, contacts, foot alignment, IK).

- A whole clip at once (``footfall ground``): :func:`ground_clip` in :mod:`.clip` places the
  clip (:mod:`.placement`), finds its contacts and plans, solves and scores the correction.
- Frame by frame for K characters (the walkers, the demo, ``footfall live``):
  :class:`GroundingPipeline` (:mod:`.pipeline`): terrain rays → footsteps (plan, tread snap,
  swing curve) → hips → leg IK → foot alignment.
"""

from footfall.footing.foot_model import (
    FootModel,
    Leg,
    foot_model,
    foot_model_from_motion,
    foot_model_from_points,
    leg_lengths,
    legs_of,
)
from footfall.grounding.clip import GroundResult, ground_clip, measure_clip
from footfall.grounding.clip.placement import place_clip, scene_size
from footfall.grounding.foot_align import align_rotation, ankle_lift, slope_angles, tilt_normal
from footfall.grounding.footsteps import (
    StepPlan,
    plan_steps,
    smoothstep,
    swing_height,
    swing_offset,
    tread_snap_shift,
)
from footfall.grounding.hips import follow, reach_limit
from footfall.grounding.locks import slip_locks
from footfall.grounding.params import (
    DEFAULT_PARAMS,
    GroundingParams,
    ParamArrays,
    stack_params,
)
from footfall.grounding.pipeline import FootPlan, GroundedFrame, GroundingPipeline

__all__ = [
    "DEFAULT_PARAMS",
    "FootModel",
    "FootPlan",
    "GroundResult",
    "GroundedFrame",
    "GroundingParams",
    "GroundingPipeline",
    "Leg",
    "ParamArrays",
    "StepPlan",
    "align_rotation",
    "ankle_lift",
    "follow",
    "foot_model",
    "foot_model_from_motion",
    "foot_model_from_points",
    "ground_clip",
    "leg_lengths",
    "legs_of",
    "measure_clip",
    "place_clip",
    "scene_size",
    "plan_steps",
    "reach_limit",
    "slip_locks",
    "slope_angles",
    "smoothstep",
    "stack_params",
    "swing_height",
    "swing_offset",
    "tilt_normal",
    "tread_snap_shift",
]
