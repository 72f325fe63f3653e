"""VRM avatars in and out (issue 27): the two shared VRM 1.0 samples and VRM 0.x files made from
them (``vrm_files.py``: the list form of the bone map, the model facing −Z).

* the bone map is the file's, never guessed (nodes renamed to nonsense keep it);
* every avatar faces +Z, a VRM 0.x one exactly where its VRM 1.0 original stands;
* ``footfall info`` shows the meta; bad files get one line naming the field, exit 2;
* CMU 131_01 retargeted onto each: standing, feet not through the floor, and (issue 24's
  criterion) the planted foot on the floor;
* ``-o out.vrm`` keeps the whole file, plays the retarget (read by footfall and by an evaluator
  of the tests' own, VRM 0.x facing −Z again), ``-o out.vrma`` plays it back to 1e-5.

(three-vrm opening the .vrma: ``test_vrm_three.py``; VMC to a receiver: ``test_vrm_vmc.py``.)
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from footfall import bvh, quat
from footfall.cli import main
from footfall.gltf import (
    Avatar,
    NormalizedHumanoid,
    load_animation,
    load_avatar,
    load_vrm_animation,
)
from footfall.humanoid import auto_map
from footfall.retarget import Retargeter
from footfall.retarget.toes import Toes
from footfall.skeleton import Clip, forward_kinematics
from vrm_files import (
    UNITY_NAMES,
    VRM1_FILES,
    avatar_files,
    bone_nodes,
    read_glb,
    rewrite,
    world_positions_at_key,
)

CLIP = DATA / "bvh" / "cmu_131_01.bvh"
TOLERANCE = 1e-5  # metres; the files hold float32
IDS = [f"{path.stem.removeprefix('vrm1_')}-{version}" for path in VRM1_FILES
       for version in ("1.0", "0.x")]
CANONICAL = UNITY_NAMES  # VRM 1.0 bone name → canonical (Unity HumanBodyBones) name


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The four avatars by id: each VRM 1.0 sample and its VRM 0.x rewrite."""
    return avatar_files(tmp_path_factory.mktemp("vrm0"))


@cache
def _avatar(path: Path) -> Avatar:
    return load_avatar(path)


@cache
def _retarget(path: Path) -> tuple[Clip, Retargeter]:
    source = bvh.load(CLIP)
    avatar = _avatar(path)
    retargeter = Retargeter(source.skeleton, avatar.skeleton,
                            target_mapping=avatar.target_mapping(),
                            target_rest=avatar.rest_rotations)
    retargeter.calibrate_for(source)  # as the command does
    return retargeter.apply(source), retargeter


def _retarget_command(avatar: Path, out: Path) -> Path:
    """``footfall retarget CLIP --to avatar -o out``; returns ``out``."""
    assert main(["retarget", str(CLIP), "--to", str(avatar), "-o", str(out), "--quiet"]) == 0
    return out


def _rest_positions(avatar: Avatar) -> np.ndarray:
    return forward_kinematics(avatar.skeleton.parents, avatar.rest_rotations,
                              avatar.skeleton.offsets)[1]


def _at(avatar: Avatar, positions: np.ndarray, bone: str) -> np.ndarray:
    return positions[..., avatar.skeleton.index(avatar.humanoid[bone]), :]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(), (3,), (2, 4)]),
       st.sampled_from(VRM1_FILES))
def test_normalized_pose_round_trips(seed: int, batch: tuple[int, ...], path: Path) -> None:
    """Any pose → normalized rotations and hips → the same pose (the humanoid joints' world
    rotations and every position), over batches; the rest pose normalizes to the identity."""
    avatar = _avatar(path)
    humanoid = NormalizedHumanoid.of(avatar)
    rng = np.random.default_rng(seed)
    count = avatar.skeleton.joint_count
    rotations = quat.normalize(rng.normal(size=(*batch, count, 4)))
    positions = np.broadcast_to(avatar.skeleton.offsets, (*batch, count, 3)).copy()
    positions[..., 0, :] = rng.normal(size=(*batch, 3))
    normalized, offsets = humanoid.normalize(rotations, positions)
    assert normalized.shape == (*batch, len(humanoid.bones), 4)
    back, back_at = humanoid.pose(normalized, offsets[..., humanoid.hips, :])
    world, at = forward_kinematics(avatar.skeleton.parents, rotations, positions)
    world_back, at_back = forward_kinematics(avatar.skeleton.parents, back, back_at)
    assert np.all(np.abs(quat.dot(world_back, world)) > 1 - 1e-12)
    np.testing.assert_allclose(at_back, at, atol=1e-12)
    rest, _ = humanoid.normalize(avatar.rest_rotations, avatar.skeleton.offsets)
    np.testing.assert_allclose(np.abs(rest[:, 0]), 1.0, atol=1e-12)


