"""Properties of the walk-cycle maths over random batches, and the fixed-step clock."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from footfall.errors import SettingsError
from footfall.gait import GaitParams, WalkClock, body, phases, slope, stride, swing

finite = st.floats(-1e3, 1e3, allow_nan=False)
phase_arrays = arrays(np.float64, array_shapes(max_dims=3, max_side=5), elements=finite)


@settings(deadline=None)
@given(phase_arrays)
def test_leg_phases_in_range_and_half_apart(cycle):
    legs = phases.leg_phases(cycle)
    assert legs.shape == (*cycle.shape, 2)
    assert np.all((legs >= 0) & (legs < 1))
    gap = np.mod(legs[..., 1] - legs[..., 0], 1.0)
    assert np.allclose(np.minimum(gap, 1 - gap), 0.5, atol=1e-6) or np.allclose(gap, 0.5)


@settings(deadline=None)
@given(phase_arrays, st.floats(0.5, 0.9))
def test_ankle_roll_bounded_and_zero_in_swing(ph, share):
    roll = np.degrees(phases.ankle_roll(ph, share))
    assert roll.shape == ph.shape
    assert np.all((roll >= -14 - 1e-9) & (roll <= 16 + 1e-9))
    swinging = ~phases.in_stance(ph, share)
    assert np.all(roll[swinging] == 0)


@settings(deadline=None)
@given(st.floats(0.5, 0.9))
def test_ankle_roll_continuous_inside_stance(share):
    ph = np.linspace(0, share * 0.999, 4001)
    roll = phases.ankle_roll(ph, share)
    assert np.max(np.abs(np.diff(roll))) < math.radians(1.0)


@settings(deadline=None)
@given(phase_arrays, st.floats(0.1, 500.0))
def test_hip_height_between_its_bounds(ph, leg):
    hip = body.hip_height(ph, leg)
    assert np.all(hip >= 0.89 * leg - 1e-9) and np.all(hip <= 0.97 * leg + 1e-9)
    # the same for both legs: the bob repeats every half step
    assert np.allclose(hip, body.hip_height(ph + 0.5, leg))


@settings(deadline=None)
@given(phase_arrays, st.floats(0, 1.2), st.floats(0.1, 1.0))
def test_arms_swing_opposite_sides(ph, stride_rad, ratio):
    left_shoulder, left_elbow = body.arm_swing(ph, stride_rad, ratio)
    right_shoulder, _ = body.arm_swing(ph + 0.5, stride_rad, ratio)
    assert np.allclose(left_shoulder, -right_shoulder, atol=1e-9)
    most = math.radians(70 * (0.4 + ratio))
    assert np.all(left_elbow >= 0) and np.all(left_elbow <= most + 1e-12)


@settings(deadline=None)
@given(st.floats(-1.2, 1.2), st.floats(0.8, 2.8))
def test_lean_and_rate(slope_rad, base):
    lean = slope.forward_lean(slope_rad)
    assert lean * slope_rad <= 0
    assert abs(lean) <= 0.5 * abs(slope_rad) + 1e-15
    rate = slope.adapted_step_rate(base, lean)
    assert 0.8 <= rate <= 2.8
    assert rate >= base - 1e-12


@settings(deadline=None)
@given(arrays(np.float64, (4,), elements=st.floats(-3, 3)), st.floats(0.3, 3.0),
       st.floats(0.01, 200.0))
def test_clearance_nonnegative_and_zero_at_ends(k, rate, leg):
    assert np.all(swing.swing_lift(k, rate, leg) >= 0)
    ends = swing.swing_lift(np.array([0.0, 1.0]), rate, leg)
    assert ends == pytest.approx([0.0, 0.0], abs=1e-9 * leg)


@settings(deadline=None)
@given(st.floats(0.01, 100.0), st.floats(0, 1.3), st.floats(0.1, 5))
def test_speed_is_step_times_rate(leg, angle, rate):
    assert stride.ground_speed(leg, angle, rate) == pytest.approx(
        stride.step_length(leg, angle) * rate)
    thigh, shin = stride.leg_segments(leg, 0.48)
    assert shin / thigh == pytest.approx(0.48)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1, max_size=60))
def test_clock_clamps_and_accumulates(frames):
    clock = WalkClock()
    total = 0
    for dt in frames:
        n = clock.consume(dt)
        assert 0 <= n <= 3  # 0.05 s at most, 1/60 s per step
        for _ in range(n):
            clock.tick()
        total += n
    clamped = sum(min(max(dt, 0.0), 0.05) for dt in frames)
    assert total == pytest.approx(clamped * 60, abs=1.0 + 1e-6)
    assert clock.walk_time == pytest.approx(total / 60)


def test_clock_resume_drops_the_backlog_and_nan():
    clock = WalkClock()
    assert clock.consume(0.01) == 0
    clock.resume()
    assert clock.consume(0.01) == 0
    assert clock.consume(float("nan")) == 0
    assert clock.consume(10.0) == 3


@pytest.mark.parametrize(
    ("field", "value"),
    [("step_rate_hz", 0.0), ("stride_deg", float("nan")), ("stance_share", 0.3),
     ("leg_length", -1.0), ("reduced_motion", 1), ("twist_deg", "6")],
)
def test_bad_params_name_the_field(field, value):
    with pytest.raises(SettingsError, match=field):
        GaitParams(**{field: value})


def test_params_with_unknown_field():
    with pytest.raises(SettingsError, match="nonsense"):
        GaitParams().with_(nonsense=1)
    assert GaitParams().with_(step_rate_hz=2.0).step_rate_hz == 2.0
