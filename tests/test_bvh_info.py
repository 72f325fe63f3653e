"""The ``footfall info`` command on real BVH files and on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DATA
from footfall.cli import main

CMU = DATA / "bvh" / "cmu_131_01.bvh"


def test_info_reports_the_cmu_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(CMU)]) == 0
    out = capsys.readouterr().out
    assert "joints           31 (root: Hips; 7 end sites)" in out
    assert "frames           994" in out
    assert "fps              120 (frame time 0.0083333 s)" in out
    assert "duration         8.275 s" in out  # 993 frames at 120 fps
    assert "unit             cmu (x 0.056444 m per unit)" in out
    assert "up axis          y" in out
    assert "standing height  1.427 m" in out
    # This file mixes rotation orders: the arms use ZXY, the rest ZYX.
    assert "rotation order ZXY, ZYX" in out
    assert "\n      LHipJoint  [3]\n        LeftHip  [3]" in out


def test_info_options(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "bvh" / "mixamo_stepping.bvh"
    assert main(["info", str(path), "--scale", "0.02", "--up", "y", "--no-tree"]) == 0
    out = capsys.readouterr().out
    assert "unit             given (x 0.02 m per unit)" in out
    assert "standing height  3.569 m" in out
    assert "joint tree" not in out


def test_info_errors_are_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(tmp_path / "missing.bvh")]) == 2
    assert "missing.bvh: no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT Hips\n{\nOFFSET 0 0\n}\nMOTION\nFrames: 0\nFrame Time: 1\n")
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "footfall info: error:" in err and "line 5: OFFSET of 'Hips' must be a number" in err
    # An avatar is described (issue 27: VRM meta, facing, bones); other files are refused.
    assert main(["info", str(DATA / "avatars" / "CesiumMan.glb")]) == 0
    assert "19 (root: Skeleton_torso_joint_1)" in capsys.readouterr().out
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert main(["info", str(text)]) == 2
    assert "notes.txt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["info", str(CMU), "--scale", "big"])
