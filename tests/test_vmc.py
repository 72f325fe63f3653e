"""VMC out: python-osc decodes every datagram, bundles stay under the UDP limit, the Unity
conversion is a mirror through the XY plane, addresses parse with clear errors."""

from __future__ import annotations

import math
import socket
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pythonosc.osc_packet import OscPacket

from footfall import quat
from footfall.errors import SettingsError
from footfall.gltf import load_avatar
from footfall.humanoid import HUMAN_BONES
from footfall.live.vmc import (
    MAX_CLOCK_STEP,
    MAX_DATAGRAM,
    VmcPose,
    VmcSender,
    from_unity,
    osc_message,
    parse_address,
    parse_route,
    to_unity,
)
from footfall.retarget import Retargeter
from footfall.skeleton import Skeleton

AVATARS = sorted((Path(__file__).parent / "data" / "avatars").glob("*.glb"))


def _messages(datagrams: list[bytes]) -> list:
    out = []
    for data in datagrams:
        out.extend(t.message for t in OscPacket(data).messages)
    return out


def _full_skeleton() -> tuple[Skeleton, dict[str, str]]:
    """A chain with one joint per canonical bone (all 55): the largest pose VMC sends."""
    names = list(HUMAN_BONES)
    parents = [-1] + list(range(len(names) - 1))
    offsets = np.tile([0.0, 0.1, 0.0], (len(names), 1))
    return Skeleton(names, parents, offsets), {n: n for n in names}


def test_every_bone_decodes_with_python_osc_under_the_size_limit() -> None:
    skeleton, mapping = _full_skeleton()
    pose = VmcPose(skeleton, mapping)
    rng = np.random.default_rng(3)
    rot = quat.normalize(rng.normal(size=(skeleton.joint_count, 4)))
    pos = rng.normal(size=(skeleton.joint_count, 3))
    datagrams = pose.datagrams(rot, pos, 1.25)
    assert max(len(d) for d in datagrams) <= MAX_DATAGRAM
    messages = _messages(datagrams)
    addresses = [m.address for m in messages]
    assert addresses[:3] == ["/VMC/Ext/OK", "/VMC/Ext/T", "/VMC/Ext/Root/Pos"]
    assert messages[0].params == [1]
    assert messages[1].params[0] == 0.0  # /VMC/Ext/T is relative: the first pose is at 0
    assert messages[2].params[0] == "root"
    bones = {m.params[0]: m.params[1:] for m in messages if m.address == "/VMC/Ext/Bone/Pos"}
    assert set(bones) == set(HUMAN_BONES)
    for j, name in enumerate(skeleton.names):
        r, p = from_unity(np.array(bones[name]))
        assert abs(quat.dot(r, rot[j])) > 1 - 1e-6
        np.testing.assert_allclose(p, pos[j], atol=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1, 1), min_size=7, max_size=7))
def test_unity_conversion_is_a_mirror(values: list[float]) -> None:
    q = np.array(values[:4])
    if np.linalg.norm(q) < 1e-3:
        return
    q = q / np.linalg.norm(q)
    p = np.array(values[4:])
    v = np.array([0.3, -0.2, 0.9])
    row = to_unity(q, p)
    back_q, back_p = from_unity(row)
    np.testing.assert_allclose(back_q, q, atol=1e-12)
    np.testing.assert_allclose(back_p, p, atol=1e-12)
    # Rotating a mirrored vector with the converted quaternion = mirroring the rotated vector.
    mirror = np.array([1.0, 1.0, -1.0])
    unity_q = np.array([row[6], row[3], row[4], row[5]])  # as wxyz for footfall.quat
    np.testing.assert_allclose(quat.rotate(unity_q, v * mirror), quat.rotate(q, v) * mirror,
                               atol=1e-9)


@pytest.mark.parametrize("path", AVATARS, ids=lambda p: p.stem)
def test_real_avatars_send_their_humanoid_bones(path: Path) -> None:
    avatar = load_avatar(path)
    r = Retargeter(avatar.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations)
    pose = VmcPose(avatar.skeleton, r.target_map)
    messages = _messages(pose.datagrams(avatar.rest_rotations, avatar.skeleton.offsets, 0.0))
    sent = [m.params[0] for m in messages if m.address == "/VMC/Ext/Bone/Pos"]
    assert sorted(sent) == sorted(r.target_map)
    assert "Hips" in sent and "LeftFoot" in sent
    # Rest-pose local positions are sent (never identity: receivers apply them literally).
    rows = {m.params[0]: np.array(m.params[1:4]) for m in messages
            if m.address == "/VMC/Ext/Bone/Pos"}
    foot = avatar.skeleton.index(r.target_map["LeftFoot"])
    np.testing.assert_allclose(rows["LeftFoot"], avatar.skeleton.offsets[foot] * [1, 1, -1],
                               atol=1e-6)


