"""Issue 37 item 8: an IK rig whose feet hang from the root beside its legs (RobotExpressive,
written by ``footfall retarget`` as BVH) is measured and grounded like any clip: before, both
commands refused it ("skeleton has no legs"). Its feet are hung below their shins for the
grounding and written back as rigged, each still at the end of its shin."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh
from footfall.cli import main
from footfall.humanoid import map_skeleton


@pytest.fixture(scope="module")
def robot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("robot") / "robot.bvh"
    assert main(["retarget", str(DATA / "bvh" / "games105_walk60.bvh"), "--to",
                 str(DATA / "avatars" / "RobotExpressive.glb"), "-o", str(out), "--quiet"]) == 0
    return out


def _shin_to_foot(path: Path) -> np.ndarray:
    """``(F, 2)`` the distance from each lower leg joint to its foot joint, metres."""
    clip = bvh.load(path)
    mapping = map_skeleton(clip.skeleton).mapping
    at = clip.global_positions()
    return np.stack([np.linalg.norm(at[:, clip.skeleton.index(mapping[f"{side}Foot"])]
                                    - at[:, clip.skeleton.index(mapping[f"{side}LowerLeg"])],
                                    axis=-1) for side in ("Left", "Right")], axis=-1)


def test_a_rig_with_feet_hung_from_the_root_is_measured(robot: Path, capsys) -> None:
    skeleton = bvh.load(robot).skeleton
    mapping = map_skeleton(skeleton).mapping
    foot, shin = (skeleton.index(mapping[b]) for b in ("LeftFoot", "LeftLowerLeg"))
    assert skeleton.parents[foot] != shin  # the rig as it is: the foot beside the leg
    assert main(["measure", str(robot)]) == 0
    assert "contact_ratio" in capsys.readouterr().out


@pytest.mark.parametrize("terrain", ["stairs", "level"])
def test_a_rig_with_feet_hung_from_the_root_is_grounded(robot: Path, tmp_path: Path,
                                                        terrain: str) -> None:
    out = tmp_path / "grounded.bvh"
    assert main(["ground", str(robot), "--terrain", terrain, "-o", str(out), "--quiet"]) == 0
    grounded = bvh.load(out)
    assert grounded.skeleton.names == bvh.load(robot).skeleton.names
    # the feet went where the legs took them: each at the end of its shin as in the input
    np.testing.assert_allclose(_shin_to_foot(out), _shin_to_foot(robot), atol=1e-3)
