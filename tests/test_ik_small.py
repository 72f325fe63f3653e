"""Small batches (1–8 limbs, Python floats) give the same results as the vectorised core."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import footfall.ik.two_bone as two_bone
from footfall import quat
from footfall.errors import SkeletonError
from footfall.ik import _components as C
from footfall.ik import solve_two_bone

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


def solve_all_ways(points, **weights):
    """(small path, one vectorised block, vectorised blocks of 3) results for the same limbs."""
    small = solve_two_bone(*points, **weights)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(two_bone, "_SMALL", 0)
        block = solve_two_bone(*points, **weights)
        patch.setattr(two_bone, "_BLOCK", 3)
        blocks = solve_two_bone(*points, **weights)
    return small, block, blocks


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, two_bone._SMALL),
    fallbacks=st.integers(0, 3),
    with_pole=st.booleans(),
    reach=st.sampled_from(["default", "scalar", "per limb"]),
)
def test_small_batches_equal_the_core_bit_for_bit(seed, count, fallbacks, with_pole, reach):
    points = limbs(seed, count, fallbacks, with_pole)
    rng = np.random.default_rng(seed)
    weights = {"scalar": {"max_reach": 0.9},
               "per limb": {"max_reach": rng.uniform(0.5, 1.0, count)}}.get(reach, {})
    small, block, blocks = solve_all_ways(points, **weights)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(small, name), getattr(block, name), err_msg=name)
        np.testing.assert_array_equal(getattr(small, name), getattr(blocks, name), err_msg=name)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, two_bone._SMALL),
       fallbacks=st.integers(0, 2))
def test_small_batches_with_weights_equal_the_core(seed, count, fallbacks):
    points = limbs(seed, count, fallbacks, with_pole=True)
    rng = np.random.default_rng(seed)
    weight = rng.uniform(0, 1, count)
    small, block, blocks = solve_all_ways(points, position_weight=weight)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(small, name), getattr(block, name), err_msg=name)
        # Blocks of 3: SIMD transcendental loops (slerp) may differ by an ulp with array length.
        np.testing.assert_allclose(getattr(small, name), getattr(blocks, name), rtol=0,
                                   atol=1e-12, err_msg=name)
    # Pole weights below 1 (arctan2 inside the core) take the vectorised path.
    partial_pole = solve_two_bone(*points, pole_weight=weight)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(two_bone, "_SMALL", 0)
        core = solve_two_bone(*points, pole_weight=weight)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(partial_pole, name), getattr(core, name))


def test_small_path_is_taken_and_falls_back_per_limb(monkeypatch):
    # Eight limbs, the first two needing fallbacks: those go to the core, the rest (but for
    # an occasional large turn) are solved with floats.
    returned = []
    original = two_bone.solve_small

    def spy(*args):
        returned.append(original(*args))
        return returned[-1]

    monkeypatch.setattr(two_bone, "solve_small", spy)
    points = limbs(3, 8, 2, with_pole=True)
    r = solve_two_bone(*points)
    assert returned[0][0] is None and returned[0][1] is None
    assert sum(limb is not None for limb in returned[0]) >= 5
    assert np.isfinite(r.tip).all() and np.isfinite(r.upper_rotation).all()
    # The solved tips reach their (reachable) targets and the bones keep their lengths.
    for i in range(2, 8):
        length = np.linalg.norm(points[1][i] - points[0][i])
        assert np.linalg.norm(r.mid[i] - points[0][i]) == pytest.approx(length, rel=1e-12)
        if not r.clamped[i] and r.residual[i] == 0:
            assert np.linalg.norm(r.tip[i] - points[3][i]) < 1e-9


def test_one_limb_without_batch_axis_and_broadcast_inputs():
    # Shape () and broadcast points take the small path and keep the result shapes.
    single = solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], [0.2, 0.2, 0.1],
                            pole=[0, 0.5, 1])
    assert single.mid.shape == (3,) and single.residual.shape == () and single.clamped.shape == ()
    assert np.linalg.norm(single.tip - [0.2, 0.2, 0.1]) < 1e-9
    many = solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], np.array([[0.2, 0.2, 0.1]] * 3),
                          pole=[0, 0.5, 1])
    assert many.upper_rotation.shape == (3, 4)
    np.testing.assert_array_equal(many.tip, np.broadcast_to(single.tip, (3, 3)))


def test_non_finite_input_is_refused_on_both_paths():
    # NaN positions or reach are refused at the entry (SPEC: never NaN), small path or core.
    points = limbs(1, 3, 0, with_pole=True)
    points[3][1, 0] = np.nan
    for reach in (0.999, np.array([0.9, 0.9, np.nan])):
        with pytest.raises(SkeletonError, match="solve_two_bone: target"):
            solve_two_bone(*points, max_reach=reach)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(two_bone, "_SMALL", 0)
            with pytest.raises(SkeletonError, match="solve_two_bone: target"):
                solve_two_bone(*points, max_reach=reach)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 6))
def test_component_between_equals_quat_between(seed, count):
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
    got = np.stack(C.between(tuple(a.T), tuple(b.T)), axis=-1)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 8), case=st.integers(0, 4))
def test_small_knee_batches_equal_the_vectorised_path(seed, count, case):
    import footfall.ik.knee as knee_module
    from footfall.ik import knee_from_source

    rng = np.random.default_rng(seed)
    hip = rng.normal(size=(count, 3))
    knee = hip + rng.normal([0, -0.5, 0.2], 0.2, (count, 3))
    foot = knee + rng.normal([0, -0.5, -0.1], 0.2, (count, 3))
    goal_hip = rng.normal(size=(count, 3))
    goal_foot = goal_hip + rng.normal([0, -0.6, 0], 0.4, (count, 3))
    # One limb in a fallback case: reversed line (half turn), foot on the hip, straight source.
    if case == 1:
        goal_foot[0] = goal_hip[0] - (foot[0] - hip[0])
    elif case == 2:
        goal_foot[0] = goal_hip[0]
    elif case == 3:
        knee[0] = hip[0] + 0.4 * (foot[0] - hip[0])
    lengths = rng.uniform(0.1, 0.5, (2, count))
    args = (hip, knee, foot, goal_hip, goal_foot, *lengths)
    small = knee_from_source(*args, max_reach=0.95)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(knee_module, "_SMALL_KNEES", 0)
        vectorised = knee_from_source(*args, max_reach=0.95)
    np.testing.assert_array_equal(small, vectorised)
    np.testing.assert_allclose(np.linalg.norm(small - goal_hip, axis=-1), lengths[0], rtol=1e-12)
