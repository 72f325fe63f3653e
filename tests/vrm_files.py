"""VRM test files made from the shared VRM 1.0 samples, and a reader of GLB files of its own.

No VRM 0.x sample with a clear licence exists in the shared data, so the VRM 0.x files are the
two VRM 1.0 samples rewritten as VRM 0.x stores a model: the bone map as a list of
``{"bone", "node"}`` under ``extensions.VRM``, VRM 0.x's bone names (the thumb's three bones
are ``Proximal, Intermediate, Distal`` where VRM 1.0 says ``Metacarpal, Proximal, Distal``),
VRM 0.x's meta fields, and the model facing −Z: the whole scene turned 180° about Y under a new
root node, or (``baked=True``) the turn written into the geometry itself as UniVRM's VRM 0.x
exporter leaves it — vertex positions, normals and tangents, node transforms and inverse bind
matrices all turned, no turning node. No shared VRM sample has a skinned mesh, so CesiumMan (a
plain skinned glTF facing +Z) is also written as a VRM 1.0 file (:func:`vrm1_from_gltf`, its
bones named in :data:`CESIUM_BONES`) to turn into VRM 0.x. Everything here reads and writes GLB
with ``struct`` and ``json`` alone, so the tests see the files independently of
``footfall.gltf``.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from conftest import DATA

VRM1_FILES = [DATA / "avatars" / "vrm1_debug_robot.vrm",
              DATA / "avatars" / "vrm1_mtoon_uv_test.vrm"]
#: VRM 1.0's thumb names → VRM 0.x's (every other bone has the same name in both).
THUMB_1_TO_0 = {f"{side}Thumb{one}": f"{side}Thumb{zero}" for side in ("left", "right")
                for one, zero in (("Metacarpal", "Proximal"), ("Proximal", "Intermediate"),
                                  ("Distal", "Distal"))}


#: VRM 1.0 bone name → Unity HumanBodyBones name, spelled out here (the thumb: one segment
#: further in in Unity, as in VRM 0.x).
UNITY_NAMES = {**{one: one[0].upper() + one[1:] for one in (
    "hips", "spine", "chest", "upperChest", "neck", "head", "jaw", "leftEye", "rightEye",
    *(f"{side}{part}" for side in ("left", "right") for part in (
        "UpperLeg", "LowerLeg", "Foot", "Toes", "Shoulder", "UpperArm", "LowerArm", "Hand",
        *(f"{finger}{segment}" for finger in ("Index", "Middle", "Ring", "Little")
          for segment in ("Proximal", "Intermediate", "Distal")))))},
    **{f"{side}Thumb{one}": f"{side.title()}Thumb{zero}" for side in ("left", "right")
       for one, zero in (("Metacarpal", "Proximal"), ("Proximal", "Intermediate"),
                         ("Distal", "Distal"))}}


def read_glb(path: Path) -> tuple[dict[str, Any], bytes]:
    """(JSON document, BIN chunk) of a GLB file."""
    data = path.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data)), path
    json_length, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    document = json.loads(data[20:20 + json_length])
    at = 20 + json_length
    blob = b""
    if at < len(data):
        bin_length, kind = struct.unpack_from("<I4s", data, at)
        assert kind == b"BIN\0"
        blob = data[at + 8:at + 8 + bin_length]
    return document, blob


def write_glb(path: Path, document: dict[str, Any], blob: bytes) -> None:
    """A GLB file of ``document`` and ``blob`` (chunks padded to 4 bytes)."""
    text = json.dumps(document, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob),
                                                                          b"BIN\0") + blob
    path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)


def rewrite(source: Path, target: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """``source`` with its JSON document changed in place by ``change``, written as
    ``target``."""
    document, blob = read_glb(source)
    change(document)
    write_glb(target, document, blob)
    return target


def vrm0_from_vrm1(source: Path, target: Path, baked: bool = False) -> Path:
    """Write ``source`` (VRM 1.0) as a VRM 0.x file ``target`` (see the module docstring):
    turned by a new root node, or with the turn written into the geometry (``baked``)."""

    def to_vrm0(document: dict[str, Any]) -> None:
        vrm1 = document["extensions"].pop("VRMC_vrm")
        meta = vrm1["meta"]
        bones = [{"bone": THUMB_1_TO_0.get(name, name), "node": entry["node"],
                  "useDefaultValues": True}
                 for name, entry in vrm1["humanoid"]["humanBones"].items()]
        document["extensions"]["VRM"] = {
            "exporterVersion": "footfall tests", "specVersion": "0.0",
            "meta": {"title": meta["name"], "version": meta.get("version", ""),
                     "author": ", ".join(meta["authors"]), "allowedUserName": "Everyone",
                     "violentUssageName": "Allow", "sexualUssageName": "Allow",
                     "commercialUssageName": "Allow", "licenseName": "Other",
                     "otherLicenseUrl": meta["licenseUrl"]},
            "humanoid": {"humanBones": bones},
        }
        document["extensionsUsed"] = ["VRM" if e == "VRMC_vrm" else e
                                      for e in document["extensionsUsed"]]
        if baked:
            return
        scene = document["scenes"][document.get("scene", 0)]
        document["nodes"].append({"name": "vrm0_facing_minus_z", "rotation": [0.0, 1.0, 0.0, 0.0],
                                  "children": scene["nodes"]})
        scene["nodes"] = [len(document["nodes"]) - 1]

    if not baked:
        return rewrite(source, target, to_vrm0)
    document, blob = read_glb(source)
    to_vrm0(document)
    write_glb(target, document, turn_about_y(document, blob))
    return target


#: The 180° turn about Y as a sign per axis: (x, y, z) → (−x, y, −z).
TURN = np.array([-1.0, 1.0, -1.0])


def turn_about_y(document: dict[str, Any], blob: bytes) -> bytes:
    """Turn the scene of ``document`` 180° about Y in the geometry itself, as a VRM 0.x
    exporter writes a model facing −Z: every node's transform ``M → T M T`` (T the turn),
    vertex positions, normals, tangents and morph target deltas ``v → T v``, inverse bind
    matrices ``B → T B T``, so that every world matrix becomes ``T W T`` and every skinned
    vertex ``T x``. The turned values are appended to ``blob`` (returned) in new buffer views;
    ``document`` is changed in place. Files with animations are refused."""
    assert not document.get("animations"), "animations are not turned"
    for node in document["nodes"]:
        if "matrix" in node:
            sign = np.append(TURN, 1.0)
            matrix = np.array(node["matrix"]).reshape(4, 4).T * np.outer(sign, sign)
            node["matrix"] = matrix.T.ravel().tolist()
        if "translation" in node:
            node["translation"] = (np.array(node["translation"]) * TURN).tolist()
        if "rotation" in node:  # (x, y, z, w): the axis turned, the angle kept
            node["rotation"] = (np.array(node["rotation"]) * np.append(TURN, 1.0)).tolist()
    vectors: set[int] = set()
    for mesh in document.get("meshes", []):
        for primitive in mesh["primitives"]:
            for attributes in (primitive["attributes"], *primitive.get("targets", [])):
                vectors |= {attributes[key] for key in ("POSITION", "NORMAL", "TANGENT")
                            if key in attributes}
    matrices = {skin["inverseBindMatrices"] for skin in document.get("skins", [])
                if "inverseBindMatrices" in skin}
    out = bytearray(blob)
    for index in sorted(vectors | matrices):
        values = _strided_floats(document, blob, index)
        if index in matrices:  # column-major T B T: the same signs on rows and columns
            sign = np.append(TURN, 1.0)
            values = values * np.outer(sign, sign).T.ravel()
        else:  # VEC3, or a VEC4 tangent whose w (handedness) is kept
            values = values * np.append(TURN, 1.0)[: values.shape[1]]
        out += b"\0" * (-len(out) % 4)
        accessor = document["accessors"][index]
        document["bufferViews"].append({"buffer": 0, "byteOffset": len(out),
                                        "byteLength": values.size * 4})
        out += values.astype("<f4").tobytes()
        accessor["bufferView"] = len(document["bufferViews"]) - 1
        accessor.pop("byteOffset", None)
        if "min" in accessor and "max" in accessor:
            ends = values.astype("<f4").astype(float)
            accessor["min"], accessor["max"] = ends.min(0).tolist(), ends.max(0).tolist()
    out += b"\0" * (-len(out) % 4)
    document["buffers"][0]["byteLength"] = len(out)
    return bytes(out)


def _strided_floats(document: dict[str, Any], blob: bytes, index: int) -> np.ndarray:
    """``(count, width)`` float values of accessor ``index``, interleaved views included."""
    accessor = document["accessors"][index]
    assert accessor["componentType"] == 5126 and "sparse" not in accessor
    view = document["bufferViews"][accessor["bufferView"]]
    width = {"VEC3": 3, "VEC4": 4, "MAT4": 16}[accessor["type"]]
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    stride = view.get("byteStride", 4 * width)
    rows = np.ndarray((accessor["count"], width), dtype="<f4", buffer=blob, offset=start,
                      strides=(stride, 4))
    return rows.astype(np.float64)


#: CesiumMan's joints (node names) by VRM 1.0 bone name.
CESIUM_BONES = {
    "hips": "Skeleton_torso_joint_1", "spine": "Skeleton_torso_joint_2",
    "chest": "torso_joint_3", "neck": "Skeleton_neck_joint_1", "head": "Skeleton_neck_joint_2",
    "leftUpperLeg": "leg_joint_L_1", "leftLowerLeg": "leg_joint_L_2",
    "leftFoot": "leg_joint_L_3", "leftToes": "leg_joint_L_5",
    "rightUpperLeg": "leg_joint_R_1", "rightLowerLeg": "leg_joint_R_2",
    "rightFoot": "leg_joint_R_3", "rightToes": "leg_joint_R_5",
    "leftUpperArm": "Skeleton_arm_joint_L__4_", "leftLowerArm": "Skeleton_arm_joint_L__3_",
    "leftHand": "Skeleton_arm_joint_L__2_",
    "rightUpperArm": "Skeleton_arm_joint_R", "rightLowerArm": "Skeleton_arm_joint_R__2_",
    "rightHand": "Skeleton_arm_joint_R__3_",
}


def vrm1_from_gltf(source: Path, target: Path, bones: dict[str, str]) -> Path:
    """Write the plain glTF ``source`` (a model facing +Z, as VRM 1.0's) as a VRM 1.0 file
    ``target``: ``bones`` ``{VRM 1.0 bone: node name}`` as its humanoid, a meta naming the
    source, its animations left out (an avatar file holds none)."""

    def to_vrm1(document: dict[str, Any]) -> None:
        node_of = {node.get("name"): index for index, node in enumerate(document["nodes"])}
        document.pop("animations", None)
        document.setdefault("extensions", {})["VRMC_vrm"] = {
            "specVersion": "1.0",
            "meta": {"name": source.stem, "authors": ["footfall tests"],
                     "licenseUrl": "https://vrm.dev/licenses/1.0/"},
            "humanoid": {"humanBones": {bone: {"node": node_of[name]}
                                        for bone, name in bones.items()}},
        }
        document["extensionsUsed"] = [*document.get("extensionsUsed", []), "VRMC_vrm"]

    return rewrite(source, target, to_vrm1)


def avatar_files(folder: Path) -> dict[str, Path]:
    """The four test avatars by id (``debug_robot-1.0``, ``debug_robot-0.x``, …): each VRM 1.0
    sample, and its VRM 0.x rewrite written into ``folder``."""
    out = {}
    for path in VRM1_FILES:
        name = path.stem.removeprefix("vrm1_")
        out[f"{name}-1.0"] = path
        out[f"{name}-0.x"] = vrm0_from_vrm1(path, folder / f"vrm0_{name}.vrm")
    return out


def bone_nodes(document: dict[str, Any]) -> dict[str, int]:
    """``{VRM 1.0 bone name: node}`` of a VRM 0.x or 1.0 document, read here."""
    extensions = document["extensions"]
    if "VRMC_vrm" in extensions:
        return {name: entry["node"]
                for name, entry in extensions["VRMC_vrm"]["humanoid"]["humanBones"].items()}
    zero_to_one = {zero: one for one, zero in THUMB_1_TO_0.items()}
    return {zero_to_one.get(entry["bone"], entry["bone"]): entry["node"]
            for entry in extensions["VRM"]["humanoid"]["humanBones"]}


# ------------------------------------------------------------------ an evaluator of our own


def _quat_matrix(x: float, y: float, z: float, w: float) -> np.ndarray:
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _floats(document: dict[str, Any], blob: bytes, index: int) -> np.ndarray:
    accessor = document["accessors"][index]
    view = document["bufferViews"][accessor["bufferView"]]
    assert accessor["componentType"] == 5126 and "byteStride" not in view
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return np.frombuffer(blob, "<f4", accessor["count"] * width, start).reshape(-1, width)


def world_positions_at_key(path: Path, key: int) -> dict[int, np.ndarray]:
    """``{node: world position (3,)}`` of every node of GLB ``path`` with the animation's key
    ``key`` applied (every channel keyed at the same times), in the file's own space."""
    document, blob = read_glb(path)
    nodes = [dict(node) for node in document["nodes"]]
    for channel in document["animations"][0]["channels"]:
        sampler = document["animations"][0]["samplers"][channel["sampler"]]
        value = _floats(document, blob, sampler["output"])[key]
        nodes[channel["target"]["node"]][channel["target"]["path"]] = value.tolist()
    return {index: matrix[:3, 3] for index, matrix in world_matrices(document, nodes).items()}


def world_matrices(document: dict[str, Any], nodes: list[dict[str, Any]] | None = None
                   ) -> dict[int, np.ndarray]:
    """``{node: world matrix (4, 4)}`` of the scene's nodes (``nodes``: the document's own,
    or changed copies of them), in the file's space."""
    nodes = document["nodes"] if nodes is None else nodes
    world: dict[int, np.ndarray] = {}
    stack = [(root, np.eye(4)) for root in document["scenes"][document.get("scene", 0)]["nodes"]]
    while stack:
        index, above = stack.pop()
        node = nodes[index]
        local = np.eye(4)
        if "matrix" in node:
            local = np.array(node["matrix"]).reshape(4, 4).T
        else:
            local[:3, :3] = _quat_matrix(*node.get("rotation", [0, 0, 0, 1])) * node.get(
                "scale", [1, 1, 1])
            local[:3, 3] = node.get("translation", [0, 0, 0])
        world[index] = above @ local
        stack.extend((child, world[index]) for child in node.get("children", []))
    return world
