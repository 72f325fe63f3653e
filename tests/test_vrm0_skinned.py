"""A VRM 0.x avatar with a skinned mesh is the same avatar as its VRM 1.0 original.

VRM 0.x models face −Z and footfall turns their skeleton 180° about Y to face +Z; the mesh
must be turned with it, or the feet's sole points, the hands' reach, the body's surface points
and the preview sheet are read from a mesh facing the other way. No shared VRM sample has a
skinned mesh, so CesiumMan is written as VRM 1.0 and then as VRM 0.x twice (``vrm_files``):
turned by a root node, and with the turn written into its vertices, node transforms and inverse
bind matrices as a VRM 0.x exporter does. In footfall's frame all three give the same rest
mesh, feet, hands and body; retargeted with ``footfall retarget`` and skinned as glTF defines
(``skinned_feet``, in the file's own space, where the floor is y = 0 whichever way the model
faces), the VRM 0.x output is the VRM 1.0 output turned 180° about Y, planted soles on the
floor.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh, quat
from footfall.cli import main
from footfall.gltf import Avatar, load_avatar
from footfall.humanoid import map_skeleton
from footfall.skeleton import forward_kinematics
from footfall.skinning import (
    avatar_body,
    avatar_feet,
    avatar_hands,
    rest_mesh,
    sole_foot_models,
)
from skinned_feet import planted_sole, skin, source_contacts
from vrm_files import (
    CESIUM_BONES,
    TURN,
    _strided_floats,
    read_glb,
    vrm0_from_vrm1,
    vrm1_from_gltf,
    world_matrices,
)

CESIUM = DATA / "avatars" / "CesiumMan.glb"
CLIP = DATA / "bvh" / "games105_walk60.bvh"
FRAMES = 300
TOLERANCE = 1e-5  # metres
VRM0_FORMS = ("root", "baked")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """CesiumMan as VRM 1.0 (``"1.0"``) and as VRM 0.x turned by a root node (``"root"``) or
    in its geometry (``"baked"``)."""
    folder = tmp_path_factory.mktemp("vrm0_skinned")
    one = vrm1_from_gltf(CESIUM, folder / "cesium_vrm1.vrm", CESIUM_BONES)
    return {"1.0": one,
            "root": vrm0_from_vrm1(one, folder / "cesium_vrm0_root.vrm"),
            "baked": vrm0_from_vrm1(one, folder / "cesium_vrm0_baked.vrm", baked=True)}


def _file_space_rest_vertices(path: Path) -> np.ndarray:
    """``(V, 3)`` the rest mesh of a one-skin GLB, skinned here from the file alone (joint world
    × inverse bind matrix, blended by the weights), in the file's own space."""
    document, blob = read_glb(path)
    world = world_matrices(document)
    (skin_,) = document["skins"]
    (node,) = [n for n in document["nodes"] if "skin" in n]
    (primitive,) = document["meshes"][node["mesh"]]["primitives"]
    inverse_bind = _strided_floats(document, blob, skin_["inverseBindMatrices"])
    joint_matrices = np.stack([world[j] for j in skin_["joints"]]) @ inverse_bind.reshape(
        -1, 4, 4).transpose(0, 2, 1)
    accessors = document["accessors"]
    joints_accessor = accessors[primitive["attributes"]["JOINTS_0"]]
    view = document["bufferViews"][joints_accessor["bufferView"]]
    assert joints_accessor["componentType"] == 5123
    joints = np.ndarray((joints_accessor["count"], 4), dtype="<u2", buffer=blob,
                        offset=view.get("byteOffset", 0) + joints_accessor.get("byteOffset", 0),
                        strides=(view.get("byteStride", 8), 2)).astype(int)
    weights = _strided_floats(document, blob, primitive["attributes"]["WEIGHTS_0"])
    weights /= weights.sum(-1, keepdims=True)
    positions = _strided_floats(document, blob, primitive["attributes"]["POSITION"])
    blended = np.einsum("vk,vkij->vij", weights, joint_matrices[joints])
    return np.einsum("vij,vj->vi", blended[:, :3, :3], positions) + blended[:, :3, 3]


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_the_vrm0_files_face_minus_z(files: dict[str, Path], form: str) -> None:
    """The test files themselves, read without footfall: the VRM 0.x mesh is the VRM 1.0 mesh
    turned 180° about Y, the floor still at y = 0."""
    one = _file_space_rest_vertices(files["1.0"])
    zero = _file_space_rest_vertices(files[form])
    np.testing.assert_allclose(zero, one * TURN, atol=TOLERANCE)
    assert abs(zero[:, 1].min()) < 1e-3
    assert one[:, 2].max() > 0.15 > -one[:, 2].min()  # CesiumMan's toes point to +Z


