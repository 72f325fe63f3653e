"""The front door for motion files (footfall.motion_io): formats found by content, every take,
round trips through BVH at global joint positions, MDM's results.npy read safely."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from footfall import quat
from footfall.cli import main
from footfall.errors import FootfallError, MotionFileError
from footfall.gltf import save_vrm_animation
from footfall.gltf.vrm import VRM1_TO_CANONICAL
from footfall.joints import LAYOUTS
from footfall.joints.from_clip import positions_from_clip
from footfall.motion_io import detect, load_motion, readers, save_motion
from motion_files import CESIUM, ROBOT, WALK, mdm_results, real_joints, vrm_clip


def _by_name(clip) -> dict[str, np.ndarray]:  # noqa: ANN001
    """Global joint positions ``(F, 3)`` by joint name."""
    positions = clip.global_positions()
    return {name: positions[:, j] for j, name in enumerate(clip.skeleton.names)}


def _assert_same_positions(a, b, tolerance: float) -> float:  # noqa: ANN001
    first, second = _by_name(a), _by_name(b)
    assert set(first) == set(second)
    worst = max(float(np.abs(first[n] - second[n]).max()) for n in first)
    assert worst < tolerance, worst
    return worst


def test_glb_to_bvh_to_glb_keeps_global_joint_positions(tmp_path: Path) -> None:
    glb = load_motion(CESIUM)
    assert glb.format == "glb" and glb.clip.frame_count == 49
    save_motion(glb.clip, tmp_path / "cesium.bvh", glb)
    from_bvh = load_motion(tmp_path / "cesium.bvh")
    assert from_bvh.unit == "m"  # a file footfall wrote reads back at its own size
    _assert_same_positions(glb.clip, from_bvh.clip, 1e-5)
    save_motion(from_bvh.clip, tmp_path / "again.glb", from_bvh)  # a skeleton-only GLB
    again = load_motion(tmp_path / "again.glb")
    assert again.format == "glb"
    _assert_same_positions(glb.clip, again.clip, 1e-5)


def _reference_node_positions(path: Path) -> dict[str, np.ndarray]:
    """World positions ``(K, 3)`` of a VRM Animation's human bones at each key time, computed
    here from the file's own nodes, accessors and bytes (no footfall code): the independent
    reading the round trip is checked against."""
    gltf = pygltflib.GLTF2().load_binary(str(path))
    blob = gltf.binary_blob()

    def values(index: int) -> np.ndarray:
        accessor = gltf.accessors[index]
        view = gltf.bufferViews[accessor.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor.type]
        start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
        return np.frombuffer(blob, np.float32, accessor.count * width, start).reshape(
            accessor.count, width).astype(np.float64)

    animation = gltf.animations[0]
    keys: dict[tuple[int, str], np.ndarray] = {}
    for channel in animation.channels:
        sampler = animation.samplers[channel.sampler]
        keys[channel.target.node, channel.target.path] = values(sampler.output)
    count = len(next(iter(keys.values())))
    parent = {c: p for p, node in enumerate(gltf.nodes) for c in node.children or []}

    def world(node: int, k: int) -> np.ndarray:
        matrix = np.eye(4)
        if (node, "rotation") in keys:
            x, y, z, w = keys[node, "rotation"][k]
        else:
            x, y, z, w = gltf.nodes[node].rotation or (0, 0, 0, 1)
        matrix[:3, :3] = quat.to_matrix(quat.normalize(np.array([w, x, y, z])))
        matrix[:3, 3] = (keys[node, "translation"][k] if (node, "translation") in keys
                         else gltf.nodes[node].translation or (0, 0, 0))
        return matrix if node not in parent else world(parent[node], k) @ matrix

    bones = gltf.extensions["VRMC_vrm_animation"]["humanoid"]["humanBones"]
    return {VRM1_TO_CANONICAL[name]: np.array([world(entry["node"], k)[:3, 3]
                                               for k in range(count)])
            for name, entry in bones.items()}


def test_vrma_to_bvh_keeps_global_joint_positions(tmp_path: Path) -> None:
    avatar, clip = vrm_clip(frames=30)
    save_vrm_animation(avatar, clip, tmp_path / "robot.vrma")
    reference = _reference_node_positions(tmp_path / "robot.vrma")
    vrma = load_motion(tmp_path / "robot.vrma")
    assert vrma.format == "vrma" and vrma.clip.frame_count == 30
    read = _by_name(vrma.clip)
    assert set(read) == set(reference)
    assert max(float(np.abs(read[n] - reference[n]).max()) for n in read) < 1e-5
    save_motion(vrma.clip, tmp_path / "robot.bvh", vrma)
    from_bvh = load_motion(tmp_path / "robot.bvh")
    back = _by_name(from_bvh.clip)
    assert max(float(np.abs(back[n] - reference[n]).max()) for n in back) < 1e-5
    # the hips really moved and the bones really turned: the check could fail
    assert np.ptp(reference["Hips"][:, 2]) > 0.5
    assert np.ptp(reference["LeftHand"][:, 1]) > 0.05


def test_content_wins_over_the_suffix(tmp_path: Path) -> None:
    disguised = tmp_path / "cesium.bvh"
    disguised.write_bytes(CESIUM.read_bytes())
    assert detect(disguised) == "glb"
    assert load_motion(disguised).clip.frame_count == 49
    walk = tmp_path / "walk.dat"
    walk.write_bytes(WALK.read_bytes())
    assert detect(walk) == "bvh"
    # a BVH broken in its first word: its own reader names the line, as before
    broken = tmp_path / "broken.bvh"
    broken.write_bytes(b"HIERARCHX" + WALK.read_bytes()[9:])
    with pytest.raises(FootfallError, match=r"broken.bvh \(BVH\).*line 1"):
        load_motion(broken)
    unknown = tmp_path / "notes.txt"
    unknown.write_text("hello")
    with pytest.raises(MotionFileError, match="notes.txt: not a motion file"):
        load_motion(unknown)


def test_gltf_takes_by_name_and_index() -> None:
    walking = load_motion(ROBOT, take="Walking")
    assert walking.takes[walking.take] == "Walking" and len(walking.takes) == 14
    assert load_motion(ROBOT, take=str(walking.take)).clip.frame_count == (
        walking.clip.frame_count)
    dance = load_motion(ROBOT)
    assert dance.take == 0 and dance.clip.frame_count != walking.clip.frame_count
    with pytest.raises(MotionFileError, match=r"no take 'Swim'; takes: 0 'Dance'"):
        load_motion(ROBOT, take="Swim")


def test_mdm_results_are_read_per_sample(tmp_path: Path) -> None:
    motion = mdm_results(tmp_path / "results.npy", samples=3, frames=40)
    for sample in (0, 2):
        loaded = load_motion(tmp_path / "results.npy", sample=sample)
        assert loaded.format == "mdm" and loaded.take == sample
        assert loaded.takes[2] == "a person walks, take 2"
        frames = 40 - 5 * sample  # the sample's own length, not the padding
        assert loaded.clip.frame_count == frames and loaded.clip.fps == 20.0
        given = np.moveaxis(motion[sample], -1, 0)[:frames]
        solved = positions_from_clip(loaded.clip, LAYOUTS["humanml3d"])
        assert np.abs(solved - given).max() < 0.02  # the solved skeleton follows its sample
    other = positions_from_clip(load_motion(tmp_path / "results.npy", sample=1).clip,
                                LAYOUTS["humanml3d"])
    assert np.abs(other[:30] - np.moveaxis(motion[0], -1, 0)[:30]).max() > 0.1
    with pytest.raises(MotionFileError, match="no take '3'"):
        load_motion(tmp_path / "results.npy", sample=3)


class _RunsShell:
    """Unpickling this would run a shell command (the harm a pickled results.npy can do)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):  # noqa: ANN204 - pickle protocol
        return (os.system, (self.command,))


