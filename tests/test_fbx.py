"""FBX in (issue 37): the shared Maya files read with ufbx (footfall.fbx) as clips and avatars.

The independent reader is Blender 3.4's FBX importer: ``tests/data/fbx/blender_positions.py``
exported every bone's world position at several frames of each file once
(``blender_positions.json``), so this runs without Blender.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from footfall.errors import FBXError
from footfall.fbx import fbx_info, list_takes, load_fbx, load_fbx_avatar
from footfall.fbx.isolate import read_arrays
from footfall.gltf import load_avatar
from footfall.humanoid import map_skeleton
from footfall.skinning import avatar_feet, rest_mesh

FBX = Path(__file__).parent / "data" / "fbx"
HUMANIK = FBX / "maya_character_7500_binary.fbx"
KENNEY = FBX / "maya_kenney_character_7700_binary.fbx"
#: The control rig beside Kenney's skeleton (bones of the file, no bones of the humanoid).
KENNEY_RIG = {"LeftFootCtrl", "LeftHeelRoll", "LeftToeRoll", "LeftFootIK", "LeftFootRollCtrl",
              "LeftKneeCtrl", "RightFootCtrl", "RightHeelRoll", "RightToeRoll", "RightFootIK",
              "RightFootRollCtrl", "RightKneeCtrl", "HipsCtrl"}


@pytest.fixture(scope="module")
def clips() -> dict[str, object]:
    return {path.name: load_fbx(path) for path in (HUMANIK, KENNEY)}


def test_the_files_say_what_they_hold() -> None:
    for path, version in ((HUMANIK, 7500), (KENNEY, 7700)):
        info = fbx_info(path)
        assert info.takes == ["Take 001"] == list_takes(path)
        assert (info.fps, info.unit_metres, info.up_axis, info.version) == (24.0, 0.01, "+Y",
                                                                            version)
    assert np.allclose(fbx_info(HUMANIK).take_ranges, [[1 / 24, 5.0]])
    assert np.allclose(fbx_info(KENNEY).take_ranges, [[0.0, 20 / 24]])


def test_a_take_is_a_clip_at_the_file_rate_in_metres(clips: dict) -> None:
    humanik, kenney = clips[HUMANIK.name], clips[KENNEY.name]
    # 1/24 s to 5 s and 0 to 20/24 s at 24 fps, both ends included
    assert (humanik.frame_count, humanik.fps, humanik.skeleton.joint_count) == (120, 24.0, 62)
    assert (kenney.frame_count, kenney.fps) == (21, 24.0)
    assert all(name.startswith("Character1_") for name in humanik.skeleton.names)
    # centimetres in the file: the HumanIK hips stand 1 m up (100 units), Kenney's 1.15 m
    assert humanik.global_positions()[:, 0, 1] == pytest.approx(1.0, abs=1e-9)
    assert kenney.skeleton.names[0] == "Hips"
    assert 1.1 < kenney.global_positions()[:, 0, 1].min() < 1.16


def test_the_control_rig_is_not_part_of_the_skeleton(clips: dict) -> None:
    names = set(clips[KENNEY.name].skeleton.names)
    assert not names & KENNEY_RIG
    # every bone the skin binds is there, with the end bones below them
    for bone in ("Hips", "Spine", "Chest", "UpperChest", "Neck", "Head", "LeftUpLeg", "LeftLeg",
                 "LeftFoot", "LeftToes", "LeftToes_end", "RightToes_end", "Head_end",
                 "LeftHandIndex3_end", "RightHandThumb2_end"):
        assert bone in names
    assert len(names) == 39


def test_joint_positions_agree_with_blender_within_a_millimetre(clips: dict) -> None:
    reference = json.loads((FBX / "blender_positions.json").read_text())
    assert {entry["file"] for entry in reference} == {HUMANIK.name, KENNEY.name}
    compared = 0
    for entry in reference:
        clip = clips[entry["file"]]
        begin = fbx_info(FBX / entry["file"]).take_ranges[0, 0]
        positions = clip.global_positions()
        for frame in entry["frames"]:
            if frame["time"] is None:  # no curves: the file's pose holds throughout
                picks = [0, clip.frame_count - 1]
            else:
                k = (frame["time"] - begin) * clip.fps
                assert abs(k - round(k)) < 1e-6
                picks = [round(k)]
            names = [n for n in clip.skeleton.names if n in frame["joints"]]
            assert len(names) == clip.skeleton.joint_count  # Blender has every joint
            expected = np.array([frame["joints"][n] for n in names])
            for k in picks:
                ours = positions[k, [clip.skeleton.index(n) for n in names]]
                error = np.linalg.norm(ours - expected, axis=-1)
                assert error.max() < 1e-3, (entry["file"], k, names[int(error.argmax())],
                                            error.max())
                compared += len(names)
    assert compared >= 2 * 62 + 6 * 39


def test_the_kenney_take_moves(clips: dict) -> None:
    """The agreement above is not two rest poses: Kenney's take walks its feet."""
    positions = clips[KENNEY.name].global_positions()
    foot = clips[KENNEY.name].skeleton.index("LeftFoot")
    assert np.ptp(positions[:, foot], axis=0).max() > 0.1


