"""Property tests for footfall.quat over random batch shapes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def random_quats(shape, seed):
    rng = np.random.default_rng(seed)
    return quat.normalize(rng.normal(size=(*shape, 4)))


def same_rotation(a, b, tol=1e-9):
    return np.all(np.abs(np.abs(quat.dot(a, b)) - 1.0) < tol)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_mul_inverse_is_identity(shape, seed):
    q = random_quats(shape, seed)
    assert same_rotation(quat.mul(q, quat.inv(q)), quat.identity(shape))


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_rotate_matches_matrix_and_composes(shape, seed):
    rng = np.random.default_rng(seed)
    a, b = random_quats(shape, seed), random_quats(shape, seed + 1)
    v = rng.normal(size=(*shape, 3))
    via_matrix = np.einsum("...ij,...j->...i", quat.to_matrix(a), v)
    np.testing.assert_allclose(quat.rotate(a, v), via_matrix, atol=1e-12)
    np.testing.assert_allclose(
        quat.rotate(quat.mul(a, b), v), quat.rotate(a, quat.rotate(b, v)), atol=1e-12
    )
    np.testing.assert_allclose(np.linalg.norm(quat.rotate(a, v), axis=-1),
                               np.linalg.norm(v, axis=-1), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_matrix_round_trip(shape, seed):
    q = random_quats(shape, seed)
    assert same_rotation(quat.from_matrix(quat.to_matrix(q)), q)


@pytest.mark.parametrize("order", quat.EULER_ORDERS)
@settings(max_examples=30, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_euler_round_trip_every_order(order, shape, seed):
    q = random_quats(shape, seed)
    angles = quat.to_euler(q, order)
    assert same_rotation(quat.from_euler(angles, order), q, tol=1e-9)


@pytest.mark.parametrize("order", quat.EULER_ORDERS)
def test_euler_is_intrinsic_product(order):
    angles = np.array([0.3, -0.7, 1.1])
    expected = quat.identity()
    for axis_name, angle in zip(order, angles, strict=True):
        axis = {"X": [1, 0, 0], "Y": [0, 1, 0], "Z": [0, 0, 1]}[axis_name]
        expected = quat.mul(expected, quat.from_axis_angle(axis, angle))
    assert same_rotation(quat.from_euler(angles, order), expected)


@pytest.mark.parametrize("order", quat.EULER_ORDERS)
def test_euler_gimbal_lock(order):
    angles = np.array([0.4, np.pi / 2, -0.2])
    q = quat.from_euler(angles, order)
    assert same_rotation(quat.from_euler(quat.to_euler(q, order), order), q, tol=1e-7)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_between_maps_a_onto_b(shape, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(*shape, 3)), rng.normal(size=(*shape, 3))
    q = quat.between(a, b)
    ua = a / np.linalg.norm(a, axis=-1, keepdims=True)
    ub = b / np.linalg.norm(b, axis=-1, keepdims=True)
    np.testing.assert_allclose(quat.rotate(q, ua), ub, atol=1e-9)


def test_between_degenerate_cases_are_finite():
    a = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0], [1.0, 2.0, 3.0]])
    b = np.array([[-1.0, 0, 0], [0, -2.0, 0], [1.0, 0, 0], [1.0, 2.0, 3.0]])
    q = quat.between(a, b)
    assert np.all(np.isfinite(q))
    np.testing.assert_allclose(quat.rotate(q[:2], a[:2]), b[:2] / np.abs(b[:2]).sum(-1)[:, None],
                               atol=1e-12)
    assert same_rotation(q[2:], quat.identity((2,)))


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31), t=st.floats(0, 1))
def test_slerp_endpoints_and_constant_speed(shape, seed, t):
    a, b = random_quats(shape, seed), random_quats(shape, seed + 7)
    assert same_rotation(quat.slerp(a, b, 0.0), a, tol=1e-9)
    assert same_rotation(quat.slerp(a, b, 1.0), b, tol=1e-9)
    mid = quat.slerp(a, b, t)
    total = quat.angle_between(a, b)
    np.testing.assert_allclose(quat.angle_between(a, mid), t * total, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_axis_angle_round_trip(shape, seed):
    q = random_quats(shape, seed)
    assert same_rotation(quat.from_scaled_angle_axis(quat.to_scaled_angle_axis(q)), q, tol=1e-9)


def test_unroll_sign_keeps_rotations_and_removes_flips():
    rng = np.random.default_rng(1)
    smooth = quat.slerp(quat.identity((50, 3)), random_quats((1, 3), 3),
                        np.linspace(0, 1, 50)[:, None])
    flipped = smooth * rng.choice([-1.0, 1.0], size=(50, 3, 1))
    unrolled = quat.unroll_sign(flipped, axis=0)
    assert same_rotation(unrolled, smooth)
    assert np.all(quat.dot(unrolled[1:], unrolled[:-1]) > 0)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**31))
def test_swing_twist_recomposes(shape, seed):
    q = random_quats(shape, seed)
    swing, twist = quat.swing_twist(q, [0.0, 1.0, 0.0])
    assert same_rotation(quat.mul(swing, twist), q, tol=1e-9)
    np.testing.assert_allclose(twist[..., [1, 3]], 0.0, atol=1e-12)


def test_normalize_zero_is_identity():
    assert same_rotation(quat.normalize(np.zeros((2, 4))), quat.identity((2,)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), count=st.integers(1, 5))
def test_small_and_large_paths_are_bit_identical(seed, count):
    """A row's mul/inv_mul/rotate does not depend on the batch around it (small and large)."""
    rng = np.random.default_rng(seed)
    a = quat.normalize(rng.normal(size=(count, 2, 4)))
    b = quat.normalize(rng.normal(size=(count, 2, 4))) * rng.uniform(0.5, 2.0)
    v = rng.normal(size=(count, 2, 3)) * 10.0 ** rng.uniform(-3, 3)
    pad = 200  # rows appended so the same values go through the large path
    big = lambda x: np.concatenate([x, np.ones((pad, *x.shape[1:]))])  # noqa: E731
    assert np.array_equal(quat.mul(a, b), quat.mul(big(a), big(b))[:count])
    assert np.array_equal(quat.inv_mul(a, b), quat.inv_mul(big(a), big(b))[:count])
    assert np.array_equal(quat.rotate(a, v), quat.rotate(big(a), big(v))[:count])
    assert np.array_equal(quat.rotate(a, v[0, 0]), quat.rotate(big(a), v[0, 0])[:count])
    assert np.array_equal(quat.mul(a, b[0, 0]), quat.mul(big(a), b[0, 0])[:count])
