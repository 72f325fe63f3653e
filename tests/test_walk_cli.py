"""``footfall walk``: the generated (and grounded) walk written as BVH, read back by two parsers."""

import math

import bvhio
import numpy as np
import pytest

from conftest import DATA, HUMANOID_BVH_FILES
from footfall import bvh, terrain
from footfall.cli import main
from footfall.footing.foot_model import legs_of
from footfall.gait import GaitParams, ProceduralWalker, stride


def test_grounded_walk_on_the_course(tmp_path, capsys):
    out = tmp_path / "walk.bvh"
    assert main(["walk", "--terrain", "course", "--start-x", "2.5", "--seconds", "2",
                 "-o", str(out)]) == 0
    assert "121 frames" in capsys.readouterr().out
    clip = bvh.load(out)
    assert clip.frame_count == 121 and clip.fps == pytest.approx(60)
    assert clip.skeleton.joint_count == 22
    assert np.isfinite(clip.rotations).all()
    # an independent parser reads the same file
    other = bvhio.readAsBvh(str(out))
    assert other.FrameCount == 121 and len(other.Root.layout()) == 22
    # it walked forward at step length × rate, a little faster down the ripples' slopes
    gpos = clip.global_positions()
    hips = gpos[:, clip.skeleton.index("Hips")]
    speed = (hips[-1, 0] - hips[0, 0]) / 2.0
    expected = stride.ground_speed(0.37, math.radians(28), 1.6)
    assert expected * 0.99 <= speed <= expected * 1.25
    # grounded: over the ripples the lower ankle stays an ankle height above the ground under it
    course = terrain.scene("course")
    feet = gpos[:, [clip.skeleton.index("LeftFoot"), clip.skeleton.index("RightFoot")]]
    above = feet[..., 1] - course.height(feet[..., [0, 2]])
    assert np.abs(above.min(axis=1) - 0.10).max() < 0.03
    ground_under_hips = course.height(hips[:, [0, 2]])
    assert np.ptp(ground_under_hips) > 0.02  # the ground really was uneven


def test_ungrounded_differs_from_grounded(tmp_path):
    a, b = tmp_path / "a.bvh", tmp_path / "b.bvh"
    args = ["walk", "--terrain", "hills", "--start-x", "9", "--seconds", "1"]
    assert main([*args, "-o", str(a)]) == 0
    assert main([*args, "--no-grounding", "-o", str(b)]) == 0
    grounded, raw = bvh.load(a), bvh.load(b)
    assert grounded.frame_count == raw.frame_count == 61
    assert not np.allclose(grounded.rotations, raw.rotations, atol=1e-3)


def test_any_humanoid_skeleton_walks(tmp_path):
    out = tmp_path / "mixamo.bvh"
    source = DATA / "bvh" / "mixamo_stepping.bvh"
    assert main(["walk", "--skeleton", str(source), "--seconds", "1", "-o", str(out)]) == 0
    clip = bvh.load(out)
    assert clip.skeleton.names == bvh.load(source).skeleton.names
    assert clip.frame_count == 61 and np.isfinite(clip.rotations).all()


def test_written_walk_matches_the_walker(tmp_path):
    out = tmp_path / "flat.bvh"
    assert main(["walk", "--seconds", "0.5", "-o", str(out)]) == 0
    walker = ProceduralWalker(params=GaitParams())
    frames = walker.generate(0.5)
    clip = bvh.load(out)  # joints come back depth-first: compare by name
    order = [walker.skeleton.index(name) for name in clip.skeleton.names]
    generated = np.stack([f.global_positions[0] for f in frames])[:, order]
    assert np.allclose(clip.global_positions(), generated, atol=1e-6)


def test_rest_writes_one_pose(tmp_path):
    out = tmp_path / "rest.bvh"
    assert main(["walk", "--rest", "-o", str(out)]) == 0
    clip = bvh.load(out)
    assert clip.frame_count == 1
    soles = clip.global_positions()[0, [clip.skeleton.index("LeftToes"),
                                        clip.skeleton.index("RightToes")], 1]
    assert np.abs(soles).max() < 1e-4


