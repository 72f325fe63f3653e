"""The compiled grounding stages: their NumPy-facing forms broadcast like NumPy, the pipeline's
rows are independent of the batch they sit in, in-place grounding equals the copying one, and
malformed inputs are refused with an error naming them (the kernels index rows unchecked)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.bunny import bunny_skeleton
from footfall.errors import SkeletonError
from footfall.gait.stepping import StepStyle, StepWalker
from footfall.grounding import GroundingParams, follow, plan_steps, reach_limit, swing_height
from footfall.grounding.foot_align import heading_frame, slope_angles, tilt_normal
from footfall.grounding.pipeline import FootPlan
from footfall.terrain import scene

SKELETON = bunny_skeleton()
finite = st.floats(-3.0, 3.0, allow_nan=False)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([(), (1,), (5,), (3, 4)]))
def test_heading_frame_is_unit_horizontal_and_falls_back_to_plus_z(seed: int,
                                                                    shape: tuple[int, ...]
                                                                    ) -> None:
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=(*shape, 3))
    forward, left = heading_frame(direction)
    assert forward.shape == left.shape == (*shape, 3)
    assert np.allclose(np.linalg.norm(forward, axis=-1), 1.0)
    assert np.all(forward[..., 1] == 0.0) and np.all(left[..., 1] == 0.0)
    expected = direction[..., [0, 2]] / np.linalg.norm(direction[..., [0, 2]], axis=-1,
                                                        keepdims=True)
    assert np.allclose(forward[..., [0, 2]], expected)
    assert np.allclose(np.cross(forward, left), [0.0, 1.0, 0.0])  # left = up × forward
    up, _ = heading_frame(np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [np.nan, 1.0, 0.0]]))
    assert np.array_equal(up, np.tile([0.0, 0.0, 1.0], (3, 1)))


def test_slope_angles_broadcast_scalars_and_per_foot_thresholds() -> None:
    forward = np.array([1.0, 0.0, 0.0])
    normals = quat.rotate(quat.from_axis_angle([0.0, 0.0, 1.0], np.array([0.1, 0.3, 0.7])),
                          [0.0, 1.0, 0.0])  # ground rising along +x by 0.1, 0.3, 0.7 rad
    pitch, roll = slope_angles(normals, forward, np.array([0.5, 0.5, 0.9]), 0.25)
    assert pitch == pytest.approx([0.1, 0.25, 0.0])  # clamped; the last face counts as steep
    assert roll == pytest.approx([0.0, 0.0, 0.0], abs=1e-15)
    assert slope_angles(normals[0], forward, 0.5, 0.45)[0].shape == ()


@settings(max_examples=30, deadline=None)
@given(st.floats(-0.4, 0.4), st.floats(-0.4, 0.4), st.floats(0.0, 2 * math.pi))
def test_tilt_normal_matches_the_plane_formula(pitch: float, roll: float, yaw: float) -> None:
    forward = np.array([math.sin(yaw), 0.0, math.cos(yaw)])
    left = np.cross([0.0, 1.0, 0.0], forward)
    want = np.array([0.0, 1.0, 0.0]) - math.tan(pitch) * forward + math.tan(roll) * left
    assert tilt_normal(pitch, roll, forward) == pytest.approx(want / np.linalg.norm(want),
                                                              abs=1e-15)


@settings(max_examples=50, deadline=None)
@given(finite, finite, st.floats(0.0, 1.0), st.floats(0.0, 0.1), st.floats(0.0, 0.1))
def test_swing_height_broadcasts_like_its_formula(start: float, end: float, q: float,
                                                  clearance: float, lift: float) -> None:
    def ease(t: float) -> float:
        t = min(max(t, 0.0), 1.0)
        return t * t * (3.0 - 2.0 * t)

    top = max(start, end) + clearance
    part = start + (top - start) * ease(2 * q) if q < 0.5 else top + (end - top) * ease(2 * q - 1)
    want = part + lift * math.sin(math.pi * q)
    got = swing_height(np.full((2, 3), start), end, np.full(3, q), clearance, lift)
    assert got.shape == (2, 3)
    assert np.allclose(got, want, atol=1e-12)


def test_plan_steps_keeps_any_leading_shape_and_per_row_step_lengths() -> None:
    distance = np.array([[0.0, 0.2, 0.5], [0.9, 1.3, 2.0]])
    plan = plan_steps(distance, np.array([0.62, 0.5, 0.7]))
    assert plan.stance.shape == plan.swing.shape == plan.track.shape == (2, 3, 2)
    one = plan_steps(distance[1, 2], 0.7)
    assert one.plant.shape == (2,)
    assert np.array_equal(one.plant, plan.plant[1, 2]) and np.array_equal(one.track,
                                                                            plan.track[1, 2])
    moving = ~plan.stance
    assert np.all(plan.swing[plan.stance] == 0.0) and np.all(plan.swing[moving] >= 0.0)
    assert np.allclose(plan.next_plant - plan.plant, np.array([0.62, 0.5, 0.7])[:, None])


@settings(max_examples=50, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(-1, 1), st.floats(0, 50))
def test_follow_jumps_where_numpy_would(previous: float, target: float, rate: float) -> None:
    out = follow(np.array([previous, previous]), target, np.array([rate, np.inf]), 0.4, 1 / 60)
    smoothed = previous + (target - previous) * -math.expm1(-rate / 60)
    jump = not math.isfinite(previous) or abs(target - previous) > 0.4
    assert out[0] == pytest.approx(target if jump else smoothed)
    assert out[1] == target  # smoothing off


def test_follow_and_reach_limit_broadcast() -> None:
    target = np.zeros((4, 2, 3))
    target[..., 0] = 0.1
    hip = np.array([0.0, 0.5, 0.0])
    limit = reach_limit(target, hip, 0.6, np.array([0.3, 0.4]))
    assert limit.shape == (4, 2)
    assert limit[0] == pytest.approx(np.sqrt(np.array([0.3, 0.4]) ** 2 - 0.01) + 0.1)
    assert follow(np.full(3, np.nan), 0.2, 16.0, 0.4, 1 / 60) == pytest.approx([0.2] * 3)


def _params(count: int) -> list[GroundingParams]:
    return [GroundingParams(hips=bool(i % 3), foot_align=bool(i % 4), tread_snap=bool(i % 5))
            for i in range(count)]


def _crowd_walker(count: int, seed: int = 1) -> StepWalker:
    rng = np.random.default_rng(seed)
    params = _params(count)
    return StepWalker(SKELETON, scene("course"), count, params=params,
                      ik=[bool(i % 2 == 0 or i % 7 == 0) for i in range(count)],
                      lateral_z=rng.uniform(-1.5, 1.5, count),
                      start_x=rng.uniform(-1.0, 20.0, count), speed=rng.uniform(0.4, 1.2, count))


def test_a_character_grounds_the_same_alone_or_in_a_crowd() -> None:
    """Rows are independent: character 3 of a crowd of 12 gets the bits it gets alone."""
    crowd = _crowd_walker(12)
    alone = StepWalker(SKELETON, scene("course"), 1, params=_params(12)[3],
                       ik=bool(crowd.ik[3]), lateral_z=crowd.lateral_z[3],
                       start_x=crowd.start_x[3], speed=crowd.speed[3])
    for _ in range(3):
        big = crowd.step_frames(1 / 60, 20)
        small = alone.step_frames(1 / 60, 20)
    for name in ("global_positions", "global_rotations", "sole_gap", "hips_offset",
                 "sole_pitch", "ankle_target", "fallback"):
        assert np.array_equal(getattr(big, name)[:, 3], getattr(small, name)[:, 0]), name


def test_grounding_in_place_equals_grounding_a_copy() -> None:
    walker = _crowd_walker(6)
    for _ in range(40):
        walker.step(1 / 60)
    rotations, positions, plan = walker.flat_pose()
    twin = _crowd_walker(6)
    for _ in range(40):
        twin.step(1 / 60)
    copied = walker.pipeline.step(rotations, positions, plan)
    untouched = rotations.copy()
    in_place = twin.pipeline.step_frames(rotations[None], positions[None],
                                         FootPlan(*(np.asarray(getattr(plan, f))[None] for f in
                                                    ("stance", "swing", "plant_xz",
                                                     "next_plant_xz"))), copy=False)
    assert np.array_equal(copied.global_positions, in_place.global_positions[0])
    assert np.array_equal(copied.rotations, in_place.rotations[0])
    assert not np.array_equal(untouched, rotations)  # the given arrays were grounded
    assert np.array_equal(copied.rotations, rotations)


def test_pipeline_names_malformed_plan_and_override_shapes() -> None:
    walker = _crowd_walker(2)
    rotations, positions, plan = walker.flat_pose()
    pipe = walker.pipeline
    bad_plan = FootPlan(plan.stance, plan.swing[:, :1].repeat(3, axis=1), plan.plant_xz,
                        plan.next_plant_xz)
    with pytest.raises(SkeletonError, match="plan.swing"):
        pipe.step(rotations, positions, bad_plan)
    with pytest.raises(SkeletonError, match="hips_offset"):
        pipe.step(rotations, positions, plan, hips_offset=np.zeros(3))
    with pytest.raises(SkeletonError, match="sole_angles"):
        pipe.step(rotations, positions, plan, sole_angles=np.zeros((3, 2, 2)))
    with pytest.raises(SkeletonError, match="foot_lift"):
        pipe.step(rotations, positions, plan, foot_lift=np.zeros((2, 3)))
    with pytest.raises(SkeletonError, match="plan.lock_xz"):
        pipe.step(rotations, positions, FootPlan(plan.stance, plan.swing, plan.plant_xz,
                                                 plan.next_plant_xz, lock_xz=np.zeros((3, 2, 2)),
                                                 lock_weight=np.ones((2, 2))))
    with pytest.raises(SkeletonError, match="ik has 3 values"):
        pipe.step(rotations, positions, plan, ik=[True, False, True])
    frame = pipe.step(rotations, positions, plan)  # still fine afterwards
    assert np.all(np.isfinite(frame.global_positions))


def test_stepping_walker_refuses_a_sway_on_its_legs() -> None:
    with pytest.raises(SkeletonError, match="LeftLowerLeg"):
        StepWalker(SKELETON, scene("flat"), 1,
                   style=StepStyle(sway=(("Spine", 0.1, 0.0), ("LeftLowerLeg", 0.0, 0.2))))
    with pytest.raises(SkeletonError, match="root"):
        StepWalker(SKELETON, scene("flat"), 1, style=StepStyle(sway=(("Hips", 0.1, 0.0),)))


def test_a_batch_of_no_frames_changes_nothing() -> None:
    walker, twin = _crowd_walker(3), _crowd_walker(3)
    for _ in range(30):
        walker.step(1 / 60)
        twin.step(1 / 60)
    rotations, positions, plan = walker.flat_pose(np.zeros((0, 3)))
    empty = walker.pipeline.step_frames(rotations, positions, plan)
    assert empty.global_positions.shape == (0, 3, SKELETON.joint_count, 3)
    assert np.array_equal(walker.step(1 / 60).global_positions, twin.step(1 / 60).global_positions)
