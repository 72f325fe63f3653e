"""Issue 25: the clip's own floor (one rule), curved and backward walks on uneven ground, and
swings judged against the ground blended from lift-off to touch-down."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ALL_BVH_FILES
from footfall import bvh, quat
from footfall.grounding.clip import animation_floor, ground_clip, prepare_clip
from footfall.grounding.feet import calibration_frames, legs_of, toe_tips
from footfall.skeleton import Clip
from footfall.terrain import LevelGround

HUMANOIDS = [p for p in ALL_BVH_FILES if p.name != "pybvh_rotation_first_root.bvh"]


@pytest.fixture(scope="module")
def whole() -> dict[str, Clip]:
    return {path.name: bvh.load(path) for path in HUMANOIDS}


def _support_points(clip: Clip) -> np.ndarray:
    """``(F, 2, P, 3)`` each foot's ankle and toe tips (joints and End Sites beyond the ball,
    the ball itself), read off the skeleton here rather than from grounding's feet."""
    legs = legs_of(clip.skeleton)
    grot, gpos = clip.forward_kinematics()
    tips = [toe_tips(clip.skeleton, leg) for leg in legs]
    width = 1 + max(len(t) for t in tips)
    out = np.full((clip.frame_count, 2, width, 3), np.nan)
    for side, leg in enumerate(legs):
        out[:, side, 0] = gpos[:, leg.foot]
        for i, (joint, offset) in enumerate(tips[side], start=1):
            out[:, side, i] = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
    return out


def _lowest(clip: Clip) -> np.ndarray:
    return np.nanmin(_support_points(clip)[..., 1], axis=-1)  # (F, 2)


@pytest.mark.parametrize("name", [p.name for p in HUMANOIDS])
def test_flat_ground_keeps_every_stance_foot_over_its_own_floor(whole: dict[str, Clip],
                                                                name: str) -> None:
    # One rule: the floor is the 5th percentile, over the contact frames, of the lowest joint
    # or foot End Site of the planted feet; placement puts it on the terrain. Placed on flat
    # ground 0.37 m up, the stance feet keep their height over that floor: 0 ± 3 mm (median over
    # the contacts). Before: pybvh_test1_zup_inches −7.7 mm, cmu_01_01_fairmotion −3.9 mm (the
    # floor was the lowest body point over every frame, swings and all).
    clip = whole[name]
    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    result = ground_clip(clip, LevelGround(0.37), place=True)
    contacts = result.contacts[motion]
    source = _lowest(clip[motion])
    found = prepare_clip(clip[motion], legs_of(clip.skeleton)).contacts  # before planning
    floor = np.percentile(source[found], 5)
    assert animation_floor(clip) == pytest.approx(floor, abs=1e-4)
    offset = (_lowest(result.clip[motion]) - 0.37) - (source - floor)
    assert abs(np.median(offset[contacts])) <= 0.003, 1000 * np.median(offset[contacts])
    # every stance foot: as the do-no-harm clean-up at the floor leaves it (which moves only
    # the source's own stance defects), wherever the clip stands
    level = ground_clip(clip, LevelGround(animation_floor(clip)), place=False)
    cleaned = _lowest(level.clip[motion]) - animation_floor(clip) - (source - floor)
    assert np.abs(offset - cleaned)[contacts].max() <= 0.003
    # and no report figure differs from the clean-up's
    for key, value in level.after.items():
        assert result.after[key] == pytest.approx(value, abs=1e-3), key
