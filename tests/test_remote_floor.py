"""Automatic floor height (seed 001's CalculateAutoFloorHeight): the leg measured, the formula,
its effect on the retargeted body, and no change at the default ratio."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from footfall import bvh, quat
from footfall.errors import SettingsError
from footfall.retarget import Retargeter
from footfall.retarget.floor import auto_floor_height, left_leg_length
from footfall.skeleton import forward_kinematics
from remote_loop import SOURCE, TARGETS


@pytest.fixture(scope="module")
def clips():
    return bvh.load(SOURCE), bvh.load(TARGETS["mixamo"])


def test_leg_length_is_thigh_plus_shin_in_any_pose(clips) -> None:
    _, target = clips
    r = Retargeter(target.skeleton, target.skeleton)
    skeleton, mapping = target.skeleton, r.target_map
    offsets = skeleton.offsets
    knee, ankle = skeleton.index(mapping["LeftLowerLeg"]), skeleton.index(mapping["LeftFoot"])
    expected = np.linalg.norm(offsets[knee]) + np.linalg.norm(offsets[ankle])
    rest = quat.identity((skeleton.joint_count,))
    assert left_leg_length(skeleton, mapping, rest) == pytest.approx(expected, rel=1e-9)
    bent = quat.normalize(np.random.default_rng(3).normal(size=(skeleton.joint_count, 4)))
    assert left_leg_length(skeleton, mapping, bent) == pytest.approx(expected, rel=1e-9)
    assert 0.6 < expected < 1.1  # a human leg, metres


@given(st.floats(0.05, 2.0), st.floats(0.5, 1.0), st.floats(0.1, 3.0))
def test_floor_height_formula(leg, ratio, scale) -> None:
    floor = auto_floor_height(leg, ratio, scale)
    assert floor == pytest.approx((ratio - 1.0) * leg * scale)
    assert floor <= 0.0
    assert auto_floor_height(leg, 1.0, scale) == 0.0


@pytest.mark.parametrize("ratio", [0.0, -0.5, 1.01, float("nan")])
def test_bad_ratio_is_a_clear_error(ratio) -> None:
    with pytest.raises(SettingsError, match="comfort ratio"):
        auto_floor_height(0.9, ratio)


def test_missing_leg_bone_is_named(clips) -> None:
    _, target = clips
    mapping = dict(Retargeter(target.skeleton, target.skeleton).target_map)
    del mapping["LeftLowerLeg"]
    with pytest.raises(SettingsError, match="LeftLowerLeg"):
        left_leg_length(target.skeleton, mapping, quat.identity((target.skeleton.joint_count,)))


def _joint_positions(r: Retargeter, clip, frames: int) -> np.ndarray:
    out = []
    for i in range(frames):
        rot, pos = r.step(clip.rotations[i], clip.positions[i])
        out.append(forward_kinematics(r.target.parents, rot, pos)[1])
    return np.array(out)


def test_auto_calibrate_lowers_the_whole_body_by_the_floor_height(clips) -> None:
    source, target = clips
    plain = Retargeter(source.skeleton, target.skeleton)
    lowered = Retargeter(source.skeleton, target.skeleton)
    lowered.settings["floor_comfort_ratio"] = 0.9
    frame = (source.rotations[0], source.positions[0])
    scale = lowered.auto_calibrate(*frame, head_forward=False)
    assert plain.auto_calibrate(*frame, head_forward=False) == scale
    leg = left_leg_length(target.skeleton, lowered.target_map, lowered.calibration_pose)
    floor = lowered.settings["floor_height"]
    assert floor == pytest.approx(-0.1 * leg * scale)
    assert plain.settings["floor_height"] == 0.0  # ratio 1: nothing changes
    a, b = _joint_positions(plain, source, 20), _joint_positions(lowered, source, 20)
    shift = b - a
    np.testing.assert_allclose(shift[..., 1], floor, atol=1e-6)
    np.testing.assert_allclose(shift[..., [0, 2]], 0.0, atol=1e-6)


def test_auto_calibrate_replaces_a_manual_floor_height(clips) -> None:
    source, target = clips
    r = Retargeter(source.skeleton, target.skeleton)
    r.settings["floor_height"] = 0.25
    r.auto_calibrate()
    assert r.settings["floor_height"] == 0.0  # the automatic value replaces the manual one
