"""Batching never changes results: one or two characters step exactly as the same rows of a
large batch, and the depth-level forward kinematics equals the joint-by-joint one bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from footfall import bvh, quat
from footfall.bunny import bunny_skeleton
from footfall.errors import SkeletonError
from footfall.gait.stepping import StepWalker
from footfall.grounding import GroundingParams
from footfall.grounding.foot_align import _between_up
from footfall.skeleton import FKPlan, forward_kinematics
from footfall.terrain import scene

SKELETON = bunny_skeleton()
BIG = 40
FIELDS = (
    "rotations", "positions", "global_rotations", "global_positions", "stance", "ground_height",
    "sole_gap", "sole_pitch", "sole_roll", "clamped", "fallback", "ray_origin", "ray_hit",
    "ankle_target", "hips_height", "hips_offset", "distance", "swing", "plant_xz",
)


def _crowd(terrain_name: str) -> tuple[StepWalker, dict]:
    rng = np.random.default_rng(7)
    settings = {
        "ik": rng.random(BIG) > 0.3,
        "lateral_z": rng.uniform(-1.5, 1.5, BIG),
        "start_x": rng.uniform(-1.0, 20.0, BIG),
        "speed": rng.uniform(0.4, 1.3, BIG),
        # Switches that change per character (tread search limits are shared by a batch).
        "params": [
            GroundingParams(hips=i % 3 != 0, smoothing=i % 5 != 0, foot_align=i % 4 != 1)
            for i in range(BIG)
        ],
    }
    return StepWalker(SKELETON, scene(terrain_name), BIG, **settings), settings


def _rows(settings: dict, rows: list[int], terrain_name: str) -> StepWalker:
    return StepWalker(
        SKELETON, scene(terrain_name), len(rows),
        ik=settings["ik"][rows], lateral_z=settings["lateral_z"][rows],
        start_x=settings["start_x"][rows], speed=settings["speed"][rows],
        params=[settings["params"][i] for i in rows],
    )


@pytest.mark.parametrize("terrain_name", ["course", "rocks"])
def test_one_and_two_characters_equal_their_rows_of_a_large_batch(terrain_name: str) -> None:
    big, settings = _crowd(terrain_name)
    on, off = int(np.argmax(settings["ik"])), int(np.argmin(settings["ik"]))
    picks = [[on], [off], [on, off], [3, 17]]
    smalls = [_rows(settings, rows, terrain_name) for rows in picks]
    for step in range(90):
        frame = big.step(1 / 60)
        small_frames = [walker.step(1 / 60) for walker in smalls]
        for rows, small in zip(picks, small_frames, strict=True):
            for name in FIELDS:
                want = np.asarray(getattr(frame, name))[rows]
                got = np.asarray(getattr(small, name))
                assert np.array_equal(got, want, equal_nan=True), (step, rows, name)


@pytest.mark.parametrize("batch", [1, 3])
def test_level_fk_equals_joint_by_joint_fk(batch: int) -> None:
    clip = bvh.load(DATA / "bvh" / "cmu_131_01_metres.bvh")
    skeleton = clip.skeleton
    rng = np.random.default_rng(batch)
    joints = skeleton.joint_count
    rotations = quat.normalize(rng.normal(size=(batch, joints, 4)))
    translations = rng.normal(size=(batch, joints, 3))
    want_rot, want_pos = forward_kinematics(skeleton.parents, rotations, translations)
    got_rot, got_pos = FKPlan(skeleton.parents)(rotations, translations)
    assert np.array_equal(got_rot, want_rot) and np.array_equal(got_pos, want_pos)

    # Only some joints: those and their ancestors are exact, the rest are left at zero.
    needed = [joints - 1, joints // 2]
    part_rot, part_pos = FKPlan(skeleton.parents, needed)(rotations, translations)
    chain = set(skeleton.chain(needed[0])) | set(skeleton.chain(needed[1]))
    for j in range(joints):
        if j in chain:
            assert np.array_equal(part_rot[:, j], want_rot[:, j]), j
            assert np.array_equal(part_pos[:, j], want_pos[:, j]), j
        else:
            assert not part_rot[:, j].any() and not part_pos[:, j].any(), j


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_sole_tilt_rotation_equals_quat_between_bit_for_bit(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    normals = rng.normal(size=(count, 2, 3))
    normals[0, 0] = (0.0, 0.0, 0.0)  # degenerate: identity
    if count > 1:
        normals[1, 1] = (0.0, -2.0, 0.0)  # antiparallel to up
    want = quat.between(np.array([0.0, 1.0, 0.0]), normals)
    assert np.array_equal(_between_up(normals), want)


@pytest.mark.parametrize("terrain_name", ["course", "stairs", "rocks"])
def test_frames_stepped_in_blocks_equal_frames_stepped_one_by_one(terrain_name: str) -> None:
    """``step_frames`` (T frames in one batched call) is T calls of ``step``, bit for bit, in
    blocks of any length; the walker's clock and distance end in the same place."""
    one_by_one = _crowd(terrain_name)[0]
    blocks = _crowd(terrain_name)[0]
    singles = [one_by_one.step(1 / 60) for _ in range(130)]
    done = 0
    for size in (1, 7, 30, 2, 60, 30):
        block = blocks.step_frames(1 / 60, size)
        assert block.global_positions.shape == (size, BIG, SKELETON.joint_count, 3)
        for t in range(size):
            for name in FIELDS:
                want = np.asarray(getattr(singles[done + t], name))
                got = np.asarray(getattr(block, name))[t]
                assert np.array_equal(got, want, equal_nan=True), (size, t, name)
        assert block.time[-1] == singles[done + size - 1].time
        done += size
    assert np.array_equal(blocks.distance, one_by_one.distance)


