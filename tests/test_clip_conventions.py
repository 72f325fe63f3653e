"""The clip variants of ``tests/conventions.py`` (issue 36 item 6) are what they say they are:
the same motion mirrored, backwards, resampled, or read back from a Z-up / inches file."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import DATA, ground_table
from conventions import VARIANTS, mirrored
from footfall import bvh
from footfall.footing.foot_model import legs_of

WALK = DATA / "bvh" / "games105_walk60.bvh"


@pytest.mark.parametrize("name", ["games105_walk60.bvh", "mixamo_stepping.bvh", "cmu_131_01.bvh",
                                  "pybvh_test1_zup_inches.bvh"])
def test_a_mirrored_clip_is_the_reflection_with_its_sides_swapped(name: str) -> None:
    clip = bvh.load(DATA / "bvh" / name)
    mirror = mirrored(clip)
    _, a = clip.forward_kinematics()
    _, b = mirror.forward_kinematics()
    assert np.allclose(b, a * [-1.0, 1.0, 1.0], atol=1e-9)  # every joint reflected through x = 0
    legs, swapped = legs_of(clip.skeleton), legs_of(mirror.skeleton)
    # the leg the mapping calls left is the reflection of the source's right leg
    assert np.allclose(b[:, swapped[0].foot], a[:, legs[1].foot] * [-1.0, 1.0, 1.0], atol=1e-9)
    twice = mirrored(mirror)
    assert twice.skeleton.names == clip.skeleton.names
    assert np.allclose(twice.forward_kinematics()[1], a, atol=1e-9)


def test_files_of_other_conventions_read_back_as_the_same_motion() -> None:
    clip = bvh.load(WALK)
    _, source = clip.forward_kinematics()
    for name in ("z_up", "inches"):
        _, read = VARIANTS[name](clip).forward_kinematics()
        assert np.abs(read - source).max() < 1e-6, name


def test_backward_and_resampled_walks() -> None:
    clip = bvh.load(WALK)
    _, source = clip.forward_kinematics()
    _, back = VARIANTS["backward"](clip).forward_kinematics()
    assert np.allclose(back, source[::-1])
    for fps in (30, 60, 120):
        made = VARIANTS[f"fps{fps}"](clip)
        assert made.fps == fps
        assert made.duration == pytest.approx(clip.duration, abs=1.0 / fps)
    _, half = VARIANTS["fps30"](clip).forward_kinematics()
    assert np.allclose(half, source[::2][: len(half)], atol=1e-9)  # 60 → 30 fps: every other


def test_the_independent_scorer_reads_a_known_offset() -> None:
    # The source scored against itself on level ground at its own (independent) floor reads
    # zero; the same clip raised 10 mm reads 10 mm of stance and swing and no depth; lowered
    # 10 mm, 10 mm deeper than the source's own dip.
    from footfall.terrain import LevelGround

    tool = ground_table()
    clip = bvh.load(WALK)
    floor = tool.independent_scores(clip, clip, LevelGround(0.0))["floor"]
    level = LevelGround(floor)
    same = tool.independent_scores(clip, clip, level)
    assert same["stance"] == pytest.approx(0.0, abs=1e-9)
    assert same["swing"] == pytest.approx(0.0, abs=1e-9)
    assert same["beyond_dip"] == pytest.approx(0.0, abs=1e-9)
    for dy in (0.01, -0.01):
        moved = clip.copy()
        moved.positions[:, 0, 1] += dy
        got = tool.independent_scores(clip, moved, level)
        assert got["stance"] == pytest.approx(0.01, abs=1e-6)
        assert got["floor_out"] - got["floor"] == pytest.approx(dy, abs=1e-6)
        assert got["beyond_dip"] == pytest.approx(max(0.0, -dy), abs=1e-6)
        # the ground a swing is judged against (the level ground under the feet at lift-off
        # and touch-down) did not move with the clip: its swings are 10 mm off too
        assert got["swing"] == pytest.approx(0.01, abs=1e-6)
    assert tool.level_change(clip, moved)[:2] == pytest.approx((0.0, 0.0), abs=1e-9)
