"""The stairs experiment on the real solved feet: the issue's thresholds on computed rows."""

from __future__ import annotations

import json

import pytest

from conftest import DATA
from footfall.cli import main
from footfall.gait.experiment import WALKERS, run_experiment

HUMANOID = DATA / "bvh" / "cmu_131_01_metres.bvh"
ROW_KEYS = {
    "character", "walker", "step_height_m", "contact_error_m", "support_defect_ratio",
    "penetration_m", "floating_m", "stance_slip_m", "hips_jerk", "clamped_ratio",
}


@pytest.fixture(scope="module")
def result() -> dict:
    # A reduced sweep: the lowest and highest step heights, 6 s instead of 20 s.
    return run_experiment(HUMANOID, heights=(0.05, 0.25), duration=6.0)


def _rows(result: dict, character: str, walker: str) -> list[dict]:
    return [r for r in result["rows"] if r["character"].startswith(character)
            and r["walker"] == walker]


def test_rows_cover_every_character_walker_and_height(result: dict) -> None:
    rows = result["rows"]
    assert len(rows) == 2 * len(WALKERS) * 2
    for row in rows:
        assert ROW_KEYS <= set(row)
    humanoid = {r["step_height_m"] for r in rows if r["character"].startswith("humanoid")}
    assert humanoid == {0.05, 0.25}  # the humanoid takes the heights as they are
    bunny = sorted({r["step_height_m"] for r in rows if r["character"] == "bunny"})
    assert bunny == pytest.approx([0.05 * 0.37 / 0.80, 0.25 * 0.37 / 0.80], rel=1e-6)


@pytest.mark.parametrize("character", ["humanoid", "bunny"])
def test_all_on_meets_the_issue_thresholds(result: dict, character: str) -> None:
    for row in _rows(result, character, "all_on"):
        assert row["contact_error_m"] <= 0.002, row
        assert row["support_defect_ratio"] <= 0.01, row


@pytest.mark.parametrize("character", ["humanoid", "bunny"])
def test_no_ik_is_clearly_worse(result: dict, character: str) -> None:
    for on, off in zip(_rows(result, character, "all_on"), _rows(result, character, "no_ik"),
                       strict=True):
        assert off["contact_error_m"] > 3 * on["contact_error_m"] + 0.004
        assert off["support_defect_ratio"] > 0.1


@pytest.mark.parametrize("character", ["humanoid", "bunny"])
def test_ablations_hurt_where_seed_002_says(result: dict, character: str) -> None:
    pairs = zip(_rows(result, character, "all_on"), _rows(result, character, "no_hips"),
                _rows(result, character, "no_tread_snap"), strict=True)
    for on, no_hips, no_snap in pairs:
        # hips off: feet cannot reach going down
        assert no_hips["contact_error_down_m"] > on["contact_error_down_m"] + 0.003
        assert no_hips["clamped_ratio"] > on["clamped_ratio"]
        # tread snapping off: feet landing near an edge hang over it
        assert no_snap["contact_error_near_edge_m"] > on["contact_error_near_edge_m"] + 0.003


@pytest.mark.parametrize("character", ["humanoid", "bunny"])
def test_foot_alignment_matters_on_slopes(result: dict, character: str) -> None:
    slopes = [r for r in result["slope_rows"] if r["character"].startswith(character)]
    for scenario in ("slope_up", "slope_down"):
        on = next(r for r in slopes if r["walker"] == "all_on" and r["scenario"] == scenario)
        off = next(r for r in slopes if r["walker"] == "no_foot_align"
                   and r["scenario"] == scenario)
        assert on["contact_error_m"] <= 0.002
        assert off["contact_error_m"] > on["contact_error_m"] + 0.003


@pytest.mark.parametrize("character", ["humanoid", "bunny"])
def test_sole_roll_shows_on_the_sideways_slope(result: dict, character: str) -> None:
    # the sole is sampled across its width: a foot left level on a 12° sideways slope has its
    # outer columns off the ground by ±width/2·tan 12° (≈ 9 mm for the humanoid)
    slopes = [r for r in result["slope_rows"] if r["character"].startswith(character)
              and r["scenario"] == "slope_sideways"]
    on = next(r for r in slopes if r["walker"] == "all_on")
    off = next(r for r in slopes if r["walker"] == "no_foot_align")
    assert on["contact_error_m"] <= 0.002
    assert off["contact_error_m"] > on["contact_error_m"] + 0.002


def test_eval_command_writes_json_and_png(tmp_path, capsys) -> None:
    out_json, out_png = tmp_path / "eval.json", tmp_path / "eval.png"
    code = main(["eval", "--seconds", "2", "--heights", "0.1", "--quiet",
                 "--json", str(out_json), "--plot", str(out_png)])
    assert code == 0
    rows = json.loads(out_json.read_text())["rows"]
    assert {r["walker"] for r in rows} == set(WALKERS)
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "all_on" in capsys.readouterr().out


def test_eval_command_rejects_bad_input(tmp_path, capsys) -> None:
    assert main(["eval", "--humanoid", str(tmp_path / "missing.bvh"), "--quiet"]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["eval", "--heights", "abc"])
    with pytest.raises(SystemExit):
        main(["eval", "--seconds", "-3"])
