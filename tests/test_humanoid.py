"""Canonical humanoid bones, automatic name mapping, mapping files, and leg/arm chains."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from pygltflib import GLTF2

from conftest import AVATAR_FILES, DATA, HUMANOID_BVH_FILES, NOT_HUMANOID_BVH
from footfall import bvh, quat
from footfall.bunny import bunny_skeleton
from footfall.errors import FootfallError, MappingError
from footfall.humanoid import (
    HUMAN_BONES,
    REQUIRED_BONES,
    auto_map,
    bone_index,
    find_arms,
    find_legs,
    load_mapping,
    map_skeleton,
    parse_name,
    save_mapping,
)
from footfall.skeleton import Skeleton

# ---------------------------------------------------------------------------------------------
# Rig helpers.


@cache
def bvh_skeleton(path: Path) -> Skeleton:
    """The skeleton of a BVH file, through footfall's reader (metres, Y up)."""
    return bvh.load(path).skeleton


@cache
def glb_skeleton(path: Path) -> Skeleton:
    """The first skin of a GLB as a skeleton with world-space rest offsets (identity rotations)."""
    gltf = GLTF2().load(str(path))
    parent_of = {child: i for i, node in enumerate(gltf.nodes) for child in node.children or []}

    def local(index: int) -> np.ndarray:
        node = gltf.nodes[index]
        if node.matrix:
            return np.array(node.matrix, dtype=float).reshape(4, 4).T
        matrix = np.eye(4)
        if node.rotation:
            x, y, z, w = node.rotation
            matrix[:3, :3] = quat.to_matrix(np.array([w, x, y, z]))
        if node.scale:
            matrix[:3, :3] = matrix[:3, :3] @ np.diag(node.scale)
        if node.translation:
            matrix[:3, 3] = node.translation
        return matrix

    def chain(index: int) -> list[int]:
        out = [index]
        while out[-1] in parent_of:
            out.append(parent_of[out[-1]])
        return out

    joints = sorted(gltf.skins[0].joints, key=lambda j: len(chain(j)))
    world = {}
    for joint in joints:
        matrix = np.eye(4)
        for node in reversed(chain(joint)):
            matrix = matrix @ local(node)
        world[joint] = matrix[:3, 3]
    parents = []
    for joint in joints:
        above = [n for n in chain(joint)[1:] if n in world]
        parents.append(joints.index(above[0]) if above else -1)
    offsets = [
        world[j] - (world[joints[p]] if p >= 0 else 0.0)
        for j, p in zip(joints, parents, strict=True)
    ]
    return Skeleton([gltf.nodes[j].name for j in joints], np.array(parents), np.array(offsets))