def test_the_samples_and_their_licences_are_listed() -> None:
    sources = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    for path in VRM1_FILES:
        line = next(row for row in sources.splitlines() if f"avatars/{path.name}" in row)
        assert "VRM Public License 1.0" in line and "redistribution" in line


@pytest.mark.parametrize("name", IDS)
def test_the_bone_map_is_the_files(files: dict[str, Path], name: str) -> None:
    path = files[name]
    document, _ = read_glb(path)
    expected = {CANONICAL[bone]: document["nodes"][node]["name"]
                for bone, node in bone_nodes(document).items()}
    avatar = _avatar(path)
    assert avatar.humanoid == expected
    assert len(avatar.humanoid) == 53
    assert avatar.vrm is not None and avatar.vrm.version == name[-3:]
    # The skeleton is the humanoid: no skin needed (both samples are armatures).
    assert not document.get("skins")
    assert set(avatar.skeleton.names) == set(expected.values())


@pytest.mark.parametrize("name", IDS)
def test_nodes_named_like_nothing_keep_the_map(files: dict[str, Path], name: str,
                                               tmp_path: Path) -> None:
    """Names a guess could not read ("n0", "n1" …, left and right swapped even): the map is
    still the file's, and the retargeter uses it as it is."""

    def rename(document: dict) -> None:
        for index, node in enumerate(document["nodes"]):
            node["name"] = f"n{index}"
        # A misleading pair: the left upper leg's node named as a right hand.
        left_leg = bone_nodes(document)["leftUpperLeg"]
        document["nodes"][left_leg]["name"] = "RightHand"

    path = rewrite(files[name], tmp_path / "renamed.vrm", rename)
    avatar = load_avatar(path)
    document, _ = read_glb(path)
    expected = {CANONICAL[bone]: f"n{node}" for bone, node in bone_nodes(document).items()}
    expected["LeftUpperLeg"] = "RightHand"
    assert avatar.humanoid == expected
    assert auto_map(avatar.skeleton) != expected  # a guess would not have found it
    source = bvh.load(CLIP)
    retargeter = Retargeter(source.skeleton, avatar.skeleton,
                            target_mapping=avatar.target_mapping(),
                            target_rest=avatar.rest_rotations)
    assert retargeter.target_map == expected


@pytest.mark.parametrize("name", IDS)
def test_every_avatar_faces_plus_z(files: dict[str, Path], name: str) -> None:
    avatar = _avatar(files[name])
    at = _rest_positions(avatar)
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        toes, foot = _at(avatar, at, f"{side}Toes"), _at(avatar, at, f"{side}Foot")
        assert toes[2] - foot[2] > 0.1  # the toes ahead of the ankle: facing +Z
        assert sign * _at(avatar, at, f"{side}Hand")[0] > 0.5  # the left hand at +X
    assert _at(avatar, at, "Head")[1] > _at(avatar, at, "Hips")[1] + 0.5
    # The VRM 0.x file (turned 180° inside) stands exactly where its VRM 1.0 original does.
    original = _avatar(files[name[:-3] + "1.0"])
    np.testing.assert_allclose(at, _rest_positions(original), atol=1e-6)
    assert avatar.vrm is not None and avatar.vrm.faces_minus_z == name.endswith("0.x")


@pytest.mark.parametrize("name", IDS)
def test_info_shows_the_meta(files: dict[str, Path], name: str,
                             capsys: pytest.CaptureFixture) -> None:
    assert main(["info", str(files[name])]) == 0
    out = capsys.readouterr().out
    document, _ = read_glb(VRM1_FILES[0] if "debug" in name else VRM1_FILES[1])
    meta = document["extensions"]["VRMC_vrm"]["meta"]
    assert f"title            {meta['name']}" in out
    assert f"authors          {meta['authors'][0]}" in out
    assert meta["licenseUrl"] in out.split("licence", 1)[1].splitlines()[0]
    assert f"VRM {name[-3:]}" in out
    assert ("turned to +Z" in out) == name.endswith("0.x")
    assert "    LeftUpperLeg" in out and "53 bones from the file" in out


