"""Pelvis height: lowered just enough that the lower foot reaches, followed smoothly.

Seed 000: ``hips = min(hips, ankle_y + sqrt(max(0, (0.98·leg)² − dx²)) + hip_drop)``, followed
at rate 16/s but snapped when the gap exceeds 0.4 m. Seed 004 (UE4): hip offset = min of the
foot offsets and never up. Here the offset is measured against the animated pelvis, so on flat
ground it is exactly zero and the animation is left untouched.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray


def reach_limit(
    ankle_target: ArrayLike,
    hip: ArrayLike,
    pelvis_y: ArrayLike,
    reach: ArrayLike,
) -> FloatArray:
    """Highest pelvis height ``(...)`` from which a leg still reaches its ankle target.

    ankle_target, hip: ``(..., 3)`` world positions, metres (hip as animated).
    pelvis_y: ``(...)`` animated pelvis height; the hip keeps its drop below it.
    reach: ``(...)`` longest hip→ankle distance allowed, metres.
    """
    ankle_target = np.asarray(ankle_target, dtype=np.float64)
    hip = np.asarray(hip, dtype=np.float64)
    horizontal = np.hypot(hip[..., 0] - ankle_target[..., 0], hip[..., 2] - ankle_target[..., 2])
    rise = np.sqrt(np.maximum(0.0, np.square(reach) - np.square(horizontal)))
    return ankle_target[..., 1] + rise + (np.asarray(pelvis_y) - hip[..., 1])


def follow(
    previous: ArrayLike, target: ArrayLike, rate: ArrayLike, snap: ArrayLike, dt: float
) -> FloatArray:
    """Exponential follow ``(...)``: ``prev + (target − prev)(1 − e^(−rate·dt))``.

    Jumps straight to ``target`` where the gap exceeds ``snap``, where ``previous`` is NaN
    (first frame) or where ``rate`` is infinite (smoothing off).
    """
    previous = np.asarray(previous, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    rate = np.asarray(rate, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        blend = -np.expm1(-rate * dt)
        smoothed = previous + (target - previous) * blend
        jump = ~np.isfinite(previous) | (np.abs(target - previous) > snap) | np.isinf(rate)
    return np.where(jump, target, smoothed)
