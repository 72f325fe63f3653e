"""Calibration that does not trust a bad rest pose (issue 24, item 2).

A BVH exporter that bakes joint orients into the rotation channels (Maya-style, 6 channels on
every joint) leaves a rest pose whose legs point anywhere. The same animation re-expressed with
other joint orients — each joint's frame turned by a constant rotation ``O``: offsets
``O_parent⁻¹ · offset``, rotations ``O_parent⁻¹ · q · O``, End Sites ``O⁻¹ · site`` — has the
same joint positions in every frame, so it must retarget to the same result.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import HUMANOID_BVH_FILES
from footfall import bvh, quat
from footfall.cli import main
from footfall.errors import SettingsError
from footfall.retarget import Retargeter
from footfall.retarget.calibration import standing_problem
from footfall.skeleton import Clip, Skeleton

CLIPS = [p for p in HUMANOID_BVH_FILES if p.stem != "cmu_131_01_metres"]
TARGET = next(p for p in HUMANOID_BVH_FILES if p.stem == "mixamo_stepping")
SECONDS = 2.0


def reexpressed(clip: Clip, seed: int, angle: float = np.pi) -> Clip:
    """``clip`` with every joint's frame turned by a random rotation of up to ``angle``."""
    rng = np.random.default_rng(seed)
    skeleton = clip.skeleton
    count = skeleton.joint_count
    axis = rng.normal(size=(count, 3))
    orient = quat.from_axis_angle(axis / np.linalg.norm(axis, axis=-1, keepdims=True),
                                  rng.uniform(0.3, 1.0, count) * angle)
    parents = skeleton.parents
    parent_orient = np.where((parents >= 0)[:, None], orient[np.maximum(parents, 0)],
                             quat.identity((count,)))
    offsets = quat.inv_rotate(parent_orient, skeleton.offsets)
    sites = {j: quat.inv_rotate(orient[j], np.asarray(site)) for j, site in
             skeleton.end_sites.items()}
    rotations = quat.mul(quat.mul(quat.inv(parent_orient), clip.rotations), orient)
    positions = clip.positions.copy()
    below = parents >= 0
    positions[:, below] = quat.inv_rotate(parent_orient[below], clip.positions[:, below])
    return Clip(Skeleton(skeleton.names, parents, offsets, sites), quat.normalize(rotations),
                positions, clip.fps)


def short(path) -> Clip:
    clip = bvh.load(path)
    return clip[: int(SECONDS * clip.fps)]


@pytest.mark.parametrize("path", CLIPS, ids=lambda p: p.stem)
def test_a_reexpressed_clip_retargets_to_the_same_result(path) -> None:
    clip = short(path)
    other = reexpressed(clip, seed=len(path.stem))
    # The same animation: every joint where it was, every frame.
    np.testing.assert_allclose(other.global_positions(), clip.global_positions(), atol=1e-9)
    target = bvh.load(TARGET).skeleton
    first = Retargeter(clip.skeleton, target)
    second = Retargeter(other.skeleton, target)
    # The re-expressed rest pose does not stand, and says why; the capture's own does.
    identity = quat.identity((clip.skeleton.joint_count,))
    assert standing_problem(clip.skeleton, first.source_map, identity) is None
    assert standing_problem(other.skeleton, second.source_map, identity) is not None
    said = second.calibrate_for(other)
    assert "does not stand" in said and "frame" in said
    first.calibrate_for(clip, "auto")
    out, out2 = first.apply(clip), second.apply(other)
    np.testing.assert_allclose(out2.global_positions(), out.global_positions(), atol=1e-6)


def test_a_chosen_frame_and_bad_frames() -> None:
    clip = short(next(p for p in CLIPS if p.stem == "games105_walk60"))
    r = Retargeter(clip.skeleton, clip.skeleton)
    assert r.calibrate_for(clip, 3) == "calibrated from frame 3"
    assert r.calibrate_for(clip) == "calibrated from the rest pose"
    for bad in (clip.frame_count, "middle", -clip.frame_count - 1):
        with pytest.raises(SettingsError, match="calibration frame"):
            r.calibrate_for(clip, bad)


def test_the_command_says_how_it_calibrated(tmp_path, capsys) -> None:
    clip = short(next(p for p in CLIPS if p.stem == "games105_walk60"))
    source = tmp_path / "bent.bvh"
    bvh.save(reexpressed(clip, seed=5), source)
    out = tmp_path / "out.bvh"
    assert main(["retarget", str(source), "--to", str(TARGET), "-o", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "rest pose does not stand" in said and "calibrated from frame" in said
    assert main(["retarget", str(source), "--to", str(TARGET), "-o", str(out), "--quiet",
                 "--calibrate-frame", "2"]) == 0
    assert "calibrated from frame 2" in capsys.readouterr().out
    assert main(["retarget", str(source), "--to", str(TARGET), "-o", str(out), "--quiet",
                 "--calibrate-frame", "99999"]) == 2
    assert "calibration frame" in capsys.readouterr().err