def _load(path: Path) -> tuple[Avatar, dict[str, str]]:
    avatar = load_avatar(path)
    return avatar, map_skeleton(avatar.skeleton, avatar.target_mapping()).mapping


def test_the_vrm1_file_is_cesium_man(files: dict[str, Path]) -> None:
    """The VRM 1.0 file reads as CesiumMan.glb does (its bones given, not guessed)."""
    plain, vrm1 = rest_mesh(load_avatar(CESIUM)), rest_mesh(load_avatar(files["1.0"]))
    assert plain is not None and vrm1 is not None
    np.testing.assert_allclose(vrm1[0], plain[0], atol=TOLERANCE)


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_rest_mesh_is_turned_with_the_skeleton(files: dict[str, Path], form: str) -> None:
    one, zero = load_avatar(files["1.0"]), load_avatar(files[form])
    np.testing.assert_allclose(zero.rest_clip().global_positions()[0],
                               one.rest_clip().global_positions()[0], atol=TOLERANCE)
    mesh_one, mesh_zero = rest_mesh(one), rest_mesh(zero)
    assert mesh_one is not None and mesh_zero is not None
    np.testing.assert_allclose(mesh_zero[0], mesh_one[0], atol=TOLERANCE)
    np.testing.assert_array_equal(mesh_zero[1], mesh_one[1])
    order = [zero.skeleton.index(name) for name in one.skeleton.names]
    np.testing.assert_allclose(mesh_zero[2][:, order], mesh_one[2], atol=1e-7)


def _same_points(a: np.ndarray, b: np.ndarray) -> None:
    """Two point sets ``(P, 3)``, ``(Q, 3)`` each within :data:`TOLERANCE` of the other."""
    gaps = np.linalg.norm(a[:, None] - b[None], axis=-1)
    assert gaps.min(axis=1).max() < TOLERANCE and gaps.min(axis=0).max() < TOLERANCE


def _rest(avatar: Avatar) -> tuple[np.ndarray, np.ndarray]:
    return forward_kinematics(avatar.skeleton.parents, avatar.rest_rotations,
                              avatar.skeleton.offsets)


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_feet_are_the_same(files: dict[str, Path], form: str) -> None:
    """Sole points (in the world of the rest pose: the joints' own frames differ by the turn)
    and the grounding's foot models."""
    results = []
    for key in ("1.0", form):
        avatar, mapping = _load(files[key])
        feet = avatar_feet(avatar, avatar.target_mapping())
        assert feet is not None and feet.from_mesh
        world, positions = _rest(avatar)
        soles = [positions[avatar.skeleton.index(mapping[bone])]
                 + quat.rotate(world[avatar.skeleton.index(mapping[bone])],
                               feet.foot_points[side])
                 for side, bone in enumerate(("LeftFoot", "RightFoot"))]
        results.append((avatar, mapping, feet, soles))
    for side in range(2):
        _same_points(results[0][3][side], results[1][3][side])
    lowest = [feet.lowest(avatar.skeleton, mapping, avatar.rest_rotations)
              for avatar, mapping, feet, _ in results]
    np.testing.assert_allclose(lowest[1], lowest[0], atol=TOLERANCE)
    assert np.all(np.abs(lowest[0]) < 0.01)  # CesiumMan's soles stand on y = 0 at rest
    models = [sole_foot_models(avatar.skeleton, mapping, avatar.rest_rotations, feet)
              for avatar, mapping, feet, _ in results]
    for one, zero in zip(*models, strict=True):
        for name in ("ankle_height", "heel_back", "toe_forward"):
            assert getattr(zero, name) == pytest.approx(getattr(one, name), abs=TOLERANCE), name


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_hands_and_body_are_the_same(files: dict[str, Path], form: str) -> None:
    one, zero = load_avatar(files["1.0"]), load_avatar(files[form])
    hands = [avatar_hands(a, a.target_mapping()) for a in (one, zero)]
    assert hands[0] is not None and hands[1] is not None
    np.testing.assert_allclose(hands[1], hands[0], atol=TOLERANCE)
    assert np.all(hands[0] < 0.3)  # a hand, not the arm span
    points = []
    for avatar in (one, zero):
        body = avatar_body(avatar, avatar.target_mapping())
        assert body is not None
        world, positions = _rest(avatar)
        located = positions[body.joints] + quat.rotate(world[body.joints], body.offsets)
        points.append([located[body.part == part] for part in np.unique(body.part)])
    assert len(points[0]) == len(points[1])
    for a, b in zip(*points, strict=True):
        _same_points(a, b)


