"""The one forward kinematics (``skeleton.FKPlan``) against rotation matrices, over random
hierarchies and batch shapes; joint subsets; world→local; malformed input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import SkeletonError
from footfall.skeleton import FKPlan, forward_kinematics, local_from_global


@st.composite
def hierarchies(draw):
    """Random ``parents``, batch shape and a seed."""
    count = draw(st.integers(1, 30))
    parents = np.array([-1] + [draw(st.integers(-1, j - 1)) for j in range(1, count)])
    batch = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    return parents, batch, draw(st.integers(0, 2**31 - 1))


def matrix_fk(parents, rotations, translations):
    """Reference FK on 3×3 matrices, joint by joint (independent of the quaternion maths)."""
    matrices = quat.to_matrix(rotations)
    translations = np.broadcast_to(translations, matrices.shape[:-2] + (3,))
    world = np.empty_like(matrices)
    position = np.empty(matrices.shape[:-2] + (3,))
    for j, p in enumerate(parents):
        if p < 0:
            world[..., j, :, :] = matrices[..., j, :, :]
            position[..., j, :] = translations[..., j, :]
        else:
            world[..., j, :, :] = world[..., p, :, :] @ matrices[..., j, :, :]
            position[..., j, :] = position[..., p, :] + np.einsum(
                "...ij,...j->...i", world[..., p, :, :], translations[..., j, :])
    return world, position


def random_pose(parents, batch, seed):
    rng = np.random.default_rng(seed)
    rotations = quat.normalize(rng.normal(size=(*batch, len(parents), 4)))
    translations = rng.normal(size=(*batch, len(parents), 3))
    return rotations, translations


@settings(max_examples=80, deadline=None)
@given(hierarchies())
def test_fk_equals_matrix_fk_over_any_batch(case) -> None:
    parents, batch, seed = case
    rotations, translations = random_pose(parents, batch, seed)
    plan = FKPlan(parents)
    grot, gpos = plan(rotations, translations)
    assert grot.shape == (*batch, len(parents), 4) and gpos.shape == (*batch, len(parents), 3)
    want_rot, want_pos = matrix_fk(parents, rotations, translations)
    np.testing.assert_allclose(quat.to_matrix(grot), want_rot, atol=1e-9)
    np.testing.assert_allclose(gpos, want_pos, atol=1e-9)
    # The variants give the same numbers bit for bit.
    assert np.array_equal(plan.rotations(rotations), grot)
    assert np.array_equal(plan.positions(grot, translations), gpos)
    got_rot, got_pos = forward_kinematics(parents, rotations, translations)
    assert np.array_equal(got_rot, grot) and np.array_equal(got_pos, gpos)


@settings(max_examples=40, deadline=None)
@given(hierarchies())
def test_one_pose_of_translations_serves_every_batch_row(case) -> None:
    parents, batch, seed = case
    rotations, translations = random_pose(parents, batch, seed)
    offsets = translations.reshape(-1, len(parents), 3)[:1].reshape(len(parents), 3) \
        if translations.size else np.ones((len(parents), 3))
    got = FKPlan(parents)(rotations, offsets)
    want = FKPlan(parents)(rotations, np.broadcast_to(offsets, translations.shape).copy())
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    # And one pose of rotations against many translations.
    rest = quat.identity((len(parents),))
    _, positions = FKPlan(parents)(rest, translations)
    _, expected = matrix_fk(parents, np.broadcast_to(rest, rotations.shape), translations)
    np.testing.assert_allclose(positions, expected, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(hierarchies(), st.data())
def test_subset_plans_compute_joints_and_ancestors_only(case, data) -> None:
    parents, batch, seed = case
    rotations, translations = random_pose(parents, batch, seed)
    count = len(parents)
    needed = data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=3))
    closure = {a for k in needed for a in _chain(parents, k)}
    plan = FKPlan(parents, needed)
    assert plan.joints.tolist() == sorted(closure)
    assert plan.complete == (len(closure) == count)
    grot, gpos = plan(rotations, translations)
    full_rot, full_pos = FKPlan(parents)(rotations, translations)
    for j in range(count):
        if j in closure:
            assert np.array_equal(grot[..., j, :], full_rot[..., j, :])
            assert np.array_equal(gpos[..., j, :], full_pos[..., j, :])
        else:
            assert not grot[..., j, :].any() and not gpos[..., j, :].any()
    # With out=, the rows outside the plan are left as they are; a whole-body plan over the
    # same memory then gives the plain call's numbers.
    out = (np.full(full_rot.shape, 7.0), np.full(full_pos.shape, 7.0))
    got = plan(rotations, translations, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    inside = np.isin(np.arange(count), plan.joints)
    assert np.array_equal(out[0][..., inside, :], full_rot[..., inside, :])
    assert np.array_equal(out[1][..., inside, :], full_pos[..., inside, :])
    assert (out[0][..., ~inside, :] == 7.0).all() and (out[1][..., ~inside, :] == 7.0).all()
    FKPlan(parents)(rotations, translations, out=out)
    assert np.array_equal(out[0], full_rot) and np.array_equal(out[1], full_pos)
    with pytest.raises(SkeletonError):
        plan(rotations, translations, out=(out[0], np.zeros((*batch, count + 1, 3))))


@settings(max_examples=60, deadline=None)
@given(hierarchies(), st.data())
def test_open_subsets_extend_rows_already_filled(case, data) -> None:
    parents, batch, seed = case
    rotations, translations = random_pose(parents, batch, seed)
    count = len(parents)
    given_rows = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))
    missing = [j for j in range(count) if not given_rows[j]]
    full_rot, full_pos = FKPlan(parents)(rotations, translations)
    # The given rows hold the right world values; the plan fills in the rest in place.
    world = np.where(np.array(given_rows)[:, None], full_rot, np.nan)
    plan = FKPlan(parents, missing, ancestors=False)
    assert plan.rotations(rotations, out=world) is world
    assert np.array_equal(world, full_rot)
    position = np.where(np.array(given_rows)[:, None], full_pos, np.nan)
    # A joint-major view (not C-ordered) is written through as well.
    if batch:
        position_jm = np.ascontiguousarray(np.moveaxis(position, -2, 0))
        view = np.moveaxis(position_jm, 0, -2)
        assert plan.positions(full_rot, translations, out=view) is view
        assert np.array_equal(np.moveaxis(position_jm, 0, -2), full_pos)
    else:
        plan.positions(full_rot, translations, out=position)
        assert np.array_equal(position, full_pos)


@settings(max_examples=60, deadline=None)
@given(hierarchies())
def test_world_to_local_undoes_fk(case) -> None:
    parents, batch, seed = case
    rotations, translations = random_pose(parents, batch, seed)
    plan = FKPlan(parents)
    grot, gpos = plan(rotations, translations)
    local = plan.local_rotations(grot)
    np.testing.assert_allclose(np.abs(quat.dot(local, rotations)), 1.0, atol=1e-9)
    local_rot, local_pos = local_from_global(parents, grot, gpos)
    assert np.array_equal(local_rot, local)
    np.testing.assert_allclose(local_pos, translations, atol=1e-9)
    again = plan(local_rot, local_pos)
    np.testing.assert_allclose(again[1], gpos, atol=1e-9)


def test_a_live_frame_and_a_crowd_take_the_same_path() -> None:
    rng = np.random.default_rng(7)
    parents = np.array([-1, 0, 1, 2, 1, 4, 0, 6])
    rotations = quat.normalize(rng.normal(size=(500, 8, 4)))
    offsets = rng.normal(size=(8, 3))
    plan = FKPlan(parents)
    crowd = plan(rotations, offsets)
    for k in (0, 17, 499):
        one = plan(rotations[k], offsets)
        assert np.array_equal(one[0], crowd[0][k]) and np.array_equal(one[1], crowd[1][k])


def test_malformed_input_is_named() -> None:
    plan = FKPlan([-1, 0, 1])
    good_rot, good_pos = quat.identity((3,)), np.zeros((3, 3))
    with pytest.raises(SkeletonError, match=r"rotations have shape \(2, 4\)"):
        plan(quat.identity((2,)), good_pos)
    with pytest.raises(SkeletonError, match=r"translations have shape \(3, 4\)"):
        plan(good_rot, np.zeros((3, 4)))
    with pytest.raises(SkeletonError, match="rotations have shape"):
        plan.rotations(np.zeros(4))
    with pytest.raises(SkeletonError, match="out has"):
        plan.rotations(good_rot, out=np.zeros((3, 3)))
    with pytest.raises(SkeletonError, match="out has"):
        plan.rotations(np.zeros((5, 3, 4)), out=np.zeros((3, 4)))
    with pytest.raises(SkeletonError, match="out has"):
        plan.positions(good_rot, np.zeros((5, 3, 3)), out=np.zeros((3, 3)))
    # An out with more batch rows than the inputs is filled from the one pose.
    many = plan.rotations(good_rot, out=np.zeros((2, 3, 4)))
    assert np.array_equal(many, np.broadcast_to(good_rot, (2, 3, 4)))
    with pytest.raises(SkeletonError, match="joint 5 is out of range"):
        FKPlan([-1, 0, 1], [5])
    with pytest.raises(SkeletonError, match="do not broadcast"):
        plan(np.zeros((2, 3, 4)), np.zeros((4, 3, 3)))
    # NaN goes through as NaN (the clip checks name the frame), never a crash.
    nan_rot = good_rot.copy()
    nan_rot[1] = np.nan
    grot, gpos = plan(nan_rot, good_pos)
    assert np.isnan(grot[1:]).all() and np.isfinite(grot[0]).all()


def test_quaternion_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match=r"\(\.\.\., 4\)"):
        quat.mul(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match=r"v \(\.\.\., 3\)"):
        quat.rotate(np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError):
        quat.mul(np.zeros((2, 4)), np.zeros((3, 4)))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(0, 4), min_size=0, max_size=3))
def test_quaternion_products_match_matrices_and_broadcast(seed, batch) -> None:
    rng = np.random.default_rng(seed)
    a = quat.normalize(rng.normal(size=(*batch, 4)))
    b = quat.normalize(rng.normal(size=(4,)))
    v = rng.normal(size=(*batch, 3))
    np.testing.assert_allclose(quat.to_matrix(quat.mul(a, b)),
                               quat.to_matrix(a) @ quat.to_matrix(b), atol=1e-12)
    np.testing.assert_allclose(quat.rotate(a, v),
                               np.einsum("...ij,...j->...i", quat.to_matrix(a), v), atol=1e-12)
    np.testing.assert_allclose(quat.inv_rotate(a, quat.rotate(a, v)), v, atol=1e-12)
    assert quat.mul(b, a).shape == a.shape
    assert quat.mul(b.tolist(), b.tolist()).shape == (4,)


def _chain(parents, joint):
    out = []
    while joint >= 0:
        out.append(int(joint))
        joint = parents[joint]
    return out