def test_takes_by_name_and_by_index(clips: dict) -> None:
    by_name = load_fbx(KENNEY, take="Take 001")
    by_index = load_fbx(KENNEY, take=0)
    assert np.array_equal(by_name.rotations, by_index.rotations)
    assert np.array_equal(by_name.positions, clips[KENNEY.name].positions)
    for take, said in (("Walk", "no take named 'Walk'"), (1, "take 1 does not exist"),
                       (-1, "take -1 does not exist")):
        with pytest.raises(FBXError) as caught:
            load_fbx(KENNEY, take=take)
        message = str(caught.value)
        assert message.startswith(str(KENNEY)) and said in message and "\n" not in message


@pytest.mark.parametrize("path", [HUMANIK, KENNEY, FBX / "kenney_zup_metres.fbx"],
                         ids=lambda p: p.stem)
def test_the_fast_composition_equals_ufbx_evaluating_every_frame(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader composes each node's local transform itself (fast) and checks three frames
    against ufbx's whole-scene evaluation; it keeps the fast result on these files, and
    evaluating every frame instead gives the same matrices."""
    fast = read_arrays(path, "clip")
    monkeypatch.setenv("FOOTFALL_FBX_EXACT", "1")
    exact = read_arrays(path, "clip")
    assert (str(fast["path"]), str(exact["path"])) == ("composed", "evaluated")
    assert np.abs(fast["world"] - exact["world"]).max() < 1e-9


def test_the_humanik_skeleton_maps_to_humanoid_bones(clips: dict) -> None:
    mapping = map_skeleton(clips[HUMANIK.name].skeleton).mapping
    for bone, joint in (("Hips", "Hips"), ("Spine", "Spine"), ("Chest", "Spine1"),
                        ("Neck", "Neck"), ("Head", "Head"), ("LeftUpperLeg", "LeftUpLeg"),
                        ("LeftLowerLeg", "LeftLeg"), ("LeftFoot", "LeftFoot"),
                        ("LeftToes", "LeftToeBase"), ("RightFoot", "RightFoot"),
                        ("LeftUpperArm", "LeftArm"), ("LeftLowerArm", "LeftForeArm"),
                        ("RightHand", "RightHand"), ("LeftIndexProximal", "LeftHandIndex1")):
        assert mapping[bone] == f"Character1_{joint}"
    kenney = map_skeleton(clips[KENNEY.name].skeleton).mapping
    assert (kenney["Hips"], kenney["LeftFoot"], kenney["RightToes"]) == ("Hips", "LeftFoot",
                                                                         "RightToes")


def test_a_skinned_fbx_character_is_an_avatar_with_its_mesh(clips: dict) -> None:
    avatar = load_fbx_avatar(KENNEY)
    assert avatar.skeleton.names == clips[KENNEY.name].skeleton.names
    mesh = rest_mesh(avatar)
    assert mesh is not None
    vertices, faces, weights = mesh
    assert vertices.shape == (804, 3) and faces.max() < 804
    assert np.allclose(weights.sum(axis=1), 1.0)
    # the bind pose stands on the floor: the lowest vertex (a sole) within 2 mm of y = 0,
    # under the toe joints
    assert abs(vertices[:, 1].min()) < 0.002
    toes = avatar.skeleton.index("LeftToes_end")
    assert vertices[:, 1].min() <= avatar.rest_clip().global_positions()[0, toes, 1]
    # the vertices each foot carries are found from the skin, as for a GLB
    feet = avatar_feet(avatar)
    assert feet is not None and feet.from_mesh


def test_a_skeleton_only_file_is_an_avatar_without_a_mesh() -> None:
    avatar = load_fbx_avatar(HUMANIK)
    assert avatar.skeleton.joint_count == 62
    assert rest_mesh(avatar) is None


def test_a_z_up_file_in_metres_gives_the_same_joints() -> None:
    """``kenney_zup_metres.fbx``: Blender 3.4 wrote Kenney's armature and take Z up in metres
    (``blender_export.py zup``); read, it is Y up in metres with the joints where the Y-up
    centimetre original has them. (Blender's exporter writes its frame f at f/fps and its
    importer had put the original's time t at frame t·fps + 1: the takes match frame by frame,
    one frame apart in time.)"""
    zup = FBX / "kenney_zup_metres.fbx"
    info = fbx_info(zup)
    assert (info.up_axis, info.unit_metres) == ("+Z", 1.0)
    original, turned = load_fbx(KENNEY), load_fbx(zup)
    names = original.skeleton.names
    assert set(names) <= set(turned.skeleton.names)
    frames = turned.frame_count
    assert frames >= 15
    ours = original.global_positions()[:frames]
    theirs = turned.global_positions()[:, [turned.skeleton.index(n) for n in names]]
    assert np.abs(ours - theirs).max() < 1e-4
    assert theirs[:, 0, 1].min() > 1.1  # the hips stand 1.1 m up: Y is up


def test_an_ascii_file_of_null_nodes_without_a_take_reads_as_its_pose() -> None:
    """``humanik_ascii_assimp.fbx``: assimp 5.2 wrote the HumanIK file as ASCII FBX, its joints
    as Null nodes (no LimbNode, no skin) and without the take. Read, it is the HumanIK pose:
    one frame, every joint where the binary original has it."""
    path = FBX / "humanik_ascii_assimp.fbx"
    assert list_takes(path) == []
    clip = load_fbx(path)
    original = load_fbx(HUMANIK)
    names = original.skeleton.names
    assert clip.frame_count == 1
    assert set(clip.skeleton.names) == {*names, "Character1_Reference"}
    ours = clip.global_positions()[0, [clip.skeleton.index(n) for n in names]]
    assert np.abs(ours - original.global_positions()[0]).max() < 1e-5
    assert "the file has no animation take" in str(pytest.raises(
        FBXError, load_fbx, path, take="Take 001").value)


def test_the_fbx_avatar_is_the_character_blender_imports() -> None:
    """``kenney_blender.glb``: Blender 3.4 imported Kenney's FBX and wrote it as GLB
    (``blender_export.py glb``). footfall's FBX avatar has the same joints at rest and the same
    skinned mesh as footfall's glTF reader finds in Blender's file (which also keeps the control
    rig's bones and their end bones as joints: a glTF skin lists every bone)."""
    ours = load_fbx_avatar(KENNEY)
    blender = load_avatar(FBX / "kenney_blender.glb")
    names = ours.skeleton.names
    assert set(names) < set(blender.skeleton.names)
    rig = set(blender.skeleton.names) - set(names)
    assert KENNEY_RIG <= rig and all(name.removesuffix("_end") in KENNEY_RIG for name in rig)
    at_rest = ours.rest_clip().global_positions()[0]
    theirs = blender.rest_clip().global_positions()[0, [blender.skeleton.index(n) for n in names]]
    assert np.linalg.norm(at_rest - theirs, axis=1).max() < 1e-4
    mesh, other = rest_mesh(ours), rest_mesh(blender)
    assert mesh is not None and other is not None
    # Blender splits vertices along UV seams: compare the point sets both ways
    gaps = np.linalg.norm(mesh[0][:, None] - other[0][None], axis=-1)
    assert gaps.min(axis=1).max() < 1e-4 and gaps.min(axis=0).max() < 1e-4


#: FBX time units per second.
KTIME = 46186158000


def _two_takes(tmp_path: Path) -> Path:
    """An ASCII FBX written here: a hips bone 100 units (cm) up with a foot below it, and two
    takes of 1 s, "walk" moving the hips 100 units along X and "run" 300."""
    objects = ['\tModel: 1000, "Model::Hips", "LimbNode" {', "\t\tVersion: 232",
               "\t\tProperties70:  {",
               '\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,100,0', "\t\t}", "\t}",
               '\tModel: 1001, "Model::Foot", "LimbNode" {', "\t\tVersion: 232",
               "\t\tProperties70:  {",
               '\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,-90,0', "\t\t}", "\t}"]
    links = ['\tC: "OO",1000,0', '\tC: "OO",1001,1000']
    for k, (name, x) in enumerate({"walk": 100, "run": 300}.items()):
        stack = 2000 + 10 * k
        objects += [
            f'\tAnimationStack: {stack}, "AnimStack::{name}", "" {{', "\t\tProperties70:  {",
            '\t\t\tP: "LocalStart", "KTime", "Time", "",0',
            f'\t\t\tP: "LocalStop", "KTime", "Time", "",{KTIME}', "\t\t}", "\t}",
            f'\tAnimationLayer: {stack + 1}, "AnimLayer::BaseLayer", "" {{', "\t}",
            f'\tAnimationCurveNode: {stack + 2}, "AnimCurveNode::T", "" {{', "\t\tProperties70:  {",
            '\t\t\tP: "d|X", "Number", "", "A",0', '\t\t\tP: "d|Y", "Number", "", "A",100',
            '\t\t\tP: "d|Z", "Number", "", "A",0', "\t\t}", "\t}",
            f'\tAnimationCurve: {stack + 3}, "AnimCurve::", "" {{', "\t\tDefault: 0",
            "\t\tKeyVer: 4009", "\t\tKeyTime: *2 {", f"\t\t\ta: 0,{KTIME}", "\t\t}",
            "\t\tKeyValueFloat: *2 {", f"\t\t\ta: 0,{x}", "\t\t}", "\t\tKeyAttrFlags: *1 {",
            "\t\t\ta: 24836", "\t\t}", "\t\tKeyAttrDataFloat: *4 {", "\t\t\ta: 0,0,0,0", "\t\t}",
            "\t\tKeyAttrRefCount: *1 {", "\t\t\ta: 2", "\t\t}", "\t}"]
        links += [f'\tC: "OO",{stack + 1},{stack}', f'\tC: "OO",{stack + 2},{stack + 1}',
                  f'\tC: "OP",{stack + 2},1000, "Lcl Translation"',
                  f'\tC: "OP",{stack + 3},{stack + 2}, "d|X"']
    path = tmp_path / "two_takes.fbx"
    path.write_text("\n".join(["; FBX 7.4.0 project file", "FBXHeaderExtension:  {",
                               "\tFBXHeaderVersion: 1003", "\tFBXVersion: 7400", "}",
                               "Objects:  {", *objects, "}", "Connections:  {", *links, "}",
                               ""]))
    return path


def test_each_take_by_name_and_by_index(tmp_path: Path) -> None:
    path = _two_takes(tmp_path)
    assert list_takes(path) == ["walk", "run"]
    for takes, reach in ((("walk", 0, None), 1.0), (("run", 1), 3.0)):
        for take in takes:
            clip = load_fbx(path, take=take)
            hips = clip.global_positions()[:, 0]
            assert clip.frame_count == 25 and clip.fps == 24.0  # 0 to 1 s, the default rate
            assert hips[0] == pytest.approx([0.0, 1.0, 0.0])
            assert hips[-1] == pytest.approx([reach, 1.0, 0.0]), take
            # the foot hangs 0.9 m below the hips throughout
            assert clip.global_positions()[:, 1] == pytest.approx(hips - [0.0, 0.9, 0.0])
