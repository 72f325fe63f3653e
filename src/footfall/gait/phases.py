"""Step phase, the five stance phases and the ankle roll (seed 004 #01, #02).

A leg's phase runs 0 → 1 once per step: stance for ``phase < stance_share`` (heel strike at 0),
swing after. The right leg is half a step behind the left, so both feet are down for
``2·stance_share − 1`` of every step. Phases wrap with a modulo, so steps join without a jump.
Stance splits into contact, loading, mid-stance and push-off (:data:`STANCE_BOUNDS`); the swing
is "lift". Positive ankle roll pitches the toes down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray

PHASE_NAMES = ("contact", "loading", "mid", "push", "lift")
# Ends of the four stance phases as shares of the stance (× 0.6 for shares of a step).
STANCE_BOUNDS = (0.2, 0.5, 0.75, 1.0)
HEEL_STRIKE_DEG = -14.0
PUSH_OFF_DEG = 16.0
RIGHT_OFFSET = 0.5


def wrap_phase(phase: ArrayLike) -> FloatArray:
    """``phase`` modulo 1 in [0, 1), ``(...)`` (``np.mod`` can return 1.0 for tiny negatives)."""
    wrapped = np.mod(np.asarray(phase, dtype=np.float64), 1.0)
    return np.where(wrapped >= 1.0, 0.0, wrapped)


def leg_phases(cycle: ArrayLike) -> FloatArray:
    """Per-leg step phases ``(..., 2)`` in [0, 1), left then right (half a step later), from
    the steps walked so far ``cycle (...)`` (walk_time · rate)."""
    cycle = np.asarray(cycle, dtype=np.float64)
    return wrap_phase(cycle[..., None] + np.array([0.0, RIGHT_OFFSET]))


def phase_bounds(stance_share: float = 0.6) -> FloatArray:
    """``(5,)`` ends of the contact, loading, mid, push and lift phases in step phase."""
    return np.array([*(stance_share * b for b in STANCE_BOUNDS), 1.0])


def phase_index(phase: ArrayLike, stance_share: float = 0.6) -> NDArray[np.int64]:
    """Which of the five phases ``phase (...)`` falls in: 0 contact … 4 lift."""
    phase = wrap_phase(phase)
    return np.searchsorted(phase_bounds(stance_share), phase, side="right").clip(0, 4)


def in_stance(phase: ArrayLike, stance_share: float = 0.6) -> NDArray[np.bool_]:
    """True where the foot is on the ground, ``(...)``."""
    return wrap_phase(phase) < stance_share


def ankle_roll(phase: ArrayLike, stance_share: float = 0.6) -> FloatArray:
    """Ankle pitch during stance, radians ``(...)``: −14° → 0 over contact, flat through
    loading and mid-stance, 0 → +16° over push-off; 0 during swing (seed 004 #02)."""
    phase = wrap_phase(phase)
    contact_end, _, mid_end, stance_end, _ = phase_bounds(stance_share)
    heel = HEEL_STRIKE_DEG * (1.0 - np.clip(phase / contact_end, 0.0, 1.0))
    push = PUSH_OFF_DEG * np.clip((phase - mid_end) / (stance_end - mid_end), 0.0, 1.0)
    roll = np.where(phase < contact_end, heel, np.where(phase < stance_end, push, 0.0))
    return np.radians(roll)


@dataclass(frozen=True)
class StepTiming:
    """Durations of one step, seconds (seed 004: 0.63 / 0.37 / 0.25 / 0.13 s at 1.6 Hz)."""

    step_s: float
    stance_s: float
    swing_s: float
    double_support_share: float
    double_support_s: float


def step_timing(step_rate_hz: float, stance_share: float = 0.6) -> StepTiming:
    """How a step of ``1 / step_rate_hz`` seconds splits into stance, swing, double support."""
    step_s = 1.0 / step_rate_hz
    double_share = max(2.0 * stance_share - 1.0, 0.0)
    return StepTiming(
        step_s=step_s,
        stance_s=stance_share / step_rate_hz,
        swing_s=(1.0 - stance_share) / step_rate_hz,
        double_support_share=double_share,
        double_support_s=double_share / step_rate_hz,
    )


def seam_jumps(phases: ArrayLike, threshold: float = 0.35) -> int:
    """Seam check (seed 004 #01): frames where ``sin(2π·phases (F, ...))`` jumps > ``threshold``."""
    wave = np.sin(2.0 * math.pi * np.asarray(phases, dtype=np.float64))
    return int(np.count_nonzero(np.abs(np.diff(wave, axis=0)) > threshold))
