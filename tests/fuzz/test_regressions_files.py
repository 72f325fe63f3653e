"""Minimal reproducers of the glTF, terrain, JSON, settings and IK defects of the hostile-input
campaign (issue 15): each is now a one-line error naming the file and the field or node."""

from __future__ import annotations

import json
import os
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from fuzz_harness import Case, run_cases
from fuzz_mutate import join_glb, split_glb

from conftest import DATA
from footfall.cli import main
from footfall.errors import GLTFError, MappingError, SettingsError, SkeletonError, TerrainError
from footfall.gltf import load_animation, load_avatar, save_animation
from footfall.humanoid import load_mapping
from footfall.ik import solve_two_bone
from footfall.retarget.settings import (
    STALE_TEMPORARY_SECONDS,
    RetargetSettings,
    load_settings,
    save_settings,
    settings_path,
)
from footfall.terrain import load_heightmap, load_mesh

CESIUM = DATA / "avatars" / "CesiumMan.glb"


def _gltf(tmp_path: Path, nodes: list, name: str = "avatar.gltf", **extra: object) -> Path:
    document = {"asset": {"version": "2.0"}, "nodes": nodes,
                "skins": [{"joints": [0]}], **extra}
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def _refused(error: type[Exception], call, path: Path, *words: str) -> None:
    with pytest.raises(error) as caught:
        call(path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    for word in words:
        assert word in message, message


# ------------------------------------------------------------------------------------- glTF
def _read_avatar(path: Path) -> None:
    load_avatar(path)


def test_a_node_that_is_its_own_child_is_an_error_not_a_hang(tmp_path: Path) -> None:
    """135 bytes that never returned (depth_of looped before the cycle check); run in a child
    process with a time limit so a regression fails instead of hanging the suite."""
    text = ('{"asset":{"version":"2.0"},"nodes":[{"children":[1]},{"children":[1]}],'
            '"skins":[{"joints":[0,1]}],"scenes":[{"nodes":[0]}]}')
    results = list(run_cases([Case("glb", "cycle.gltf", text.encode())],
                             {"glb": _read_avatar}, seconds=20))
    assert results[0].outcome == "clean", results[0].detail
    assert "own child" in results[0].detail or "cycle" in results[0].detail


def test_a_longer_cycle_is_an_error(tmp_path: Path) -> None:
    nodes = [{"children": [1]}, {"children": [2]}, {"children": [0]}]
    _refused(GLTFError, load_avatar, _gltf(tmp_path, nodes), "cycle")


def test_a_node_chain_of_1100_reads_without_recursion(tmp_path: Path) -> None:
    """gltf.py's recursive world_matrix raised RecursionError at ~1,100 nodes."""
    count = 1100
    nodes = [{"children": [i + 1], "translation": [0, 0.001, 0]} for i in range(count - 1)]
    nodes.append({"translation": [0, 0.001, 0]})
    path = _gltf(tmp_path, nodes, skins=[{"joints": [count - 1, 0]}])
    avatar = load_avatar(path)
    rest = avatar.rest_clip().global_positions()[0]
    assert rest[:, 1].max() == pytest.approx(count * 0.001)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("rotation", [0, 0, 1], ("node 0", "'rotation' must be 4 numbers")),
    ("translation", [1, 2], ("node 0", "'translation' must be 3 numbers")),
    ("matrix", [1.0] * 15, ("node 0", "'matrix' must be 16 numbers")),
    ("rotation", [0, 0, 0, 0], ("node 0", "zero length")),
    ("translation", [0, 1e308, 0], ("node 0", "non-finite or beyond")),
    ("scale", [1, 1, 1, 1], ("node 0", "'scale' must be 3 numbers")),
])
def test_node_transforms_of_the_wrong_length_or_range(tmp_path: Path, field: str, value: list,
                                                     words: tuple[str, ...]) -> None:
    _refused(GLTFError, load_avatar, _gltf(tmp_path, [{field: value}]), *words)


def test_a_null_node_is_an_error(tmp_path: Path) -> None:
    _refused(GLTFError, load_avatar, _gltf(tmp_path, [{}, None]), "node 1 is not an object")


def test_nan_on_a_node_outside_the_skin_is_refused_at_load(tmp_path: Path) -> None:
    """It was read, then the writer's JSON failed (Out of range float values)."""
    path = tmp_path / "nan.gltf"
    path.write_text('{"asset":{"version":"2.0"},"nodes":[{},{"translation":[0,NaN,0]}],'
                    '"skins":[{"joints":[0]}]}')
    _refused(GLTFError, load_avatar, path, "node 1")