@pytest.mark.parametrize("how", ["np.save", "pickle.dump"])
def test_malicious_mdm_pickle_is_refused_without_running(tmp_path: Path, capsys,
                                                         how: str) -> None:
    marker = tmp_path / "ran"
    payload = {"motion": np.zeros((1, 22, 3, 4), np.float32), "text": ["x"],
               "evil": _RunsShell(f"touch {marker}")}
    path = tmp_path / "results.npy"
    if how == "np.save":
        np.save(path, payload, allow_pickle=True)
    else:
        path.write_bytes(pickle.dumps(payload))
    out = tmp_path / "out.bvh"
    assert main(["import", str(path), "-o", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.strip() and "compiling footfall's numeric kernels" not in line]
    assert len(lines) == 1 and "results.npy" in lines[0] and "refused posix.system" in lines[0]
    assert not marker.exists() and not out.exists()


def test_fbx_is_dispatched_by_its_magic(tmp_path: Path, monkeypatch, capsys) -> None:
    binary = tmp_path / "take.fbx"
    binary.write_bytes(b"Kaydara FBX Binary  \x00\x1a\x00" + bytes(40))
    ascii_fbx = tmp_path / "ascii.dat"
    ascii_fbx.write_text("; FBX 7.4.0 project file\n")
    assert detect(binary) == "fbx" and detect(ascii_fbx) == "fbx"
    monkeypatch.setattr(readers, "FBX_READER", ("footfall._no_such_fbx_module", "load_fbx"))
    out = tmp_path / "out.bvh"
    assert main(["import", str(binary), "-o", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"footfall import: error: {binary}: FBX: reader not available")
    assert not out.exists()
    # With a reader present the front door hands it the file and the take.
    seen = []
    walk = load_motion(WALK).clip

    class Module:
        @staticmethod
        def load_fbx(path: Path, take: object = None) -> object:
            seen.append((path, take))
            return walk

    monkeypatch.setitem(__import__("sys").modules, "footfall._fake_fbx", Module)
    monkeypatch.setattr(readers, "FBX_READER", ("footfall._fake_fbx", "load_fbx"))
    loaded = load_motion(ascii_fbx, take="Take 001")
    assert loaded.format == "fbx" and loaded.clip is walk
    assert seen == [(ascii_fbx, "Take 001")]


def test_joint_files_read_through_the_front_door(tmp_path: Path) -> None:
    joints = real_joints(40)
    np.save(tmp_path / "walk.npy", joints)
    loaded = load_motion(tmp_path / "walk.npy")
    assert loaded.format == "npy" and loaded.layout is not None
    assert loaded.layout.name == "humanml3d" and loaded.takes == ["walk"]
    assert np.abs(positions_from_clip(loaded.clip, loaded.layout) - joints).max() < 0.02
    save_motion(loaded.clip, tmp_path / "back.npy", loaded)
    assert np.abs(np.load(tmp_path / "back.npy") - joints).max() < 0.02
    # turned a quarter about Y, the solve follows (the check can fail)
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)
    np.save(tmp_path / "turned.npy", quat.rotate(turn, joints))
    turned = load_motion(tmp_path / "turned.npy")
    assert np.abs(positions_from_clip(turned.clip, turned.layout) - joints).max() > 0.1


def test_written_bvh_files_carry_end_sites(tmp_path: Path) -> None:
    from footfall.skeleton import forward_kinematics
    from footfall.skinning import rest_mesh

    # A joint import: every leaf gets an End Site; a toe's tip lies ahead at the toe's height.
    np.save(tmp_path / "walk.npy", real_joints(40))
    assert main(["import", str(tmp_path / "walk.npy"), "-o", str(tmp_path / "walk.bvh"),
                 "--quiet"]) == 0
    text = (tmp_path / "walk.bvh").read_text()
    skeleton = load_motion(tmp_path / "walk.bvh").clip.skeleton
    leaves = [j for j in range(skeleton.joint_count) if not skeleton.children(j)]
    assert text.count("End Site") == len(leaves) == len(skeleton.end_sites) == 5
    for toe in ("left_foot", "right_foot"):
        site = skeleton.end_sites[skeleton.index(toe)]
        assert abs(site[1]) < 1e-9 and np.linalg.norm(site) > 0.03
    # A skinned avatar's clip: End Sites at the skin's toe tips (sole height, ahead of the toes)
    cesium = load_motion(CESIUM)
    save_motion(cesium.clip, tmp_path / "cesium.bvh", cesium)
    back = load_motion(tmp_path / "cesium.bvh").clip.skeleton
    assert len(back.end_sites) == 2
    avatar = cesium.avatar
    world, at = forward_kinematics(avatar.skeleton.parents, avatar.rest_rotations,
                                   avatar.skeleton.offsets)
    vertices = rest_mesh(avatar)[0]
    for joint, site in back.end_sites.items():
        j = avatar.skeleton.index(back.names[joint])
        tip = at[j] + quat.rotate(world[j], site)
        assert tip[1] < vertices[:, 1].min() + 0.02  # on the sole
        assert tip[2] > at[j, 2] + 0.02  # ahead of the last foot joint


def _vrma_bytes(tmp_path: Path) -> bytes:
    avatar, clip = vrm_clip(frames=8)
    save_vrm_animation(avatar, clip, tmp_path / "seed.vrma")
    return (tmp_path / "seed.vrma").read_bytes()


def _with_json(data: bytes, change) -> bytes:  # noqa: ANN001
    """A GLB with its JSON chunk changed by ``change(document)``."""
    import json
    import struct

    length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20:20 + length])
    change(document)
    text = json.dumps(document).encode()
    text += b" " * (-len(text) % 4)
    rest = data[20 + length:]
    return (b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + len(rest))
            + struct.pack("<II", len(text), 0x4E4F534A) + text + rest)


