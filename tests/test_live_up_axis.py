"""Motive streamed Z up (the streaming pane's "Up Axis" set to Z, as for Unreal).

``natnet-serve --up z`` sends the same clip turned +90° about X (offsets, positions and
rotations). ``footfall live`` reads the up axis from the skeleton description's rest offsets and
turns a Z-up stream to Y up at the source, so the avatar comes out exactly as from the Y-up
stream; ``up="y"`` forces the old reading (the avatar lies on its back).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from footfall import bvh, quat
from footfall.live import natnet_protocol as proto
from footfall.live.loop import LiveLoop, load_target
from footfall.live.motive import ClipStream, MotiveSkeleton
from footfall.live.natnet_client import NatNetClient
from footfall.live.natnet_server import NatNetServer
from footfall.retarget import Retargeter
from footfall.skeleton import Clip, Skeleton

DATA = Path(__file__).parent / "data"
CLIP = DATA / "bvh" / "games105_walk60.bvh"
AVATAR = DATA / "avatars" / "CesiumMan.glb"
FRAMES = (0, 7, 33, 58)


def _decoded(server: NatNetServer, frames: tuple[int, ...]
             ) -> tuple[proto.SkeletonDescription, list[proto.SkeletonPose]]:
    """What a client decodes from ``server``: the description and the poses of ``frames``
    (through the wire format, float32 and all)."""
    v = server.version
    model = proto.decode_model_definition(proto.split_packet(server.model_definition())[1], v)
    poses = [proto.decode_frame(proto.split_packet(server.frame(f))[1], v).skeletons[0]
             for f in frames]
    server.socket.close()
    return model.skeletons[0], poses


def _avatar_world(motive: MotiveSkeleton, poses: list[proto.SkeletonPose], mode: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Source and avatar world joint positions ``(F, J, 3)`` metres, frame by frame through a
    fresh Retargeter (filter off), as the live loop does."""
    target = load_target(AVATAR)
    retargeter = Retargeter(motive.skeleton, target.skeleton, motive.mapping,
                            target_rest=target.rest)
    retargeter.settings["filter_enabled"] = False
    source, avatar = [], []
    for pose in poses:
        rot, pos, _ = motive.pose(pose, mode)
        source.append(Clip(motive.skeleton, rot[None], pos[None], 60).global_positions()[0])
        t_rot, t_pos = retargeter.step(rot, pos, 1 / 60)
        avatar.append(Clip(target.skeleton, t_rot[None], t_pos[None], 60)
                      .global_positions()[0])
    return np.array(source), np.array(avatar)


def _up_vector(skeleton: Skeleton, world: np.ndarray) -> np.ndarray:
    """Unit feet→head vector ``(F, 3)`` of a Motive-named skeleton's world positions."""
    head = world[:, skeleton.index("Head")]
    feet = world[:, [skeleton.index("LFoot"), skeleton.index("RFoot")]].mean(axis=1)
    v = head - feet
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_natnet_serve_up_z_turns_the_whole_world() -> None:
    clip = bvh.load(CLIP)
    y_up, z_up = ClipStream.build(clip), ClipStream.build(clip, up="z")
    for a, b in zip(y_up.description.bones, z_up.description.bones, strict=True):
        x, y, z = a.offset
        np.testing.assert_allclose(b.offset, [x, -z, y], atol=1e-12)
    for bone_poses in ("local", "global"):
        a, b = y_up.pose(10, bone_poses), z_up.pose(10, bone_poses)
        np.testing.assert_allclose(b.positions, a.positions[:, [0, 2, 1]] * [1, -1, 1],
                                   atol=1e-12)
        # A bone's axes turn with the world: R·q·R⁻¹ maps each turned vector as q mapped it.
        v = np.array([0.3, -0.2, 0.9])
        turn = quat.from_axis_angle(np.array([1.0, 0, 0]), np.pi / 2)
        np.testing.assert_allclose(quat.rotate(b.rotations, quat.rotate(turn, v)),
                                   quat.rotate(turn, quat.rotate(a.rotations, v)), atol=1e-12)
    # The served Z-up world: the head is above the feet along +Z.
    world = Clip(clip.skeleton, clip.rotations[:1], clip.positions[:1], 60).global_positions()
    names = dict(zip(y_up.names, range(len(y_up.names)), strict=True))
    pose = z_up.pose(0, "global")
    assert pose.positions[names["Head"], 2] - pose.positions[names["LFoot"], 2] > 1.0
    assert abs(world[0, names["Head"], 2] - world[0, names["LFoot"], 2]) < 0.5


