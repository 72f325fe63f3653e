"""Analytic two-bone inverse kinematics: 3D limbs, seed 000's planar leg, seed 001's knee copy.

>>> from footfall.ik import solve_two_bone
>>> r = solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], [0.2, 0.2, 0.1], pole=[0, 0.5, 1])
>>> bool(abs(r.tip - [0.2, 0.2, 0.1]).max() < 1e-9)
True
"""

from footfall.ik.knee import knee_from_source
from footfall.ik.limb import solve_limb
from footfall.ik.planar import PlanarLegResult, leg_ik_planar
from footfall.ik.two_bone import TwoBoneResult, reach_limits, solve_two_bone

__all__ = [
    "PlanarLegResult", "TwoBoneResult", "knee_from_source", "leg_ik_planar", "reach_limits",
    "solve_limb", "solve_two_bone"
]
