"""The measures of ``tests/motion_measures.py`` on synthetic motion whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from footfall import quat
from motion_measures import (
    joint_angle,
    largest_turn,
    lean,
    leg_length,
    patch_steps,
    slide,
    stance,
    stance_drifts,
    swing_lifts,
)

FPS = 30.0


def _about_x(degrees: np.ndarray) -> np.ndarray:
    half = np.radians(np.asarray(degrees, dtype=float)) / 2
    return np.stack([np.cos(half), np.sin(half), 0 * half, 0 * half], axis=-1)


def test_a_foot_turned_30_degrees_in_one_frame_turns_30() -> None:
    pitch = np.array([0.0, 1.0, 2.0, 32.0, 33.0])  # 30° between frames 2 and 3
    world = quat.mul(quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), 0.7), _about_x(pitch))
    assert largest_turn(world) == pytest.approx(30.0, abs=1e-6)
    both = np.stack([world, _about_x(pitch * 0.5)], axis=1)  # (F, 2, 4): the worse foot
    assert largest_turn(both) == pytest.approx(30.0, abs=1e-6)


def _sole(frames: int, speed: float) -> np.ndarray:
    """A flat sole of 20 points (heel to toe along z, 1 mm apart in height) and a lifted toe
    tip, moving along x at ``speed`` m/s."""
    z = np.linspace(0.0, 0.2, 20)
    flat = np.stack([np.zeros(20), np.linspace(0.0, 0.002, 20), z], axis=-1)
    points = np.concatenate([flat, [[0.0, 0.05, 0.25]]])  # (P, 3)
    t = np.arange(frames) / FPS
    return points[None] + np.stack([speed * t, 0 * t, 0 * t], axis=-1)[:, None]


def test_a_patch_sliding_at_5_cm_per_second_slides_at_5() -> None:
    points = _sole(31, 0.05)
    planted = np.ones(31, dtype=bool)
    median, drift = slide(points, planted, FPS)
    assert median == pytest.approx(0.05, abs=1e-9)
    assert drift == pytest.approx(0.05, abs=1e-9)  # one second of sliding
    planted[10] = False  # two stances: frames 11–30 (19 steps) drift the most
    assert slide(points, planted, FPS)[1] == pytest.approx(0.05 * 19 / FPS, abs=1e-9)
    # stance by stance: frames 0–9 (9 steps), then 11–30 (19 steps)
    assert stance_drifts(points, planted) == pytest.approx(np.array([9, 19]) * 0.05 / FPS,
                                                           abs=1e-9)
    assert stance_drifts(points, np.zeros(31, dtype=bool)).shape == (0,)


def test_a_rolling_patch_does_not_slide() -> None:
    """Heel → toe: the lowest points change but none of them moves."""
    frames = 20
    x = np.linspace(0.0, 0.2, 21)
    points = np.repeat(np.stack([0 * x, 0 * x, x], axis=-1)[None], frames, axis=0)
    for f in range(frames):
        points[f, :, 1] = np.abs(np.arange(21) - f) * 0.005  # the lowest point walks forward
    assert np.abs(patch_steps(points)).max() == 0.0
    assert slide(points, np.ones(frames, dtype=bool), FPS) == (0.0, 0.0)


def test_stance_is_low_and_slow() -> None:
    frames = 60
    lowest = np.zeros((frames, 3))
    lowest[:20, 1] = 0.03  # resting 3 cm up (a joint above the sole)
    lowest[20:30, 1] = 0.0  # the toe's dip at push-off, still slow
    lowest[30:40, 1] = 0.10  # lifted and swinging at 0.9 m/s
    lowest[30:40, 2] = np.arange(10) * 0.9 / FPS
    lowest[40:, 2] = lowest[39, 2]
    lowest[40:50, 1] = 0.06  # slow but 3 cm above the resting level
    lowest[50:, 1] = 0.03
    lowest[55:, 0] = np.arange(5) * 0.5 / FPS  # low but moving at 0.5 m/s
    planted = stance(lowest, FPS)
    assert planted[:30].all() and not planted[30:50].any()
    assert planted[50:55].all() and not planted[56:].any()


def test_knee_lean_lift_and_leg_length() -> None:
    hip = np.array([[0.0, 1.0, 0.0]])
    knee = np.array([[0.0, 0.5, 0.0]])
    ankle = np.array([[0.0, 0.5 - 0.5 * np.cos(np.radians(40)), -0.5 * np.sin(np.radians(40))]])
    assert joint_angle(hip, knee, ankle)[0] == pytest.approx(40.0)
    neck = np.array([[0.5 * np.sin(np.radians(12)), 0.5 * np.cos(np.radians(12)), 0.0]])
    assert lean(np.zeros((1, 3)), neck)[0] == pytest.approx(12.0)
    assert leg_length(hip, knee, ankle, ankle - [0.0, 0.08, 0.0], np.ones(1, bool)) == (
        pytest.approx(1.08))
    # Planted frames on the toes (a kneel, a heel-off: the ankle 0.2 m over the sole's lowest
    # point) do not lengthen the leg: the foot is measured as it stands flat (0.08 m).
    frames = 20
    hips, knees, ankles = (np.repeat(a, frames, axis=0) for a in (hip, knee, ankle))
    sole = ankles - [0.0, 0.08, 0.0]
    sole[8:] = ankles[8:] - [0.0, 0.2, 0.0]
    assert leg_length(hips, knees, ankles, sole, np.ones(frames, bool)) == pytest.approx(1.08)
    height = np.zeros(40)
    height[10:20] = np.sin(np.linspace(0, np.pi, 10)) * 0.2
    height[25:27] = 0.5  # 2 frames at 30 fps: too short for a swing
    planted = height < 0.01
    assert swing_lifts(height, planted, FPS) == pytest.approx([0.2 * np.sin(np.pi * 4 / 9)])
