"""The ``footfall`` command line: every subcommand is listed and answers --help; an empty clip
(``Frames: 0``) is one line and exit 2 where motion is needed, a skeleton where it is not."""

import subprocess
import sys
from pathlib import Path

import pytest

from footfall.cli import _command_modules, main


def test_help_lists_every_command(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for module in _command_modules():
        assert module.NAME in out


@pytest.mark.parametrize("name", [m.NAME for m in _command_modules()])
def test_each_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    assert "usage: footfall " + name in capsys.readouterr().out


def test_console_script_runs_as_module():
    done = subprocess.run([sys.executable, "-m", "footfall.cli", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "footfall" in done.stdout


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["no-such-command"])
    assert stop.value.code == 2


# ---------------------------------------------------------------------------- an empty clip
DATA = Path(__file__).parent / "data"
CLIP = DATA / "bvh" / "games105_walk60.bvh"
AVATAR = DATA / "avatars" / "CesiumMan.glb"


@pytest.fixture
def empty_clip(tmp_path: Path) -> Path:
    """games105_walk60's hierarchy with ``Frames: 0``: a skeleton and no motion."""
    hierarchy = CLIP.read_text().split("MOTION")[0]
    path = tmp_path / "empty.bvh"
    path.write_text(hierarchy + "MOTION\nFrames: 0\nFrame Time: 0.016667\n")
    return path


#: Every command that reads a clip's motion, as a user would run it on the empty clip.
NEEDS_MOTION = {
    "ground-stairs": ["ground", "{clip}", "--terrain", "stairs", "-o", "{out}.bvh", "--quiet"],
    "ground-level": ["ground", "{clip}", "--terrain", "level", "-o", "{out}.bvh", "--quiet"],
    "measure": ["measure", "{clip}", "--json", "{out}.json"],
    "retarget-bvh": ["retarget", "{clip}", "--to", str(CLIP), "-o", "{out}.bvh", "--quiet"],
    "retarget-glb": ["retarget", "{clip}", "--to", str(AVATAR), "-o", "{out}.glb", "--quiet"],
    "natnet-serve": ["natnet-serve", "{clip}", "--command-port", "0", "--duration", "0.2"],
    "live": ["live", "--replay", "{clip}", "--to", str(AVATAR), "--no-view", "--no-control",
             "--duration", "0.2", "--quiet"],
}


@pytest.mark.parametrize("name", NEEDS_MOTION)
def test_an_empty_clip_is_one_line_and_exit_2(name: str, empty_clip: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26: ``Frames: 0`` ended ground in an IndexError traceback (retarget in a
    ValueError, natnet-serve in a ZeroDivisionError); now one line naming the file, exit 2,
    nothing written."""
    out = tmp_path / "out"
    args = [a.format(clip=empty_clip, out=out) for a in NEEDS_MOTION[name]]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(empty_clip) in err and "no frames" in err, err
    assert not list(tmp_path.glob("out*"))


def test_an_empty_clip_in_a_batch_is_an_error_row(empty_clip: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``footfall batch``: a failing file is a row with its error (exit 1, as documented)."""
    import json

    out = tmp_path / "batch"
    assert main(["batch", "ground", str(empty_clip), "--terrain", "stairs", "-o", str(out)]) == 1
    (row,) = json.loads((out / "summary.json").read_text())["rows"]
    assert row["status"] == "error" and "no frames" in row["error"], row
    capsys.readouterr()


def test_an_empty_clip_is_a_skeleton_where_only_a_skeleton_is_needed(
        empty_clip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The documented empty results: ``info`` describes 0 frames; ``retarget --to`` and
    ``walk --skeleton`` take the file's skeleton."""
    assert main(["info", str(empty_clip), "--no-tree"]) == 0
    text = capsys.readouterr().out
    assert "frames           0" in text and "duration         0.000 s" in text
    from footfall import bvh

    target = tmp_path / "onto_empty.bvh"
    assert main(["retarget", str(CLIP), "--to", str(empty_clip), "-o", str(target),
                 "--quiet"]) == 0
    assert bvh.load(target).frame_count == bvh.load(CLIP).frame_count
    walked = tmp_path / "walked.bvh"
    assert main(["walk", "--skeleton", str(empty_clip), "-o", str(walked), "--seconds", "1"]) == 0
    assert bvh.load(walked).skeleton.names == bvh.load(empty_clip).skeleton.names
    capsys.readouterr()
