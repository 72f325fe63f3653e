"""footfall.ik.leg_ik_planar (seed 000 legIK) and knee_from_source (seed 001)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import SkeletonError
from footfall.ik import knee_from_source, leg_ik_planar, reach_limits, solve_two_bone

shapes = st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple)
seeds = st.integers(0, 2**31)


def length(v):
    return np.linalg.norm(v, axis=-1)


def bone(angle):
    """Direction of a bone at seed-000 angle ``angle`` about X (0 = straight down)."""
    angle = np.asarray(angle)
    return np.stack([np.zeros_like(angle), -np.cos(angle), -np.sin(angle)], -1)


def planar_joints(hip_y, p, thigh, shin):
    hip = np.stack([np.zeros_like(hip_y), hip_y, np.zeros_like(hip_y)], -1)
    knee = hip + thigh[..., None] * bone(p.thigh_angle)
    ankle = knee + shin[..., None] * bone(p.thigh_angle + p.shin_angle)
    return hip, knee, ankle


def test_exact_case_bunny_leg_out_of_reach():
    # Seed 000 bunny: hips 0.53, ankle target 0.1 straight below, thigh 0.19, shin 0.18.
    p = leg_ik_planar(0.53, 0.0, 0.1, 0.2, 0.19, 0.18)
    assert p.residual == pytest.approx(0.43 - 0.999 * 0.37, abs=1e-12)
    hip, knee, ankle = planar_joints(np.array(0.53), p, np.array(0.19), np.array(0.18))
    np.testing.assert_allclose(ankle, [0, 0.53 - 0.36963, 0], atol=1e-12)
    assert knee[2] > 0  # knee forward
    assert p.thigh_angle + p.shin_angle + p.foot_angle == pytest.approx(-0.2, abs=1e-12)


def test_exact_case_too_close_uses_seed_minimum():
    p = leg_ik_planar(0.53, 0.0, 0.51, 0.0, 0.19, 0.18)
    assert p.residual == pytest.approx(0.02 - 0.05, abs=1e-12)  # D − Dc with Dc = 0.05


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=seeds)
def test_planar_matches_3d_solver_in_the_plane(shape, seed):
    rng = np.random.default_rng(seed)
    thigh = rng.uniform(0.15, 0.5, size=shape)
    shin = thigh + rng.uniform(-0.04, 0.04, size=shape)
    hip_y = rng.uniform(0.3, 1.0, size=shape)
    direction_angle = rng.uniform(-np.pi, np.pi, size=shape)
    distance = rng.uniform(0.06, 1.2 * (thigh + shin), size=shape)
    forward = distance * np.sin(direction_angle)
    target_y = hip_y - distance * np.cos(direction_angle)
    slope = rng.uniform(-0.45, 0.45, size=shape)
    p = leg_ik_planar(hip_y, forward, target_y, slope, thigh, shin)
    hip, knee, ankle = planar_joints(hip_y, p, thigh, shin)

    # Same limb in 3D, knee bending to the planar solution's side (forward of the line).
    target = np.stack([np.zeros(shape), target_y, forward], -1)
    bend_side = np.stack([np.zeros(shape), np.sin(direction_angle), np.cos(direction_angle)], -1)
    start_mid = hip + thigh[..., None] * bone(np.zeros(shape))
    start_tip = start_mid + shin[..., None] * bone(np.zeros(shape) + 0.3)
    r = solve_two_bone(hip, start_mid, start_tip, target, hip + bend_side)
    np.testing.assert_allclose(knee, r.mid, atol=1e-9)
    np.testing.assert_allclose(ankle, r.tip, atol=1e-9)
    np.testing.assert_allclose(p.residual, r.residual, atol=1e-12)
    reachable = distance < 0.999 * (thigh + shin)
    assert np.all(length(ankle - target)[reachable] < 1e-9)
    np.testing.assert_allclose(p.thigh_angle + p.shin_angle + p.foot_angle, -slope, atol=1e-12)


def test_planar_never_nan_on_degenerate_legs():
    p = leg_ik_planar([0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.0], 0.0, [0.2, 0.0, 0.0],
                      [0.2, 0.0, 0.0])
    for value in (p.thigh_angle, p.shin_angle, p.foot_angle, p.residual):
        assert np.all(np.isfinite(value))


# --- knee_from_source ------------------------------------------------------------------


def random_directions(rng, shape):
    v = rng.normal(size=(*shape, 3))
    return v / length(v)[..., None]


def random_bent_limb(rng, shape):
    hip = rng.uniform(-1, 1, size=(*shape, 3))
    upper = rng.uniform(0.1, 1.0, size=shape)
    lower = rng.uniform(0.1, 1.0, size=shape)
    knee = hip + upper[..., None] * random_directions(rng, shape)
    foot = knee + lower[..., None] * random_directions(rng, shape)
    shortest, longest = reach_limits(upper, lower)
    d = length(foot - hip)
    usable = (d > shortest + 1e-3) & (d < longest - 1e-3)
    return hip, knee, foot, upper, lower, usable


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=seeds)
def test_knee_follows_a_scaled_turned_copy_of_the_source(shape, seed):
    rng = np.random.default_rng(seed)
    hip, knee, foot, upper, lower, usable = random_bent_limb(rng, shape)
    scale = rng.uniform(0.2, 3.0, size=shape)
    turn = quat.between(foot - hip, random_directions(rng, shape))
    target_hip = rng.uniform(-1, 1, size=(*shape, 3))
    moved = quat.rotate(turn[..., None, :], np.stack([knee - hip, foot - hip], -2))
    moved *= scale[..., None, None]
    result = knee_from_source(hip, knee, foot, target_hip, target_hip + moved[..., 1, :],
                              upper * scale, lower * scale)
    expected = target_hip + moved[..., 0, :]
    assert np.all(length(result - expected)[usable] < 1e-9 * scale[usable])


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=seeds)
def test_knee_keeps_lengths_and_the_source_bend_side(shape, seed):
    rng = np.random.default_rng(seed)
    hip, knee, foot, _, _, _ = random_bent_limb(rng, shape)
    target_hip = rng.uniform(-1, 1, size=(*shape, 3))
    upper = rng.uniform(0.1, 1.0, size=shape)
    lower = rng.uniform(0.1, 1.0, size=shape)
    shortest, longest = reach_limits(upper, lower)
    distance = shortest + rng.uniform(0.01, 0.99, size=shape) * (longest - shortest)
    target_foot = target_hip + distance[..., None] * random_directions(rng, shape)
    result = knee_from_source(hip, knee, foot, target_hip, target_foot, upper, lower)
    np.testing.assert_allclose(length(result - target_hip), upper, rtol=1e-9)
    np.testing.assert_allclose(length(target_foot - result), lower, rtol=1e-9)
    # The knee sticks out to the side the source knee did, after the source→target turn.
    source_axis = (foot - hip) / length(foot - hip)[..., None]
    target_axis = (target_foot - target_hip) / distance[..., None]
    source_side = knee - hip - np.sum((knee - hip) * source_axis, -1, keepdims=True) * source_axis
    turned_side = quat.rotate(quat.between(source_axis, target_axis), source_side)
    bent = length(source_side) > 1e-6
    assert np.all(np.sum((result - target_hip) * turned_side, -1)[bent] > 0)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["forward knee", "reversed knee"])
def test_reversed_knee_is_preserved(sign):
    # A source leg with the knee bent forward (+Z) or backwards (−Z), copied onto a longer leg.
    source_hip, source_foot = np.array([0, 1.0, 0]), np.array([0, 0.2, 0.1])
    source_knee = np.array([0, 0.6, 0.15 * sign])
    knee = knee_from_source(source_hip, source_knee, source_foot, [2, 1.2, 0], [2, 0.3, 0.05],
                            0.5, 0.5)
    assert np.sign(knee[2] - 0.025) == sign  # 0.025: the hip→foot line's z at the knee height
    assert length(knee - [2, 1.2, 0]) == pytest.approx(0.5, rel=1e-12)
    assert length(knee - [2, 0.3, 0.05]) == pytest.approx(0.5, rel=1e-12)


def test_knee_follows_the_source_side_however_slight_the_bend():
    # No fixed reference direction: a source knee a hair forward or backward of its line sends
    # the (more bent) target knee to that same side, whatever the limb's direction.
    offsets = np.array([-0.02, -1e-5, 1e-5, 0.02])
    for down in ([0, -1, 0], [0, 1, 0], [1, 0, 0]):  # standing, upside down, lying
        down = np.array(down, float)
        side = np.array([0, 0, 1.0]) if down[2] == 0 else np.array([1.0, 0, 0])
        source_knee = [0, 1, 0] + 0.5 * down + offsets[:, None] * side
        knee = knee_from_source([0, 1, 0], source_knee, [0, 1, 0] + down, [0, 1, 0],
                                [0, 1, 0] + 0.6 * down, 0.4, 0.4)
        assert np.all(np.sign((knee - [0, 1, 0]) @ side) == np.sign(offsets))
        np.testing.assert_allclose(np.abs((knee - [0, 1, 0]) @ side), np.sqrt(0.4**2 - 0.3**2))


def test_knee_degenerate_inputs_never_nan():
    zero = np.zeros(3)
    cases = [
        (zero, zero, zero, zero, zero, 0.0, 0.0),
        ([0, 1, 0], [0, 0.5, 0], [0, 0, 0], [0, 1, 0], [0, 0.4, 0], 0.4, 0.4),  # straight
        ([0, 1, 0], [0, 0.5, 0.1], [0, 1, 0], [0, 1, 0], [0, 1, 0], 0.4, 0.3),  # foot on hip
        ([0, 1, 0], [0, 0.5, 0.1], [0, 0, 0], [0, 1, 0], [0, 9, 0], 0.4, 0.3),  # far, flipped
    ]
    for case in cases:
        knee = knee_from_source(*case)
        assert np.all(np.isfinite(knee))
        assert length(knee - np.asarray(case[3], float)) == pytest.approx(case[5], abs=1e-12)
    straight = knee_from_source(*cases[1])
    assert straight[2] > 0.1  # straight source: bends toward world +Z


def test_malformed_inputs_raise_skeleton_error():
    with pytest.raises(SkeletonError, match="thigh"):
        leg_ik_planar(np.zeros(3), 0.0, 0.1, 0.0, np.ones(2), 0.2)
    with pytest.raises(SkeletonError, match=r"source_knee \(2,\)"):
        knee_from_source(np.zeros(3), np.zeros(2), np.zeros(3), np.zeros(3), np.zeros(3), 1, 1)
    with pytest.raises(SkeletonError, match="upper_length"):
        knee_from_source(np.zeros((4, 3)), np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3),
                         np.ones(5), 1)
