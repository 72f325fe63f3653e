"""Seed 000's stepping walker: the API the browser demo drives, on the bunny."""

from __future__ import annotations

import numpy as np
import pytest

from footfall.bunny import bunny_skeleton
from footfall.errors import SkeletonError
from footfall.gait.stepping import StepWalker
from footfall.grounding import GroundingParams, Leg
from footfall.terrain import scene

SKELETON = bunny_skeleton()
LEGS = {
    side: Leg(*(SKELETON.index(f"{s}{part}") for part in ("UpperLeg", "LowerLeg", "Foot", "Toes")))
    for side, s in (("left", "Left"), ("right", "Right"))
}


def test_walker_frame_fields_are_batched() -> None:
    walker = StepWalker(SKELETON, scene("course"), 2, ik=[True, False], lateral_z=[0.3, -0.3],
                        start_x=[0.5, 2.5], legs=LEGS)
    frame = walker.step(1 / 60)
    k, j = 2, SKELETON.joint_count
    assert frame.rotations.shape == (k, j, 4) and frame.positions.shape == (k, j, 3)
    assert frame.global_positions.shape == (k, j, 3)
    assert frame.global_rotations.shape == (k, j, 4)
    for name in ("stance", "ground_height", "sole_gap", "sole_pitch", "sole_roll", "clamped"):
        assert getattr(frame, name).shape == (k, 2), name
    assert frame.ray_origin.shape == frame.ray_hit.shape == (k, 2, 3)
    assert frame.hips_height.shape == (k,)
    assert np.all(frame.ray_origin[..., 1] > frame.ray_hit[..., 1])
    assert frame.global_positions[:, 0, 0] == pytest.approx([0.5 + 0.75 / 60, 2.5 + 0.75 / 60])


def test_dt_is_clamped_and_speed_settable() -> None:
    walker = StepWalker(SKELETON, scene("flat"), 1, legs=LEGS)
    walker.step(1.0)
    assert walker.distance[0] == pytest.approx(0.75 * 0.05)
    walker.speed = 1.4
    walker.step(1 / 60)
    assert walker.distance[0] == pytest.approx(0.75 * 0.05 + 1.4 / 60)
    with pytest.raises(SkeletonError, match="speed"):
        walker.speed = -1.0


def test_planted_feet_do_not_slide_on_flat_ground() -> None:
    walker = StepWalker(SKELETON, scene("flat"), 1, legs=LEGS)
    feet = [SKELETON.index("LeftFoot"), SKELETON.index("RightFoot")]
    previous = None
    slides = []
    for _ in range(100):
        frame = walker.step(1 / 60)
        ankles = frame.global_positions[0, feet]
        if previous is not None:
            both = frame.stance[0] & previous[1]
            slides.extend(np.linalg.norm((ankles - previous[0])[both][:, [0, 2]], axis=-1))
        previous = (ankles, frame.stance[0])
    assert len(slides) > 50
    assert max(slides) < 1e-9
    # seed 000's bunny: sole on the ground at the plant, ankle 0.1 up
    assert frame.sole_gap[frame.stance] == pytest.approx(0.0, abs=1e-9)


def test_per_character_switches_change_the_result() -> None:
    stairs = scene("stairs", step_height=0.1)
    # going down (from the landing) the lower foot needs the hips lowered (seed 002)
    walker = StepWalker(SKELETON, stairs, 2, legs=LEGS, lateral_z=[0.0, 1.0], start_x=3.0)
    walker.ik[1] = False
    hips = []
    for _ in range(120):
        frame = walker.step(1 / 60)
        hips.append(frame.hips_offset)
    hips = np.array(hips)
    # IK on lowers the hips below the body's ground height at times; IK off never does.
    assert np.all(hips[:, 0] <= hips[:, 1] + 1e-12)
    assert np.max(hips[:, 1] - hips[:, 0]) > 0.02
    assert walker.ik.tolist() == [True, False]
    walker.params = [GroundingParams(), GroundingParams().without("hips")]
    assert walker.params.hips.tolist() == [True, False]
    assert np.all(np.isfinite(frame.global_positions))


def test_ik_off_shows_gaps_on_stairs_and_ik_on_closes_them() -> None:
    """Measured on the solved feet: IK on keeps planted soles on the treads, IK off does not."""
    stairs = scene("stairs", step_height=0.12)
    walker = StepWalker(SKELETON, stairs, 2, ik=[True, False], legs=LEGS, lateral_z=[0.0, 1.0],
                        start_x=0.4)
    on, off = [], []
    for _ in range(360):
        frame = walker.step(1 / 60)
        on.extend(np.abs(frame.sole_gap[0][frame.stance[0]]))
        off.extend(np.abs(frame.sole_gap[1][frame.stance[1]]))
    assert np.mean(on) < 0.002
    assert np.mean(off) > 5 * np.mean(on)
    assert np.max(off) > 0.1


def test_setting_params_keeps_the_smoothing_going() -> None:
    """The demo re-assigns params on every control change; that must not jolt the hips."""
    stairs = scene("stairs", step_height=0.1)
    steady = StepWalker(SKELETON, stairs, 1, legs=LEGS, start_x=3.0)
    poked = StepWalker(SKELETON, stairs, 1, legs=LEGS, start_x=3.0)
    for _ in range(60):
        a = steady.step(1 / 60)
        poked.params = GroundingParams()
        b = poked.step(1 / 60)
    assert b.hips_height == pytest.approx(a.hips_height, abs=1e-12)
    assert b.global_positions == pytest.approx(a.global_positions, abs=1e-12)


def test_humanoid_from_bvh_walks_with_the_same_pipeline() -> None:
    from conftest import DATA
    from footfall import bvh

    skeleton = bvh.load(DATA / "bvh" / "games105_walk60.bvh").skeleton
    stairs = scene("stairs", step_height=0.15, tread_depth=0.6, start=1.5)
    walker = StepWalker(skeleton, stairs, 2, ik=[True, False], lateral_z=[0.0, 1.0], start_x=0.3,
                        speed=1.2)  # legs found by find_legs
    assert walker.leg_length == pytest.approx(0.80, abs=0.02)
    on, off = [], []
    for _ in range(120):
        frame = walker.step(1 / 60)
        on.extend(np.abs(frame.sole_gap[0][frame.stance[0]]))
        off.extend(np.abs(frame.sole_gap[1][frame.stance[1]]))
    assert frame.global_positions.shape == (2, skeleton.joint_count, 3)
    assert np.all(np.isfinite(frame.global_positions))
    assert np.mean(on) < 0.002
    assert np.max(off) > 0.1


def test_bunny_legs_found_without_help() -> None:
    walker = StepWalker(SKELETON, scene("flat"), 1)
    legs = walker.pipeline.legs
    assert [SKELETON.names[legs[0].upper], SKELETON.names[legs[1].foot]] == [
        "LeftUpperLeg", "RightFoot"]
