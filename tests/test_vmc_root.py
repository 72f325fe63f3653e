"""``/VMC/Ext/Root/Pos`` with the avatar's root (``VmcPose(root_motion=True)``): sent every pose
over a real UDP socket on 127.0.0.1 and read by a strict receiver (test_vmc's, byte by byte):
the root is the hips' ground-plane position and heading, and root ∘ hips is the pose's hips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from footfall import bvh, quat
from footfall.gltf import load_avatar
from footfall.gltf.normalized import NormalizedHumanoid
from footfall.live.vmc import VmcPose, from_unity
from footfall.retarget import Retargeter
from test_vmc import STRICT_TAGS, _received, _strict_bundle

DATA = Path(__file__).parent / "data"
WALK = DATA / "bvh" / "cmu_01_01_fairmotion.bvh"
VRM = DATA / "avatars" / "vrm1_debug_robot.vrm"


def _strict_root_pose(datagrams: list[bytes]) -> tuple[list[float], dict[str, list[float]]]:
    """``(root's 7 floats, {bone: 7 floats})`` of one pose: every message as strict as
    test_vmc's receiver, the root exactly once and first after OK and T."""
    roots, bones, order = [], {}, []
    for datagram in datagrams:
        for address, tags, args in _strict_bundle(datagram):
            assert tags == STRICT_TAGS[address], (address, tags)
            order.append(address)
            if address == "/VMC/Ext/Root/Pos":
                assert args[0] == "root"
                roots.append(args[1:])
            elif address == "/VMC/Ext/Bone/Pos":
                assert args[0] not in bones
                bones[args[0]] = args[1:]
    assert order[:3] == ["/VMC/Ext/OK", "/VMC/Ext/T", "/VMC/Ext/Root/Pos"]
    assert len(roots) == 1
    return roots[0], bones


def _compose(root: list[float], hips: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Root ∘ hips local, both Unity rows, as footfall's right-handed (rotation, position)."""
    root_rotation, root_position = from_unity(np.array(root))
    hips_rotation, hips_position = from_unity(np.array(hips))
    return (quat.mul(root_rotation, hips_rotation),
            root_position + quat.rotate(root_rotation, hips_position))


def test_the_root_walks_with_the_hips_over_a_real_socket() -> None:
    """A BVH walk sent as it is (the CMU skeleton, mapped by name): each pose's root stands on
    the floor under the hips, turned only about Y by the hips' heading, and root ∘ the sent
    hips is the hips' world transform (float32)."""
    clip = bvh.load(WALK)[:1200:40]
    retargeter = Retargeter(clip.skeleton, clip.skeleton)
    pose = VmcPose(clip.skeleton, retargeter.target_map, root_motion=True)
    hips = clip.skeleton.index(retargeter.target_map["Hips"])
    world_rotation, world_position = clip.forward_kinematics()
    poses = _received([pose.datagrams(clip.rotations[f], clip.positions[f], f / clip.fps)
                       for f in range(clip.frame_count)])
    roots = []
    for f, datagrams in enumerate(poses):
        root, bones = _strict_root_pose(datagrams)
        roots.append(root)
        rotation, position = from_unity(np.array(root))
        assert position[1] == 0.0
        np.testing.assert_allclose(position[[0, 2]], world_position[f, hips, [0, 2]], atol=1e-5)
        np.testing.assert_allclose(rotation[[1, 3]], 0.0, atol=1e-6)  # a turn about Y only
        sent_rotation, sent_position = _compose(root, bones["Hips"])
        np.testing.assert_allclose(sent_position, world_position[f, hips], atol=1e-5)
        assert abs(quat.dot(sent_rotation, world_rotation[f, hips])) > 1 - 1e-6
        # The hips' own x and z are gone into the root: only height remains.
        np.testing.assert_allclose(np.array(bones["Hips"])[[0, 2]], 0.0, atol=1e-5)
    travel = np.ptp(np.array(roots)[:, [0, 2]], axis=0).max()
    assert travel > 1.0  # metres: the root really moved through the walk
    headings = np.array([quat.to_axis_angle(from_unity(np.array(r))[0])[1] for r in roots])
    assert headings.max() > 1.0  # and turned (the walk turns round)


def test_without_root_motion_the_root_stays_at_the_origin() -> None:
    clip = bvh.load(WALK)[:200:50]
    retargeter = Retargeter(clip.skeleton, clip.skeleton)
    pose = VmcPose(clip.skeleton, retargeter.target_map)
    for f, datagrams in enumerate(_received([pose.datagrams(clip.rotations[f],
                                                            clip.positions[f], 0.0)
                                             for f in range(clip.frame_count)])):
        root, bones = _strict_root_pose(datagrams)
        assert root == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        np.testing.assert_allclose(from_unity(np.array(bones["Hips"]))[1],
                                   clip.positions[f, 0], atol=1e-5)


@pytest.mark.parametrize("turn", [0.0, 0.7, -2.5])
def test_a_vrm_avatar_sends_its_root_in_univrms_frame(turn: float) -> None:
    """A VRM avatar, its rest pose turned by ``turn`` about Y and moved: the root carries the
    turn and the move (in UniVRM's frame, as its bones are converted), the normalized hips
    only their height, unturned."""
    avatar = load_avatar(VRM)
    humanoid = NormalizedHumanoid.of(avatar)
    r = Retargeter(avatar.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations)
    pose = VmcPose(avatar.skeleton, r.target_map, humanoid=humanoid, root_motion=True)
    rotations = avatar.rest_rotations.copy()
    positions = avatar.skeleton.offsets.copy()
    roots = np.nonzero(avatar.skeleton.parents < 0)[0]
    spin = quat.from_axis_angle([0.0, 1.0, 0.0], turn)
    rotations[roots] = quat.mul(spin, rotations[roots])
    positions[roots] = quat.rotate(spin, positions[roots]) + [1.5, 0.0, -0.75]
    (datagrams,) = _received([pose.datagrams(rotations, positions, 0.0)])
    root, bones = _strict_root_pose(datagrams)
    hips = avatar.skeleton.index(avatar.humanoid["Hips"])
    _, world = avatar.rest_clip().forward_kinematics()
    expected_position = quat.rotate(spin, world[0, hips]) + [1.5, 0.0, -0.75]
    # UniVRM's frame negates x of positions and y, z of quaternions (vrm_to_unity).
    np.testing.assert_allclose(root[:3], [-expected_position[0], 0.0, expected_position[2]],
                               atol=1e-5)
    np.testing.assert_allclose(root[3:], [0.0, -np.sin(turn / 2), 0.0, np.cos(turn / 2)],
                               atol=1e-6)
    np.testing.assert_allclose(bones["Hips"][3:], [0.0, 0.0, 0.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(np.array(bones["Hips"])[[0, 2]], 0.0, atol=1e-5)
    assert bones["Hips"][1] == pytest.approx(world[0, hips, 1], abs=1e-5)


def test_live_vmc_root_motion_sends_the_walking_root(tmp_path: Path) -> None:
    """``footfall live --replay walk.bvh --vmc … --vmc-root-motion``: every pose a strict
    receiver reads has its root on the floor, turned only about Y, and the root walks."""
    import socket
    import subprocess
    import sys

    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    receiver.bind(("127.0.0.1", 0))
    port = receiver.getsockname()[1]
    cmd = [sys.executable, "-m", "footfall.cli", "live", "--replay",
           str(DATA / "bvh" / "games105_walk60.bvh"), "--to", str(DATA / "avatars" /
                                                               "CesiumMan.glb"),
           "--vmc", f"127.0.0.1:{port}", "--vmc-root-motion", "--no-view", "--no-control",
           "--settings-dir", str(tmp_path / "s"), "--duration", "1.5"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        receiver.settimeout(0.5)
        datagrams = []
        try:
            while len(datagrams) < 100_000:
                datagrams.append(receiver.recv(65536))
        except TimeoutError:
            pass
    finally:
        receiver.close()
    roots = []
    for datagram in datagrams:
        for address, tags, args in _strict_bundle(datagram):
            assert tags == STRICT_TAGS[address], (address, tags)
            if address == "/VMC/Ext/Root/Pos":
                roots.append(args[1:])
    assert len(roots) >= 30
    rows = np.array(roots)
    np.testing.assert_allclose(rows[:, 1], 0.0)  # on the floor
    np.testing.assert_allclose(rows[:, [3, 5]], 0.0, atol=1e-6)  # turned about Y only
    assert np.ptp(rows[:, [0, 2]], axis=0).max() > 0.3  # metres walked in 1.5 s
