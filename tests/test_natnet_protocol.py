"""NatNet packets: the real recorded ones decode to what the notes list, the independent PyPI
``natnet`` decoder agrees on the same bytes and on what footfall encodes, bad packets are clear
errors of a named kind."""

from __future__ import annotations

import time
from pathlib import Path

import natnet
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from natnet.packet_buffer import PacketBuffer

from footfall import bvh
from footfall.live import natnet_protocol as proto
from footfall.live.motive import MotiveSkeleton
from footfall.live.natnet_server import NatNetServer

DATA = Path(__file__).parent / "data" / "natnet"
CLIP = Path(__file__).parent / "data" / "bvh" / "games105_walk60.bvh"


def _payload(name: str) -> tuple[int, memoryview]:
    return proto.split_packet((DATA / name).read_bytes())


def _xyzw(q: np.ndarray) -> np.ndarray:
    return np.asarray(q)[..., [1, 2, 3, 0]]


def test_recorded_v2_frame_has_the_21_bone_skeleton() -> None:
    message, payload = _payload("mocapframe_packet_v2.bin")
    assert message == proto.NAT_FRAMEOFDATA and len(payload) == 3057
    frame = proto.decode_frame(payload, (2, 10))
    assert frame.frame_number == 109238
    (skeleton,) = frame.skeletons
    assert skeleton.id == 4
    assert sorted(skeleton.bone_ids.tolist()) == list(range(262145, 262166))
    assert frame.labeled_markers == 44
    by_id = dict(zip(skeleton.bone_ids.tolist(), skeleton.positions, strict=True))
    np.testing.assert_allclose(by_id[262145], [0.50, 0.85, 0.43], atol=0.005)  # Hip, world
    np.testing.assert_allclose(by_id[262165], [-0.00, -0.06, 0.13], atol=0.005)  # RToe, local
    assert np.allclose(np.linalg.norm(skeleton.rotations, axis=-1), 1, atol=1e-5)


def test_recorded_model_definitions() -> None:
    _, payload = _payload("modeldef_packet_v2.bin")
    v2 = proto.decode_model_definition(payload, (2, 10))
    assert [(s.name, s.id, len(s.bones)) for s in v2.skeletons] == [("Karlie", 4, 21)]
    assert [b.name for b in v2.rigid_bodies] == ["RigidBody 1"]
    karlie = MotiveSkeleton.from_description(v2.skeletons[0])
    assert karlie.skeleton.offsets[karlie.skeleton.index("LThigh")][0] < 0  # left at −X
    _, payload = _payload("modeldef_packet_skeleton_v3.bin")
    v3 = proto.decode_model_definition(payload, (3, 0))
    (skeleton,) = v3.skeletons
    assert (skeleton.name, skeleton.id) == ("Skeleton 002", 3)
    assert len(v3.marker_sets["Skeleton 002"]) == 37
    motive = MotiveSkeleton.from_description(skeleton)
    offsets = {n: motive.skeleton.offsets[i] for i, n in enumerate(motive.skeleton.names)}
    np.testing.assert_allclose(offsets["LThigh"], [0.088, 0, 0], atol=5e-4)
    np.testing.assert_allclose(offsets["LShin"], [0, -0.361, 0], atol=5e-4)
    np.testing.assert_allclose(offsets["LFoot"], [0, -0.387, 0], atol=5e-4)
    np.testing.assert_allclose(offsets["LToe"], [0, -0.057, 0.131], atol=5e-4)
    assert motive.mapping["LeftUpperLeg"] == "LThigh" and motive.mapping["Hips"] == "Hip"
    assert len(motive.mapping) == 21


def test_recorded_v2_frame_is_local_bone_poses() -> None:
    _, model = _payload("modeldef_packet_v2.bin")
    motive = MotiveSkeleton.from_description(
        proto.decode_model_definition(model, (2, 10)).skeletons[0])
    _, payload = _payload("mocapframe_packet_v2.bin")
    pose = proto.decode_frame(payload, (2, 10)).skeletons[0]
    rotations, translations, mode = motive.pose(pose)
    assert mode == "local"
    hips = motive.skeleton.index("Hip")
    np.testing.assert_allclose(translations[hips], [0.50, 0.85, 0.43], atol=0.005)