def _mdm_bytes(tmp_path: Path) -> bytes:
    mdm_results(tmp_path / "seed.npy", samples=2, frames=20)
    return (tmp_path / "seed.npy").read_bytes()


def _huge_vrma(data: bytes) -> bytes:
    def change(document: dict) -> None:
        document["accessors"][0]["count"] = 10**12

    return _with_json(data, change)


def _huge_mdm(tmp_path: Path) -> bytes:
    """An MDM file whose pickled motion array claims (1, 22, 3, 40,000,000) frames (its shape
    written as BININT1 77, rewritten as BININT 4·10⁷) over the bytes of 77."""
    import struct

    np.save(tmp_path / "huge.npy", {"motion": np.zeros((1, 22, 3, 77), np.float32),
                                     "lengths": np.array([2**62])}, allow_pickle=True)
    data = (tmp_path / "huge.npy").read_bytes()
    shape = b"K\x16K\x03KM"  # 22, 3, 77
    assert data.count(shape) == 1
    return data.replace(shape, b"K\x16K\x03J" + struct.pack("<i", 40_000_000))


@pytest.mark.parametrize("reader", ["vrma", "mdm"])
@pytest.mark.parametrize("damage", ["truncated", "mutated", "wrong magic", "huge count"])
def test_malformed_vrma_and_mdm_files_are_one_line_and_write_nothing(
        tmp_path: Path, capsys, reader: str, damage: str) -> None:
    seed = _vrma_bytes(tmp_path) if reader == "vrma" else _mdm_bytes(tmp_path)
    if damage == "truncated":
        data = seed[: len(seed) // 2]
    elif damage == "mutated":
        rng = np.random.default_rng(3)
        data = bytearray(seed)
        for at in rng.integers(20, len(seed), 40):
            data[at] = int(rng.integers(256))
        data = bytes(data)
    elif damage == "wrong magic":
        data = b"XXXX" + seed[4:]
    else:
        data = _huge_vrma(seed) if reader == "vrma" else _huge_mdm(tmp_path)
        assert data != seed
    path = tmp_path / ("broken.vrma" if reader == "vrma" else "results.npy")
    path.write_bytes(data)
    out = tmp_path / "out.bvh"
    code = main(["import", str(path), "-o", str(out), "--quiet"])
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.strip() and "compiling footfall's numeric kernels" not in line]
    if damage == "mutated" and code == 0:  # bytes in a number may still read: then finite
        assert np.isfinite(load_motion(out).clip.global_positions()).all()
        return
    assert code == 2 and len(lines) == 1, lines
    assert path.name in lines[0] and "Traceback" not in lines[0]
    assert not out.exists()
