"""Hips height: lowered just enough that the lower foot reaches, followed smoothly.

Seed 000: ``hips = min(hips, ankle_y + sqrt(max(0, (0.98·leg)² − dx²)) + hip_drop)``, followed
at rate 16/s but snapped when the gap exceeds 0.4 m. Seed 004 (UE4): hip offset = min of the
foot offsets and never up. Here the offset is measured against the animated hips, so on flat
ground it is exactly zero and the animation is left untouched.

Scalar forms (``*_s``) copied into the compiled stages at numba's IR level
(:func:`footfall.jit.inlined`: LLVM-inlined helpers were slower there); NumPy forms over
:func:`~footfall.arrays.scalar_rows`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray, kernel_rows, scalar_rows
from footfall.jit import inlined, kernel
from footfall.quat import Vec3, max_nan


@inlined
def reach_limit_s(ankle_target: Vec3, hip: Vec3, hips_y: float, reach: float) -> float:
    """:func:`reach_limit` of one leg (compiled kernels)."""
    horizontal = math.hypot(hip[0] - ankle_target[0], hip[2] - ankle_target[2])
    rise = math.sqrt(max_nan(0.0, reach * reach - horizontal * horizontal))
    return ankle_target[1] + rise + (hips_y - hip[1])


@inlined
def follow_s(previous: float, target: float, rate: float, snap: float, dt: float) -> float:
    """:func:`follow` of one value (compiled kernels)."""
    blend = -math.expm1(-rate * dt)
    if not math.isfinite(previous) or abs(target - previous) > snap or math.isinf(rate):
        return target
    return previous + (target - previous) * blend


@kernel(error_model="numpy")
def _reach_limit_rows(ankle_target: FloatArray, hip: FloatArray, hips_y: FloatArray,
                      reach: FloatArray, out: FloatArray) -> None:  # pragma: no cover
    for i in range(out.shape[0]):
        out[i] = reach_limit_s((ankle_target[i, 0], ankle_target[i, 1], ankle_target[i, 2]),
                               (hip[i, 0], hip[i, 1], hip[i, 2]), hips_y[i], reach[i])


@kernel(error_model="numpy")
def _follow_rows(previous: FloatArray, target: FloatArray, rate: FloatArray, snap: FloatArray,
                 dt: float, out: FloatArray) -> None:  # pragma: no cover - compiled
    for i in range(out.shape[0]):
        out[i] = follow_s(previous[i], target[i], rate[i], snap[i], dt)


def reach_limit(
    ankle_target: ArrayLike,
    hip: ArrayLike,
    hips_y: ArrayLike,
    reach: ArrayLike,
) -> FloatArray:
    """Highest hips height ``(...)`` from which a leg still reaches its ankle target.

    ankle_target, hip: ``(..., 3)`` world positions, metres (hip as animated).
    hips_y: ``(...)`` animated hips height; the hip keeps its drop below it.
    reach: ``(...)`` longest hip→ankle distance allowed, metres.
    """
    ankle_target = np.asarray(ankle_target, dtype=np.float64)
    hip = np.asarray(hip, dtype=np.float64)
    shape = np.broadcast_shapes(ankle_target.shape[:-1], hip.shape[:-1], np.shape(hips_y),
                                np.shape(reach))
    out = np.empty(shape)
    _reach_limit_rows(kernel_rows(ankle_target, shape, (3,)), kernel_rows(hip, shape, (3,)),
                      kernel_rows(hips_y, shape), kernel_rows(reach, shape), out.reshape(-1))
    return out


def follow(
    previous: ArrayLike, target: ArrayLike, rate: ArrayLike, snap: ArrayLike, dt: float
) -> FloatArray:
    """Exponential follow ``(...)``: ``prev + (target − prev)(1 − e^(−rate·dt))``.

    Jumps straight to ``target`` where the gap exceeds ``snap``, where ``previous`` is NaN
    (first frame) or where ``rate`` is infinite (smoothing off).
    """
    return scalar_rows(_follow_rows, (previous, target, rate, snap), float(dt))