def test_frames_without_skeletons_and_server_info() -> None:
    for name in ("mocapframe_packet_v3.bin", "mocapframe_packet_occluded_v3.bin"):
        _, payload = _payload(name)
        frame = proto.decode_frame(payload, (3, 0))
        assert frame.skeletons == ()
        assert len(frame.rigid_bodies.bone_ids) >= 1
        theirs = _natnet_frame(payload, (3, 0))
        assert frame.frame_number == theirs.prefix.frame_number
        assert frame.rigid_bodies.tracked.tolist() == [b.tracking_valid
                                                       for b in theirs.rigid_bodies]
        assert frame.labeled_markers == len(theirs.labeled_markers)
    info = proto.decode_server_info(_payload("serverinfo_packet_v3.bin")[1])
    assert info.application == "Motive" and info.version == (3, 0)
    assert info.multicast_address == "239.255.42.99" and info.data_port == 1511
    assert proto.decode_server_info(_payload("serverinfo_packet_v2.bin")[1]).version == (2, 10)
    message, _ = _payload("connect_packet_v3.bin")
    assert message == proto.NAT_CONNECT


def _natnet_frame(payload: bytes | memoryview, version: tuple[int, int]) -> natnet.DataFrame:
    return natnet.DataFrame.read_from_buffer(PacketBuffer(bytes(payload)), natnet.Version(*version))


def test_independent_decoder_agrees_on_recorded_bytes() -> None:
    _, payload = _payload("mocapframe_packet_v2.bin")
    ours = proto.decode_frame(payload, (2, 10)).skeletons[0]
    theirs = _natnet_frame(payload, (2, 10)).skeletons[0]
    assert theirs.id_num == ours.id
    assert [b.id_num for b in theirs.rigid_bodies] == ours.bone_ids.tolist()
    np.testing.assert_allclose([b.pos for b in theirs.rigid_bodies], ours.positions, atol=1e-7)
    np.testing.assert_allclose([b.rot for b in theirs.rigid_bodies], _xyzw(ours.rotations),
                               atol=1e-7)
    _, payload = _payload("modeldef_packet_skeleton_v3.bin")
    ours_d = proto.decode_model_definition(payload, (3, 0)).skeletons[0]
    theirs_d = natnet.DataDescriptions.read_from_buffer(PacketBuffer(bytes(payload)),
                                                        natnet.Version(3, 0)).skeletons[0]
    assert [b.name for b in theirs_d.rigid_body_descriptions] == [b.name for b in ours_d.bones]
    assert [b.parent_id for b in theirs_d.rigid_body_descriptions] == [
        b.parent_id for b in ours_d.bones]
    np.testing.assert_allclose([b.pos for b in theirs_d.rigid_body_descriptions],
                               [b.offset for b in ours_d.bones], atol=1e-7)


@pytest.mark.parametrize("version", ["3.1", "4.1", "4.2"])
def test_independent_decoder_reads_what_natnet_serve_sends(version: str) -> None:
    clip = bvh.load(CLIP)
    server = NatNetServer(clip, command_port=0, version=version)
    v = server.version
    _, model = proto.split_packet(server.model_definition())
    theirs_d = natnet.DataDescriptions.read_from_buffer(PacketBuffer(bytes(model)),
                                                        natnet.Version(*v)).skeletons[0]
    assert len(theirs_d.rigid_body_descriptions) == clip.skeleton.joint_count
    np.testing.assert_allclose([b.pos for b in theirs_d.rigid_body_descriptions],
                               clip.skeleton.offsets, atol=1e-6)
    _, payload = proto.split_packet(server.frame(17))
    theirs = _natnet_frame(payload, v)
    (skeleton,) = theirs.skeletons
    assert theirs.prefix.frame_number == 17
    np.testing.assert_allclose([b.rot for b in skeleton.rigid_bodies],
                               _xyzw(clip.rotations[17]), atol=1e-6)
    np.testing.assert_allclose([b.pos for b in skeleton.rigid_bodies], clip.positions[17],
                               atol=1e-6)
    server.socket.close()


def test_independent_client_over_loopback() -> None:
    clip = bvh.load(CLIP)
    server = NatNetServer(clip, command_port=0, version="4.1", rate=60)
    server.start()
    frames: list = []
    client = natnet.NatNetClient(server_ip_address="127.0.0.1", local_ip_address="127.0.0.1",
                                 command_port=server.address[1], use_multicast=False)
    client.on_data_frame_received_event.handlers.append(frames.append)
    try:
        client.connect(timeout=3.0)
        client.run_async()
        deadline = time.monotonic() + 3.0
        while len(frames) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        client.shutdown()
        server.stop()
    assert client.server_info is None  # shut down; it had connected to receive frames
    assert len(frames) >= 5
    frame = frames[-1]
    index = frame.prefix.frame_number % clip.frame_count
    np.testing.assert_allclose([b.pos for b in frame.skeletons[0].rigid_bodies],
                               clip.positions[index], atol=1e-6)