@pytest.mark.parametrize("name", IDS)
def test_the_shared_clip_stands_on_each(files: dict[str, Path], name: str) -> None:
    avatar = _avatar(files[name])
    clip, retargeter = _retarget(files[name])
    at = clip.global_positions()
    assert np.all(np.isfinite(at))
    assert np.all(_at(avatar, at, "Head")[:, 1] > _at(avatar, at, "Hips")[:, 1])
    # No foot joint or toe ever more than 1 cm below the floor (the rest pose's lowest point).
    low = _lowest_foot_point(clip, retargeter)
    assert low.min() > -0.01, low.min()
    # A VRM 0.x avatar moves exactly as its VRM 1.0 original.
    original, _ = _retarget(files[name[:-3] + "1.0"])
    np.testing.assert_allclose(at, original.global_positions(), atol=1e-6)


def _lowest_foot_point(clip: Clip, retargeter: Retargeter) -> np.ndarray:
    """``(F, 2)`` each foot's lowest point (ankle over its standing height, or toe point
    over its own) above the rest pose's floor, metres."""
    measures, mapping = retargeter.target_measures, retargeter.target_map
    world, at = clip.forward_kinematics()
    feet = [clip.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]
    low = at[:, feet, 1] - measures.ankle_height
    toes = Toes.of(clip.skeleton, mapping)
    if toes is not None:
        low = np.minimum(low, toes.positions(world, at)[..., 1] - measures.toe_height)
    return low - measures.floor


def _source_stance() -> np.ndarray:
    """``(F, 2)`` frames where CMU 131_01's feet are planted: the foot's lowest point within
    2 cm of its lowest 5 %."""
    source = bvh.load(CLIP)
    retargeter = Retargeter(source.skeleton, source.skeleton)
    measures, mapping = retargeter.source_measures, retargeter.source_map
    world, at = source.forward_kinematics()
    feet = [source.skeleton.index(mapping[b]) for b in ("LeftFoot", "RightFoot")]
    low = at[:, feet, 1] - measures.ankle_height
    toes = Toes.of(source.skeleton, mapping)
    assert toes is not None
    low = np.minimum(low, toes.positions(world, at)[..., 1] - measures.toe_height)
    return low < np.percentile(low, 5, axis=0) + 0.02


@pytest.mark.parametrize("name", IDS)
def test_the_planted_foot_is_on_the_floor(files: dict[str, Path], name: str) -> None:
    """Issue 24's criterion: while the source foot is planted, the avatar's lowest foot point
    is within −1…+1.5 cm of the floor in at least 90 % of the frames."""
    clip, retargeter = _retarget(files[name])
    stance = _source_stance()
    assert stance.sum(axis=0).min() > 50
    low = _lowest_foot_point(clip, retargeter)
    for side in range(2):
        height = low[stance[:, side], side]
        assert np.mean((height >= -0.01) & (height <= 0.015)) >= 0.9, np.median(height)


@pytest.mark.parametrize("name", IDS)
def test_vrm_output_keeps_the_file_and_plays_the_retarget(files: dict[str, Path], name: str,
                                                          tmp_path: Path) -> None:
    path = files[name]
    out = _retarget_command(path, tmp_path / "walk.vrm")
    before, before_blob = read_glb(path)
    after, after_blob = read_glb(out)
    # The whole input: every node, mesh, material, texture, image and extension as it was
    # (pygltflib spells out glTF's default values), and every buffer view's bytes; the
    # animation is added.
    for key in ("extensions", "extensionsUsed", "materials", "meshes", "textures", "images",
                "samplers", "scenes", "scene", "nodes", "asset"):
        assert _without_defaults(after.get(key)) == _without_defaults(before.get(key)), key
    for index, view in enumerate(before["bufferViews"]):
        new = after["bufferViews"][index]
        assert new["byteLength"] == view["byteLength"]
        assert (after_blob[new.get("byteOffset", 0):][:new["byteLength"]]
                == before_blob[view.get("byteOffset", 0):][:view["byteLength"]])
    assert len(after["animations"]) == 1 and "animations" not in before
    # It plays the retarget: read back by footfall ...
    clip, _ = _retarget(path)
    avatar = _avatar(path)
    back = load_animation(out, fps=clip.fps)
    assert back.frame_count == clip.frame_count
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(),
                               atol=TOLERANCE)
    # ... and by the tests' own evaluator, in the file's space: a VRM 0.x file faces −Z again.
    turn = np.array([-1.0, 1.0, -1.0]) if name.endswith("0.x") else np.ones(3)
    at = clip.global_positions()
    for key in (0, 500, clip.frame_count - 1):
        world = world_positions_at_key(out, key)
        for joint, node in enumerate(avatar.nodes):
            np.testing.assert_allclose(world[node], at[key, joint] * turn, atol=TOLERANCE)