def build_rig(style: dict) -> tuple[Skeleton, dict[str, str]]:
    """A hand-made humanoid in a naming style, and the canonical mapping it must produce.

    ``style`` keys: hips, spine (list), neck (list), head, leg (4 templates, toes may be None),
    pelvis (template or None: a short bone before the thigh), arm (clavicle template or None,
    upper, lower, hand), fingers ({finger: 3 templates}), sides (template values for {S}),
    extra_hand (template of a bone below the hand, or None).
    """
    table: list[tuple[str, str | None, tuple[float, float, float], str | None]] = []
    sides = style["sides"]
    table.append((style["hips"], None, (0.0, 1.0, 0.0), "Hips"))
    spine = style["spine"]
    spine_bones = (
        ["Spine", "Chest", "UpperChest"][: len(spine)]
        if len(spine) <= 3
        else ["Spine"] + [None] * (len(spine) - 1)
    )
    if len(spine) > 3:
        spine_bones[len(spine) // 2] = "Chest"
        spine_bones[-1] = "UpperChest"
    parent = style["hips"]
    for name, bone in zip(spine, spine_bones, strict=True):
        table.append((name, parent, (0.0, 0.12, 0.0), bone))
        parent = name
    chest = parent
    for rank, name in enumerate(style["neck"]):
        table.append((name, parent, (0.0, 0.1, 0.0), "Neck" if rank == 0 else None))
        parent = name
    table.append((style["head"], parent, (0.0, 0.1, 0.0), "Head"))
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        fill = {"S": sides[side == "Right"]}
        parent = style["hips"]
        if style.get("pelvis"):
            name = style["pelvis"].format(**fill)
            table.append((name, parent, (0.0, 0.0, 0.0), None))
            parent = name
        offsets = [(sign * 0.1, -0.07, 0.0), (0.0, -0.45, 0.0), (0.0, -0.42, 0.0), (0, -0.05, 0.12)]
        for role, template, offset in zip(
            ("UpperLeg", "LowerLeg", "Foot", "Toes"), style["leg"], offsets, strict=True
        ):
            if template is None:
                continue
            name = template.format(**fill)
            table.append((name, parent, offset, side + role))
            parent = name
        clavicle, upper, lower, hand = style["arm"]
        parent = chest
        if clavicle is not None:
            name = clavicle.format(**fill)
            table.append((name, parent, (sign * 0.03, 0.08, 0.0), side + "Shoulder"))
            parent = name
        for role, template, offset in (
            ("UpperArm", upper, (sign * 0.15, 0.0 if clavicle else 0.08, 0.0)),
            ("LowerArm", lower, (sign * 0.28, 0.0, 0.0)),
            ("Hand", hand, (sign * 0.26, 0.0, 0.0)),
        ):
            name = template.format(**fill)
            table.append((name, parent, offset, side + role))
            parent = name
        hand_name = parent
        if style.get("extra_hand"):
            table.append((style["extra_hand"].format(**fill), hand_name, (sign * 0.05, 0, 0), None))
        for rank, (finger, templates) in enumerate(style.get("fingers", {}).items()):
            parent = hand_name
            for segment, template in zip(
                ("Proximal", "Intermediate", "Distal"), templates, strict=True
            ):
                name = template.format(**fill)
                offset = (sign * 0.04, 0.0, 0.02 * (2 - rank))
                table.append((name, parent, offset, f"{side}{finger}{segment}"))
                parent = name
    names = [row[0] for row in table]
    skeleton = Skeleton(
        names,
        np.array([-1 if row[1] is None else names.index(row[1]) for row in table]),
        np.array([row[2] for row in table], dtype=float),
    )
    expected = {row[3]: row[0] for row in table if row[3] is not None}
    return skeleton, expected


def _fingers(template: str, words: dict[str, str], numbers=("1", "2", "3")) -> dict:
    return {
        finger: [template.format(F=word, N=n) for n in numbers] for finger, word in words.items()
    }


MIXAMO_FINGERS = {
    "Thumb": "Thumb",
    "Index": "Index",
    "Middle": "Middle",
    "Ring": "Ring",
    "Little": "Pinky",
}

STYLES = {
    "mixamo": {
        "hips": "mixamorig:Hips",
        "spine": ["mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2"],
        "neck": ["mixamorig:Neck"],
        "head": "mixamorig:Head",
        "leg": [
            "mixamorig:{S}UpLeg",
            "mixamorig:{S}Leg",
            "mixamorig:{S}Foot",
            "mixamorig:{S}ToeBase",
        ],
        "arm": [
            "mixamorig:{S}Shoulder",
            "mixamorig:{S}Arm",
            "mixamorig:{S}ForeArm",
            "mixamorig:{S}Hand",
        ],
        "fingers": _fingers("mixamorig:{{S}}Hand{F}{N}", MIXAMO_FINGERS),
        "sides": ("Left", "Right"),
    },
    "cgspeed_cmu": {
        "hips": "Hips",
        "spine": ["lowerback", "Chest", "Chest2"],
        "neck": ["lowerneck", "Neck"],
        "head": "Head",
        "pelvis": "{S}HipJoint",
        "leg": ["{S}Hip", "{S}Knee", "{S}Ankle", "{S}Toe"],
        "arm": ["{S}Collar", "{S}Shoulder", "{S}Elbow", "{S}Wrist"],
        "extra_hand": "{S}hand",
        "sides": ("Left", "Right"),
    },
    "holden_cmu": {
        "hips": "Hips",
        "spine": ["LowerBack", "Spine", "Spine1"],
        "neck": ["Neck", "Neck1"],
        "head": "Head",
        "pelvis": "{S}HipJoint",
        "leg": ["{S}UpLeg", "{S}Leg", "{S}Foot", "{S}ToeBase"],
        "arm": ["{S}Shoulder", "{S}Arm", "{S}ForeArm", "{S}Hand"],
        "sides": ("Left", "Right"),
    },
    "lafan1": {
        "hips": "Hips",
        "spine": ["Spine", "Spine1", "Spine2"],
        "neck": ["Neck"],
        "head": "Head",
        "leg": ["{S}UpLeg", "{S}Leg", "{S}Foot", "{S}Toe"],
        "arm": ["{S}Shoulder", "{S}Arm", "{S}ForeArm", "{S}Hand"],
        "sides": ("Left", "Right"),
    },
    "smplx": {
        "hips": "pelvis",
        "spine": ["spine1", "spine2", "spine3"],
        "neck": ["neck"],
        "head": "head",
        "leg": ["{S}_hip", "{S}_knee", "{S}_ankle", "{S}_foot"],
        "arm": ["{S}_collar", "{S}_shoulder", "{S}_elbow", "{S}_wrist"],
        "fingers": _fingers(
            "{{S}}_{F}{N}",
            {
                "Thumb": "thumb",
                "Index": "index",
                "Middle": "middle",
                "Ring": "ring",
                "Little": "pinky",
            },
        ),
        "sides": ("left", "right"),
    },
    "games105": {
        "hips": "RootJoint",
        "spine": ["pelvis_lowerback", "lowerback_torso"],
        "neck": [],
        "head": "torso_head",
        "leg": ["{S}Hip", "{S}Knee", "{S}Ankle", "{S}ToeJoint"],
        "arm": ["{S}Torso_Clavicle", "{S}Shoulder", "{S}Elbow", "{S}Wrist"],
        "sides": ("l", "r"),
    },
    "smpl": {
        "hips": "pelvis",
        "spine": ["spine1", "spine2", "spine3"],
        "neck": ["neck"],
        "head": "head",
        "leg": ["{S}_hip", "{S}_knee", "{S}_ankle", "{S}_foot"],
        "arm": ["{S}_collar", "{S}_shoulder", "{S}_elbow", "{S}_wrist"],
        "extra_hand": "{S}_hand",
        "sides": ("left", "right"),
    },
    "unreal": {
        "hips": "pelvis",
        "spine": ["spine_01", "spine_02", "spine_03", "spine_04", "spine_05"],
        "neck": ["neck_01", "neck_02"],
        "head": "head",
        "leg": ["thigh_{S}", "calf_{S}", "foot_{S}", "ball_{S}"],
        "arm": ["clavicle_{S}", "upperarm_{S}", "lowerarm_{S}", "hand_{S}"],
        "fingers": _fingers(
            "{F}_{N}_{{S}}",
            {
                "Thumb": "thumb",
                "Index": "index",
                "Middle": "middle",
                "Ring": "ring",
                "Little": "pinky",
            },
            ("01", "02", "03"),
        ),
        "sides": ("l", "r"),
    },
    "biped": {
        "hips": "Bip01 Pelvis",
        "spine": ["Bip01 Spine", "Bip01 Spine1"],
        "neck": ["Bip01 Neck"],
        "head": "Bip01 Head",
        "leg": ["Bip01 {S} Thigh", "Bip01 {S} Calf", "Bip01 {S} Foot", "Bip01 {S} Toe0"],
        "arm": ["Bip01 {S} Clavicle", "Bip01 {S} UpperArm", "Bip01 {S} Forearm", "Bip01 {S} Hand"],
        "fingers": {
            finger: [f"Bip01 {{S}} Finger{digit}{segment}" for segment in ("", "1", "2")]
            for digit, finger in enumerate(("Thumb", "Index", "Middle", "Ring", "Little"))
        },
        "sides": ("L", "R"),
    },
    "suffix_underscore": {
        "hips": "Hips",
        "spine": ["Spine", "Chest", "UpperChest"],
        "neck": ["Neck"],
        "head": "Head",
        "leg": ["UpperLeg_{S}", "LowerLeg_{S}", "Foot_{S}", "Toes_{S}"],
        "arm": ["Shoulder_{S}", "UpperArm_{S}", "LowerArm_{S}", "Hand_{S}"],
        "sides": ("L", "R"),
    },
    "suffix_glued": {
        "hips": "Hips",
        "spine": ["Abdomen", "Torso_1"],
        "neck": ["Neck"],
        "head": "Head",
        "leg": ["UpperLeg{S}", "LowerLeg{S}", "Foot{S}", None],
        "arm": ["Shoulder{S}", "UpperArm{S}", "LowerArm{S}", "Hand{S}"],
        "fingers": _fingers("{F}{N}{{S}}", {"Index": "Index", "Middle": "Middle"}),
        "sides": ("L", "R"),
    },
    "blender": {
        "hips": "hips",
        "spine": ["spine", "spine.001", "chest"],
        "neck": ["neck"],
        "head": "head",
        "leg": ["thigh.{S}", "shin.{S}", "foot.{S}", "toe.{S}"],
        "arm": ["shoulder.{S}", "upper_arm.{S}", "forearm.{S}", "hand.{S}"],
        "fingers": _fingers("{F}.0{N}.{{S}}", {"Thumb": "thumb", "Index": "f_index"}),
        "sides": ("L", "R"),
    },
    "motive": {
        "hips": "Skeleton1_Hip",
        "spine": ["Skeleton1_Ab", "Skeleton1_Chest"],
        "neck": ["Skeleton1_Neck"],
        "head": "Skeleton1_Head",
        "leg": ["Skeleton1_{S}Thigh", "Skeleton1_{S}Shin", "Skeleton1_{S}Foot", "Skeleton1_{S}Toe"],
        "arm": [
            "Skeleton1_{S}Shoulder",
            "Skeleton1_{S}UArm",
            "Skeleton1_{S}FArm",
            "Skeleton1_{S}Hand",
        ],
        "sides": ("L", "R"),
    },
    "daz": {
        "hips": "hip",
        "spine": ["abdomenLower", "abdomenUpper", "chestLower", "chestUpper"],
        "neck": ["neckLower", "neckUpper"],
        "head": "head",
        "leg": ["{S}ThighBend", "{S}Shin", "{S}Foot", "{S}Toe"],
        "arm": ["{S}Collar", "{S}ShldrBend", "{S}ForearmBend", "{S}Hand"],
        "fingers": _fingers("{{S}}{F}{N}", {"Thumb": "Thumb", "Index": "Index", "Little": "Pinky"}),
        "sides": ("l", "r"),
    },
    "vrm": {
        "hips": "J_Bip_C_Hips",
        "spine": ["J_Bip_C_Spine", "J_Bip_C_Chest", "J_Bip_C_UpperChest"],
        "neck": ["J_Bip_C_Neck"],
        "head": "J_Bip_C_Head",
        "leg": ["J_Bip_{S}_UpperLeg", "J_Bip_{S}_LowerLeg", "J_Bip_{S}_Foot", "J_Bip_{S}_ToeBase"],
        "arm": ["J_Bip_{S}_Shoulder", "J_Bip_{S}_UpperArm", "J_Bip_{S}_LowerArm", "J_Bip_{S}_Hand"],
        "fingers": _fingers(
            "J_Bip_{{S}}_{F}{N}", {"Thumb": "Thumb", "Ring": "Ring", "Little": "Little"}
        ),
        "sides": ("L", "R"),
    },
    "no_clavicle_hip_knee": {
        "hips": "Hips",
        "spine": ["Spine"],
        "neck": ["Neck"],
        "head": "Head",
        "leg": ["{S}Hip", "{S}Knee", "{S}Ankle", None],
        "arm": [None, "{S}Shoulder", "{S}Elbow", "{S}Wrist"],
        "sides": ("Left", "Right"),
    },
    "lower_prefix_l": {
        "hips": "Hips",
        "spine": ["Spine"],
        "neck": [],
        "head": "Head",
        "leg": ["{S}Thigh", "{S}Calf", "{S}Foot", "{S}ToeBase"],
        "arm": ["{S}Clavicle", "{S}UpperArm", "{S}LowerArm", "{S}Hand"],
        "fingers": _fingers("{{S}}_{F}{N}", {"Index": "index", "Middle": "middle"}),
        "sides": ("l", "r"),
    },
    "prefix_underscore": {
        "hips": "Hips",
        "spine": ["Spine", "Chest"],
        "neck": ["Neck"],
        "head": "Head",
        "leg": ["{S}_Thigh", "{S}_Knee", "{S}_Foot", "{S}_Toe"],
        "arm": ["{S}_Clavicle", "{S}_Arm", "{S}_Elbow", "{S}_Wrist"],
        "sides": ("L", "R"),
    },
}


# ---------------------------------------------------------------------------------------------
# The bone list.


def test_human_bones_are_unitys_55_in_enum_order():
    assert len(HUMAN_BONES) == 55 and len(set(HUMAN_BONES)) == 55
    assert HUMAN_BONES[:11] == (
        "Hips", "LeftUpperLeg", "RightUpperLeg", "LeftLowerLeg", "RightLowerLeg",
        "LeftFoot", "RightFoot", "Spine", "Chest", "Neck", "Head",
    )  # fmt: skip
    expected = {
        11: "LeftShoulder", 13: "LeftUpperArm", 17: "LeftHand", 18: "RightHand", 19: "LeftToes",
        20: "RightToes", 21: "LeftEye", 22: "RightEye", 23: "Jaw", 24: "LeftThumbProximal",
        26: "LeftThumbDistal", 27: "LeftIndexProximal", 38: "LeftLittleDistal",
        39: "RightThumbProximal", 53: "RightLittleDistal", 54: "UpperChest",
    }  # fmt: skip
    for index, name in expected.items():
        assert HUMAN_BONES[index] == name
        assert bone_index(name) == index
    assert set(REQUIRED_BONES) <= set(HUMAN_BONES) and len(REQUIRED_BONES) == 15


# ---------------------------------------------------------------------------------------------
# Names alone.

NAME_CASES = [
    # name, side, kind
    ("LeftUpLeg", "Left", "upper_leg"),
    ("lThigh", "Left", "upper_leg"),
    ("LeftHip", "Left", "hip"),
    ("lHip", "Left", "hip"),
    ("UpperLeg_L", "Left", "upper_leg"),
    ("UpperLegL", "Left", "upper_leg"),
    ("mixamorig:LeftUpLeg", "Left", "upper_leg"),
    ("left_hip", "Left", "hip"),
    ("L_Thigh", "Left", "upper_leg"),
    ("Bip01 L Thigh", "Left", "upper_leg"),
    ("RightLeg", "Right", "leg"),
    ("RightKnee", "Right", "lower_leg"),
    ("rKnee", "Right", "lower_leg"),
    ("Calf_R", "Right", "lower_leg"),
    ("R_Shin", "Right", "lower_leg"),
    ("LeftFoot", "Left", "foot"),
    ("LeftAnkle", "Left", "ankle"),
    ("lAnkle", "Left", "ankle"),
    ("LeftToeBase", "Left", "toes"),
    ("LeftToe", "Left", "toes"),
    ("lToeJoint", "Left", "toes"),
    ("LeftCollar", "Left", "clavicle"),
    ("Clavicle_R", "Right", "clavicle"),
    ("lTorso_Clavicle", "Left", "clavicle"),
    ("LeftShoulder", "Left", "shoulder"),
    ("LeftArm", "Left", "arm"),
    ("LeftForeArm", "Left", "lower_arm"),
    ("LeftElbow", "Left", "lower_arm"),
    ("lElbow", "Left", "lower_arm"),
    ("LeftHand", "Left", "hand"),
    ("LeftWrist", "Left", "wrist"),
    ("lWrist", "Left", "wrist"),
    ("lhand", "Left", "hand"),
    ("LUArm", "Left", "upper_arm"),
    ("RFArm", "Right", "lower_arm"),
    ("LHipJoint", "Left", "hip"),
    ("LEFTUPLEG", "Left", "upper_leg"),
    ("uplegr", "Right", "upper_leg"),
    ("Hips", None, "hips"),
    ("pelvis", None, "hips"),
    ("Hip", None, "hips"),
    ("Spine1", None, "spine"),
    ("Chest2", None, "spine"),
    ("lowerback", None, "spine"),
    ("upperback", None, "spine"),
    ("thorax", None, "spine"),
    ("Abdomen", None, "spine"),
    ("Torso_1", None, "spine"),
    ("pelvis_lowerback", None, "spine"),
    ("Neck1", None, "neck"),
    ("lowerneck", None, "neck"),
    ("Head", None, "head"),
    ("torso_head", None, "head"),
    ("LeftEye", "Left", "eye"),
    ("Jaw", None, "jaw"),
    ("HeadTop_End", None, "ignored"),
    ("upperarm_twist_01_l", "Left", "ignored"),
    ("ik_foot_r", "Right", "ignored"),
    ("LeftEarTip", "Left", "ignored"),
    ("LFingers", "Left", "ignored"),
]


@pytest.mark.parametrize(("name", "side", "kind"), NAME_CASES)
def test_parse_name_reads_side_and_kind(name, side, kind):
    parsed = parse_name(name)
    assert (parsed.side, parsed.kind) == (side, kind)


@pytest.mark.parametrize(
    ("name", "side", "finger"),
    [
        ("LeftHandThumb1", "Left", 0),
        ("l_index1", "Left", 1),
        ("RightHandMiddle2", "Right", 2),
        ("Ring1L", "Left", 3),
        ("RightHandPinky3", "Right", 4),
        ("Bip01 L Finger0", "Left", 0),
        ("Bip01 L Finger01", "Left", 0),
        ("Bip01 R Finger12", "Right", 1),
        ("Bip01 R Finger4", "Right", 4),
        ("J_Bip_L_Little1", "Left", 4),
    ],
)
def test_parse_name_reads_fingers(name, side, finger):
    parsed = parse_name(name)
    assert (parsed.side, parsed.kind, parsed.finger) == (side, "finger", finger)


# ---------------------------------------------------------------------------------------------
# Whole rigs in many naming styles.


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_naming_style_maps_to_the_right_bones(style):
    skeleton, expected = build_rig(STYLES[style])
    result = map_skeleton(skeleton)
    assert result.mapping == expected
    assert result.missing == [bone for bone in HUMAN_BONES if bone not in expected]
    assert sorted(result.unused) == sorted(set(skeleton.names) - set(expected.values()))


@pytest.mark.parametrize("style", ["mixamo", "cgspeed_cmu", "games105", "smpl", "biped", "daz"])
def test_names_alone_map_like_the_skeleton(style):
    skeleton, expected = build_rig(STYLES[style])
    assert auto_map(skeleton.names) == expected


def test_shoulder_trap_settled_by_the_chain():
    cgspeed = map_skeleton(build_rig(STYLES["cgspeed_cmu"])[0]).mapping
    assert cgspeed["LeftUpperArm"] == "LeftShoulder"
    assert cgspeed["LeftShoulder"] == "LeftCollar"
    assert cgspeed["LeftUpperLeg"] == "LeftHip"
    assert "LeftHipJoint" not in cgspeed.values()
    mixamo = map_skeleton(build_rig(STYLES["mixamo"])[0]).mapping
    assert mixamo["LeftShoulder"] == "mixamorig:LeftShoulder"
    assert mixamo["LeftUpperArm"] == "mixamorig:LeftArm"
    smpl = map_skeleton(build_rig(STYLES["smpl"])[0]).mapping
    assert (smpl["LeftUpperArm"], smpl["LeftHand"], smpl["LeftToes"]) == (
        "left_shoulder",
        "left_wrist",
        "left_foot",
    )


def test_unnamed_legs_are_found_by_shape():
    skeleton, _ = build_rig(STYLES["mixamo"])
    names = [
        f"joint{j}" if "Leg" in n or "Foot" in n or "Toe" in n else n
        for j, n in enumerate(skeleton.names)
    ]
    renamed = Skeleton(names, skeleton.parents, skeleton.offsets)
    mapping = map_skeleton(renamed).mapping
    rest = renamed.rest_positions()
    left, right = (
        [renamed.index(mapping[side + r]) for r in ("UpperLeg", "LowerLeg", "Foot", "Toes")]
        for side in ("Left", "Right")
    )
    assert rest[left[2], 0] > 0 > rest[right[2], 0]  # left is +X
    for leg in (left, right):
        heights = rest[leg, 1]
        assert np.all(np.diff(heights) < 0)  # thigh above knee above ankle above toes
        assert heights[2] == pytest.approx(0.06)
    assert mapping["LeftShoulder"] == "mixamorig:LeftShoulder"


# ---------------------------------------------------------------------------------------------
# Real files.

EXPECTED_REAL = {
    "cmu_131_01.bvh": {
        "Hips": "Hips", "LeftUpperLeg": "LeftHip", "LeftLowerLeg": "LeftKnee",
        "LeftFoot": "LeftAnkle", "LeftToes": "LeftToe", "RightUpperLeg": "RightHip",
        "RightFoot": "RightAnkle", "Spine": "lowerback", "Chest": "Chest", "UpperChest": "Chest2",
        "Neck": "lowerneck", "Head": "Head", "LeftShoulder": "LeftCollar",
        "LeftUpperArm": "LeftShoulder", "LeftLowerArm": "LeftElbow", "LeftHand": "LeftWrist",
        "RightUpperArm": "RightShoulder", "RightHand": "RightWrist",
        "LeftThumbProximal": "LThumb",
    },
    "games105_walk60.bvh": {
        "Hips": "RootJoint", "LeftUpperLeg": "lHip", "LeftLowerLeg": "lKnee", "LeftFoot": "lAnkle",
        "LeftToes": "lToeJoint", "RightUpperLeg": "rHip", "RightFoot": "rAnkle",
        "Spine": "pelvis_lowerback", "Chest": "lowerback_torso", "Head": "torso_head",
        "LeftShoulder": "lTorso_Clavicle", "LeftUpperArm": "lShoulder", "LeftLowerArm": "lElbow",
        "LeftHand": "lWrist", "RightShoulder": "rTorso_Clavicle", "RightUpperArm": "rShoulder",
    },
    "mixamo_stepping.bvh": {
        "Hips": "mixamorig:Hips", "LeftUpperLeg": "mixamorig:LeftUpLeg",
        "LeftLowerLeg": "mixamorig:LeftLeg", "LeftFoot": "mixamorig:LeftFoot",
        "LeftToes": "mixamorig:LeftToeBase", "Spine": "mixamorig:Spine",
        "Chest": "mixamorig:Spine1", "UpperChest": "mixamorig:Spine2", "Neck": "mixamorig:Neck",
        "Head": "mixamorig:Head", "LeftEye": "mixamorig:LeftEye",
        "LeftShoulder": "mixamorig:LeftShoulder", "LeftUpperArm": "mixamorig:LeftArm",
        "LeftLowerArm": "mixamorig:LeftForeArm", "LeftHand": "mixamorig:LeftHand",
        "RightShoulder": "mixamorig:RightShoulder", "RightUpperArm": "mixamorig:RightArm",
        "RightHand": "mixamorig:RightHand",
        "LeftThumbProximal": "mixamorig:LeftHandThumb1",
        "LeftThumbDistal": "mixamorig:LeftHandThumb3",
        "LeftLittleProximal": "mixamorig:LeftHandPinky1",
        "RightIndexIntermediate": "mixamorig:RightHandIndex2",
        "RightRingDistal": "mixamorig:RightHandRing3",
        "RightMiddleProximal": "mixamorig:RightHandMiddle1",
    },
    "CesiumMan.glb": {
        "Hips": "Skeleton_torso_joint_1", "Spine": "Skeleton_torso_joint_2",
        "Chest": "torso_joint_3", "Neck": "Skeleton_neck_joint_1", "Head": "Skeleton_neck_joint_2",
        "LeftUpperLeg": "leg_joint_L_1", "LeftLowerLeg": "leg_joint_L_2",
        "LeftFoot": "leg_joint_L_3", "LeftToes": "leg_joint_L_5",
        "RightUpperLeg": "leg_joint_R_1", "RightFoot": "leg_joint_R_3",
        "LeftUpperArm": "Skeleton_arm_joint_L__4_", "LeftLowerArm": "Skeleton_arm_joint_L__3_",
        "LeftHand": "Skeleton_arm_joint_L__2_", "RightUpperArm": "Skeleton_arm_joint_R",
        "RightLowerArm": "Skeleton_arm_joint_R__2_", "RightHand": "Skeleton_arm_joint_R__3_",
    },
    "RobotExpressive.glb": {
        "Hips": "Hips", "Spine": "Abdomen", "Chest": "Torso_1", "Neck": "Neck", "Head": "Head",
        "LeftUpperLeg": "UpperLegL", "LeftLowerLeg": "LowerLegL", "LeftFoot": "FootL",
        "RightUpperLeg": "UpperLegR", "RightFoot": "FootR", "LeftShoulder": "ShoulderL",
        "LeftUpperArm": "UpperArmL", "LeftLowerArm": "LowerArmL", "RightUpperArm": "UpperArmR",
        "LeftThumbProximal": "ThumbL", "LeftThumbIntermediate": "Thumb2L",
        "LeftIndexProximal": "IndexL", "RightMiddleIntermediate": "Middle2R",
        "RightRingProximal": "Ring1R",
    },
}  # fmt: skip
EXPECTED_REAL["cmu_131_01_metres.bvh"] = EXPECTED_REAL["cmu_131_01.bvh"]
EXPECTED_REAL.update({
    "bvhio_example.bvh": {  # no toes; one spine joint ("Chest") under the hips
        "Hips": "Hips", "Spine": "Chest", "Neck": "Neck", "Head": "Head",
        "LeftUpperLeg": "LeftUpLeg", "LeftLowerLeg": "LeftLowLeg", "LeftFoot": "LeftFoot",
        "RightUpperLeg": "RightUpLeg", "RightLowerLeg": "RightLowLeg", "RightFoot": "RightFoot",
        "LeftShoulder": "LeftCollar", "LeftUpperArm": "LeftUpArm", "LeftLowerArm": "LeftLowArm",
        "LeftHand": "LeftHand", "RightShoulder": "RightCollar", "RightUpperArm": "RightUpArm",
        "RightLowerArm": "RightLowArm", "RightHand": "RightHand",
    },
    "cmu_01_01_fairmotion.bvh": {  # CMU's names in the fairmotion (Mixamo-like) spelling
        "Hips": "Hips", "LeftUpperLeg": "LeftUpLeg", "LeftLowerLeg": "LeftLeg",
        "LeftFoot": "LeftFoot", "LeftToes": "LeftToeBase", "RightUpperLeg": "RightUpLeg",
        "RightFoot": "RightFoot", "RightToes": "RightToeBase", "Spine": "LowerBack",
        "Chest": "Spine", "UpperChest": "Spine1", "Neck": "Neck", "Head": "Head",
        "LeftShoulder": "LeftShoulder", "LeftUpperArm": "LeftArm", "LeftLowerArm": "LeftForeArm",
        "LeftHand": "LeftHand", "RightUpperArm": "RightArm", "RightHand": "RightHand",
    },
    "mocapbank_zxy_cm.bvh": {  # the cgspeed trap again: LeftShoulder is the upper arm
        "Hips": "Hips", "Spine": "Chest", "Chest": "Chest2", "Neck": "Neck", "Head": "Head",
        "LeftUpperLeg": "LeftHip", "LeftLowerLeg": "LeftKnee", "LeftFoot": "LeftAnkle",
        "RightUpperLeg": "RightHip", "RightFoot": "RightAnkle", "LeftShoulder": "LeftCollar",
        "LeftUpperArm": "LeftShoulder", "LeftLowerArm": "LeftElbow", "LeftHand": "LeftWrist",
        "RightUpperArm": "RightShoulder", "RightHand": "RightWrist",
    },
    "pybvh_test1_zup_inches.bvh": {  # four spine joints onto three, two neck joints onto one
        "Hips": "Hips", "Spine": "Spine", "Chest": "Spine2", "UpperChest": "Spine3",
        "Neck": "Neck", "Head": "Head", "LeftUpperLeg": "LeftUpLeg", "LeftLowerLeg": "LeftLeg",
        "LeftFoot": "LeftFoot", "LeftToes": "LeftToeBase", "RightUpperLeg": "RightUpLeg",
        "RightToes": "RightToeBase", "LeftShoulder": "LeftShoulder", "LeftUpperArm": "LeftArm",
        "LeftLowerArm": "LeftForeArm", "LeftHand": "LeftHand", "RightUpperArm": "RightArm",
        "RightHand": "RightHand",
    },
})  # fmt: skip



def real_skeleton(path: Path) -> Skeleton:
    return bvh_skeleton(path) if path.suffix == ".bvh" else glb_skeleton(path)


def standing_rest(skeleton: Skeleton) -> np.ndarray:
    """Rest joint positions ``(J, 3)`` with the body standing up: pybvh_test1_zup_inches.bvh's
    rest pose lies on its side (it stands up through its root rotation), so it is turned
    upright the way the retargeter calibrates it."""
    from footfall.humanoid import upright_pose
    from footfall.skeleton import forward_kinematics

    pose = upright_pose(skeleton, map_skeleton(skeleton).mapping,
                        quat.identity((skeleton.joint_count,)))
    return forward_kinematics(skeleton.parents, pose, skeleton.offsets)[1]


REAL_FILES = HUMANOID_BVH_FILES + AVATAR_FILES


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_files_map_legs_arms_spine_head_and_fingers(path):
    skeleton = real_skeleton(path)
    result = map_skeleton(skeleton)
    for bone, source in EXPECTED_REAL[path.name].items():
        assert result.mapping.get(bone) == source, bone
    assert set(result.mapping.values()) <= set(skeleton.names)
    assert len(set(result.mapping.values())) == len(result.mapping)
    if path.name == "RobotExpressive.glb":  # only palm bones: no joint is named like a hand
        assert result.missing_required == ["LeftHand", "RightHand"]
    else:
        assert result.missing_required == []
    if path.name == "mixamo_stepping.bvh":
        fingers = [
            b
            for b in HUMAN_BONES
            if any(f in b for f in ("Thumb", "Index", "Middle", "Ring", "Little"))
        ]
        assert all(b in result.mapping for b in fingers) and len(fingers) == 30
        assert result.unused == ["mixamorig:HeadTop_End"]


@pytest.mark.parametrize(
    "skeleton",
    [
        *(real_skeleton(p) for p in HUMANOID_BVH_FILES),
        glb_skeleton(DATA / "avatars/CesiumMan.glb"),
        bunny_skeleton(),
    ],
    ids=[*(p.name for p in HUMANOID_BVH_FILES), "CesiumMan.glb", "bunny"],
)
def test_find_legs_on_real_rigs_and_the_bunny(skeleton):
    legs = find_legs(skeleton)
    rest = standing_rest(skeleton)
    assert set(legs) == {"left", "right"}
    lowest = rest[:, 1].min()
    for leg in legs.values():
        assert skeleton.parents[leg.lower] == leg.upper
        assert skeleton.parents[leg.foot] == leg.lower
        toeless = not skeleton.children(leg.foot)
        end = leg.foot if toeless else leg.toes
        if toeless:  # bvhio_example, mocapbank_zxy_cm: the leg ends at the ankle
            assert leg.toes is None
        else:
            assert leg.toes is not None and skeleton.parents[leg.toes] == leg.foot
        # measured on the rest pose: the leg hangs down and ends at the bottom of the rig
        assert rest[leg.upper, 1] > rest[leg.lower, 1] > rest[leg.foot, 1]
        assert rest[end, 1] - lowest < 0.06 * np.ptp(rest[:, 1])
        thigh = np.linalg.norm(rest[leg.lower] - rest[leg.upper])
        assert thigh > 0.1 * np.ptp(rest[:, 1])  # a real thigh, not the LHipJoint stub
    assert rest[legs["left"].foot, 0] > rest[legs["right"].foot, 0]  # left is +X (facing +Z)


def test_find_legs_on_the_bunny_is_its_named_leg():
    skeleton = bunny_skeleton()
    left = find_legs(skeleton)["left"]
    assert [skeleton.names[j] for j in left] == [
        "LeftUpperLeg",
        "LeftLowerLeg",
        "LeftFoot",
        "LeftToes",
    ]


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_find_arms_on_real_rigs(path):
    skeleton = real_skeleton(path)
    arms = find_arms(skeleton)
    for side, arm in arms.items():
        assert skeleton.parents[arm.lower] == arm.upper
        assert skeleton.parents[arm.hand] == arm.lower
        if arm.shoulder is not None:
            assert skeleton.parents[arm.upper] == arm.shoulder
        assert (
            skeleton.names[arm.upper] == EXPECTED_REAL[path.name][side.title() + "UpperArm"]
            or side == "right"
        )
    if (
        path.name == "RobotExpressive.glb"
    ):  # hand from structure: the palm leading to the middle finger
        assert skeleton.names[arms["left"].hand] == "Palm2L"


def test_a_four_joint_clip_is_no_humanoid_and_says_what_is_missing():
    # pybvh_rotation_first_root.bvh: Hips, Spine, Head and one "LeftLeg" — no legs to stand on.
    skeleton = real_skeleton(NOT_HUMANOID_BVH)
    result = map_skeleton(skeleton)
    assert result.mapping == {"Hips": "Hips", "Spine": "Spine", "Head": "Head",
                              "LeftLowerLeg": "LeftLeg"}
    assert {"LeftUpperLeg", "LeftFoot", "RightUpperLeg", "RightFoot",
            "LeftHand", "RightHand"} <= set(result.missing_required)
    with pytest.raises(MappingError, match=r"skeleton has no legs: no joint named like "
                       r"LeftUpperLeg, LeftFoot; .*RightUpperLeg, RightLowerLeg, RightFoot.*"
                       r"\(joints: Hips, Spine, Head, LeftLeg\)"):
        find_legs(skeleton)
    with pytest.raises(MappingError, match="skeleton has no arms: no joint maps to LeftUpperArm"):
        find_arms(skeleton)


def test_robot_feet_outside_the_leg_chain_are_no_legs():
    with pytest.raises(
        MappingError, match=r"skeleton has no legs: .*UpperLegL → LowerLegL → FootL"
    ):
        find_legs(glb_skeleton(DATA / "avatars/RobotExpressive.glb"))


def test_skeleton_without_legs_raises_mapping_error():
    torso = Skeleton(
        ["Hips", "Spine", "Head", "LeftArm", "LeftForeArm", "LeftHand"],
        np.array([-1, 0, 1, 1, 3, 4]),
        np.array([[0, 1, 0], [0, 0.2, 0], [0, 0.3, 0], [0.2, 0.1, 0], [0.3, 0, 0], [0.25, 0, 0]]),
    )
    with pytest.raises(MappingError, match="skeleton has no legs"):
        find_legs(torso)
    with pytest.raises(FootfallError, match="skeleton has no legs"):
        find_legs(Skeleton(["root"], np.array([-1]), np.zeros((1, 3))))
    with pytest.raises(MappingError, match="skeleton has no arms: no joint maps to RightUpperArm"):
        find_arms(torso)


# ---------------------------------------------------------------------------------------------
# Mapping files and overrides.


def test_json_override_file_wins_over_the_guess(tmp_path):
    skeleton = real_skeleton(DATA / "bvh/cmu_131_01_metres.bvh")
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"LeftUpperLeg": "LHipJoint", "Neck": "Neck", "Jaw": None}))
    result = map_skeleton(skeleton, override=path)
    assert result.mapping["LeftUpperLeg"] == "LHipJoint"
    assert result.mapping["Neck"] == "Neck"
    assert "LeftHip" in result.unused and "LHipJoint" not in result.unused
    assert result.mapping["RightUpperLeg"] == "RightHip"  # the rest is still guessed
    # a joint the override takes is removed from the bone that had guessed it
    moved = map_skeleton(skeleton, override={"LeftLowerLeg": "LeftHip"}).mapping
    assert moved["LeftLowerLeg"] == "LeftHip" and "LeftUpperLeg" not in moved
    unmapped = map_skeleton(skeleton, override={"LeftToes": None})
    assert "LeftToes" in unmapped.missing and "LeftToe" in unmapped.unused