def test_round_trip_every_version() -> None:
    clip = bvh.load(CLIP)
    for version in ("3.0", "3.1", "4.0", "4.1", "4.2"):
        server = NatNetServer(clip, command_port=0, version=version)
        v = server.version
        model = proto.decode_model_definition(proto.split_packet(server.model_definition())[1], v)
        motive = MotiveSkeleton.from_description(model.skeletons[0])
        frame = proto.decode_frame(proto.split_packet(server.frame(5))[1], v)
        rot, pos, mode = motive.pose(frame.skeletons[0])
        assert mode == "local"
        assert np.all(np.abs(np.sum(rot * clip.rotations[5], -1)) > 1 - 1e-6)
        np.testing.assert_allclose(pos, clip.positions[5], atol=1e-6)
        info = proto.decode_server_info(proto.split_packet(server.server_info())[1])
        assert info.version == v
        server.socket.close()


# ---------------------------------------------------------------------------- malformed


def test_bad_packets_name_their_kind() -> None:
    good = (DATA / "mocapframe_packet_v2.bin").read_bytes()
    cases = {
        "truncated": b"\x07\x00",
        "size": good[:-10],
        "unknown-message": proto.packet(77, b"abc"),
    }
    for kind, data in cases.items():
        with pytest.raises(proto.PacketError) as info:
            proto.split_packet(data)
        assert info.value.kind == kind
    _, payload = proto.split_packet(good)
    with pytest.raises(proto.PacketError) as info:
        proto.decode_frame(payload[:1000], (2, 10))
    assert info.value.kind in ("truncated", "malformed") and "byte" in str(info.value)
    with pytest.raises(proto.PacketError) as info:
        proto.decode_frame(payload, (5, 0))
    assert info.value.kind == "version"
    with pytest.raises(proto.PacketError):
        proto.split_packet(b"\x07\x00" + (70000 % 65536).to_bytes(2, "little") + bytes(70000))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([(2, 10), (3, 0), (4, 1), (4, 2)]))
def test_random_payloads_never_crash_the_decoders(data: bytes, version: tuple[int, int]) -> None:
    for decode in (proto.decode_frame, proto.decode_model_definition):
        try:
            decode(data, version)
        except proto.PacketError as error:
            assert error.kind in ("truncated", "malformed", "size")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 3056), st.integers(0, 255))
def test_mutated_recorded_frame_decodes_or_fails_cleanly(at: int, value: int) -> None:
    data = bytearray((DATA / "mocapframe_packet_v2.bin").read_bytes()[4:])
    data[at] = value
    try:
        proto.decode_frame(bytes(data), (2, 10))
    except proto.PacketError as error:
        assert error.kind in ("truncated", "malformed")


# ---------------------------------------------------------------------------- liberal acceptance


def test_bytes_after_the_declared_size_are_ignored() -> None:
    """OptiTrack's sample clients send REQUEST_MODELDEF and KEEPALIVE as a header of size 0 and
    their string's NUL: Motive ignores bytes after the declared size, and so does footfall —
    for requests and for everything a server sends."""
    for message in (proto.NAT_REQUEST_MODELDEF, proto.NAT_KEEPALIVE):
        got, payload = proto.split_packet(message.to_bytes(2, "little") + b"\0\0" + b"\0")
        assert (got, bytes(payload)) == (message, b"")
    tail = b"\0junk after the declared size"
    _, payload = proto.split_packet((DATA / "mocapframe_packet_v2.bin").read_bytes() + tail)
    assert proto.decode_frame(payload, (2, 10)).frame_number == 109238
    _, payload = proto.split_packet((DATA / "modeldef_packet_v2.bin").read_bytes() + tail)
    model = proto.decode_model_definition(payload, (2, 10))
    assert [s.name for s in model.skeletons] == ["Karlie"]
    _, payload = proto.split_packet((DATA / "serverinfo_packet_v3.bin").read_bytes() + b"\0")
    assert proto.decode_server_info(payload).multicast_address == "239.255.42.99"
    # Fewer bytes than the header declares is still an error of its kind.
    with pytest.raises(proto.PacketError) as info:
        proto.split_packet(proto.packet(proto.NAT_REQUEST, b"Bitstream,4.1\0")[:-3])
    assert info.value.kind == "size"
