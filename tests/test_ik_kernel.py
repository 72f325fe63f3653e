"""The compiled two-bone core: one kernel for every batch size, its scalar helpers, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import SkeletonError
from footfall.ik import knee_from_source, solve_two_bone

FIELDS = ("mid", "tip", "residual", "clamped", "upper_rotation", "lower_rotation")

# Limbs that need the core's fallbacks: target on the root, straight limb without pole, pole on
# the limb axis, zero-length bone, a turn of the upper bone beyond 139°.
FALLBACKS = [
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, 0, 0], [0, 0, 1]),
    ([0, 0, 0], [0, -0.5, 0], [0, -1, 0], [0, -0.7, 0.1], None),
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, -0.8, 0], [0, -2, 0]),
    ([0, 0, 0], [0, 0, 0], [0, -1, 0], [0, -0.5, 0.3], [0, 0, 1]),
    ([0, 0, 0], [0, -0.5, 0.1], [0, -1, 0], [0, 0.6, 0.2], [0, 0.5, -1]),
]


def limbs(seed: int, count: int, fallbacks: int, with_pole: bool) -> list[np.ndarray]:
    """``[root, mid, tip, target, pole]`` ``(count, 3)``: random bent limbs, some targets out of
    reach, the first ``fallbacks`` limbs replaced by the degenerate cases above."""
    rng = np.random.default_rng(seed)
    root = rng.uniform(-2, 2, (count, 3))
    mid = root + rng.normal([0, -1, 0.3], 0.4, (count, 3)) * rng.uniform(0.1, 0.6, (count, 1))
    tip = mid + rng.normal([0, -1, -0.3], 0.4, (count, 3)) * rng.uniform(0.1, 0.6, (count, 1))
    target = tip + rng.normal(0, 0.3, (count, 3))
    pole = mid + rng.normal([0, 0, 0.5], 0.3, (count, 3))
    for i in range(min(fallbacks, count)):
        case = FALLBACKS[i % len(FALLBACKS)]
        root[i], mid[i], tip[i], target[i] = case[:4]
        pole[i] = case[4] if case[4] is not None else [0, 0, 1]
    return [root, mid, tip, target, pole] if with_pole else [root, mid, tip, target]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 8),
    fallbacks=st.integers(0, 3),
    with_pole=st.booleans(),
    weights=st.sampled_from(["default", "reach", "reach per limb", "position", "pole"]),
)
def test_small_batches_equal_the_same_limbs_in_a_large_batch(seed, count, fallbacks, with_pole,
                                                             weights):
    # A per-frame call of a few limbs and the same limbs at the front of 3000 others (random
    # limbs with the same weights): bit for bit, one kernel whatever the batch size.
    points = limbs(seed, count, fallbacks, with_pole)
    rng = np.random.default_rng(seed)
    per_limb = rng.uniform(0.5, 1.0, count)
    options = {"reach": {"max_reach": 0.9}, "reach per limb": {"max_reach": per_limb},
               "position": {"position_weight": per_limb},
               "pole": {"pole_weight": per_limb}}.get(weights, {})
    small = solve_two_bone(*points, **options)
    others = limbs(seed + 1, 3000, 0, with_pole)
    large_points = [np.concatenate([p, q]) for p, q in zip(points, others, strict=True)]
    large_options = {key: value if np.ndim(value) == 0 else np.concatenate(
        [value, rng.uniform(0.5, 1.0, 3000)]) for key, value in options.items()}
    large = solve_two_bone(*large_points, **large_options)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(small, name), getattr(large, name)[:count],
                                      err_msg=name)


def test_fallback_limbs_stay_finite_and_keep_bone_lengths():
    points = limbs(3, 8, 5, with_pole=True)
    r = solve_two_bone(*points)
    assert np.isfinite(r.tip).all() and np.isfinite(r.upper_rotation).all()
    upper = np.linalg.norm(points[1] - points[0], axis=-1)
    lower = np.linalg.norm(points[2] - points[1], axis=-1)
    np.testing.assert_allclose(np.linalg.norm(r.mid - points[0], axis=-1), upper, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(r.tip - r.mid, axis=-1), lower, atol=1e-12)
    # The deltas carry the old bones onto the new ones, fallbacks included.
    np.testing.assert_allclose(quat.rotate(r.upper_rotation, points[1] - points[0]),
                               r.mid - points[0], atol=1e-12)
    np.testing.assert_allclose(quat.rotate(r.lower_rotation, points[2] - points[1]),
                               r.tip - r.mid, atol=1e-12)
    reached = (r.residual == 0) & (upper > 0)
    assert reached.sum() >= 5
    np.testing.assert_allclose(r.tip[reached], points[3][reached], atol=1e-9)


def test_one_limb_without_batch_axis_and_broadcast_inputs():
    single = solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], [0.2, 0.2, 0.1],
                            pole=[0, 0.5, 1])
    assert single.mid.shape == (3,) and single.residual.shape == () and single.clamped.shape == ()
    assert np.linalg.norm(single.tip - [0.2, 0.2, 0.1]) < 1e-9
    many = solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], np.array([[0.2, 0.2, 0.1]] * 3),
                          pole=[0, 0.5, 1])
    assert many.upper_rotation.shape == (3, 4)
    np.testing.assert_array_equal(many.tip, np.broadcast_to(single.tip, (3, 3)))
    empty = solve_two_bone(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)))
    assert empty.tip.shape == (0, 3) and empty.lower_rotation.shape == (0, 4)


@pytest.mark.parametrize("count", [1, 3, 5000])
@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("root", np.nan, "root holds NaN"),
        ("mid", np.inf, "mid holds NaN, inf"),
        ("target", np.nan, "target holds NaN"),
        ("pole", -np.inf, "pole holds NaN"),
        ("tip", 2e6, r"tip holds NaN, inf or a coordinate beyond ±1e\+06 m"),
        ("position_weight", np.nan, "position_weight holds NaN or inf"),
        ("pole_weight", np.inf, "pole_weight holds NaN or inf"),
        ("max_reach", np.nan, "max_reach holds NaN or inf"),
        ("rotation_weight", np.nan, "rotation_weight holds NaN or inf"),
    ],
)
def test_bad_input_is_refused_naming_it(count, where, value, message):
    # SPEC: never NaN. One bad value anywhere in the batch is refused, per-limb arrays or not.
    points = dict(zip(("root", "mid", "tip", "target", "pole"),
                      limbs(1, count, 0, with_pole=True), strict=True))
    weights: dict[str, object] = {}
    if where in points:
        points[where][count // 2, 1] = value
    elif where == "rotation_weight":
        weights = {"target_rotation": [1.0, 0, 0, 0], "tip_rotation": [1.0, 0, 0, 0],
                   where: value}
    else:
        weights = {where: np.where(np.arange(count) == count // 2, value, 0.5)}
    with pytest.raises(SkeletonError, match=f"solve_two_bone: {message}"):
        solve_two_bone(**points, **weights)  # type: ignore[arg-type]


def test_the_first_bad_input_in_the_signature_is_named():
    root, mid, tip, target = limbs(2, 4, 0, with_pole=False)
    mid[1, 0] = np.nan
    target[3, 2] = np.inf
    with pytest.raises(SkeletonError, match="solve_two_bone: mid holds"):
        solve_two_bone(root, mid, tip, target, max_reach=np.full(4, np.nan))
    with pytest.raises(SkeletonError, match="solve_two_bone: target_rotation holds NaN or inf"):
        solve_two_bone(root, tip, tip, tip, target_rotation=[np.nan, 0, 0, 0],
                       position_weight=np.nan)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 6))
def test_scalar_between_equals_quat_between(seed, count):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(count, 3))
    b = rng.normal(size=(count, 3))
    b[0] = -a[0] * 2.5  # antiparallel
    if count > 1:
        a[1] = 0.0  # zero vector
    if count > 2:
        b[2] = a[2] * 3  # parallel
    if count > 3:
        a[3] = [0.95, 0.1, 0.0]  # antiparallel with the other helper axis
        b[3] = -a[3]
    expected = quat.between(a, b)
    got = np.array([quat.between_s(tuple(x), tuple(y)) for x, y in zip(a, b, strict=True)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.floats(0, 1))
def test_scalar_slerp_from_identity_equals_quat_slerp(seed, t):
    q = quat.normalize(np.random.default_rng(seed).normal(size=4))
    for turn in (q, -q, quat.identity(()), np.array([1e-8, 1.0, 0.0, 0.0])):
        expected = quat.slerp(quat.identity(()), turn, t)
        got = np.array(quat.slerp_from_identity_s(tuple(turn), t))
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 8), case=st.integers(0, 4))
def test_small_knee_batches_equal_the_same_limbs_in_a_large_batch(seed, count, case):
    rng = np.random.default_rng(seed)
    total = count + 500
    hip = rng.normal(size=(total, 3))
    knee = hip + rng.normal([0, -0.5, 0.2], 0.2, (total, 3))
    foot = knee + rng.normal([0, -0.5, -0.1], 0.2, (total, 3))
    goal_hip = rng.normal(size=(total, 3))
    goal_foot = goal_hip + rng.normal([0, -0.6, 0], 0.4, (total, 3))
    # One limb in a fallback case: reversed line (half turn), foot on the hip, straight source.
    if case == 1:
        goal_foot[0] = goal_hip[0] - (foot[0] - hip[0])
    elif case == 2:
        goal_foot[0] = goal_hip[0]
    elif case == 3:
        knee[0] = hip[0] + 0.4 * (foot[0] - hip[0])
    elif case == 4:
        foot[0] = hip[0]
    lengths = rng.uniform(0.1, 0.5, (2, total))
    args = (hip, knee, foot, goal_hip, goal_foot, *lengths)
    large = knee_from_source(*args, max_reach=0.95)
    small = knee_from_source(*(a[:count] for a in args), max_reach=0.95)
    np.testing.assert_array_equal(small, large[:count])
    np.testing.assert_allclose(np.linalg.norm(large - goal_hip, axis=-1), lengths[0], rtol=1e-12)
    assert np.isfinite(large).all()


def test_knee_lengths_and_reach_broadcast_over_the_points():
    hip, knee, foot = np.zeros(3), np.array([0, -0.5, 0.1]), np.array([0, -1.0, 0])
    goal = np.array([0, -0.6, 0.2])
    lengths = np.array([0.3, 0.4, 0.5])
    reach = np.array([[0.9], [0.5]])
    out = knee_from_source(hip, knee, foot, hip, goal, lengths, 0.4, max_reach=reach)
    assert out.shape == (2, 3, 3)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.broadcast_to(lengths, (2, 3)),
                               rtol=1e-12)
    one = knee_from_source(hip, knee, foot, hip, goal, 0.4, 0.4, max_reach=0.5)
    np.testing.assert_array_equal(out[1, 1], one)
    with pytest.raises(SkeletonError, match="max_reach"):
        knee_from_source(hip, knee, foot, hip, goal, lengths, 0.4, max_reach=np.ones(2))