#: glTF 2.0's default values of the properties pygltflib writes out (glTF schema).
GLTF_DEFAULTS = {"alphaMode": "OPAQUE", "alphaCutoff": 0.5, "doubleSided": False,
                 "emissiveFactor": [0, 0, 0], "baseColorFactor": [1, 1, 1, 1],
                 "metallicFactor": 1, "roughnessFactor": 1, "texCoord": 0, "mode": 4,
                 "wrapS": 10497, "wrapT": 10497}


def _without_defaults(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_defaults(v) for k, v in value.items()
                if not (k in GLTF_DEFAULTS and v == GLTF_DEFAULTS[k])}
    if isinstance(value, list):
        return [_without_defaults(v) for v in value]
    return value


@pytest.mark.parametrize("name", IDS)
def test_vrma_output_plays_back_the_retarget(files: dict[str, Path], name: str,
                                             tmp_path: Path) -> None:
    path = files[name]
    out = _retarget_command(path, tmp_path / "walk.vrma")
    clip, _ = _retarget(path)
    avatar = _avatar(path)
    back = load_vrm_animation(out, avatar, fps=clip.fps)
    assert back.frame_count == clip.frame_count
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(),
                               atol=TOLERANCE)
    assert np.all(1 - np.abs(quat.dot(back.global_rotations(), clip.global_rotations()))
                  < 1e-9)
    document, blob = read_glb(out)
    extension = document["extensions"]["VRMC_vrm_animation"]
    assert document["extensionsUsed"] == ["VRMC_vrm_animation"]
    assert extension["specVersion"] == "1.0"
    bones = extension["humanoid"]["humanBones"]
    assert set(bones) == set(bone_nodes(read_glb(path)[0])) - {"leftEye", "rightEye"}
    nodes = document["nodes"]
    assert all(nodes[entry["node"]]["name"] == bone for bone, entry in bones.items())
    assert all("rotation" not in node and "scale" not in node for node in nodes)  # T-pose
    channels = document["animations"][0]["channels"]
    paths = {(nodes[c["target"]["node"]]["name"], c["target"]["path"]) for c in channels}
    assert paths == {(bone, "rotation") for bone in bones} | {("hips", "translation")}
    _check_knee_track(document, blob, clip, avatar)


def _check_knee_track(document: dict, blob: bytes, clip: Clip, avatar: Avatar) -> None:
    """A track checked by hand: the left knee's rotation in the normalized T-pose frame is a
    hinge about +X (the shin swings back as the knee bends), and its angle is the angle
    between the thigh and the shin in the retargeted pose."""
    from vrm_files import _floats

    node = document["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"][
        "leftLowerLeg"]["node"]
    channel = next(c for c in document["animations"][0]["channels"]
                   if c["target"] == {"node": node, "path": "rotation"})
    sampler = document["animations"][0]["samplers"][channel["sampler"]]
    xyzw = _floats(document, blob, sampler["output"])
    angle = 2 * np.arccos(np.clip(np.abs(xyzw[:, 3]), 0, 1))
    bent = angle > np.radians(20)
    assert bent.mean() > 0.1
    axis = xyzw[bent, :3] * np.sign(xyzw[bent, 3:])
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    assert np.all(axis[:, 0] > 0.9), axis[:, 0].min()
    at = clip.global_positions()
    hip, knee, ankle = (_at(avatar, at, b) for b in ("LeftUpperLeg", "LeftLowerLeg",
                                                     "LeftFoot"))
    rest = _rest_positions(avatar)
    thigh, shin = knee - hip, ankle - knee
    rest_thigh = _at(avatar, rest, "LeftLowerLeg") - _at(avatar, rest, "LeftUpperLeg")
    rest_shin = _at(avatar, rest, "LeftFoot") - _at(avatar, rest, "LeftLowerLeg")
    between = np.arccos(np.clip(np.sum(thigh * shin, axis=1) / np.linalg.norm(thigh, axis=1)
                                / np.linalg.norm(shin, axis=1), -1, 1))
    rest_between = np.arccos(np.dot(rest_thigh, rest_shin) / np.linalg.norm(rest_thigh)
                             / np.linalg.norm(rest_shin))
    np.testing.assert_allclose(angle[bent], (between - rest_between)[bent], atol=2e-3)


