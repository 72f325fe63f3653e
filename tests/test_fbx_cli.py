"""FBX through the command line (issue 37): the front door reads FBX takes, ``retarget --to``
takes a skinned FBX character (written back as GLB), and a damaged FBX file is one line, exit 2,
nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from footfall.cli import main
from footfall.fbx import load_fbx_avatar
from footfall.gltf import load_avatar
from footfall.motion_io import load_motion
from motion_files import CESIUM, WALK
from test_fbx_retarget import _stands

FBX = Path(__file__).parent / "data" / "fbx"
HUMANIK = FBX / "maya_character_7500_binary.fbx"
KENNEY = FBX / "maya_kenney_character_7700_binary.fbx"


def _one_line_error(capsys: pytest.CaptureFixture[str], code: int, said: str) -> str:
    err = [line for line in capsys.readouterr().err.splitlines()
           if line.strip() and "compiling footfall's numeric kernels" not in line]
    assert code == 2 and len(err) == 1 and said in err[0], err
    return err[0]


def test_info_names_the_takes_unit_and_up_axis(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(KENNEY), "--no-tree"]) == 0
    out = capsys.readouterr().out
    for said in ("FBX", "joints           39 (root: Hips)", "frames           21",
                 "fps              24", "Take 001"):
        assert said in out, out
    motion = load_motion(KENNEY)
    assert (motion.format, motion.takes, motion.take, motion.unit, motion.scale,
            motion.up) == ("fbx", ["Take 001"], 0, "cm", 0.01, "y")


def test_an_fbx_take_retargets_onto_cesium_man(tmp_path: Path) -> None:
    out = tmp_path / "humanik-cesium.glb"
    assert main(["retarget", str(HUMANIK), "--to", str(CESIUM), "-o", str(out),
                 "--take", "Take 001", "--quiet"]) == 0
    written = load_motion(out)
    assert written.format == "glb" and written.clip.frame_count == 120


def test_retarget_onto_an_fbx_character_writes_it_as_glb_standing(tmp_path: Path) -> None:
    out = tmp_path / "walk-kenney.glb"
    assert main(["retarget", str(WALK), "--to", str(KENNEY), "-o", str(out), "--quiet"]) == 0
    avatar = load_fbx_avatar(KENNEY)
    assert load_avatar(out).skeleton.names == avatar.skeleton.names
    figures = _stands(out, avatar, load_motion(WALK).clip)
    assert figures["stance_frames"] > 50


def test_an_fbx_target_cannot_be_written_as_vrm(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "walk-kenney.vrma"
    code = main(["retarget", str(WALK), "--to", str(KENNEY), "-o", str(out), "--quiet"])
    _one_line_error(capsys, code, "needs a VRM avatar")
    assert not out.exists()


@pytest.mark.parametrize("command", ["info", "ground", "import", "retarget-to"])
def test_a_damaged_fbx_file_is_one_line_and_nothing_written(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "damaged.fbx"
    damaged.write_bytes(KENNEY.read_bytes()[:50_000])
    out = tmp_path / "out"
    out.mkdir()
    argv = {"info": ["info", str(damaged)],
            "ground": ["ground", str(damaged), "--terrain", "level", "-o", str(out / "g.bvh"),
                       "--quiet"],
            "import": ["import", str(damaged), "-o", str(out / "i.bvh"), "--quiet"],
            "retarget-to": ["retarget", str(WALK), "--to", str(damaged), "-o",
                            str(out / "r.glb"), "--quiet"]}[command]
    line = _one_line_error(capsys, main(argv), str(damaged))
    assert "not a readable FBX file" in line
    assert not list(out.iterdir())


def test_a_take_that_is_not_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.bvh"
    code = main(["ground", str(KENNEY), "--take", "Run", "--terrain", "level", "-o", str(out),
                 "--quiet"])
    _one_line_error(capsys, code, "no take named 'Run'")
    assert not out.exists()
