"""Procedural walk cycle (seed 004): walking computed from a phase clock, not keyframed.

Pure functions per behaviour (:mod:`.phases`, :mod:`.stride`, :mod:`.body`, :mod:`.slope`,
:mod:`.swing`) and the fixed-step clocks (:mod:`.clock`) drive :class:`ProceduralWalker`
(:mod:`.walker`, the batched API) on any humanoid rig (:mod:`.rig`), posed by :mod:`.pose`,
along a straight or curved path (:mod:`.path`).
"""

from footfall.gait.body import (
    arm_swing,
    body_heading,
    gaze_heading,
    head_bob,
    hip_bob,
    hip_height,
    twist,
)
from footfall.gait.clock import MAX_FRAME_S, STEP_S, WalkClock
from footfall.gait.params import GaitParams
from footfall.gait.path import PATHS, WalkPath
from footfall.gait.phases import (
    PHASE_NAMES,
    StepTiming,
    ankle_roll,
    in_stance,
    leg_phases,
    phase_bounds,
    phase_index,
    seam_jumps,
    step_timing,
    wrap_phase,
)
from footfall.gait.slope import adapted_step_rate, forward_lean, slope_along
from footfall.gait.stride import ground_speed, leg_segments, stance_sweep, step_length
from footfall.gait.swing import arc_min_height, clearance, raw_lift, swing_lift, swing_progress
from footfall.gait.walker import ProceduralWalker, WalkFrame

__all__ = [
    "MAX_FRAME_S",
    "PATHS",
    "PHASE_NAMES",
    "STEP_S",
    "GaitParams",
    "ProceduralWalker",
    "StepTiming",
    "WalkClock",
    "WalkFrame",
    "WalkPath",
    "adapted_step_rate",
    "ankle_roll",
    "arc_min_height",
    "arm_swing",
    "body_heading",
    "clearance",
    "forward_lean",
    "gaze_heading",
    "ground_speed",
    "head_bob",
    "hip_bob",
    "hip_height",
    "in_stance",
    "leg_phases",
    "leg_segments",
    "phase_bounds",
    "phase_index",
    "wrap_phase",
    "raw_lift",
    "seam_jumps",
    "slope_along",
    "stance_sweep",
    "step_length",
    "step_timing",
    "swing_lift",
    "swing_progress",
    "twist",
]
