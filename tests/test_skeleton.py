"""Forward kinematics and clip operations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import SkeletonError
from footfall.skeleton import Clip, Skeleton, forward_kinematics, local_from_global


def random_skeleton(joints, rng):
    parents = np.array([-1] + [int(rng.integers(0, j)) for j in range(1, joints)])
    return Skeleton([f"j{i}" for i in range(joints)], parents, rng.normal(size=(joints, 3)))


def naive_fk(skeleton, rotations, translations):
    """Reference FK, one pose at a time with 4×4 matrices."""
    out = np.zeros(translations.shape)
    for index in np.ndindex(*rotations.shape[:-2]):
        world = []
        for j, p in enumerate(skeleton.parents):
            m = np.eye(4)
            m[:3, :3] = quat.to_matrix(rotations[index][j])
            m[:3, 3] = translations[index][j]
            world.append(m if p < 0 else world[p] @ m)
            out[index][j] = world[-1][:3, 3]
    return out


@settings(max_examples=30, deadline=None)
@given(batch=st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple),
       joints=st.integers(1, 8), seed=st.integers(0, 2**31))
def test_fk_matches_matrix_reference_and_inverts(batch, joints, seed):
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(joints, rng)
    rotations = quat.normalize(rng.normal(size=(*batch, joints, 4)))
    translations = rng.normal(size=(*batch, joints, 3))
    global_rot, global_pos = forward_kinematics(skeleton.parents, rotations, translations)
    np.testing.assert_allclose(global_pos, naive_fk(skeleton, rotations, translations), atol=1e-10)
    local_rot, local_pos = local_from_global(skeleton.parents, global_rot, global_pos)
    np.testing.assert_allclose(local_pos, translations, atol=1e-10)
    assert np.allclose(np.abs(quat.dot(local_rot, rotations)), 1.0, atol=1e-10)


def test_fk_keeps_bone_lengths():
    rng = np.random.default_rng(0)
    skeleton = random_skeleton(10, rng)
    clip = Clip(skeleton, quat.normalize(rng.normal(size=(20, 10, 4))),
                np.broadcast_to(skeleton.offsets, (20, 10, 3)), 30.0)
    pos = clip.global_positions()
    p = skeleton.parents
    lengths = np.linalg.norm(pos[:, 1:] - pos[:, p[1:]], axis=-1)
    np.testing.assert_allclose(lengths, np.broadcast_to(skeleton.bone_lengths()[1:], (20, 9)))


def make_clip(frames=30, fps=30.0):
    rng = np.random.default_rng(2)
    skeleton = random_skeleton(5, rng)
    base = quat.normalize(rng.normal(size=(5, 4)))
    spin = quat.from_axis_angle([0, 1, 0], np.linspace(0, 1.0, frames))[:, None]
    rotations = quat.mul(spin, base)
    positions = np.broadcast_to(skeleton.offsets, (frames, 5, 3)).copy()
    positions[:, 0, 0] = np.linspace(0, 1, frames)
    return Clip(skeleton, rotations, positions, fps)


def test_slice_resample_concatenate():
    clip = make_clip()
    assert clip[5:10].frame_count == 5
    assert clip[3].frame_count == 1
    doubled = clip.resample(60.0)
    assert doubled.frame_count == 2 * clip.frame_count - 1
    np.testing.assert_allclose(doubled.global_positions()[::2], clip.global_positions(), atol=1e-9)
    halved = clip.resample(15.0)
    np.testing.assert_allclose(halved.global_positions(), clip.global_positions()[::2], atol=1e-9)
    joined = clip[:10].concatenate(clip[10:])
    np.testing.assert_allclose(joined.rotations, clip.rotations)
    with pytest.raises(SkeletonError):
        clip.concatenate(clip.resample(60.0))


def test_bad_skeletons_and_nan_clips_are_named():
    with pytest.raises(SkeletonError, match="parents must precede"):
        Skeleton(["a", "b"], [1, -1], np.zeros((2, 3)))
    with pytest.raises(SkeletonError, match="at least one joint"):
        Skeleton([], np.zeros(0, int), np.zeros((0, 3)))
    clip = make_clip()
    clip.rotations[7, 3, 0] = np.nan
    with pytest.raises(SkeletonError, match=r"frame 7, joint 3 \('j3'\)"):
        clip.check_finite()
