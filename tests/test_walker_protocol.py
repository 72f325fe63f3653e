"""Both walkers implement the one walker protocol; the stepping walk's sizes are seed 000's."""

from __future__ import annotations

import numpy as np
import pytest

from footfall.bunny import PROPORTIONS, bunny_skeleton
from footfall.errors import FootfallError
from footfall.gait.grounded import GroundedWalker
from footfall.gait.protocol import Walker
from footfall.gait.stepping import StepStyle, StepWalker
from footfall.terrain import scene
from footfall.viewer.simulation import BUNNY_STEP_STYLE

DT = 1 / 60


def _walkers() -> list[Walker]:
    course = scene("course")
    skeleton = bunny_skeleton()
    return [
        StepWalker(skeleton, course, 2, start_x=[0.5, 2.5], style=BUNNY_STEP_STYLE),
        GroundedWalker(course, skeleton, count=2, start=[(0.5, 0, 0), (2.5, 0, 0)]),
    ]


def test_both_walkers_are_walkers() -> None:
    for walker in _walkers():
        assert isinstance(walker, Walker)


@pytest.mark.parametrize("which", [0, 1])
def test_one_driver_steps_rewinds_and_switches_either_walker(which: int) -> None:
    walker, twin = _walkers()[which], _walkers()[which]
    block = walker.step_frames(DT, 6)
    assert np.asarray(block.global_positions).shape[:2] == (6, 2)
    one_by_one = [twin.step(DT) for _ in range(6)]
    for t, frame in enumerate(one_by_one):
        np.testing.assert_allclose(block.global_positions[t], frame.global_positions, atol=1e-9)
    walker.rewind(2)  # back to the third frame, then the same next frame as stepping on
    twin_again = _walkers()[which]
    for _ in range(4):
        expected = twin_again.step(DT)
    np.testing.assert_allclose(walker.step(DT).global_positions, expected.global_positions,
                               atol=1e-9)
    walker.speed = 1.0
    assert np.all(np.isclose(walker.speed, 1.0))
    with pytest.raises(FootfallError):
        walker.speed = -1.0
    with pytest.raises(FootfallError, match="rewind"):
        walker.rewind(99)


def test_the_walk_cycle_takes_one_speed_for_all_and_says_so() -> None:
    walker = _walkers()[1]
    before = walker.speed
    with pytest.raises(FootfallError, match="one value for every character"):
        walker.speed = [0.5, 1.0]
    assert walker.speed == before  # a refused speed changes nothing
    walker.speed = [0.8]
    assert walker.speed == pytest.approx(0.8)


@pytest.mark.parametrize("which", [0, 1])
def test_ik_switches_per_character(which: int) -> None:
    on, off = _walkers()[which], _walkers()[which]
    off.ik[1] = False
    a = on.step_frames(DT, 40)
    b = off.step_frames(DT, 40)
    np.testing.assert_allclose(a.global_positions[:, 0], b.global_positions[:, 0], atol=1e-12)
    assert np.abs(a.global_positions[:, 1] - b.global_positions[:, 1]).max() > 1e-3


def test_step_style_defaults_are_seed_000s_bunny_walk_in_leg_lengths() -> None:
    p, style = PROPORTIONS, StepStyle()
    leg = p.leg_length
    assert style.hips_height == pytest.approx((p.walk_hips_height - p.hip_drop
                                                 - p.ankle_height) / leg, abs=1e-12)
    assert style.step_length == pytest.approx(p.step_length / leg, abs=1e-12)
    assert style.bob * leg == pytest.approx(0.02, abs=1e-12)


def test_the_bunny_swings_its_arms_and_other_skeletons_only_what_they_have() -> None:
    skeleton = bunny_skeleton()
    flat = scene("flat")
    arm = skeleton.index("LeftUpperArm")
    plain = StepWalker(skeleton, flat, 1)
    bunny = StepWalker(skeleton, flat, 1, style=BUNNY_STEP_STYLE)
    quarter = np.array([plain.step_length / 4])  # walk phase 1/4: sin = 1
    rot_plain = plain.flat_pose(quarter)[0][0, arm]
    rot_bunny = bunny.flat_pose(quarter)[0][0, arm]
    np.testing.assert_allclose(rot_plain, [1, 0, 0, 0], atol=1e-12)
    angle = 2 * np.arctan2(np.linalg.norm(rot_bunny[1:]), rot_bunny[0])
    assert angle == pytest.approx(0.5, abs=1e-9)
