"""Procedural walk cycle (seed 004): walking computed from a phase clock, not keyframed.

Pure functions per behaviour live in small modules — :mod:`.phases` (seamless phase, five
stance phases, ankle roll), :mod:`.stride` (step length and speed), :mod:`.body` (bob, gaze,
twist, arms), :mod:`.slope` (lean and step rate on slopes), :mod:`.swing` (swing-arc clearance)
— and :mod:`.clock` holds the fixed-step walk and scene clocks. :class:`ProceduralWalker`
(:mod:`.walker`) drives any humanoid rig (:mod:`.rig`) with them, planted feet locked in the
world (:mod:`.locks`), posed by :mod:`.pose`; see :mod:`.walker` for the batched API.
"""

from footfall.gait.clock import WalkClock
from footfall.gait.params import GaitParams
from footfall.gait.phases import PHASE_NAMES, seam_jumps
from footfall.gait.walker import ProceduralWalker

__all__ = ["PHASE_NAMES", "GaitParams", "ProceduralWalker", "WalkClock", "seam_jumps"]
