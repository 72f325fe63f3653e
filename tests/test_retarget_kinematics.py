"""Properties of the retargeter's batched kernels (hypothesis over random skeletons and batches)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.retarget.kinematics import (
    Levels,
    fk,
    local_rotations,
    positions_from_world,
    qmul,
    qmul_conjugate,
    qrotate,
)
from footfall.retarget.spine import group_last
from footfall.retarget.stance import PlantedHold, hold_while_planted
from footfall.skeleton import forward_kinematics


@st.composite
def skeletons_and_poses(draw):
    count = draw(st.integers(1, 25))
    parents = [-1] + [draw(st.integers(-1, j - 1)) if j else -1 for j in range(1, count)]
    parents = np.array(parents)
    batch = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=2)))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    rotations = quat.normalize(rng.normal(size=(*batch, count, 4)))
    translations = rng.normal(size=(*batch, count, 3))
    return parents, rotations, translations


@settings(max_examples=60, deadline=None)
@given(skeletons_and_poses())
def test_level_fk_equals_joint_by_joint_fk(case) -> None:
    parents, rotations, translations = case
    levels = Levels.of(parents)
    grot, gpos = fk(levels, rotations, translations)
    ref_rot, ref_pos = forward_kinematics(parents, rotations, translations)
    np.testing.assert_allclose(grot, ref_rot, atol=1e-12)
    np.testing.assert_allclose(gpos, ref_pos, atol=1e-12)
    only = fk(levels, rotations, translations, positions=False)
    assert only[1] is None
    np.testing.assert_allclose(only[0], ref_rot, atol=1e-12)
    # Positions from known world rotations, full set and an ancestor-closed subset.
    np.testing.assert_allclose(positions_from_world(levels, grot, translations), ref_pos,
                               atol=1e-12)
    last = len(parents) - 1
    chain = [j for j in range(len(parents)) if j in _ancestors(parents, last)]
    subset = Levels.of(parents, chain)
    part = positions_from_world(subset, grot, translations)
    np.testing.assert_allclose(part[..., chain, :], ref_pos[..., chain, :], atol=1e-12)
    # Local rotations undo FK.
    np.testing.assert_allclose(np.abs(quat.dot(local_rotations(parents, grot), rotations)), 1.0,
                               atol=1e-12)


def _ancestors(parents, joint):
    out = []
    while joint >= 0:
        out.append(joint)
        joint = parents[joint]
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.lists(st.integers(1, 5), min_size=0, max_size=3))
def test_kernels_match_quat_module(seed, batch) -> None:
    rng = np.random.default_rng(seed)
    a = quat.normalize(rng.normal(size=(*batch, 4)))
    b = quat.normalize(rng.normal(size=(*batch, 4)))
    v = rng.normal(size=(*batch, 3))
    np.testing.assert_allclose(qmul(a, b), quat.mul(a, b), atol=1e-12)
    np.testing.assert_allclose(qmul_conjugate(a, b), quat.inv_mul(a, b), atol=1e-12)
    np.testing.assert_allclose(qrotate(a, v), quat.rotate(a, v), atol=1e-12)


@given(st.integers(1, 12), st.integers(1, 12))
def test_group_last_properties(source_count, target_count) -> None:
    groups = group_last(source_count, target_count)
    assert len(groups) == target_count
    assert groups[-1] == source_count - 1  # the last target bone follows the last source bone
    assert all(0 <= g < source_count for g in groups)
    assert groups == sorted(groups)
    if source_count >= target_count:
        assert len(set(groups)) == target_count  # every target bone gets its own group


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 60), st.integers(1, 10))
def test_planted_hold_keeps_touchdown_values_live_and_batched(seed, frames, fade) -> None:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(frames, 2, 3))
    planted = rng.random((frames, 2)) < 0.6
    batch = hold_while_planted(values, planted)
    # While planted both hold the touchdown value.
    live = PlantedHold(fade)
    out = np.stack([live(values[f], planted[f]) for f in range(frames)])
    np.testing.assert_allclose(out[planted], batch[planted], atol=1e-12)
    # A planted run holds one value from its touchdown on.
    for foot in range(2):
        for f in range(1, frames):
            if planted[f, foot] and planted[f - 1, foot]:
                np.testing.assert_allclose(batch[f, foot], batch[f - 1, foot])
    # With nothing planted the values pass through.
    np.testing.assert_allclose(hold_while_planted(values, np.zeros_like(planted)), values)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 60), st.integers(1, 10))
def test_planted_hold_of_one_frame_in_floats_equals_the_array_path(seed, frames, fade) -> None:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(frames, 2, 3))
    planted = rng.random((frames, 2)) < 0.6
    arrays, floats = PlantedHold(fade), PlantedHold(fade)
    for f in range(frames):
        expected = arrays(values[f], planted[f])
        got = floats.one(values[f].tolist(), planted[f].tolist())
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_live_frame_equals_a_batch_of_one_across_rigs() -> None:
    # One frame goes through Python-float fast paths (FK, stance hold); a batch of one frame
    # through the array code. Both must give the same pose, frame after frame (state too).
    from conftest import BVH_FILES
    from footfall import bvh
    from footfall.retarget import Retargeter

    source = bvh.load(next(p for p in BVH_FILES if p.stem == "games105_walk60"))[:45]
    target = bvh.load(next(p for p in BVH_FILES if p.stem == "mixamo_stepping"))
    single = Retargeter(source.skeleton, target.skeleton)
    batched = Retargeter(source.skeleton, target.skeleton)
    for r in (single, batched):
        r.settings.update({"avatar_scale": 1.2, "foot_in_out_offset": 0.02})
    moved = 0.0
    for f in range(source.frame_count):
        rot, pos = single.step(source.rotations[f], source.positions[f], 1 / 60)
        rot_b, pos_b = batched.step(source.rotations[f][None], source.positions[f][None], 1 / 60)
        np.testing.assert_allclose(rot, rot_b[0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(pos, pos_b[0], rtol=0, atol=1e-12)
        moved = max(moved, float(np.abs(pos - target.skeleton.offsets * 1.2).max()))
    assert moved > 0.1  # the hips travelled: the comparison saw real motion