def test_osc_message_types() -> None:
    (message,) = [t.message for t in OscPacket(osc_message("/a/b", 3, 2.5, "x")).messages]
    assert message.address == "/a/b" and message.params == [3, 2.5, "x"]


def test_addresses_and_routes() -> None:
    assert parse_address("127.0.0.1:39539") == ("127.0.0.1", 39539)
    assert parse_address("localhost") == ("localhost", 39539)
    assert parse_route("robot=10.0.0.2:39540") == ("robot", ("10.0.0.2", 39540))
    assert parse_route("10.0.0.2:1") == (None, ("10.0.0.2", 1))
    for bad in ("127.0.0.1:x", "127.0.0.1:0", ":39539", "127.0.0.1:70000"):
        with pytest.raises(SettingsError, match="--vmc"):
            parse_address(bad)
    with pytest.raises(SettingsError, match="empty avatar"):
        parse_route("=127.0.0.1:5")


def test_an_avatar_without_humanoid_bones_is_a_clear_error() -> None:
    skeleton = Skeleton(["a", "b"], [-1, 0], np.zeros((2, 3)))
    with pytest.raises(SettingsError, match="no humanoid bone"):
        VmcPose(skeleton, {})


# ---------------------------------------------------------------------------- a strict receiver
# Unity's HumanBodyBones enum, in its order (LastBone left out), written out here rather than
# taken from footfall: the names a receiver looks up.
UNITY_HUMAN_BODY_BONES = (
    "Hips LeftUpperLeg RightUpperLeg LeftLowerLeg RightLowerLeg LeftFoot RightFoot Spine Chest "
    "Neck Head LeftShoulder RightShoulder LeftUpperArm RightUpperArm LeftLowerArm RightLowerArm "
    "LeftHand RightHand LeftToes RightToes LeftEye RightEye Jaw LeftThumbProximal "
    "LeftThumbIntermediate LeftThumbDistal LeftIndexProximal LeftIndexIntermediate "
    "LeftIndexDistal LeftMiddleProximal LeftMiddleIntermediate LeftMiddleDistal LeftRingProximal "
    "LeftRingIntermediate LeftRingDistal LeftLittleProximal LeftLittleIntermediate "
    "LeftLittleDistal RightThumbProximal RightThumbIntermediate RightThumbDistal "
    "RightIndexProximal RightIndexIntermediate RightIndexDistal RightMiddleProximal "
    "RightMiddleIntermediate RightMiddleDistal RightRingProximal RightRingIntermediate "
    "RightRingDistal RightLittleProximal RightLittleIntermediate RightLittleDistal UpperChest"
).split()
#: What a strict receiver takes in one UDP datagram (Ethernet's MTU).
STRICT_DATAGRAM = 1500
#: The type tags a strict receiver accepts per address, exactly.
STRICT_TAGS = {"/VMC/Ext/OK": ",i", "/VMC/Ext/T": ",f", "/VMC/Ext/Root/Pos": ",sfffffff",
               "/VMC/Ext/Bone/Pos": ",sfffffff"}


def _strict_string(data: bytes, at: int) -> tuple[str, int]:
    """An OSC string at ``at``: ASCII, NUL-terminated, padded with NULs to a multiple of 4."""
    end = data.index(b"\0", at)
    stop = (end + 4) & ~3
    assert stop <= len(data) and data[end:stop] == bytes(stop - end), "bad string padding"
    return data[at:end].decode("ascii"), stop


def _strict_message(data: bytes) -> tuple[str, str, list]:
    """``(address, type tags, arguments)`` of one OSC message, every byte accounted for."""
    address, at = _strict_string(data, 0)
    tags, at = _strict_string(data, at)
    assert address.startswith("/") and tags.startswith(","), (address, tags)
    args: list = []
    for tag in tags[1:]:
        if tag == "f":
            args.append(struct.unpack_from(">f", data, at)[0])
            at += 4
        elif tag == "i":
            args.append(struct.unpack_from(">i", data, at)[0])
            at += 4
        elif tag == "s":
            text, at = _strict_string(data, at)
            args.append(text)
        else:
            raise AssertionError(f"type tag {tag!r} in {address}")
    assert at == len(data), f"{address}: {len(data) - at} bytes after the arguments"
    return address, tags, args


def _strict_bundle(datagram: bytes) -> list[tuple[str, str, list]]:
    """The messages of one datagram as a strict receiver reads it: one bundle of messages, time
    tag "immediately", element sizes that tile the datagram, at most 1,500 bytes."""
    assert len(datagram) <= STRICT_DATAGRAM, f"{len(datagram)} bytes"
    assert datagram[:8] == b"#bundle\0" and datagram[8:16] == (1).to_bytes(8, "big")
    at, out = 16, []
    while at < len(datagram):
        (size,) = struct.unpack_from(">i", datagram, at)
        at += 4
        assert size > 0 and size % 4 == 0 and at + size <= len(datagram), size
        out.append(_strict_message(datagram[at:at + size]))
        at += size
    return out


