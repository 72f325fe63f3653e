"""VMC out: python-osc decodes every datagram, bundles stay under the UDP limit, the Unity
conversion is a mirror through the XY plane, addresses parse with clear errors."""

from __future__ import annotations

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
    MAX_DATAGRAM,
    VmcPose,
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
    assert messages[1].params[0] == pytest.approx(1.25)
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