def test_save_and_load_mapping_round_trip(tmp_path):
    skeleton = real_skeleton(DATA / "bvh/mixamo_stepping.bvh")
    mapping = auto_map(skeleton)
    path = tmp_path / "mixamo.json"
    save_mapping(path, mapping)
    assert load_mapping(path, skeleton) == mapping
    assert map_skeleton(skeleton, override=path).mapping == mapping


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"Hips": "Hips",', r"map\.json:1:\d+: not valid JSON"),
        ("", r"map\.json:1:1: not valid JSON"),
        ('["Hips"]', "expected a JSON object .* got list"),
        (
            '{"LeftUpLeg": "LeftHip"}',
            r"unknown canonical bone name\(s\): 'LeftUpLeg' \(did you mean 'LeftUpperLeg'\?\)",
        ),
        ('{"Hips": 3}', r"joint names must be strings or null: Hips=3"),
        (
            '{"Hips": "Pelvis", "Head": "Skull"}',
            r"joint\(s\) not in the skeleton: Hips='Pelvis', Head='Skull'",
        ),
        ('{"Hips": "Hips", "Spine": "Hips"}', "joint 'Hips' is given to both Hips and Spine"),
    ],
)
def test_malformed_mapping_files_raise_mapping_error(tmp_path, text, message):
    skeleton = real_skeleton(DATA / "bvh/cmu_131_01_metres.bvh")
    path = tmp_path / "map.json"
    path.write_text(text)
    with pytest.raises(MappingError, match=message):
        load_mapping(path, skeleton)
    with pytest.raises(MappingError, match=message):
        map_skeleton(skeleton, override=path)


