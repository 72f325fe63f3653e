"""The retargeter in three parts (issue 34, item 5): a saved ``Calibration`` (a value object),
``retarget_clip`` (a function of the rig, the calibration and the clip) and ``LiveRetarget``
(what a stream keeps between frames, handed its stance level)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh
from footfall.errors import SettingsError
from footfall.retarget import Calibration, LiveRetarget, Retargeter, RetargetRig, retarget_clip
from footfall.retarget.settings import SETTINGS_VERSION, settings_path
from footfall.skeleton import Clip


@pytest.fixture(scope="module")
def walk() -> Clip:
    return bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:60]


@pytest.fixture(scope="module")
def target() -> Clip:
    return bvh.load(DATA / "bvh" / "mixamo_stepping.bvh")


def _same(a: Calibration, b: Calibration) -> None:
    assert a.source_pose is not None and b.source_pose is not None
    assert a.target_pose is not None and b.target_pose is not None
    np.testing.assert_array_equal(a.source_pose, b.source_pose)
    np.testing.assert_array_equal(a.target_pose, b.target_pose)
    assert a.match_directions == b.match_directions
    assert dict(a.values) == dict(b.values)
    assert a == b


def test_calibration_round_trips_save_and_load(tmp_path, walk: Clip, target: Clip) -> None:
    r = Retargeter(walk.skeleton, target.skeleton)
    r.calibrate_for(walk, 30)  # a frame of the walk, not the rest pose
    r.settings.update({"avatar_scale": 1.2, "floor_height": 0.03})
    r.set_hand_pose("rock")
    r.calibrate_head_forward(walk.rotations[10], walk.positions[10])
    saved = r.calibration
    path = r.save("walker", tmp_path)
    # The file is the calibration's JSON, and reads back as the same value.
    _same(Calibration.from_json(json.loads(path.read_text())), saved)
    _same(Calibration.from_json(saved.to_json()), saved)
    loaded = Retargeter(walk.skeleton, target.skeleton)
    rest_offsets = loaded.offsets.copy()
    loaded.load("walker", tmp_path)
    _same(loaded.calibration, saved)
    assert not np.allclose(loaded.offsets, rest_offsets, atol=1e-3)
    np.testing.assert_array_equal(loaded.offsets, r.offsets)
    a, b = r.apply(walk), loaded.apply(walk)
    np.testing.assert_array_equal(a.rotations, b.rotations)
    np.testing.assert_array_equal(a.positions, b.positions)


def test_a_file_of_an_earlier_save_loads(tmp_path, walk: Clip, target: Clip) -> None:
    # What saves wrote before the calibration was a value object: the settings file, with the
    # poses as lists in its "calibration" object.
    fresh = Retargeter(walk.skeleton, target.skeleton)
    pose = walk.rotations[30]
    old = {"version": SETTINGS_VERSION, "values": {"avatar_scale": 0.9, "head_scale": 1.3},
           "calibration": {"source_pose": pose.tolist(),
                           "target_pose": fresh.calibration.target_pose.tolist(),
                           "match_directions": True}}
    settings_path("old", tmp_path).write_text(json.dumps(old))
    r = Retargeter(walk.skeleton, target.skeleton)
    r.load("old", tmp_path)
    assert r.settings["avatar_scale"] == 0.9 and r.settings["head_scale"] == 1.3
    expected = Retargeter(walk.skeleton, target.skeleton)
    expected.calibrate(pose)
    np.testing.assert_array_equal(r.offsets, expected.offsets)
    # Poses of another skeleton: the rest poses, the settings kept.
    old["calibration"]["source_pose"] = pose[:5].tolist()
    settings_path("other", tmp_path).write_text(json.dumps(old))
    r.load("other", tmp_path)
    np.testing.assert_array_equal(r.offsets, fresh.offsets)
    assert r.settings["head_scale"] == 1.3


def test_calibration_is_a_value(walk: Clip, target: Clip) -> None:
    calibration = Retargeter(walk.skeleton, target.skeleton).calibration
    assert calibration.source_pose is not None
    with pytest.raises(ValueError):
        calibration.source_pose[0, 0] = 2.0
    with pytest.raises(TypeError):
        calibration.values["avatar_scale"] = 2.0  # type: ignore[index]
    bigger = calibration.with_values({"avatar_scale": 1.5})
    assert bigger != calibration and calibration.with_values({}) == calibration
    assert bigger.values["avatar_scale"] == 1.5 and calibration.values["avatar_scale"] == 1.0
    assert bigger.source_pose is calibration.source_pose
    with pytest.raises(SettingsError):
        calibration.with_values({"avatar_scale": "big"})


def test_retarget_clip_depends_on_its_arguments_alone(walk: Clip, target: Clip) -> None:
    rig = RetargetRig(walk.skeleton, target.skeleton)
    calibration = rig.rest_calibration().with_values({"avatar_scale": 1.1})
    first = retarget_clip(rig, calibration, walk)
    # A live stream on the same rig, and another calibration in between, change nothing.
    live = LiveRetarget()
    other = rig.rest_calibration().with_values({"avatar_scale": 0.7})
    for f in range(20):
        live.step(rig.calibrated(other), other.values, walk.rotations[f], walk.positions[f],
                  1.0 / walk.fps, stance_level=np.zeros(2))
    again = retarget_clip(rig, calibration, walk)
    np.testing.assert_array_equal(first.clip.positions, again.clip.positions)
    np.testing.assert_array_equal(first.clip.rotations, again.clip.rotations)
    np.testing.assert_array_equal(first.planted, again.planted)
    assert first.planted.any() and not first.planted.all()
    bigger = retarget_clip(rig, calibration.with_values({"avatar_scale": 1.3}), walk)
    assert not np.allclose(bigger.clip.positions, first.clip.positions, atol=1e-3)
    # The facade is the same function of its calibration.
    r = Retargeter(walk.skeleton, target.skeleton)
    r.settings.update({"avatar_scale": 1.1})
    for f in range(10):
        r.step(walk.rotations[f], walk.positions[f], 1.0 / walk.fps)
    facade = r.apply(walk)
    np.testing.assert_array_equal(facade.positions, first.clip.positions)
    np.testing.assert_array_equal(r.source_contacts(walk), first.planted)


def test_live_state_is_handed_its_stance_level(walk: Clip, target: Clip) -> None:
    rig = RetargetRig(walk.skeleton, target.skeleton)
    # Without planting every level is the capture's floor it is handed (with planting a
    # planted foot's level rises to its lowest point, wherever the floor was said to be).
    calibration = rig.rest_calibration().with_values({"plant_feet": False})
    cal = rig.calibrated(calibration)
    outs = []
    for level in (0.0, 0.05):
        live = LiveRetarget()
        outs.append(np.stack([live.step(cal, calibration.values, walk.rotations[f],
                                        walk.positions[f], 1.0 / walk.fps,
                                        stance_level=np.full(2, level))[1]
                              for f in range(10)]))
    hips = rig.correspondence.hips[0]
    # A capture floor 5 cm up puts the hips about 5 cm lower (the feet stand on it; the legs'
    # reach moves the hips a little either way).
    drop = outs[0][:, hips, 1] - outs[1][:, hips, 1]
    assert 0.025 < drop.min() and drop.max() < 0.075
    assert abs(drop.mean() - 0.05) < 0.01