@pytest.mark.parametrize("seconds", ["-1", "nan", "abc", "1e9"])
def test_bad_seconds_rejected(tmp_path, seconds, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["walk", "--seconds", seconds, "-o", str(tmp_path / "x.bvh")])
    assert exit_info.value.code == 2
    assert "seconds" in capsys.readouterr().err


def test_unknown_terrain_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["walk", "--terrain", "moon", "-o", str(tmp_path / "x.bvh")])
    assert "moon" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--skeleton", "/no/such/file.bvh"], "/no/such/file.bvh"),
     (["--step-rate", "0"], "step_rate_hz"),
     (["--stride-deg", "nan"], "stride_deg"),
     (["--start-x", "inf"], "start-x")],
)
def test_bad_inputs_are_clean_errors(tmp_path, capsys, args, needle):
    assert main(["walk", *args, "--seconds", "0.1", "-o", str(tmp_path / "x.bvh")]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_unwritable_output_is_a_clean_error(tmp_path, capsys):
    target = tmp_path / "missing" / "x.bvh"
    assert main(["walk", "--seconds", "0.1", "-o", str(target)]) == 2
    assert str(target) in capsys.readouterr().err


def test_not_a_bvh_skeleton(tmp_path, capsys):
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT Hips\n{\n")
    assert main(["walk", "--skeleton", str(bad), "-o", str(tmp_path / "x.bvh")]) == 2
    assert "bad.bvh" in capsys.readouterr().err


def test_same_command_same_file(tmp_path):
    a, b = tmp_path / "a.bvh", tmp_path / "b.bvh"
    args = ["walk", "--terrain", "stairs", "--start-x", "3", "--seconds", "0.5"]
    assert main([*args, "-o", str(a)]) == 0
    assert main([*args, "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


ZUP = DATA / "bvh" / "pybvh_test1_zup_inches.bvh"  # its rest pose lies down (Z-up offsets)
STUB = DATA / "bvh" / "bvhio_example.bvh"  # its feet end in an End Site straight below


@pytest.mark.parametrize("path", HUMANOID_BVH_FILES, ids=lambda p: p.stem)
def test_every_shared_humanoid_walks_grounded_on_stairs(tmp_path, path) -> None:
    # The grounding pipeline measured the soles on the rest pose as it lies (the Z-up file:
    # "the toes are not below the ankle") and refused a stub foot ("no forward extent at
    # rest"); it now measures them on the rest pose stood up, a stub foot as a point sole.
    out = tmp_path / "walk.bvh"
    assert main(["walk", "--skeleton", str(path), "--seconds", "2", "--terrain", "stairs",
                 "-o", str(out)]) == 0
    clip = bvh.load(out)
    _, positions = clip.forward_kinematics()
    legs = legs_of(clip.skeleton)
    feet = positions[:, [leg.foot for leg in legs], 1].max(axis=1)
    hips = positions[:, clip.skeleton.parents[legs[0].upper], 1]
    assert np.all(hips > feet + 0.1)
    assert np.ptp(positions[:, 0, 0]) > 1.0  # it walked


@pytest.mark.parametrize("path", [ZUP, STUB], ids=lambda p: p.stem)
def test_the_stairs_experiment_walks_a_lying_rest_pose_and_a_stub_foot(tmp_path, path) -> None:
    # The stepping walker builds its pose from the rest offsets: the experiment stands a lying
    # rest pose up first (it walked with 108 mm contact error before, all switches on).
    report = tmp_path / "eval.json"
    assert main(["eval", "--humanoid", str(path), "--heights", "0.1", "--seconds", "2",
                 "--quiet", "--json", str(report)]) == 0
    import json

    rows = {(r["character"], r["walker"]): r for r in json.loads(report.read_text())["rows"]}
    on = rows[(f"humanoid:{path.stem}", "all_on")]
    off = rows[(f"humanoid:{path.stem}", "no_ik")]
    assert on["contact_error_m"] < 1e-3 < off["contact_error_m"]
