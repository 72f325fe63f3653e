"""``footfall measure``: batch measure's metrics for one file, GMD's ratio as GMD computes it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from footfall import metrics
from footfall.cli import main
from footfall.joints import LAYOUTS
from footfall.joints.io import gmd_ratio
from joints_data import noisy, walker_joints

BVH = "tests/data/bvh/games105_walk60.bvh"


def _tiny_clip() -> np.ndarray:
    """Six frames of a standing body, HumanML3D rows, worked by hand below.

    The whole body is lowered 0.2 m (its ankles end up under y = 0); then the left toe base
    (row 10) is put 1 cm over y = 0 and moved 4 cm along x a frame for four frames, then held;
    the right toe base (row 11) 6 cm over y = 0, moving 10 cm a frame.
    """
    base = walker_joints()[40]
    positions = np.repeat(base[None], 6, axis=0)
    positions[..., 1] -= 0.2
    positions[:, 10, 0] = base[10, 0] + np.array([0.0, 0.04, 0.08, 0.12, 0.16, 0.16])
    positions[:, 10, 1] = 0.01
    positions[:, 11, 0] = base[11, 0] + 0.1 * np.arange(6)
    positions[:, 11, 1] = 0.06
    return positions


def test_gmd_ratio_of_a_hand_worked_clip(tmp_path, capsys) -> None:
    # GMD's released calculate_skating_ratio at 20 fps, heights as given (floor y = 0):
    # left toe: height 0.01 < 0.05 in every frame → in contact for all 5 frame pairs;
    #   speeds 0.04 m × 20 = 0.8, 0.8, 0.8, 0.8, 0 m/s;
    #   5-frame centred mean, zeros outside: 0.48, 0.64, 0.64, 0.48, 0.32;
    #   skating where speed > 0.5 and mean > 0.5: pairs 1 and 2.
    # right toe: height 0.06 ≥ 0.05 → never in contact, however fast.
    # Ratio: 2 skating pairs of 5 = 0.4.
    positions = _tiny_clip()
    np.save(tmp_path / "tiny.npy", positions.astype(np.float32))
    out = tmp_path / "tiny.json"
    assert main(["measure", str(tmp_path / "tiny.npy"), "--layout", "humanml3d",
                 "--json", str(out)]) == 0
    row = json.loads(out.read_text())
    assert row["before.gmd_foot_skate_ratio"] == pytest.approx(0.4, abs=1e-12)
    assert "gmd_foot_skate_ratio" in capsys.readouterr().out
    # Re-flooring at the lowest joint (footfall's rule for clips that never went through
    # HumanML3D's preprocessing) would lift both toes over 5 cm and find no skating at all.
    assert positions[..., 1].min() < -0.05
    assert metrics.gmd_foot_skate_ratio(positions, 20.0, 10, 11) == 0.0
    assert gmd_ratio(positions, LAYOUTS["humanml3d"], 20.0) == pytest.approx(0.4, abs=1e-12)


def test_json_has_batch_measure_keys_and_values(tmp_path) -> None:
    folder = tmp_path / "generated"
    folder.mkdir()
    np.save(folder / "walk.npy", noisy(walker_joints(seconds=3.0)).astype(np.float32))
    assert main(["measure", str(folder / "walk.npy"), "--json", str(tmp_path / "one.json")]) == 0
    one = json.loads((tmp_path / "one.json").read_text())
    assert main(["batch", "measure", str(folder), "-o", str(tmp_path / "batch"), "--jobs", "1",
                 "--quiet"]) == 0
    batch = json.loads((tmp_path / "batch" / "summary.json").read_text())["rows"][0]
    assert set(one) == set(batch)
    timing = {"seconds", "cpu_seconds"}
    assert {k: v for k, v in one.items() if k not in timing} == {
        k: v for k, v in batch.items() if k not in timing}
    assert one["joints.fit_mean_error_mm"] < 2.0 and one["fps"] == 20.0


def test_bvh_and_glb_files(tmp_path, capsys) -> None:
    assert main(["measure", BVH, "--json", str(tmp_path / "bvh.json")]) == 0
    row = json.loads((tmp_path / "bvh.json").read_text())
    assert row["fps"] == 60.0 and "joints.layout" not in row
    assert {"before.gmd_foot_skate_ratio", "before.physdiff_sliding_mm",
            "before.stance_slip_m"} <= set(row)
    np.save(tmp_path / "walk.npy", walker_joints(seconds=3.0))
    assert main(["import", str(tmp_path / "walk.npy"), "-o", str(tmp_path / "walk.glb"),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["measure", str(tmp_path / "walk.glb")]) == 0
    table = capsys.readouterr().out
    assert "physdiff_sliding_mm" in table
    assert any(line.split()[:2] == ["fps", "20.0000"] for line in table.splitlines())


def test_unmeasurable_files_exit_2_with_one_line(tmp_path, capsys) -> None:
    np.save(tmp_path / "results.npy", {"motion": np.zeros((3, 22, 3))}, allow_pickle=True)
    assert main(["measure", str(tmp_path / "results.npy"), "--json",
                 str(tmp_path / "m.json")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "MDM results" in lines[0] and "results.npy" in lines[0]
    assert "'motion' has shape (3, 22, 3)" in lines[0]
    assert not (tmp_path / "m.json").exists()
    np.save(tmp_path / "short.npy", np.zeros((4, 23, 3)))
    assert main(["measure", str(tmp_path / "short.npy")]) == 2
    assert "23 joints" in capsys.readouterr().err
