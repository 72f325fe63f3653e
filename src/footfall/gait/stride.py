"""Stride angle → step length → ground speed (seed 004 #03), and the leg's two segments.

A step pushes the body ``2 · L · sin(stride)`` forward (the front reach plus the back push), and
the body moves at that times the step rate. Units follow ``leg_length`` (px in, px out).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray


def step_length(leg_length: ArrayLike, stride: ArrayLike) -> FloatArray:
    """Distance one step carries the body, ``2·L·sin(stride)``; ``stride`` in radians."""
    return 2.0 * np.asarray(leg_length, np.float64) * np.sin(np.asarray(stride, np.float64))


def ground_speed(leg_length: ArrayLike, stride: ArrayLike, step_rate_hz: ArrayLike) -> FloatArray:
    """Body speed = step length × step rate (length per second)."""
    return step_length(leg_length, stride) * np.asarray(step_rate_hz, np.float64)


def stance_sweep(
    leg_length: ArrayLike, stride: ArrayLike, stance_share: ArrayLike = 0.6
) -> FloatArray:
    """How far the body passes over a planted foot in one stance, which is how far the locked
    foot sweeps from in front of the hip to behind it: ``stance_share`` of a step length."""
    return step_length(leg_length, stride) * np.asarray(stance_share, np.float64)


def leg_segments(leg_length: ArrayLike, leg_ratio: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Thigh and shin lengths from the leg length and the shin/thigh ratio (seed 004: L = 90,
    ratio 0.48 → thigh 60.81, shin 29.19)."""
    leg_length = np.asarray(leg_length, np.float64)
    thigh = leg_length / (1.0 + np.asarray(leg_ratio, np.float64))
    return thigh, leg_length - thigh
