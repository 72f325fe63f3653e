"""Issue 36 item 1: level ground does no harm, judged by the independent scorer of
``tools/ground_table.py`` (the source's own contacts, heel stances and floor from its rig,
``tests/skinned_feet.py``) on every shared clip and on clips of other conventions made from them
(``tests/conventions.py``).

``footfall ground --terrain level`` changes a frame only where the source has a stance defect —
a planted foot sunk under its planted height, or sliding — by no more than that defect; the
body above the knees never moves, the floor stays where it was, and neither GMD's foot-skate
ratio (+0.005 at most) nor PhysDiff's penetration gets worse.

Not asserted here, measured in the table: the changes beyond the source's defects of a walk
played backwards (mocapbank: 2.2 mm, a lock holding a ball from a landing the independent
rule finds later) and resampled to 120 fps (mixamo_stepping: 10.1 mm, a push-off at 0.33-0.45
m/s the grounding holds as planted and the independent rule, at 0.35 m/s, does not).
"""

from __future__ import annotations

import importlib.util
from functools import cache

import numpy as np
import pytest

from conftest import DATA, HUMANOID_BVH_FILES
from conventions import VARIANTS
from footfall import bvh
from footfall.grounding.clip import animation_floor, ground_clip
from footfall.grounding.feet import calibration_frames, legs_of
from footfall.skeleton import Clip
from footfall.terrain import LevelGround

FRAMES = 600  # the first seconds of the long captures keep the module quick
#: As the file is, and the conventions whose level clean-up is held to the source's defects.
EXACT = ("as_is", "mirrored", "z_up", "inches", "fps30", "fps60")
#: Conventions held to the body, floor, GMD and PhysDiff rules.
OTHERS = ("backward", "fps120")


@cache
def _tool():  # noqa: ANN202 - tools/ground_table.py, the independent scorer
    spec = importlib.util.spec_from_file_location(
        "ground_table", DATA.parent.parent / "tools" / "ground_table.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


@cache
def _clip(name: str, variant: str) -> Clip:
    clip = bvh.load(DATA / "bvh" / name)[:FRAMES]
    clip = clip if variant == "as_is" else VARIANTS[variant](clip)
    return clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]


CASES = [(path.name, variant) for path in HUMANOID_BVH_FILES for variant in EXACT + OTHERS]


@pytest.mark.parametrize(("name", "variant"), CASES)
def test_level_ground_changes_only_the_sources_own_stance_defects(name: str,
                                                                  variant: str) -> None:
    # A planted foot held higher than its planted height keeps that height (it stands on
    # something; the sustained float was lowered before). Before, first 600 frames: changed
    # beyond the source's defects by 6.6 mm on mocapbank and 1.8 mm on cmu_131_01, which moved
    # 38.3 mm at most against the input moved rigidly (now 23.4, all of it a sliding stance
    # held); games105 12.8 mm (a knee swung by a raised foot lowered 2.5 mm; now 1.8).
    tool = _tool()
    source = _clip(name, variant)
    result = ground_clip(source, LevelGround(animation_floor(source)), place=False)
    out = result.clip
    legs = legs_of(source.skeleton)
    _, a = source.forward_kinematics()
    _, b = out.forward_kinematics()
    knees = {leg.lower for leg in legs}
    above = [j for j in range(source.skeleton.joint_count)
             if not knees & set(source.skeleton.chain(j))]
    assert np.abs(b[:, above] - a[:, above]).max() < 1e-6, "the body above the knees moved"
    got = tool.independent_scores(source, out, LevelGround(0.0))
    assert abs(got["floor_out"] - got["floor"]) <= 0.003, "the floor moved"
    before, after = result.before, result.after
    assert after["gmd_foot_skate_ratio"] <= before["gmd_foot_skate_ratio"] + 0.005
    assert after["physdiff_penetration_mm"] <= before["physdiff_penetration_mm"] + 0.01
    if variant in EXACT:
        harm = tool.level_harm(source, out)
        assert harm <= 0.001, f"changed {1000 * harm:.1f} mm beyond the source's own defects"