def test_buffer_and_view_faults(tmp_path: Path) -> None:
    base = {"buffers": [{"byteLength": 8, "uri": "data:application/octet-stream;base64,"
                         "AAAAAAAAAAA="}]}
    cases = {
        "index.gltf": ({**base, "bufferViews": [{"buffer": 3, "byteLength": 4}]},
                       "'buffer' is not a buffer index"),
        "past.gltf": ({**base, "bufferViews": [{"buffer": 0, "byteOffset": 4, "byteLength": 8}]},
                      "end past buffer 0"),
        "null.gltf": ({**base, "bufferViews": None, "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR"}]},
            "'bufferView' 0 is not a view index"),
        "datauri.gltf": ({"buffers": [{"byteLength": 4, "uri": "data:,"}]}, "not base64"),
    }
    for name, (extra, words) in cases.items():
        _refused(GLTFError, load_avatar, _gltf(tmp_path, [{}], name, **extra), words)


def test_truncated_glb_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """A GLB whose BIN chunk was cut was read, and retarget wrote a GLB that could not be read."""
    document, blob = split_glb(CESIUM.read_bytes())
    cut = tmp_path / "cut.glb"
    cut.write_bytes(join_glb(document, blob[: len(blob) // 2]))
    _refused(GLTFError, load_avatar, cut, "buffer 0 declares", "truncated")
    output = tmp_path / "out.glb"
    code = main(["retarget", str(DATA / "bvh" / "games105_walk60.bvh"), "--to", str(cut),
                 "-o", str(output), "--quiet"])
    assert code == 2 and not output.exists()


def test_a_write_that_would_not_read_back_is_not_published(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    avatar = load_avatar(CESIUM)
    target = tmp_path / "out.glb"
    target.write_bytes(b"the user's earlier file")

    def short_write(self: pygltflib.GLTF2, name: str) -> None:
        Path(name).write_bytes(b"glTF" + struct.pack("<II", 2, 999) + b"\0" * 16)

    monkeypatch.setattr(pygltflib.GLTF2, "save_binary", short_write)
    with pytest.raises(GLTFError, match="would not read back"):
        save_animation(avatar, avatar.rest_clip(2), target)
    assert target.read_bytes() == b"the user's earlier file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.glb"]


def test_animation_channels_out_of_range_are_errors(tmp_path: Path) -> None:
    document, blob = split_glb(CESIUM.read_bytes())
    document["animations"][0]["channels"][0]["sampler"] = 999
    path = tmp_path / "sampler.glb"
    path.write_bytes(join_glb(document, blob))
    _refused(GLTFError, load_animation, path, "animation 0", "channel 0")


# ----------------------------------------------------------------------------------- terrain
def _png(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width × height`` 8-bit grey pixels (data for none)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b""))
            + chunk(b"IEND", b""))


def test_a_tiny_png_declaring_ten_gigapixels_is_refused(tmp_path: Path) -> None:
    """Pillow's DecompressionBombError escaped as a traceback."""
    path = tmp_path / "bomb.png"
    path.write_bytes(_png(100_000, 100_000))
    assert len(path.read_bytes()) < 70
    _refused(TerrainError, lambda p: load_heightmap(p, (10, 10), (0, 1)), path,
             "more than 25,000,000 pixels")
    path.write_bytes(_png(10_000, 5_000))  # under Pillow's own limit, over footfall's
    _refused(TerrainError, lambda p: load_heightmap(p, (10, 10), (0, 1)), path,
             "10,000 × 5,000 pixels")


def test_a_broken_png_body_is_a_terrain_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(_png(8, 8))  # no pixel data behind the header
    _refused(TerrainError, lambda p: load_heightmap(p, (10, 10), (0, 1)), path,
             "cannot read heightmap image")


@pytest.mark.parametrize("value", ["1e308", "-1e308", "nan", "2e6"])
def test_mesh_coordinates_beyond_the_limit(tmp_path: Path, value: str) -> None:
    """±1e308 overflowed in mesh.py (inf normals); errors named the file stem only."""
    path = tmp_path / "ground.obj"
    path.write_text(f"v 0 0 0\nv 1 0 0\nv 0 {value} 1\nf 1 2 3\n")
    _refused(TerrainError, load_mesh, path, "vertex 2")


def test_mesh_errors_name_the_whole_path(tmp_path: Path) -> None:
    path = tmp_path / "wide.obj"
    path.write_text("v 0 0 0\nv 900 0 0\nv 0 0 900\nv 0.001 0 0\nf 1 2 3\nf 1 4 3\n")
    _refused(TerrainError, lambda p: load_mesh(p, cell_size=0.001), path, "cells")


# -------------------------------------------------------------------------------------- JSON
@pytest.mark.parametrize(("text", "words"), [
    ("[" * 100_000 + "]" * 100_000, ("nested more than 64 deep", ":1:65")),
    ('{"Hips": ' + "1" * 5000 + "}", ("5000 digits",)),
    ('{"Hips": 1e400}', ("beyond the float range",)),
    ('{"Hips": NaN}', ("NaN",)),
    ('{"Hips": "a\\', ("not valid JSON",)),
])
def test_mapping_json_limits(tmp_path: Path, text: str, words: tuple[str, ...]) -> None:
    path = tmp_path / "map.json"
    path.write_text(text)
    _refused(MappingError, load_mapping, path, *words)


def test_deep_json_inside_strings_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"Hips": "[" * 500}))
    with pytest.raises(MappingError, match="not in the skeleton"):
        load_mapping(path, ["Pelvis"])