def _both_streams(bone_poses: str) -> tuple[tuple, tuple]:
    """``(description, poses)`` of the clip served Y up and served Z up."""
    clip = bvh.load(CLIP)
    return (_decoded(NatNetServer(clip, command_port=0, bone_poses=bone_poses), FRAMES),
            _decoded(NatNetServer(clip, command_port=0, bone_poses=bone_poses, up="z"), FRAMES))


@pytest.mark.parametrize("bone_poses", ["local", "global"])
def test_z_up_stream_gives_the_y_up_avatar(bone_poses: str) -> None:
    (y_desc, y_poses), (z_desc, z_poses) = _both_streams(bone_poses)
    y_motive = MotiveSkeleton.from_description(y_desc)
    z_motive = MotiveSkeleton.from_description(z_desc)  # up="auto"
    y_source, y_avatar = _avatar_world(y_motive, y_poses, bone_poses)
    z_source, z_avatar = _avatar_world(z_motive, z_poses, bone_poses)
    assert np.abs(z_avatar - y_avatar).max() < 1e-6
    assert np.abs(z_source - y_source).max() < 1e-6
    np.testing.assert_allclose(z_motive.skeleton.offsets, y_motive.skeleton.offsets, atol=1e-6)
    assert (y_motive.up, z_motive.up) == ("y", "z")
    # The avatar stands (Y up) and walks on the floor as the clip does.
    assert (_up_vector(y_motive.skeleton, y_source)[:, 1] > 0.9).all()


@pytest.mark.parametrize("bone_poses", ["local", "global"])
def test_up_y_on_a_z_up_stream_reads_it_as_before(bone_poses: str) -> None:
    (y_desc, y_poses), (z_desc, z_poses) = _both_streams(bone_poses)
    forced = MotiveSkeleton.from_description(z_desc, up="y")
    assert forced.up == "y"
    # Taken as it comes: the description's offsets and the frames' local poses untouched.
    for b in z_desc.bones:
        np.testing.assert_array_equal(
            forced.skeleton.offsets[forced.skeleton.index(b.name.split("_", 1)[1])], b.offset)
    if bone_poses == "local":
        rot, pos, _ = forced.pose(z_poses[0], "local")
        order = np.argsort(forced.bone_ids)
        sent = np.argsort(z_poses[0].bone_ids)
        np.testing.assert_array_equal(pos[order], z_poses[0].positions[sent])
        np.testing.assert_allclose(rot[order], z_poses[0].rotations[sent], atol=1e-6)
    _, y_avatar = _avatar_world(MotiveSkeleton.from_description(y_desc, up="y"), y_poses,
                                bone_poses)
    z_source, z_avatar = _avatar_world(forced, z_poses, bone_poses)
    assert (_up_vector(forced.skeleton, z_source)[:, 2] > 0.9).all()  # lying, head at +Z
    # The avatar is a different one: its joints metres away from the Y-up stream's.
    assert np.abs(z_avatar - y_avatar).max() > 0.5


def test_unclear_or_non_humanoid_descriptions_stay_y_up() -> None:
    bone = proto.BoneDescription
    ident = np.array([1.0, 0, 0, 0])
    # A lying humanoid (head and feet along X): unclear.
    lying = proto.SkeletonDescription("S", 1, (
        bone("S_Hip", 1, 0, np.array([0.0, 0.9, 0.0]), ident),
        bone("S_Ab", 2, 1, np.array([0.5, 0.0, 0.0]), ident),
        bone("S_Head", 5, 2, np.array([0.3, 0.0, 0.0]), ident),
        bone("S_LThigh", 14, 1, np.array([-0.1, 0.0, 0.05]), ident),
        bone("S_LShin", 15, 14, np.array([-0.4, 0.0, 0.0]), ident),
        bone("S_LFoot", 16, 15, np.array([-0.4, 0.0, 0.0]), ident),
        bone("S_RThigh", 18, 1, np.array([-0.1, 0.0, -0.05]), ident),
        bone("S_RShin", 19, 18, np.array([-0.4, 0.0, 0.0]), ident),
        bone("S_RFoot", 20, 19, np.array([-0.4, 0.0, 0.0]), ident)))
    # A chain of unnamed bones standing along Z: not a humanoid.
    chain = proto.SkeletonDescription("Tail", 2, tuple(
        bone(f"Tail_b{i}", i + 1, i, np.array([0.0, 0.0, 0.3]), ident) for i in range(6)))
    for description in (lying, chain):
        motive = MotiveSkeleton.from_description(description)
        assert motive.up == "y"
        offsets = {b.name.split("_", 1)[1]: b.offset for b in description.bones}
        for name, offset in offsets.items():
            np.testing.assert_array_equal(
                motive.skeleton.offsets[motive.skeleton.index(name)], offset)
    # The same lying body turned to stand along Z is read as Z up; along Y, as Y up.
    standing_z = proto.SkeletonDescription("S", 1, tuple(
        bone(b.name, b.id, b.parent_id, np.array([b.offset[1], -b.offset[2], b.offset[0]]),
             ident) for b in lying.bones))
    assert MotiveSkeleton.from_description(standing_z).up == "z"


