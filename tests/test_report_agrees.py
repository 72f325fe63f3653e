"""Issue 36 item 5: the figures ``footfall ground`` and ``footfall measure`` report agree with an
independent recomputation from the written file — and with each other.

The recomputation reads the written BVH back, takes each foot's points from the rig alone
(``tests/skinned_feet.py``: the foot joint, the joints below it and their End Sites), casts them
on the terrain and uses only what the report states (its contacts and its floor ``floor_m``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import DATA
from conventions import VARIANTS
from footfall import bvh
from footfall.cli import main
from footfall.footing.foot_model import calibration_frames
from footfall.grounding.clip.placement import terrain_for_clip
from footfall.joints import LAYOUTS
from footfall.skeleton import Clip
from joints_data import noisy, walker_joints
from skinned_feet import source_foot_points

#: (clip, variant of tests/conventions.py or None, terrain)
CASES = [("mocapbank_zxy_cm.bvh", None, "stairs"), ("mocapbank_zxy_cm.bvh", "straight", "stairs"),
         ("games105_walk60.bvh", "circle", "rocks"), ("cmu_131_01.bvh", None, "level"),
         ("pybvh_test1_zup_inches.bvh", "backward", "hills"),
         ("mixamo_stepping.bvh", "mirrored", "stairs")]


def _contacts(report: dict, frames: int) -> np.ndarray:
    """``(F, 2)`` the report's contact segments as flags."""
    out = np.zeros((frames, 2), dtype=bool)
    for side, name in enumerate(("left", "right")):
        for start, stop in report["contacts"][name]:
            out[start:stop, side] = True
    return out


def _gaps(terrain, points: np.ndarray) -> np.ndarray:  # noqa: ANN001
    valid = np.all(np.isfinite(points), axis=-1)
    hits = terrain.raycast_down(np.where(valid[..., None], points[..., [0, 2]], 0.0))
    return np.where(hits.hit & valid, points[..., 1] - hits.height, np.nan)


def _lowest(values: np.ndarray) -> np.ndarray:
    low = np.where(np.isfinite(values), values, np.inf).min(axis=-1)
    return np.where(np.isfinite(low), low, np.nan)


def _ground(tmp_path, source, *extra: str) -> tuple[Clip, dict, str]:  # noqa: ANN001
    out, report = tmp_path / "out.bvh", tmp_path / "report.json"
    assert main(["ground", str(source), "-o", str(out), "--report", str(report), "--quiet",
                 *extra]) == 0
    return bvh.load(out), json.loads(report.read_text()), str(out)


@pytest.mark.parametrize(("name", "variant", "terrain"), CASES)
def test_the_report_is_what_the_written_file_shows(tmp_path, capsys, name: str,
                                                   variant: str | None, terrain: str) -> None:
    # stance_height_error_m, stance_slip_m and PhysDiff's penetration recomputed from the
    # written file against the terrain, with the report's contacts and floor: within 1 mm.
    # Before: the report's stance_height_error_m judged each support joint against its own
    # planted height: 1.8 mm on mocapbank turned along +X over the stairs, where the feet
    # written stood up to 83 mm off the steps (this recomputation: 40 mm), and 5.2 mm for
    # cmu_131_01 on level ground (recomputed: 1.0 mm).
    path = DATA / "bvh" / name
    source = bvh.load(path)
    if variant is not None:
        source = VARIANTS[variant](source)
        path = tmp_path / f"{variant}.bvh"
        bvh.save(source, path)
        source = bvh.load(path)
    assert not calibration_frames(source.rotations, source.skeleton.parents).any()
    out, report, _ = _ground(tmp_path, path, "--terrain", terrain)
    capsys.readouterr()
    ground = terrain_for_clip(terrain, source)
    contacts = _contacts(report, out.frame_count)
    assert contacts.any()
    before = _lowest(source_foot_points(source)[..., 1]) - report["floor_m"]
    written = source_foot_points(out)
    after = _lowest(_gaps(ground, written))
    error = np.abs(after - before)[contacts]
    stance = float(error[np.isfinite(error)].mean())
    assert report["after"]["stance_height_error_m"] == pytest.approx(stance, abs=0.001)
    # the planted foot joint's travel per frame (frame pairs planted in both)
    step = np.linalg.norm(np.diff(written[:, :, 0, [0, 2]], axis=0), axis=-1)
    slip = float(step[contacts[1:] & contacts[:-1]].mean())
    assert report["after"]["stance_slip_m"] == pytest.approx(slip, abs=0.001)
    # PhysDiff: the lowest joint over the terrain, mean depth below it over the frames (mm)
    _, joints = out.forward_kinematics()
    lowest = _lowest(_gaps(ground, joints))
    penetration = 1000 * float(np.maximum(-lowest[np.isfinite(lowest)], 0.0).mean())
    assert report["after"]["physdiff_penetration_mm"] == pytest.approx(penetration, abs=1.0)


