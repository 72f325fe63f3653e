"""The body over the legs (seed 004 #04–#06): hip and head bob, gaze, twist, arm swing.

Pure batched functions of the left leg's step phase (heel strike at 0). Angles in radians.
Sign conventions (character frame, forward +Z, left +X, up +Y): a positive yaw turns the left
side back, a positive arm swing is forward.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.gait.phases import wrap_phase

HIP_MEAN_SHARE = 0.93
HIP_BOB_SHARE = 0.04
BASE_RATE_HZ = 1.6


def hip_bob(phase: ArrayLike) -> FloatArray:
    """Body bob in [−1, 1], ``(...)``: −1 at each heel strike (phase 0 and 0.5)."""
    return -np.cos(4.0 * math.pi * np.asarray(phase, dtype=np.float64))


def hip_height(phase: ArrayLike, leg_length: ArrayLike) -> FloatArray:
    """Hip joint height above the ankles' level, ``L·(0.93 + 0.04·bob)``, ``(...)``."""
    return np.asarray(leg_length, np.float64) * (HIP_MEAN_SHARE + HIP_BOB_SHARE * hip_bob(phase))


def head_bob(phase: ArrayLike, leg_length: ArrayLike, compensation: float = 0.82) -> FloatArray:
    """Head height change ``(...)`` from the hip's mean height after the neck cancels
    ``compensation`` of the bob (seed 004: ``headY = hip − 0.82·(hip − 0.93·L)``)."""
    leg_length = np.asarray(leg_length, dtype=np.float64)
    return (1.0 - compensation) * (hip_height(phase, leg_length) - HIP_MEAN_SHARE * leg_length)


def gaze_heading(scene_time: ArrayLike, turn_at: ArrayLike, old_heading: ArrayLike,
                 new_heading: ArrayLike, lead_s: float = 0.4) -> FloatArray:
    """Where the head looks, yaw radians ``(...)``: it swings linearly (the shorter way) to
    ``new_heading`` in the ``lead_s`` seconds before ``turn_at`` and holds it after."""
    scene_time = np.asarray(scene_time, dtype=np.float64)
    progress = np.clip((scene_time - (np.asarray(turn_at) - lead_s)) / max(lead_s, 1e-9), 0, 1)
    return blend_heading(old_heading, new_heading, progress)


def body_heading(scene_time: ArrayLike, turn_at: ArrayLike, old_heading: ArrayLike,
                 new_heading: ArrayLike, turn_s: float = 0.5) -> FloatArray:
    """Where the body faces, radians ``(...)``: it turns from ``turn_at`` over ``turn_s`` s."""
    scene_time = np.asarray(scene_time, dtype=np.float64)
    progress = np.clip((scene_time - np.asarray(turn_at)) / max(turn_s, 1e-9), 0.0, 1.0)
    progress = np.where(scene_time >= np.asarray(turn_at), progress, 0.0)
    return blend_heading(old_heading, new_heading, progress)


def blend_heading(old: ArrayLike, new: ArrayLike, progress: ArrayLike) -> FloatArray:
    """Yaw from ``old`` toward ``new`` the shorter way, ``progress`` in [0, 1]."""
    old = np.asarray(old, dtype=np.float64)
    delta = np.mod(np.asarray(new, dtype=np.float64) - old + math.pi, 2.0 * math.pi) - math.pi
    return old + delta * np.asarray(progress, dtype=np.float64)


def arm_swing(
    leg_phase: ArrayLike, stride: float, leg_ratio: float = 0.48,
    swing_share: float = 0.6, elbow_bend_deg: float = 70.0,
) -> tuple[FloatArray, FloatArray]:
    """Shoulder swing and elbow bend ``(...)`` radians of the arm on the side of a leg at
    ``leg_phase (...)``; ``stride``: half-angle, radians. The shoulder swings forward up to
    ``swing_share·stride`` when its leg is back, the elbow bends up to
    ``elbow_bend_deg·(0.4 + leg_ratio)`` at the front of the swing and straightens behind.
    """
    # The arm's phase (seed ``armPh``) is half a step from its own side's leg.
    forward = np.cos(2.0 * math.pi * wrap_phase(np.asarray(leg_phase, dtype=np.float64) + 0.5))
    shoulder = swing_share * stride * forward
    elbow = np.radians(elbow_bend_deg * (0.4 + leg_ratio)) * 0.5 * (1.0 + forward)
    return shoulder, elbow


def twist(
    left_phase: ArrayLike, step_rate_hz: ArrayLike, twist_deg: float = 6.0,
    shoulder_ratio: float = 1.2,
) -> tuple[FloatArray, FloatArray]:
    """Hips and shoulder yaw, radians ``(...)``, from the left leg's phase: the hips turn
    its left side forward as the left heel strikes, by up to ``twist_deg · rate / 1.6``; the
    shoulders ``shoulder_ratio`` times as far the other way."""
    wave = np.cos(2.0 * math.pi * np.asarray(left_phase, dtype=np.float64))
    amplitude = np.radians(twist_deg * np.asarray(step_rate_hz, np.float64) / BASE_RATE_HZ)
    hips = -amplitude * wave
    return hips, -shoulder_ratio * hips
