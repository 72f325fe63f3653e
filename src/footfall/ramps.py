"""Ramps: a share from 0 to 1 as a distance, a ratio or a time crosses a band.

Every graded rule of footfall (how much a foot is standing, a leg kneeling, a limb on IK)
blends with :func:`ramp_s`, so a rule's band is its only number; every eased blend over time
(a swing's height, a held value let go) with :func:`smoothstep_s`.
"""

from __future__ import annotations

import numba

from footfall.jit import helper


@helper
def ramp_s(value: float, start: float, end: float) -> float:
    """0 at ``start``, 1 at ``end``, linear between, clamped (a step at ``end`` when the two
    are closer than 1e-12)."""
    span = end - start
    if abs(span) < 1e-12:
        return 1.0 if value >= end else 0.0
    return min(max((value - start) / span, 0.0), 1.0)


@numba.vectorize(["float64(float64, float64, float64)"], cache=True)
def ramp(value: float, start: float, end: float) -> float:  # pragma: no cover (compiled)
    """:func:`ramp_s` over arrays (any shapes that broadcast)."""
    return ramp_s(value, start, end)


@helper
def smoothstep_s(t: float) -> float:
    """Hermite ease ``3t² − 2t³`` of ``t`` clipped to [0, 1] (compiled kernels; over arrays:
    :func:`footfall.grounding.footsteps.smoothstep`)."""
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return t * t * (3.0 - 2.0 * t)