@pytest.mark.parametrize("text", [
    '{"version": 1, "values": {"floor_height": ' + "9" * 401 + "}}",
    "[" * 100_000 + "]" * 100_000,
    '{"version": 1, "values": {"floor_height": NaN}}',
])
def test_settings_that_raised_are_set_aside_once(tmp_path: Path, text: str) -> None:
    """A deep or huge-number file raised on every start and was never set aside."""
    path = settings_path("bunny", tmp_path)
    path.write_text(text)
    with pytest.warns(UserWarning, match="moved it to"):
        assert load_settings("bunny", tmp_path).values == RetargetSettings().values
    assert not path.exists()
    assert (tmp_path / (path.name + ".corrupt")).read_text() == text
    with pytest.raises(SettingsError) as caught:
        path.write_text(text)
        load_settings("bunny", tmp_path, on_corrupt="raise")
    assert str(path) in str(caught.value)


def test_stale_temporary_files_are_removed_on_start_up(tmp_path: Path) -> None:
    """kill -9 during a save left orphan *.tmp files (14 of 50)."""
    path = settings_path("bunny", tmp_path)
    old = tmp_path / (path.name + "abc123.tmp")
    fresh = tmp_path / (path.name + "def456.tmp")  # a save running in another process now
    for temporary in (old, fresh):
        temporary.write_text("{")
    past = time.time() - STALE_TEMPORARY_SECONDS - 5
    os.utime(old, (past, past))
    load_settings("bunny", tmp_path)
    assert not old.exists() and fresh.exists()


def test_a_failed_save_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    def refuse(source: str, target: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(SettingsError, match="cannot write"):
        save_settings(RetargetSettings(), "bunny", tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------- IK
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e308])
@pytest.mark.parametrize("where", ["root", "mid", "tip", "target", "pole"])
def test_two_bone_refuses_what_would_come_out_nan(bad: float, where: str) -> None:
    """solve_two_bone returned NaN/inf for NaN, inf or 1e308 inputs; SPEC: never NaN."""
    points = {"root": [0.0, 1.0, 0.0], "mid": [0.0, 0.5, 0.05], "tip": [0.0, 0.0, 0.0],
              "target": [0.1, 0.2, 0.1], "pole": [0.0, 0.5, 1.0]}
    points[where] = [0.0, bad, 0.0]
    with pytest.raises(SkeletonError, match=f"solve_two_bone: {where} holds"):
        solve_two_bone(points["root"], points["mid"], points["tip"], points["target"],
                       pole=points["pole"])


def test_two_bone_refuses_non_finite_weights() -> None:
    with pytest.raises(SkeletonError, match="position_weight"):
        solve_two_bone([0, 1, 0], [0, 0.5, 0.05], [0, 0, 0], [0, 0.2, 0.1],
                       position_weight=np.nan)


def test_a_primitive_with_empty_attributes_is_refused(tmp_path: Path) -> None:
    """Found by the long run: read, then written as a GLB pygltflib could not read back."""
    document, blob = split_glb(CESIUM.read_bytes())
    document["meshes"][0]["primitives"][0]["attributes"] = {}
    path = tmp_path / "empty.glb"
    path.write_bytes(join_glb(document, blob))
    _refused(GLTFError, load_avatar, path, "mesh 0 primitive 0", "'attributes'")


def test_an_avatar_kilometres_tall_is_refused_naming_the_file_and_the_size(
        tmp_path: Path) -> None:
    """Issue 26: CesiumMan's node translations × 1e4 (glTF is in metres: no unit to guess) read
    as a 9 km avatar, which live grounding would sample every centimetre; refused when read."""
    document, blob = split_glb(CESIUM.read_bytes())
    for node in document["nodes"]:
        if "translation" in node:
            node["translation"] = [value * 1e4 for value in node["translation"]]
    path = tmp_path / "tall.glb"
    path.write_bytes(join_glb(document, blob))
    _refused(GLTFError, load_avatar, path, "the skeleton reaches 9167 m", "over 100 m")
    assert main(["retarget", str(DATA / "bvh" / "games105_walk60.bvh"), "--to", str(path),
                 "-o", str(tmp_path / "out.glb"), "--quiet"]) == 2
    assert not (tmp_path / "out.glb").exists()
