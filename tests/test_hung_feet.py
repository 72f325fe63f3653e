"""Feet hung below the shins for the grounding (grounding/hung_feet.py), and the foot model
measured on sole points (footing/foot_model.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import SkeletonError
from footfall.footing.foot_model import foot_model_from_points
from footfall.gltf import load_avatar
from footfall.grounding.hung_feet import HungFeet
from footfall.humanoid import map_skeleton
from footfall.skeleton import forward_kinematics

ROBOT = Path(__file__).parent / "data" / "avatars" / "RobotExpressive.glb"


@pytest.fixture(scope="module")
def robot() -> tuple:
    avatar = load_avatar(ROBOT)
    skeleton = avatar.skeleton
    bones = map_skeleton(skeleton, avatar.target_mapping()).mapping
    legs = [tuple(skeleton.index(bones[f"{side}{part}"]) for part in
                  ("UpperLeg", "LowerLeg", "Foot")) for side in ("Left", "Right")]
    return skeleton, legs, HungFeet(skeleton, legs, avatar.rest_rotations)


def test_the_robots_feet_hang_below_their_shins(robot: tuple) -> None:
    skeleton, legs, hung = robot
    assert hung.detached
    for upper, lower, foot in legs:
        assert skeleton.parents[foot] != lower  # the rig's foot hangs from elsewhere
        assert hung.skeleton.parents[hung.index[foot]] == hung.index[lower]
        assert hung.skeleton.parents[hung.index[lower]] == hung.index[upper]
    assert np.all(hung.skeleton.parents < np.arange(skeleton.joint_count))
    assert sorted(hung.skeleton.names) == sorted(skeleton.names)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(), (3,)]))
def test_hanging_and_back_keeps_the_world_pose(robot: tuple, seed: int,
                                               batch: tuple[int, ...]) -> None:
    skeleton, _, hung = robot
    rng = np.random.default_rng(seed)
    count = skeleton.joint_count
    rotations = quat.normalize(rng.normal(size=(*batch, count, 4)))
    translations = skeleton.offsets + rng.normal(scale=0.2, size=(*batch, count, 3))
    world, positions = forward_kinematics(skeleton.parents, rotations, translations)
    hung_rotations, hung_translations = hung.hang(rotations, translations)
    hung_world, hung_positions = forward_kinematics(hung.skeleton.parents, hung_rotations,
                                                    hung_translations)
    order = hung.index
    np.testing.assert_allclose(hung_positions[..., order, :], positions, atol=1e-9)
    assert np.all(np.abs(quat.dot(hung_world[..., order, :], world)) > 1 - 1e-9)
    back_rotations, back_translations = hung.unhang(hung_world, hung_positions,
                                                    hung_rotations, hung_translations)
    np.testing.assert_allclose(back_translations, translations, atol=1e-9)
    assert np.all(np.abs(quat.dot(back_rotations, rotations)) > 1 - 1e-9)


def test_a_foot_above_its_lower_leg_is_refused(robot: tuple) -> None:
    skeleton, legs, _ = robot
    upper, lower, _ = legs[0]
    with pytest.raises(SkeletonError, match="above its lower leg"):
        HungFeet(skeleton, [(upper, lower, skeleton.parents[upper])])


@settings(max_examples=30, deadline=None)
@given(st.floats(0.03, 0.12), st.floats(0.03, 0.1), st.floats(0.12, 0.25),
       st.floats(-np.pi, np.pi))
def test_foot_model_from_sole_points(ankle_height: float, heel: float, toe: float,
                                     heading: float) -> None:
    # A sole 8 cm wide from `heel` behind the ankle to `toe` ahead, facing `heading`, with
    # the foot joint turned by it: the model's figures are the sole's.
    along = np.linspace(-heel, toe, 12)
    side = np.array([-0.04, 0.04])
    flat = np.stack(np.meshgrid(along, side, indexing="ij"), axis=-1).reshape(-1, 2)
    points = np.column_stack([flat[:, 1], np.full(len(flat), -ankle_height), flat[:, 0]])
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), heading)
    model = foot_model_from_points(quat.rotate(turn, points), turn)
    assert model.ankle_height == pytest.approx(ankle_height)
    assert model.heel_back == pytest.approx(heel)
    assert model.toe_forward == pytest.approx(toe)
    # In the foot joint's frame the toes point along +Z and the sole lies under the ankle.
    np.testing.assert_allclose(model.forward, [0.0, 0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(model.below_ankle, [0.0, -ankle_height, 0.0], atol=1e-9)


def test_foot_model_from_points_above_the_ankle_is_refused() -> None:
    with pytest.raises(SkeletonError, match="not below the ankle"):
        foot_model_from_points(np.array([[0.0, 0.01, 0.1], [0.0, 0.02, -0.05]]),
                               quat.identity())
