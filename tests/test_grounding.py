"""Grounding pipeline: seed 000's numbers, tread snapping, hips, sole alignment, do no harm."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.bunny import PROPORTIONS, bunny_skeleton
from footfall.errors import SettingsError, SkeletonError
from footfall.gait.stepping import StepWalker
from footfall.grounding import (
    GroundingParams,
    GroundingPipeline,
    Leg,
    align_rotation,
    ankle_lift,
    follow,
    foot_model,
    plan_steps,
    reach_limit,
    slope_angles,
    stack_params,
    swing_height,
    swing_offset,
    tilt_normal,
    tread_snap_shift,
)
from footfall.skeleton import forward_kinematics
from footfall.terrain import scene

SKELETON = bunny_skeleton()


def bunny_legs() -> dict[str, Leg]:
    idx = SKELETON.index
    return {
        side: Leg(idx(f"{s}UpperLeg"), idx(f"{s}LowerLeg"), idx(f"{s}Foot"), idx(f"{s}Toes"))
        for side, s in (("left", "Left"), ("right", "Right"))
    }


heights = st.floats(-2.0, 2.0, allow_nan=False)
progress = st.floats(0.0, 1.0, allow_nan=False)


# ---------------------------------------------------------------- footsteps and swing curve
def test_swing_height_seed_values() -> None:
    # Seed 000: start on the plant, top at max + 0.02 plus 0.09 lift, end on the next plant.
    assert swing_height(0.1, 0.3, 0.0, 0.02, 0.09) == pytest.approx(0.1)
    assert swing_height(0.1, 0.3, 0.5, 0.02, 0.09) == pytest.approx(0.3 + 0.02 + 0.09)
    assert swing_height(0.1, 0.3, 1.0, 0.02, 0.09) == pytest.approx(0.3, abs=1e-12)
    # q = 0.25: lerp(0.1, 0.32, sstep(0.5) = 0.5) + 0.09·sin(π/4)
    expected = 0.1 + 0.22 * 0.5 + 0.09 * np.sin(np.pi / 4)
    assert swing_height(0.1, 0.3, 0.25, 0.02, 0.09) == pytest.approx(expected)


@given(heights, heights, progress)
def test_swing_offset_between_plants_and_zero_on_flat(a: float, b: float, q: float) -> None:
    off = float(swing_offset(a, b, q))
    assert min(a, b) - 1e-12 <= off <= max(a, b) + 1e-12
    assert float(swing_offset(0.0, 0.0, q)) == 0.0
    # the offset is the seed curve minus its flat-ground shape
    full = swing_height(a, b, q, 0.02, 0.09) - swing_height(0.0, 0.0, q, 0.02, 0.09)
    assert off == pytest.approx(float(full), abs=1e-12)


def test_plan_steps_seed_footsteps() -> None:
    plan = plan_steps(np.array([0.0, 0.31 * 1.5]), 0.62)
    # d = 0: left at phase 0 (planted at 0.25·S), right at phase 0.5 (starts its swing).
    assert plan.stance[0].tolist() == [True, False]
    assert plan.plant[0] == pytest.approx([0.155, -0.155])
    assert plan.next_plant[0] == pytest.approx([0.775, 0.465])
    assert plan.swing[0] == pytest.approx([0.0, 0.0])
    # d = 0.465 (phase 0.75): left swings at q = 0.5, right planted at 0.465.
    assert plan.stance[1].tolist() == [False, True]
    assert plan.swing[1, 0] == pytest.approx(0.5)
    assert plan.foot_track()[1] == pytest.approx([0.155 + 0.62 * 0.5, 0.465])


@given(st.floats(0.0, 50.0, allow_nan=False))
def test_plan_feet_alternate_and_are_continuous(d: float) -> None:
    plan = plan_steps(np.array([d, d + 1e-6]), 0.62)
    assert plan.stance[0].sum() >= 1  # never both feet in the air
    track = plan.foot_track()
    assert np.abs(track[1] - track[0]).max() < 1e-3


def test_tread_snap_moves_edge_feet_to_the_tread_centre() -> None:
    stairs = scene("stairs", step_height=0.1, tread_depth=0.3, start=1.0)
    forward = np.array([[1.0, 0.0]] * 3)
    # ankle on tread 1 (x 1.0–1.3) with the toes over the next riser; one far on flat ground;
    # one on the landing near its end (only one edge in reach).
    plants = np.array([[1.2, 0.0], [-1.0, 0.0], [2.3, 0.0]])
    shift = tread_snap_shift(stairs, plants, forward, 0.04, 0.13, 0.03, 0.5, 0.01, 0.01)
    centre_of_foot = plants[0, 0] + shift[0, 0] + (0.13 - 0.04) / 2
    assert centre_of_foot == pytest.approx(1.15, abs=0.011)
    assert shift[1] == pytest.approx([0.0, 0.0])
    assert shift[:, 1] == pytest.approx(np.zeros(3))
    # after the shift the whole sole plus margin lies on one tread: measure the real ground
    sole_x = plants[0, 0] + shift[0, 0] + np.linspace(-0.04 - 0.03, 0.13 + 0.03, 30)
    ground = stairs.height(np.stack([sole_x, np.zeros(30)], axis=1))
    assert np.ptp(ground) < 1e-9


def test_tread_snap_leaves_feet_off_the_terrain() -> None:
    stairs = scene("stairs")
    shift = tread_snap_shift(
        stairs, np.array([[500.0, 0.0]]), np.array([[1.0, 0.0]]), 0.04, 0.13, 0.03, 0.5, 0.01, 0.01
    )
    assert np.all(shift == 0.0)


# ---------------------------------------------------------------------------- hips
def test_reach_limit_is_seed_formula() -> None:
    # seed: hips = ty + sqrt(max(0, (0.37·0.98)² − dx²)) + 0.08
    ty, dx, body = 0.25, 0.12, 3.0
    hip = np.array([body, 0.9 - 0.08, 0.0])
    limit = reach_limit(np.array([body + dx, ty, 0.0]), hip, 0.9, 0.37 * 0.98)
    assert limit == pytest.approx(ty + np.sqrt((0.37 * 0.98) ** 2 - dx**2) + 0.08)
    far = reach_limit(np.array([body + 1.0, ty, 0.0]), hip, 0.9, 0.37 * 0.98)
    assert far == pytest.approx(ty + 0.08)


def test_follow_smooths_and_snaps_past_threshold() -> None:
    out = follow(np.array([0.0, 0.0, np.nan]), np.array([0.1, 0.5, 0.3]), 16.0, 0.4, 1 / 60)
    assert out[0] == pytest.approx(0.1 * (1 - np.exp(-16 / 60)))
    assert out[1] == 0.5  # gap 0.5 > 0.4: snapped (seed 000)
    assert out[2] == 0.3  # first frame
    assert follow(0.0, 0.2, np.inf, 0.4, 1 / 60) == 0.2  # smoothing off


# ---------------------------------------------------------------------- foot alignment
def test_slope_angles_from_a_real_slope() -> None:
    terrain = scene("slope", angle_deg=10.0)
    normal = terrain.raycast_down(np.array([[3.0, 0.0]])).normal
    pitch, roll = slope_angles(normal, np.array([[1.0, 0.0, 0.0]]), 0.5, 0.45)
    assert pitch[0] == pytest.approx(np.radians(10.0))  # uphill: toes up
    assert roll[0] == pytest.approx(0.0, abs=1e-12)
    pitch, roll = slope_angles(normal, np.array([[0.0, 0.0, 1.0]]), 0.5, 0.45)
    assert pitch[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(roll[0]) == pytest.approx(np.radians(10.0))
    # going the other way is downhill
    pitch, _ = slope_angles(normal, np.array([[-1.0, 0.0, 0.0]]), 0.5, 0.45)
    assert pitch[0] == pytest.approx(-np.radians(10.0))


def test_slope_angles_clamp_and_ignore_steep_faces() -> None:
    steep = np.array([[-np.sin(1.2), np.cos(1.2), 0.0]])  # 69° face, normal.y 0.36 < 0.5
    assert slope_angles(steep, np.array([[1.0, 0, 0]]), 0.5, 0.45)[0][0] == 0.0
    medium = np.array([[-np.sin(0.8), np.cos(0.8), 0.0]])  # 46°: clamped to 0.45
    assert slope_angles(medium, np.array([[1.0, 0, 0]]), 0.5, 0.45)[0][0] == pytest.approx(0.45)


@settings(max_examples=50)
@given(st.floats(-0.45, 0.45), st.floats(-0.45, 0.45), st.floats(0, 2 * np.pi))
def test_align_rotation_puts_the_sole_on_the_plane(pitch: float, roll: float, yaw: float) -> None:
    forward = np.array([np.sin(yaw), 0.0, np.cos(yaw)])
    normal = tilt_normal(pitch, roll, forward)
    q = align_rotation(pitch, roll, forward)
    assert quat.rotate(q, [0.0, 1.0, 0.0]) == pytest.approx(normal, abs=1e-9)
    # and the angles read back from that normal
    back = slope_angles(normal, forward, 0.5, 0.45)
    assert back[0] == pytest.approx(pitch, abs=1e-9)
    assert back[1] == pytest.approx(roll, abs=1e-9)
    # the ankle rises so the tilted sole stays ankle_height from the plane
    assert ankle_lift(pitch, roll, 0.1) == pytest.approx(0.1 / normal[1] - 0.1)


# --------------------------------------------------------------------------- params
def test_params_validation_and_ablation() -> None:
    p = GroundingParams()
    assert (p.hips_rate, p.hips_snap, p.max_slope, p.reach_ratio) == (16.0, 0.4, 0.45, 0.98)
    assert p.without("hips", "tread_snap").hips is False
    with pytest.raises(SettingsError, match="unknown grounding stage"):
        p.without("wings")
    with pytest.raises(SettingsError, match="hips_rate"):
        GroundingParams(hips_rate=-1.0)
    with pytest.raises(SettingsError, match="max_slope"):
        GroundingParams(max_slope=float("nan"))
    with pytest.raises(SettingsError, match="ik"):
        GroundingParams(ik="yes")  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="3 grounding parameter sets for 2"):
        stack_params([p, p, p], 2)
    arrays = stack_params([p, p.without("ik")], 2)
    assert arrays.ik.tolist() == [True, False]
    assert arrays.count == 2


# ------------------------------------------------------------------------- feet
def test_bunny_foot_model_matches_its_proportions() -> None:
    model = foot_model(SKELETON, bunny_legs()["left"])
    assert model.ankle_height == pytest.approx(PROPORTIONS.ankle_height)
    assert model.toe_forward == pytest.approx(PROPORTIONS.foot_forward)
    assert model.heel_back == pytest.approx(PROPORTIONS.heel_back)
    assert model.forward == pytest.approx([0.0, 0.0, 1.0])
    assert len(model.sole) == 18  # 17 cm sole, a sample every cm


# ----------------------------------------------------------------------- pipeline
def test_do_no_harm_on_flat_ground() -> None:
    """Everything on, flat ground: the solved pose equals the animated one within 1 mm."""
    walker = StepWalker(SKELETON, scene("flat"), 3, legs=bunny_legs(), lateral_z=[0, 0.5, 1],
                        start_x=[0.0, 0.3, 1.1], speed=[0.75, 0.4, 1.2])
    worst = 0.0
    for _ in range(150):
        frame = walker.step(1 / 60)
        rotations, positions, _ = walker.flat_pose()
        _, animated = forward_kinematics(SKELETON.parents, rotations, positions)
        worst = max(worst, float(np.abs(frame.global_positions - animated).max()))
    assert worst < 1e-3
    assert not frame.fallback.any()


def test_ik_off_body_follows_the_ground_legs_unchanged() -> None:
    raised = scene("flat", height=0.3)
    walker = StepWalker(SKELETON, raised, 1, legs=bunny_legs(), ik=False)
    for _ in range(5):
        frame = walker.step(1 / 60)
    rotations, positions, _ = walker.flat_pose()
    assert frame.rotations == pytest.approx(rotations)
    assert frame.positions[0, 0, 1] == pytest.approx(positions[0, 0, 1] + 0.3)
    assert frame.stance[0].any()
    stance_gap = frame.sole_gap[frame.stance]
    assert stance_gap == pytest.approx(0.0, abs=1e-9)


def test_unreachable_ground_falls_back_to_the_animated_foot() -> None:
    """Off the terrain (rays miss) the feet keep the animation, flagged, never NaN."""
    small = scene("flat", length=4.0)
    walker = StepWalker(SKELETON, small, 1, legs=bunny_legs(), start_x=1.5, speed=1.0)
    frames = [walker.step(1 / 60) for _ in range(60)]
    last = frames[-1]
    assert last.fallback.all()
    assert np.all(np.isfinite(last.global_positions))
    assert not frames[0].fallback.any()


def test_pipeline_rejects_bad_pose_shapes() -> None:
    pipeline = GroundingPipeline(SKELETON, scene("flat"), 2, legs=bunny_legs())
    walker = StepWalker(SKELETON, scene("flat"), 1, legs=bunny_legs())
    rotations, positions, plan = walker.flat_pose()
    with pytest.raises(SkeletonError, match="pose shapes"):
        pipeline.step(rotations, positions, plan)
    with pytest.raises(SkeletonError, match="count"):
        GroundingPipeline(SKELETON, scene("flat"), 0, legs=bunny_legs())


def test_legs_must_be_a_parent_chain() -> None:
    bad = {"left": Leg(SKELETON.index("LeftUpperLeg"), SKELETON.index("RightLowerLeg"),
                       SKELETON.index("RightFoot")), "right": bunny_legs()["right"]}
    with pytest.raises(SkeletonError, match="not a parent chain"):
        GroundingPipeline(SKELETON, scene("flat"), 1, legs=bad)
