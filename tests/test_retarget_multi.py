"""One source pose copied onto many avatars (seed 001's SimplePoseTransfer)."""

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh, quat
from footfall.errors import SkeletonError
from footfall.gltf import load_avatar
from footfall.retarget.multi import CopyTarget, PoseCopier
from footfall.skeleton import Clip


def test_copies_follow_source_rotations_with_hip_offsets() -> None:
    source = bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:20]
    mixamo = bvh.load(DATA / "bvh" / "mixamo_stepping.bvh").skeleton
    cesium = load_avatar(DATA / "avatars" / "CesiumMan.glb")
    offsets = [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.5), (0.0, 0.0, -2.0)]
    targets = [CopyTarget(mixamo, hip_offset=o) for o in offsets]
    targets.append(CopyTarget(cesium.skeleton, hip_offset=(2.0, 0.0, 0.0),
                              rest=cesium.rest_rotations, sync_root_scale=False,
                              transfer_head_scale=False))
    copier = PoseCopier(source.skeleton, targets)
    poses = copier.copy(source.rotations, source.positions, root_scale=1.5, head_scale=1.2)
    head = mixamo.index("mixamorig:Head")
    assert poses[0].joint_scales[head] == 1.2 and np.sum(poses[0].joint_scales != 1) == 1
    assert np.all(poses[3].joint_scales == 1.0)
    assert len(poses) == 4
    hips_source = source.global_positions()[:, 0]
    for pose, offset in zip(poses[:3], offsets, strict=True):
        clip = Clip(mixamo, pose.rotations, pose.positions, source.fps)
        hips = clip.global_positions()[:, mixamo.index("mixamorig:Hips")]
        np.testing.assert_allclose(hips, hips_source + offset, atol=1e-9)
        assert pose.scale == 1.5
        # Synced root scale: bones 1.5× longer.
        np.testing.assert_allclose(pose.positions[0, 1], 1.5 * mixamo.offsets[1])
    # The three copies of one avatar share every rotation.
    np.testing.assert_allclose(poses[0].rotations, poses[2].rotations)
    # Mapped bones turn exactly as the source does from frame 0 to frame 19.
    source_world = source.global_rotations()
    copy_world = Clip(mixamo, poses[0].rotations, poses[0].positions, 30).global_rotations()
    for src_name, dst_name in (("lKnee", "mixamorig:LeftLeg"), ("torso_head", "mixamorig:Head")):
        s, d = source.skeleton.index(src_name), mixamo.index(dst_name)
        source_turn = quat.mul_inv(source_world[-1, s], source_world[0, s])
        copy_turn = quat.mul_inv(copy_world[-1, d], copy_world[0, d])
        assert quat.angle_between(source_turn, copy_turn) < 1e-6
    cesium_pose = poses[3]
    assert cesium_pose.scale == 1.0
    hips = Clip(cesium.skeleton, cesium_pose.rotations, cesium_pose.positions, 30)
    index = cesium.skeleton.index("Skeleton_torso_joint_1")
    np.testing.assert_allclose(hips.global_positions()[:, index], hips_source + [2.0, 0, 0],
                               atol=1e-9)


def test_single_frame_and_empty_targets() -> None:
    source = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    copier = PoseCopier(source.skeleton, [CopyTarget(source.skeleton)])
    pose = copier.copy(source.rotations[5], source.positions[5])[0]
    assert pose.rotations.shape == (source.skeleton.joint_count, 4)
    np.testing.assert_allclose(
        Clip(source.skeleton, pose.rotations[None], pose.positions[None], 60).global_positions(),
        source[5].global_positions(), atol=1e-9)
    with pytest.raises(SkeletonError, match="at least one target"):
        PoseCopier(source.skeleton, [])
