"""``footfall ground`` and ``footfall batch`` on joint-position files: the clean-up written back
as joints in the same layout, measured on what was written."""

from __future__ import annotations

import json

import numpy as np

from footfall import bvh
from footfall.cli import main
from footfall.joints import LAYOUTS
from footfall.joints.io import gmd_ratio
from joints_data import FPS, library, noisy, walker_joints

HUMANML3D = LAYOUTS["humanml3d"]
LEFT_ANKLE, LEFT_TOE, RIGHT_TOE = (HUMANML3D.index(n) for n in ("left_ankle", "left_foot",
                                                                 "right_foot"))
#: A planted toe moving faster than this (m/s) between two contact frames slides.
SLIDING = 0.05
SLIDE_SPEED = 0.1  # m/s, injected into the left foot while it is planted


def _contacts(report: dict, frames: int) -> np.ndarray:
    out = np.zeros((frames, 2), dtype=bool)
    for side, name in enumerate(("left", "right")):
        for start, stop in report["contacts"][name]:
            out[start:stop, side] = True
    return out


def _sliding_share(positions: np.ndarray, contacts: np.ndarray) -> float:
    """Share of contact frame pairs (either foot) in which a planted toe moves faster than
    :data:`SLIDING` (a low threshold: GMD's 0.5 m/s counts only fast slides)."""
    return float(np.mean([
        np.mean(np.linalg.norm(np.diff(positions[:, toe][:, [0, 2]], axis=0), axis=-1)[
            both] * FPS > SLIDING)
        for toe, both in ((LEFT_TOE, contacts[1:, 0] & contacts[:-1, 0]),
                          (RIGHT_TOE, contacts[1:, 1] & contacts[:-1, 1]))]))


def test_cleanup_lowers_skating_without_lifting_feet(tmp_path) -> None:
    clean = walker_joints()
    np.save(tmp_path / "clean.npy", clean)
    assert main(["ground", str(tmp_path / "clean.npy"), "--terrain", "level", "-o",
                 str(tmp_path / "clean_out.npy"), "--report", str(tmp_path / "clean.json"),
                 "--quiet"]) == 0
    planted = _contacts(json.loads((tmp_path / "clean.json").read_text()), len(clean))
    # Slides: while the left foot is planted, its ankle and toe drift along x at 0.1 m/s.
    drift = np.zeros(len(clean))
    for frame in range(1, len(clean)):
        held = planted[frame, 0] and planted[frame - 1, 0]
        drift[frame] = drift[frame - 1] + SLIDE_SPEED / FPS if held else 0.0
    slid = clean.copy()
    slid[:, [LEFT_ANKLE, LEFT_TOE], 0] += drift[:, None]
    np.save(tmp_path / "slid.npy", slid)
    out = tmp_path / "out.npy"
    assert main(["ground", str(tmp_path / "slid.npy"), "--terrain", "level", "-o", str(out),
                 "--report", str(tmp_path / "slid.json"), "--quiet"]) == 0
    cleaned = np.load(out)
    assert cleaned.shape == slid.shape and cleaned.dtype == np.float32
    contacts = _contacts(json.loads((tmp_path / "slid.json").read_text()), len(slid))
    before, after = _sliding_share(slid, contacts), _sliding_share(cleaned, contacts)
    assert before > 0.2
    assert after < 0.6 * before, (before, after)
    # No foot lifted: in contact, ankles and toes stay within 2 mm of the input's heights or
    # below them.
    for side, joints in ((0, ("left_ankle", "left_foot")), (1, ("right_ankle", "right_foot"))):
        rows = [HUMANML3D.index(j) for j in joints]
        rise = cleaned[contacts[:, side]][:, rows, 1] - slid[contacts[:, side]][:, rows, 1]
        assert rise.max() < 0.002, (joints, rise.max())


