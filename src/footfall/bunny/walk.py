"""How the bunny walks with the stepping walker: seed 000's sizes and its upper-body sway
(spine lean 0.07 rad, arms swinging ±0.5 rad in counter-phase)."""

from footfall.gait.stepping import StepStyle

STEP_STYLE = StepStyle(
    sway=(("Spine", 0.07, 0.0), ("LeftUpperArm", 0.0, 0.5), ("RightUpperArm", 0.0, -0.5)),
)
