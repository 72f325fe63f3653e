"""glTF/GLB avatars: skeleton and rest pose read from real files, animation written back."""

import numpy as np
import pygltflib
import pytest
import trimesh

from conftest import AVATAR_FILES, DATA
from footfall import bvh, quat
from footfall.errors import GLTFError
from footfall.gltf import load_animation, load_avatar, save_animation
from footfall.humanoid import auto_map
from footfall.retarget import Retargeter

CESIUM = DATA / "avatars" / "CesiumMan.glb"
ROBOT = DATA / "avatars" / "RobotExpressive.glb"


@pytest.mark.parametrize("path", AVATAR_FILES, ids=lambda p: p.stem)
def test_avatar_skeleton_is_y_up_metres_facing_forward(path) -> None:
    avatar = load_avatar(path)
    joints = {"CesiumMan": 19, "RobotExpressive": 43}[path.stem]
    assert avatar.skeleton.joint_count == joints
    rest = avatar.rest_clip().global_positions()[0]
    mapping = auto_map(avatar.skeleton)
    head = rest[avatar.skeleton.index(mapping["Head"])]
    feet = rest[[avatar.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]]
    # Standing upright on y ≈ 0, head on top (the Z-up armature and ×100 scale are folded in).
    assert np.all(np.abs(feet[:, 1]) < 0.1)
    assert head[1] > 1.0
    # The left foot is on +X (the character's left when facing +Z).
    assert feet[0, 0] > 0 > feet[1, 0]
    # Rest rotations are unit quaternions and rebuild the file's joint positions.
    np.testing.assert_allclose(np.linalg.norm(avatar.rest_rotations, axis=-1), 1.0, atol=1e-6)


def test_cesium_rest_pose_matches_file_world_matrices() -> None:
    avatar = load_avatar(CESIUM)
    gltf = pygltflib.GLTF2().load(str(CESIUM))
    # Bind pose from the inverse bind matrices: joint world = inverse(IBM) (mesh node is at the
    # scene root under the same Z-up frame here, so compare heights and spans only).
    rest = avatar.rest_clip().global_positions()[0]
    assert rest[:, 1].max() - rest[:, 1].min() == pytest.approx(1.17, abs=0.05)
    assert len(gltf.skins[0].joints) == avatar.skeleton.joint_count


@pytest.mark.parametrize("path", AVATAR_FILES, ids=lambda p: p.stem)
def test_file_animation_reads_and_round_trips(path, tmp_path) -> None:
    clip = load_animation(path, animation=0, fps=30.0)
    assert clip.frame_count > 10 and np.all(np.isfinite(clip.rotations))
    avatar = load_avatar(path)
    out = tmp_path / "again.glb"
    save_animation(avatar, clip, out)
    back = load_animation(out, fps=30.0)
    assert back.frame_count == clip.frame_count
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(), atol=1e-4)


def test_retargeted_glb_plays_in_a_viewer_format(tmp_path) -> None:
    source = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    avatar = load_avatar(CESIUM)
    r = Retargeter(source.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations)
    r.settings["head_scale"] = 1.5
    out = r.apply(source)
    path = tmp_path / "walk.glb"
    save_animation(avatar, out, path, joint_scales=r.joint_scales())
    gltf = pygltflib.GLTF2().load(str(path))
    assert len(gltf.animations) == 1
    animation = gltf.animations[0]
    rotated = {c.target.node for c in animation.channels if c.target.path == "rotation"}
    assert rotated == set(avatar.nodes)
    assert any(c.target.path == "translation" for c in animation.channels)
    assert any(c.target.path == "scale" for c in animation.channels)  # head scale
    times = gltf.accessors[animation.samplers[0].input]
    assert times.count == out.frame_count
    assert times.max[0] == pytest.approx((out.frame_count - 1) / source.fps, rel=1e-6)
    assert len(gltf.binary_blob()) >= gltf.buffers[0].byteLength
    back = load_animation(path, fps=source.fps)
    np.testing.assert_allclose(back.global_positions(), out.global_positions(), atol=1e-4)
    # The skin and meshes are still there for the viewer.
    assert len(gltf.skins) == 1 and len(gltf.meshes) >= 1


def test_glb_without_skin_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "box.glb"
    trimesh.creation.box().export(path)
    with pytest.raises(GLTFError, match=r"box\.glb: no skin"):
        load_avatar(path)


@pytest.mark.parametrize("content", [b"", b"glTF\x02\x00\x00\x00garbage", b"{not json"])
def test_corrupt_glb_is_a_clear_error(tmp_path, content) -> None:
    path = tmp_path / "broken.glb"
    path.write_bytes(content)
    with pytest.raises(GLTFError, match="broken.glb"):
        load_avatar(path)


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(GLTFError, match="nothing.glb"):
        load_avatar(tmp_path / "nothing.glb")


def test_writing_a_mismatched_clip_leaves_the_file_alone(tmp_path) -> None:
    avatar = load_avatar(CESIUM)
    path = tmp_path / "kept.glb"
    path.write_bytes(b"previous")
    wrong = bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:5]
    with pytest.raises(GLTFError, match="do not match"):
        save_animation(avatar, wrong, path)
    assert path.read_bytes() == b"previous"
    bad = avatar.rest_clip(3)
    bad.rotations[1, 0] = np.nan
    with pytest.raises(Exception, match="frame 1"):
        save_animation(avatar, bad, path)
    assert path.read_bytes() == b"previous"
    assert quat.normalize(avatar.rest_rotations).shape == (19, 4)


def test_gltf_json_output_round_trips(tmp_path) -> None:
    avatar = load_avatar(CESIUM)
    clip = load_animation(CESIUM, fps=24.0)
    out = tmp_path / "walk.gltf"
    save_animation(avatar, clip, out)
    assert out.read_text(encoding="utf-8").lstrip().startswith("{")
    back = load_animation(out, fps=24.0)
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(), atol=1e-4)


@pytest.mark.parametrize("value", [1e30, -1e9])
def test_an_animation_value_beyond_the_node_limit_is_refused(tmp_path, value: float) -> None:
    """Animated translations and scales obey the limit node transforms do (±1e7): a scale
    channel of 1e30 sent joints 1.8e29 m away without a word (scale channels are read since
    this session)."""
    avatar = load_avatar(CESIUM)
    out = tmp_path / "scaled.glb"
    save_animation(avatar, avatar.rest_clip(3), out, root_scale=1.5)
    gltf = pygltflib.GLTF2().load(str(out))
    channel = next(c for c in gltf.animations[0].channels if c.target.path == "scale")
    accessor = gltf.accessors[gltf.animations[0].samplers[channel.sampler].output]
    view = gltf.bufferViews[accessor.bufferView]
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    blob = bytearray(gltf.binary_blob())
    blob[start:start + 12 * accessor.count] = np.full(3 * accessor.count, value,
                                                      dtype="<f4").tobytes()
    gltf.set_binary_blob(bytes(blob))
    bad = tmp_path / "bad.glb"
    gltf.save(str(bad))
    with pytest.raises(GLTFError, match="beyond"):
        load_animation(bad)