def test_npy_written_beside_the_clip_in_the_same_layout(tmp_path, capsys) -> None:
    positions = noisy(walker_joints("smpl24", seconds=3.0))
    np.save(tmp_path / "walk.npy", positions)
    out = tmp_path / "walk_out.bvh"
    assert main(["ground", str(tmp_path / "walk.npy"), "--terrain", "level", "-o", str(out),
                 "--npy", "--report", str(tmp_path / "r.json"), "--quiet"]) == 0
    written = np.load(tmp_path / "walk_out.npy")
    assert written.shape == positions.shape  # smpl24: 24 joints back
    clip = bvh.load(out)
    assert clip.skeleton.joint_count == 24
    # Level ground at the clip's own floor, nothing to correct: the joints come back as solved.
    assert np.linalg.norm(written - positions, axis=-1).mean() < 0.002
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["joints"]["layout"] == "smpl24"
    assert report["before"]["gmd_foot_skate_ratio"] == gmd_ratio(positions, LAYOUTS["smpl24"],
                                                                 30.0)
    assert report["after"]["gmd_foot_skate_ratio"] == gmd_ratio(written, LAYOUTS["smpl24"], 30.0)
    # A BVH grounded into HumanML3D joints needs the layout named; without it, one line.
    bvh_in = "tests/data/bvh/games105_walk60.bvh"
    assert main(["ground", bvh_in, "--terrain", "level", "-o", str(tmp_path / "g.npy"),
                 "--layout", "humanml3d", "--quiet"]) == 0
    assert np.load(tmp_path / "g.npy").shape == (bvh.load(bvh_in).frame_count, 22, 3)
    capsys.readouterr()
    assert main(["ground", bvh_in, "--terrain", "level", "-o", str(tmp_path / "h.npy"),
                 "--quiet"]) == 2
    assert "--layout" in capsys.readouterr().err and not (tmp_path / "h.npy").exists()


def test_batch_over_a_folder_of_npy(tmp_path, capsys) -> None:
    folder = tmp_path / "generated"
    folder.mkdir()
    clips = library(3, frames=60)
    for index, clip in enumerate(clips):
        np.save(folder / f"sample_{index}.npy", clip)
    np.save(folder / "broken.npy", np.full((5, 22, 3), np.nan))
    assert main(["batch", "measure", str(folder), "-o", str(tmp_path / "m"), "--jobs", "1",
                 "--quiet"]) == 1  # one file failed, the others measured
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    rows = [row for row in summary["rows"] if row["status"] == "ok"]
    assert len(rows) == 3
    broken = [row for row in summary["rows"] if row["status"] == "error"]
    assert "broken.npy" in broken[0]["error"] and "NaN" in broken[0]["error"]
    values = np.array([row["before.gmd_foot_skate_ratio"] for row in rows])
    stats = summary["stats"]["before.gmd_foot_skate_ratio"]
    assert stats["n"] == 3
    assert np.isclose(stats["mean"], values.mean()) and np.isclose(stats["std"], values.std())
    sliding = summary["stats"]["before.physdiff_sliding_mm"]
    line = next(x for x in printed.splitlines() if x.startswith("before.physdiff_sliding_mm"))
    assert f"{sliding['mean']:.5g} ± {sliding['std']:.5g}" in line
    assert main(["batch", "ground", str(folder), "-o", str(tmp_path / "g"), "--terrain",
                 "level", "--npy", "--jobs", "1", "--quiet"]) == 1
    for index, clip in enumerate(clips):
        written = np.load(tmp_path / "g" / f"sample_{index}.npy")
        assert written.shape == clip.shape
        assert np.linalg.norm(written - clip, axis=-1).mean() < 0.003
    # walk.bvh beside walk.npy would both become walk.bvh: refused before any work.
    np.save(folder / "sample_0.npy", clips[0])
    (folder / "sample_0.bvh").write_bytes(b"")
    capsys.readouterr()
    assert main(["batch", "ground", str(folder), "-o", str(tmp_path / "clash"), "--terrain",
                 "level", "--jobs", "1", "--quiet"]) == 2
    assert "would both write sample_0.bvh" in capsys.readouterr().err
    assert not (tmp_path / "clash").exists()