# ------------------------------------------------------------------ bad input


def _broken(field: str):
    """A change of a VRM 1.0 document that breaks ``field``."""

    def change(document: dict) -> None:
        bones = document["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
        if field == "missing-bone":
            del bones["leftFoot"]
        elif field == "missing-node":
            bones["head"]["node"] = 999
        elif field == "spec-version":
            document["extensions"]["VRMC_vrm"]["specVersion"] = "2.0"
        elif field == "same-node":
            bones["rightHand"]["node"] = bones["leftHand"]["node"]

    return change


@pytest.mark.parametrize("field, words", [
    ("missing-bone", ["extensions.VRMC_vrm.humanoid.humanBones", "required", "leftFoot"]),
    ("missing-node", ["extensions.VRMC_vrm.humanoid.humanBones.head.node", "999"]),
    ("spec-version", ["extensions.VRMC_vrm.specVersion", "'2.0'"]),
    ("same-node", ["humanBones.rightHand.node", "leftHand"]),
])
@pytest.mark.parametrize("command", ["retarget", "info", "live"])
def test_bad_vrm_is_one_line_naming_the_field(tmp_path: Path, capsys: pytest.CaptureFixture,
                                              field: str, words: list[str],
                                              command: str) -> None:
    bad = rewrite(VRM1_FILES[0], tmp_path / "bad.vrm", _broken(field))
    out = tmp_path / "out.vrm"
    argv = {"retarget": ["retarget", str(CLIP), "--to", str(bad), "-o", str(out), "--quiet"],
            "info": ["info", str(bad)],
            "live": ["live", "--replay", str(CLIP), "--to", str(bad), "--no-view",
                     "--no-control", "--duration", "1"]}[command]
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1, error
    assert all(word in error for word in words), error
    assert not out.exists()


@pytest.mark.parametrize("change, words", [
    (lambda vrm0: vrm0["humanoid"]["humanBones"].pop(
        next(i for i, b in enumerate(vrm0["humanoid"]["humanBones"]) if b["bone"] == "chest")),
     ["extensions.VRM.humanoid.humanBones", "required", "chest"]),
    (lambda vrm0: vrm0["humanoid"]["humanBones"][3].update(node=-1),
     ["extensions.VRM.humanoid.humanBones[3].node", "-1"]),
    (lambda vrm0: vrm0.update(specVersion="1.0"), ["extensions.VRM.specVersion", "'1.0'"]),
    (lambda vrm0: vrm0["humanoid"]["humanBones"][0].update(bone=["hips"]),  # found by fuzzing
     ["extensions.VRM.humanoid.humanBones[0]", "not a VRM 0.x humanoid bone"]),
    (lambda vrm0: vrm0["humanoid"].update(humanBones={"hips": {"node": 0}}),
     ["extensions.VRM.humanoid.humanBones", "list"]),
])
def test_bad_vrm0_names_the_field(files: dict[str, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture, change, words: list[str]
                                  ) -> None:
    bad = rewrite(files["debug_robot-0.x"], tmp_path / "bad.vrm",
                  lambda document: change(document["extensions"]["VRM"]))
    assert main(["info", str(bad)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and all(word in error for word in words), error


def test_vrm_outputs_need_a_vrm_avatar(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for target in (DATA / "avatars" / "CesiumMan.glb", DATA / "bvh" / "games105_walk60.bvh"):
        for suffix in (".vrm", ".vrma"):
            out = tmp_path / f"out{suffix}"
            assert main(["retarget", str(CLIP), "--to", str(target), "-o", str(out),
                         "--quiet"]) == 2
            assert "needs a VRM avatar" in capsys.readouterr().err
            assert not out.exists()


def test_batch_retargets_a_library_onto_a_vrm(files: dict[str, Path], tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "walk.bvh").write_bytes(CLIP.read_bytes())
    out = tmp_path / "out"
    assert main(["batch", "retarget", str(library), "-o", str(out), "--to",
                 str(files["mtoon_uv_test-0.x"]), "--jobs", "1", "--quiet"]) == 0
    written = out / "walk.vrm"
    clip, _ = _retarget(files["mtoon_uv_test-0.x"])
    back = load_animation(written, fps=clip.fps)
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(),
                               atol=TOLERANCE)
    assert read_glb(written)[0]["extensions"]["VRM"]["humanoid"]["humanBones"][0]["bone"]
