"""``--preview`` draws a VRM avatar as its mesh too (issue 35 item 5).

The shared VRM 1.0 samples have no skin: their meshes are rigid parts hung on the bones (the
debug robot: three blocks on every bone; the MToon test: three planes on the hips). The sheet
draws those parts filled and lit, held by their bones, with the avatar's bones over them. The
parts are checked against the file read and evaluated here (``vrm_files``), in a pose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh, quat
from footfall.gltf import load_avatar
from footfall.retarget import preview
from footfall.retarget.preview import skin_vertices
from footfall.skeleton import Clip
from footfall.skinning import rest_mesh
from test_retarget_preview import _solid
from vrm_files import VRM1_FILES, _floats, _quat_matrix, read_glb, world_matrices

TOLERANCE = 1e-5  # metres; the files hold float32
#: Bones turned for the posed check (VRM 1.0 name, axis, degrees).
TURNS = [("hips", (0.0, 1.0, 0.0), 30.0), ("leftLowerLeg", (1.0, 0.0, 0.0), 60.0),
         ("rightUpperArm", (0.0, 0.0, 1.0), -45.0)]


def _axis_matrix(axis: tuple[float, float, float], degrees: float) -> np.ndarray:
    """Rodrigues' rotation matrix (3, 3), written here."""
    k = np.asarray(axis) / np.linalg.norm(axis)
    a = np.radians(degrees)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(a) * cross + (1 - np.cos(a)) * cross @ cross


def _file_parts(path: Path, turns: list[tuple[str, tuple[float, float, float], float]]
                ) -> tuple[np.ndarray, int]:
    """The file's mesh vertices ``(V, 3)`` under its hips (node order, primitive order), with
    each bone of ``turns`` turned in its own frame, and their triangle count — evaluated from
    the JSON and the buffer alone."""
    document, blob = read_glb(path)
    humans = document["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
    nodes: list[dict[str, Any]] = [dict(node) for node in document["nodes"]]
    for bone, axis, degrees in turns:
        node = nodes[humans[bone]["node"]]
        local = np.eye(4)
        local[:3, :3] = _quat_matrix(*node.get("rotation", [0, 0, 0, 1])) @ _axis_matrix(
            axis, degrees)
        local[:3, 3] = node.get("translation", [0, 0, 0])
        node.pop("rotation", None)
        node.pop("translation", None)
        node["matrix"] = local.T.ravel().tolist()
    world = world_matrices(document, nodes)
    parent = {c: i for i, n in enumerate(document["nodes"]) for c in n.get("children", [])}
    hips = humans["hips"]["node"]

    def under_hips(index: int) -> bool:
        while index in parent:
            index = parent[index]
            if index == hips:
                return True
        return False

    out, triangles = [], 0
    for index, node in enumerate(document["nodes"]):
        if "mesh" not in node or not under_hips(index):
            continue
        for primitive in document["meshes"][node["mesh"]]["primitives"]:
            v = _floats(document, blob, primitive["attributes"]["POSITION"])
            out.append(v @ world[index][:3, :3].T + world[index][:3, 3])
            triangles += document["accessors"][primitive["indices"]]["count"] // 3
    return np.concatenate(out), triangles


@pytest.mark.parametrize("path", VRM1_FILES, ids=lambda p: p.stem)
def test_the_unskinned_parts_follow_their_bones(path: Path) -> None:
    avatar = load_avatar(path)
    # the retargeter measures no body on a file without a skin (as before) …
    assert rest_mesh(avatar) is None
    # … the sheet draws its parts: at rest where the file puts them
    mesh = rest_mesh(avatar, unskinned=True)
    assert mesh is not None
    vertices, faces, weights = mesh
    expected, triangles = _file_parts(path, [])
    assert len(faces) == triangles > 0
    np.testing.assert_allclose(vertices, expected, atol=TOLERANCE)
    # and posed (bones turned), where the file's own transforms put them
    rotations = avatar.rest_rotations.copy()
    for bone, axis, degrees in TURNS:
        j = avatar.skeleton.index(avatar.humanoid[bone[0].upper() + bone[1:]])
        rotations[j] = quat.mul(rotations[j], quat.from_axis_angle(np.asarray(axis),
                                                                   np.radians(degrees)))
    rest = Clip(avatar.skeleton, avatar.rest_rotations[None], avatar.skeleton.offsets[None], 30)
    posed = Clip(avatar.skeleton, rotations[None], avatar.skeleton.offsets[None], 30)
    drawn = skin_vertices(vertices, weights, rest.global_rotations()[0],
                          rest.global_positions()[0], posed.global_rotations()[0],
                          posed.global_positions()[0])
    turned, _ = _file_parts(path, TURNS)
    assert np.abs(turned - expected).max() > 0.1  # the turns move parts
    np.testing.assert_allclose(drawn, turned, atol=TOLERANCE)


def _orange(path: Path) -> int:
    """Pixels of the sheet's right half drawn near matplotlib's orange (the avatar's bones)."""
    from PIL import Image

    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=float)
    half = rgb[:, rgb.shape[1] // 2:]
    return int((np.abs(half - [255.0, 127.0, 14.0]).max(axis=-1) < 40).sum())


@pytest.mark.parametrize("path", VRM1_FILES, ids=lambda p: p.stem)
def test_footfall_retarget_preview_draws_a_vrm_filled(path: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the command: a short walk onto each VRM sample; the sheet is drawn with the
    parts' faces, its avatar half is solid and the avatar's bones show over the parts."""
    from footfall.cli import main

    drawn: list[dict[str, Any]] = []
    real = preview.contact_sheet

    def spy(*args: Any, **kwargs: Any) -> list[int]:
        drawn.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(preview, "contact_sheet", spy)
    source = tmp_path / "walk.bvh"
    bvh.save(bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:20], source)
    sheet = tmp_path / "sheet.png"
    assert main(["retarget", str(source), "--to", str(path), "-o", str(tmp_path / "out.bvh"),
                 "--preview", str(sheet), "--quiet"]) == 0
    (kwargs,) = drawn
    _, triangles = _file_parts(path, [])
    assert kwargs["faces"] is not None and len(kwargs["faces"]) == triangles
    assert _orange(sheet) > 300  # the avatar's bones over its parts
    # Measured: debug robot 25,200 solid pixels in the sheet's right half, MToon test 9,800;
    # their bones alone (the sheet before the parts were drawn) 950 and 770.
    assert len(_solid(sheet)) > 5000