def test_unreadable_mapping_file_and_bad_override_dict(tmp_path):
    with pytest.raises(MappingError, match=r"nothing\.json: cannot read mapping file"):
        load_mapping(tmp_path / "nothing.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MappingError, match="binary.json"):
        load_mapping(binary)
    skeleton = bunny_skeleton()
    with pytest.raises(
        MappingError, match=r"override: joint\(s\) not in the skeleton: Hips='Pelvis'"
    ):
        map_skeleton(skeleton, override={"Hips": "Pelvis"})
    with pytest.raises(MappingError, match="unknown canonical bone"):
        map_skeleton(skeleton, override={"Tail": "Tail"})


def test_sideless_limb_names_take_their_side_from_the_rest_pose():
    names = ["Hip", "Spine", "Head", "Thigh1", "Knee1", "Ankle1", "Thigh2", "Knee2", "Ankle2"]
    offsets = [
        [0, 1, 0], [0, 0.2, 0], [0, 0.4, 0],
        [-0.1, -0.05, 0], [0, -0.45, 0], [0, -0.45, 0],
        [0.1, -0.05, 0], [0, -0.45, 0], [0, -0.45, 0],
    ]  # fmt: skip
    skeleton = Skeleton(names, np.array([-1, 0, 1, 0, 3, 4, 0, 6, 7]), np.array(offsets))
    result = map_skeleton(skeleton)
    assert result.mapping["LeftUpperLeg"] == "Thigh2"  # +X is the character's left
    assert result.mapping["RightFoot"] == "Ankle1"
    assert result.mapping["Hips"] == "Hip"
    legs = find_legs(skeleton)
    assert [skeleton.names[j] for j in legs["left"][:3]] == ["Thigh2", "Knee2", "Ankle2"]
    assert legs["left"].toes is None


def test_unknown_rig_maps_what_it_can_and_reports_the_rest():
    names = ["Root", "Torso", "Skull", "Flipper", "Tentacle"]
    offsets = [[0, 1, 0], [0, 0.3, 0], [0, 0.3, 0], [0.3, 0, 0], [0, -0.5, 0]]
    skeleton = Skeleton(names, np.array([-1, 0, 1, 1, 0]), np.array(offsets))
    result = map_skeleton(skeleton)
    assert result.mapping == {"Hips": "Root", "Spine": "Torso"}
    assert result.missing == [bone for bone in HUMAN_BONES if bone not in ("Hips", "Spine")]
    assert result.unused == ["Skull", "Flipper", "Tentacle"]
    assert "Head" in result.missing_required
    with pytest.raises(
        MappingError, match="skeleton has no legs: no joint named like LeftUpperLeg"
    ):
        find_legs(skeleton)


def test_stood_up_rests_like_the_upright_pose_with_world_aligned_joints() -> None:
    from footfall.humanoid import stood_up

    lying = bvh_skeleton(DATA / "bvh" / "pybvh_test1_zup_inches.bvh")
    mapping = map_skeleton(lying).mapping
    standing = stood_up(lying, mapping)
    assert standing is not lying and standing.names == lying.names
    np.testing.assert_allclose(standing.rest_positions(), standing_rest(lying), atol=1e-12)
    upright = bvh_skeleton(DATA / "bvh" / "mixamo_stepping.bvh")
    assert stood_up(upright, map_skeleton(upright).mapping) is upright