def test_measure_and_ground_on_level_ground_report_the_same_figures(tmp_path, capsys) -> None:
    # One floor, the same figure from every command: `measure walk.npy` and `ground walk.npy
    # --terrain level` measure the same file on the same level ground, and the cleaned file
    # measured again reads what ground reported after. Before: measure scored on the flat
    # scene at height 0, not at the clip's floor — PhysDiff penetration 0.394 mm "before" where
    # ground read 0.040, and 0.394 again for the cleaned file.
    walk = tmp_path / "walk.npy"
    np.save(walk, noisy(walker_joints()))
    layout = ["--layout", "humanml3d"] if "humanml3d" in LAYOUTS else []
    measured = tmp_path / "measured.json"
    assert main(["measure", str(walk), *layout, "--json", str(measured)]) == 0
    row = json.loads(measured.read_text())
    cleaned, report = tmp_path / "cleaned.npy", tmp_path / "report.json"
    assert main(["ground", str(walk), *layout, "--terrain", "level", "-o", str(cleaned),
                 "--report", str(report), "--quiet"]) == 0
    grounded = json.loads(report.read_text())
    again = tmp_path / "again.json"
    assert main(["measure", str(cleaned), *layout, "--json", str(again)]) == 0
    remeasured = json.loads(again.read_text())
    capsys.readouterr()
    for key in ("physdiff_penetration_mm", "physdiff_floating_mm", "gmd_foot_skate_ratio",
                "stance_height_error_m"):
        assert row[f"before.{key}"] == pytest.approx(grounded["before"][key], abs=1e-6), key
        assert row[f"after.{key}"] == pytest.approx(grounded["after"][key], abs=1e-6), key
    scale = {"physdiff_penetration_mm": 0.01, "physdiff_floating_mm": 0.01}
    for key in ("physdiff_penetration_mm", "physdiff_floating_mm", "gmd_foot_skate_ratio"):
        assert remeasured[f"before.{key}"] == pytest.approx(grounded["after"][key],
                                                            abs=scale.get(key, 1e-3)), key


def test_terrain_lifts_are_not_reported_as_ball_clearance(tmp_path, capsys) -> None:
    # Over the stairs a swing is lifted where a tread edge would cut the foot: that is the
    # terrain's lift (terrain_lift_max_m, said so), not --ball-clearance's (swing_lift_max_m
    # stays 0 without the option). Before: "--ball-clearance raised swinging feet by up to
    # 8.1 cm" was printed with the option never given, and swing_lift_max_m held the terrain's.
    path = DATA / "bvh" / "games105_walk60.bvh"
    _, report, _ = _ground(tmp_path, path, "--terrain", "stairs")
    printed = capsys.readouterr().out
    assert "--ball-clearance" not in printed
    assert report["swing_lift_max_m"] == 0.0
    assert report["terrain_lift_max_m"] > 0.01
    assert f"up to {100 * report['terrain_lift_max_m']:.1f} cm where it would cut" in printed
    assert max(s["terrain_lift_m"] for s in report["swings"]) == report["terrain_lift_max_m"]
    assert all(s["clearance_lift_m"] == 0.0 for s in report["swings"])
    _, report, _ = _ground(tmp_path, path, "--terrain", "stairs", "--ball-clearance", "0")
    assert "--ball-clearance" not in capsys.readouterr().out
    assert report["swing_lift_max_m"] == 0.0
    # asked for, the clearance is reported as its own (mixamo's fast low swings)
    _, report, _ = _ground(tmp_path, DATA / "bvh" / "mixamo_stepping.bvh", "--terrain", "level",
                           "--ball-clearance", "0.05")
    printed = capsys.readouterr().out
    assert 0.01 < report["swing_lift_max_m"] <= 0.06
    assert f"--ball-clearance raised swinging feet by up to " \
           f"{100 * report['swing_lift_max_m']:.1f} cm" in printed
    assert max(s["clearance_lift_m"] for s in report["swings"]) == report["swing_lift_max_m"]
