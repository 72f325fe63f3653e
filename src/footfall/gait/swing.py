"""The swing foot's arc and its clearance correction (seed 004 #08).

The raw arc lifts the ankle ``0.09·L·sin(πk)`` over swing progress ``k`` ∈ [0, 1] and skims the
ground near lift-off and landing; the correction adds a clearance floor ``arc_min`` (20 px at
1.6 Hz for a 90 px leg), held up to ``k = 0.85`` and lowered to zero over the rest.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.gait.params import ARC_MIN_SHARE
from footfall.gait.phases import wrap_phase

RAW_ARC_SHARE = 0.09


def arc_min_height(step_rate_hz: ArrayLike, leg_length: ArrayLike,
                   share: float = ARC_MIN_SHARE) -> FloatArray:
    """Clearance floor ``(...)``: ``share·L·clamp(1.6 / rate, 0.5, 2)``."""
    rate = np.asarray(step_rate_hz, dtype=np.float64)
    return share * np.asarray(leg_length, np.float64) * np.clip(1.6 / rate, 0.5, 2.0)


def raw_lift(progress: ArrayLike, leg_length: ArrayLike) -> FloatArray:
    """The uncorrected arc ``0.09·L·sin(πk)``, ``(...)``."""
    k = np.clip(np.asarray(progress, dtype=np.float64), 0.0, 1.0)
    return RAW_ARC_SHARE * np.asarray(leg_length, np.float64) * np.sin(math.pi * k)


def clearance(progress: ArrayLike, step_rate_hz: ArrayLike, leg_length: ArrayLike,
              hold: float = 0.85, rise: float = 0.15, share: float = ARC_MIN_SHARE) -> FloatArray:
    """Extra lift added to the raw arc, ``(...)``.

    ``max(floor, 1.2·arc_min·sin(π·min(k / hold, 1)))`` where the floor is ``arc_min`` between
    ``rise`` and ``hold`` and falls linearly to 0 at ``k = 1`` (and at ``k = 0`` when
    ``rise`` > 0).
    """
    k = np.clip(np.asarray(progress, dtype=np.float64), 0.0, 1.0)
    low = arc_min_height(step_rate_hz, leg_length, share)
    drop = np.clip((k - hold) / (1.0 - hold), 0.0, 1.0) if hold < 1.0 else np.zeros_like(k)
    ramp = np.clip(k / rise, 0.0, 1.0) if rise > 0.0 else np.ones_like(k)
    floor = low * np.minimum(ramp, 1.0 - drop)
    bump = 1.2 * low * np.sin(math.pi * np.minimum(k / hold, 1.0))
    return np.maximum(floor, bump)


def swing_lift(progress: ArrayLike, step_rate_hz: ArrayLike, leg_length: ArrayLike,
               corrected: bool = True, hold: float = 0.85, rise: float = 0.15,
               share: float = ARC_MIN_SHARE) -> FloatArray:
    """Ankle height above its straight lift-off→landing path during swing, ``(...)``."""
    lift = raw_lift(progress, leg_length)
    if corrected:
        lift = lift + clearance(progress, step_rate_hz, leg_length, hold, rise, share)
    return lift


def swing_progress(phase: ArrayLike, stance_share: float = 0.6) -> FloatArray:
    """Swing progress ``k`` ∈ [0, 1] from the step phase (0 during stance), ``(...)``."""
    phase = wrap_phase(phase)
    return np.clip((phase - stance_share) / (1.0 - stance_share), 0.0, 1.0)