def _received(sender_datagrams: list[list[bytes]]) -> list[list[bytes]]:
    """Each pose's datagrams sent by a :class:`VmcSender` over 127.0.0.1 and read back by a
    receiver socket, pose by pose (bounded waits)."""
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(2.0)
    sender = VmcSender(receiver.getsockname())
    out = []
    try:
        for datagrams in sender_datagrams:
            sender.send(datagrams)
            out.append([receiver.recv(65536) for _ in datagrams])
    finally:
        sender.close()
        receiver.close()
    assert sender.errors == 0
    return out


def _strict_pose(datagrams: list[bytes]) -> tuple[float, dict[str, list[float]]]:
    """``(/VMC/Ext/T, {bone: 7 floats})`` of one pose, every message checked."""
    clock = None
    bones: dict[str, list[float]] = {}
    for datagram in datagrams:
        for address, tags, args in _strict_bundle(datagram):
            assert tags == STRICT_TAGS[address], (address, tags)
            floats = [a for a in args if isinstance(a, float)]
            assert all(math.isfinite(v) for v in floats), (address, args)
            if address == "/VMC/Ext/T":
                (clock,) = args
            elif address == "/VMC/Ext/Bone/Pos":
                assert args[0] in UNITY_HUMAN_BODY_BONES and args[0] not in bones, args[0]
                bones[args[0]] = args[1:]
            elif address == "/VMC/Ext/Root/Pos":
                assert args[0] == "root"
            else:
                assert args == [1]
    assert clock is not None
    return clock, bones


def test_a_strict_receiver_reads_every_byte_of_a_full_pose() -> None:
    """55 bones: exact type tags, bundles ≤ 1,500 bytes, Unity names, each bone once."""
    skeleton, mapping = _full_skeleton()
    pose = VmcPose(skeleton, mapping)
    rng = np.random.default_rng(8)
    rot = quat.normalize(rng.normal(size=(skeleton.joint_count, 4)))
    pos = rng.normal(size=(skeleton.joint_count, 3))
    (datagrams,) = _received([pose.datagrams(rot, pos, 0.5)])
    clock, bones = _strict_pose(datagrams)
    assert clock == 0.0
    assert sorted(bones) == sorted(UNITY_HUMAN_BODY_BONES)
    for j, name in enumerate(skeleton.names):
        r, p = from_unity(np.array(bones[name]))
        assert abs(quat.dot(r, rot[j])) > 1 - 1e-6
        np.testing.assert_allclose(p, pos[j], atol=1e-6)


@pytest.mark.parametrize("path", AVATARS, ids=lambda p: p.stem)
def test_a_strict_receiver_reads_real_avatars(path: Path) -> None:
    avatar = load_avatar(path)
    r = Retargeter(avatar.skeleton, avatar.skeleton, target_rest=avatar.rest_rotations)
    pose = VmcPose(avatar.skeleton, r.target_map)
    (datagrams,) = _received([pose.datagrams(avatar.rest_rotations, avatar.skeleton.offsets, 3.0)])
    _, bones = _strict_pose(datagrams)
    assert sorted(bones) == sorted(r.target_map)


def test_vmc_time_is_relative_rising_and_finite() -> None:
    """Motive's time stamps count from its start: after 11 days (1e6 s) a float32 of them moves
    in 1/16 s steps, so 120 Hz poses repeated one /VMC/Ext/T. The clock sent is the sender's
    own: 0 at the first pose, each stream step added, held (never back, never inf) through a
    restarted server, a NaN, an inf or 1e300."""
    skeleton, mapping = _full_skeleton()
    pose = VmcPose(skeleton, mapping)
    rot = quat.identity((skeleton.joint_count,))
    stamps = [1e6 + k / 120 for k in range(6)] + [3.0, 3.5, float("nan"), float("inf"), 1e300,
                                                  4.0, 4.25]
    poses = _received([pose.datagrams(rot, skeleton.offsets, s) for s in stamps])
    clocks = np.array([_strict_pose(datagrams)[0] for datagrams in poses])
    np.testing.assert_allclose(clocks[:6], np.arange(6) / 120, atol=1e-6)
    assert np.all(np.diff(clocks) >= 0) and np.all(np.diff(clocks[:6]) > 0)
    # 3.0 (a restart) holds, 3.5 adds 0.5, NaN and inf hold, 1e300 adds at most MAX_CLOCK_STEP,
    # 4.0 (back from 1e300) holds, 4.25 adds 0.25.
    steps = np.diff(clocks[5:])
    np.testing.assert_allclose(steps, [0, 0.5, 0, 0, MAX_CLOCK_STEP, 0, 0.25], atol=1e-5)
