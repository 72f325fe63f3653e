"""``footfall retarget`` end to end on real files, and its clear errors."""

import json

import numpy as np
import pytest
import trimesh

from conftest import DATA
from footfall import bvh
from footfall.cli import main
from footfall.gltf import load_animation

GAMES = DATA / "bvh" / "games105_walk60.bvh"
MIXAMO = DATA / "bvh" / "mixamo_stepping.bvh"
CESIUM = DATA / "avatars" / "CesiumMan.glb"


def test_bvh_onto_bvh(tmp_path, capsys) -> None:
    out = tmp_path / "walk_on_mixamo.bvh"
    assert main(["retarget", str(GAMES), "--to", str(MIXAMO), "-o", str(out), "--quiet"]) == 0
    assert "wrote" in capsys.readouterr().out
    clip = bvh.load(out)
    source = bvh.load(GAMES)
    assert clip.frame_count == source.frame_count
    assert clip.skeleton.names == bvh.load(MIXAMO).skeleton.names
    assert np.all(np.isfinite(clip.global_positions()))


def test_bvh_onto_glb_with_progress(tmp_path, capsys, monkeypatch) -> None:
    out = tmp_path / "walk.glb"
    assert main(["retarget", str(GAMES), "--to", str(CESIUM), "-o", str(out)]) == 0
    assert "frame" not in capsys.readouterr().err  # no bar into a pipe or a log (issue 37)
    from footfall import terminal

    monkeypatch.setattr(terminal, "_is_terminal", lambda stream: True)  # a person watching
    assert main(["retarget", str(GAMES), "--to", str(CESIUM), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "frame" in captured.err  # the progress bar
    clip = load_animation(out, fps=60.0)
    assert clip.frame_count == bvh.load(GAMES).frame_count
    also = tmp_path / "walk_on_cesium.bvh"
    assert main(["retarget", str(GAMES), "--to", str(CESIUM), "-o", str(also), "--quiet"]) == 0
    assert bvh.load(also).skeleton.joint_count == 19


def test_mapping_file_naming_missing_bone(tmp_path, capsys) -> None:
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"LeftHand": "NoSuchJoint"}))
    out = tmp_path / "out.bvh"
    code = main(["retarget", str(GAMES), "--to", str(MIXAMO), "-o", str(out), "--quiet",
                 "--mapping", str(mapping)])
    assert code == 2
    assert "NoSuchJoint" in capsys.readouterr().err
    assert not out.exists()


def test_target_glb_without_skin(tmp_path, capsys) -> None:
    box = tmp_path / "box.glb"
    trimesh.creation.box().export(box)
    out = tmp_path / "out.glb"
    out.write_bytes(b"keep me")
    code = main(["retarget", str(GAMES), "--to", str(box), "-o", str(out), "--quiet"])
    assert code == 2
    assert "no skin" in capsys.readouterr().err
    assert out.read_bytes() == b"keep me"


@pytest.mark.parametrize("target, output, message", [
    ("MIXAMO", "out.glb", "needs a .glb/.gltf avatar"),
    ("MIXAMO", "out.fbx", "write .bvh, .glb or .gltf"),
    ("CESIUM", "out.txt", "write .bvh, .glb or .gltf"),
])
def test_bad_output_kinds(tmp_path, capsys, target, output, message) -> None:
    path = {"MIXAMO": MIXAMO, "CESIUM": CESIUM}[target]
    code = main(["retarget", str(GAMES), "--to", str(path), "-o", str(tmp_path / output),
                 "--quiet"])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / output).exists()


def test_bad_scale_is_a_clear_error(tmp_path, capsys) -> None:
    code = main(["retarget", str(GAMES), "--to", str(MIXAMO), "-o", str(tmp_path / "o.bvh"),
                 "--quiet", "--scale", "9"])
    assert code == 2
    assert "avatar_scale" in capsys.readouterr().err


def test_preview_sheet_and_its_bad_paths(tmp_path, capsys) -> None:
    """``--preview``: a PNG sheet next to the output; a path it cannot write is one line and
    exit 2 before any work (no output file), an earlier sheet is kept whole."""
    clip, avatar = GAMES, DATA / "avatars" / "CesiumMan.glb"
    sheet, out = tmp_path / "sheet.png", tmp_path / "out.glb"
    assert main(["retarget", str(clip), "--to", str(avatar), "-o", str(out), "--quiet",
                 "--preview", str(sheet)]) == 0
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    before = sheet.read_bytes()
    capsys.readouterr()
    for bad, why in ((tmp_path / "missing" / "s.png", "does not exist"),
                     (tmp_path / "s.jpg", "written as .png")):
        other = tmp_path / "other.glb"
        assert main(["retarget", str(clip), "--to", str(avatar), "-o", str(other), "--quiet",
                     "--preview", str(bad)]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert not other.exists()
    assert sheet.read_bytes() == before
