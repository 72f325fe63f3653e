"""Foot placement on uneven terrain: the per-frame pipeline, footsteps, pelvis and sole.

The data path is terrain rays → footsteps (plan, tread snap, swing curve) → pelvis → leg IK →
foot alignment; :class:`GroundingPipeline` runs it for K characters per call.
"""

from footfall.grounding.feet import FootModel, Leg, foot_model, leg_lengths, legs_of
from footfall.grounding.foot_align import align_rotation, ankle_lift, slope_angles, tilt_normal
from footfall.grounding.footsteps import (
    StepPlan,
    plan_steps,
    smoothstep,
    swing_height,
    swing_offset,
    tread_snap_shift,
)
from footfall.grounding.params import (
    DEFAULT_PARAMS,
    GroundingParams,
    ParamArrays,
    stack_params,
)
from footfall.grounding.pelvis import follow, reach_limit
from footfall.grounding.pipeline import FootPlan, GroundedFrame, GroundingPipeline

__all__ = [
    "DEFAULT_PARAMS",
    "FootModel",
    "FootPlan",
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
    "leg_lengths",
    "legs_of",
    "plan_steps",
    "reach_limit",
    "slope_angles",
    "smoothstep",
    "stack_params",
    "swing_height",
    "swing_offset",
    "tilt_normal",
    "tread_snap_shift",
]