def test_rewind_goes_back_to_a_frame_of_the_block() -> None:
    """After simulating ahead, ``rewind(t)`` continues exactly as if the frames after t had never
    been simulated (a live view dropping what it had simulated ahead)."""
    plain = _crowd("course")[0]
    ahead = _crowd("course")[0]
    plain.step_frames(1 / 60, 12)
    ahead.step_frames(1 / 60, 30)
    ahead.rewind(11)
    # The footstep cache is forgotten on rewind; the plain walker forgets it too, as a control
    # change (new parameters) does.
    plain.pipeline.reset_footsteps()
    want = plain.step_frames(1 / 60, 20)
    got = ahead.step_frames(1 / 60, 20)
    for name in FIELDS:
        assert np.array_equal(getattr(got, name), getattr(want, name), equal_nan=True), name


def test_step_frames_rejects_bad_shapes_and_counts() -> None:
    walker = StepWalker(SKELETON, scene("flat"), 2)
    with pytest.raises(SkeletonError, match="frames"):
        walker.step_frames(1 / 60, 0)
    rotations, positions, plan = walker.flat_pose()
    with pytest.raises(SkeletonError, match="pose shapes"):
        walker.pipeline.step_frames(rotations, positions, plan)  # (K, J, 4) lacks the T axis


def test_given_sole_angles_replace_the_smoothed_ones_where_a_foot_is_aligned() -> None:
    walker = StepWalker(SKELETON, scene("slope"), 2, ik=[True, False], start_x=[3.0, 3.0])
    rotations, positions, plan = walker.flat_pose()
    pipe = walker.pipeline
    free = pipe.step(rotations, positions, plan, ik=walker.ik)
    pipe.reset()
    given = np.full((2, 2, 2), 0.1)
    held = pipe.step(rotations, positions, plan, ik=walker.ik, sole_angles=given)
    assert np.allclose(held.sole_pitch[0], 0.1) and np.allclose(held.sole_roll[0], 0.1)
    assert not np.allclose(free.sole_pitch[0], 0.1)
    assert np.all(held.sole_pitch[1] == 0.0)  # IK off: nothing aligned, nothing applied


def test_rewind_outside_the_last_batch_is_a_clear_error_and_changes_nothing() -> None:
    walker = StepWalker(SKELETON, scene("flat"), 2)
    with pytest.raises(SkeletonError, match="rewind: frame 3"):
        walker.rewind(3)  # no batch yet: only frame 0 (the start) exists
    walker.step_frames(1 / 60, 5)
    distance, time = walker.distance.copy(), walker.time
    for bad in (5, -1):
        with pytest.raises(SkeletonError, match="not in the last batch of 5"):
            walker.rewind(bad)
    assert np.array_equal(walker.distance, distance) and walker.time == time


def test_a_lying_rest_pose_is_refused_by_the_stepping_walker_until_stood_up() -> None:
    # The stepping walker builds its pose from the rest offsets: a Z-up file's rest pose (legs
    # along −Z) walked on its back with 108 mm contact error; it is a clear error now, and the
    # skeleton stood up walks.
    from footfall.humanoid import map_skeleton, stood_up

    lying = bvh.load(DATA / "bvh" / "pybvh_test1_zup_inches.bvh").skeleton
    with pytest.raises(SkeletonError, match="rest pose lies down.*stood_up"):
        StepWalker(lying, scene("stairs"))
    walker = StepWalker(stood_up(lying, map_skeleton(lying).mapping), scene("stairs"))
    frame = walker.step()
    assert np.isfinite(frame.rotations).all()