@pytest.fixture(scope="module")
def retargeted(files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
               ) -> dict[str, tuple[Path, Path]]:
    """``{form: (output, preview)}`` of ``footfall retarget`` of :data:`CLIP`'s first
    :data:`FRAMES` frames onto each file."""
    folder = tmp_path_factory.mktemp("vrm0_retarget")
    source = folder / CLIP.name
    bvh.save(bvh.load(CLIP)[:FRAMES], source)
    out = {}
    for key, avatar in files.items():
        output, preview = folder / f"{key}.vrm", folder / f"{key}.png"
        assert main(["retarget", str(source), "--to", str(avatar), "-o", str(output),
                     "--preview", str(preview), "--quiet"]) == 0
        out[key] = (output, preview)
    return out


def _skinned(path: Path) -> object:
    """``skinned_feet.skin`` of a .vrm output (pygltflib picks the reader by suffix)."""
    glb = path.with_suffix(".glb")
    shutil.copyfile(path, glb)
    return skin(glb, (CESIUM_BONES["leftFoot"], CESIUM_BONES["rightFoot"]))


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_retargeted_vrm0_stands_as_vrm1(retargeted: dict[str, tuple[Path, Path]],
                                        form: str) -> None:
    """Skinned from the written files: the VRM 0.x output is the VRM 1.0 output turned
    (so its planted soles are on the floor as the 1.0 file's), and both stand."""
    one, zero = _skinned(retargeted["1.0"][0]), _skinned(retargeted[form][0])
    assert zero.vertices.shape == one.vertices.shape  # type: ignore[attr-defined]
    gap = np.abs(zero.vertices - one.vertices * TURN).max()  # type: ignore[attr-defined]
    assert gap < 1e-4, gap
    contacts = source_contacts(bvh.load(CLIP)[:FRAMES])
    figures = {key: planted_sole(s, contacts) for key, s in (("1.0", one), (form, zero))}  # type: ignore[arg-type]
    for key, numbers in figures.items():
        assert numbers["stance_frames"] > 50, (key, numbers)
        assert numbers["share_in_band"] >= 0.9, (key, numbers)
        assert numbers["lowest_foot"] >= -0.01, (key, numbers)
    for name in ("left_median", "right_median", "lowest_vertex"):
        assert figures[form][name] == pytest.approx(figures["1.0"][name], abs=1e-4), name


@pytest.mark.parametrize("form", VRM0_FORMS)
def test_preview_sheet_is_the_vrm1_sheet(retargeted: dict[str, tuple[Path, Path]],
                                         form: str) -> None:
    """The contact sheet draws the same avatar (its mesh turned with its bones)."""
    from PIL import Image

    one = np.asarray(Image.open(retargeted["1.0"][1]).convert("L"), dtype=float)
    zero = np.asarray(Image.open(retargeted[form][1]).convert("L"), dtype=float)
    assert one.shape == zero.shape
    assert np.abs(one - zero).mean() < 1.0  # grey levels: the titles name other files