def test_loopback_z_up_stream_is_turned_and_said_once(tmp_path: Path) -> None:
    clip = bvh.load(CLIP)
    server = NatNetServer(clip, command_port=0, rate=60, up="z")
    messages: list[str] = []
    client = NatNetClient("127.0.0.1", command_port=server.address[1], data_port=0,
                          report=messages.append)
    loop = LiveLoop(client, [load_target(AVATAR)], settings={"filter_enabled": False},
                    settings_folder=tmp_path, report=messages.append)
    frames = []

    def keep(loop: LiveLoop) -> None:
        frame = loop.source_frame()
        if frame is not None and (not frames or frames[-1] is not frame):
            frames.append(frame)
        if len(frames) >= 20:
            loop.stop()
        else:
            loop.add_between_frames(keep)

    loop.add_between_frames(keep)
    server.start()
    try:
        loop.run(duration=15.0)
    finally:
        server.stop()
    assert len(frames) >= 20
    assert client.status.up == "z"
    said = [m for m in messages if "stream is Z-up; turned to Y up" in m]
    assert len(said) == 1, messages
    for frame in frames:
        f = frame.number % clip.frame_count
        np.testing.assert_allclose(frame.translations, clip.positions[f], atol=1e-6)
        assert np.all(np.abs(np.sum(frame.rotations * clip.rotations[f], -1)) > 1 - 1e-6)
    # Forced to Y: taken as it comes, and nothing said.
    messages.clear()
    server = NatNetServer(clip, command_port=0, rate=60, up="z")
    client = NatNetClient("127.0.0.1", command_port=server.address[1], data_port=0,
                          report=messages.append, up="y")
    server.start()
    client.start()
    try:
        deadline = time.monotonic() + 10
        frame = None
        while frame is None and time.monotonic() < deadline:
            frame = client.wait(0.1)
    finally:
        client.stop()
        server.stop()
    assert frame is not None and client.status.up == "y"
    hips = clip.positions[frame.number % clip.frame_count, 0]
    np.testing.assert_allclose(frame.translations[0], [hips[0], -hips[2], hips[1]], atol=1e-6)
    assert not [m for m in messages if "Z-up" in m]


def test_live_command_says_it_once_and_help_offers_up(tmp_path: Path) -> None:
    import subprocess
    import sys

    clip = bvh.load(CLIP)
    runs = {}
    for up in ("auto", "y"):
        server = NatNetServer(clip, command_port=0, rate=60, up="z")
        server.start()
        cmd = [sys.executable, "-m", "footfall.cli", "live", "--natnet", "127.0.0.1",
               "--command-port", str(server.address[1]), "--data-port", "0", "--up", up,
               "--to", str(AVATAR), "--no-view", "--no-control",
               "--settings-dir", str(tmp_path / up), "--duration", "1.5"]
        try:
            runs[up] = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        finally:
            server.stop()
    said = "stream is Z-up; turned to Y up"
    auto, forced = runs["auto"], runs["y"]
    assert auto.returncode == 0 and forced.returncode == 0, (auto.stderr, forced.stderr)
    assert auto.stderr.count(said) == 1, auto.stderr
    summary = [line for line in auto.stdout.splitlines() if line.startswith("live: ")]
    assert len(summary) == 1 and said in summary[0] and " 0 frames" not in summary[0]
    assert "Z-up" not in forced.stderr + forced.stdout
    helps = [subprocess.run([sys.executable, "-m", "footfall.cli", command, "--help"],
                            capture_output=True, text=True, timeout=60).stdout
             for command in ("live", "natnet-serve")]
    assert "--up {auto,y,z}" in helps[0] and "--up {y,z}" in helps[1]
