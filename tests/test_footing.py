"""The one foot model (issue 34): one contact rule and one floor, for a clip and a live stream.

Live equals offline: a ``LiveRetarget`` fed a clip frame by frame plants the same source feet
in the same frames and stands the target's planted feet at the same heights as
``retarget_clip`` — with planting on — on every shared clip × CesiumMan, RobotExpressive and
both VRM avatars. Before
(each answered by its own rule: offline per-stance medians and a debounce, live a learned floor
shared by both feet) the contacts agreed on 74.5–100 % of frames and planted ankles differed by
up to 109 mm (mocapbank_zxy_cm onto vrm1_mtoon_uv_test).
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import DATA, HUMANOID_BVH_FILES
from footfall import bvh
from footfall.footing import FootTracker, horizontal_speeds, runs, segments, track_feet
from footfall.gltf import load_avatar
from footfall.retarget import (
    Calibration,
    LiveRetarget,
    Retargeter,
    RetargetRig,
    retarget_clip,
)
from footfall.skeleton import Clip
from footfall.skinning import avatar_targets

AVATARS = ["CesiumMan.glb", "RobotExpressive.glb", "vrm1_debug_robot.vrm",
           "vrm1_mtoon_uv_test.vrm"]
SECONDS = 4.0  # of each clip: a second of warm-up and three of walking


def test_runs_are_the_true_spans() -> None:
    flags = np.array([0, 1, 1, 0, 0, 1, 0, 1, 1, 1], dtype=bool)
    starts, stops = runs(flags)
    assert starts.tolist() == [1, 5, 7] and stops.tolist() == [3, 6, 10]
    assert segments(flags) == [(1, 3), (5, 6), (7, 10)]
    assert segments(np.zeros(4, dtype=bool)) == []


def _walk(frames: int, fps: float) -> tuple[np.ndarray, np.ndarray]:
    """Heights ``(F, 2, 1)`` and points ``(F, 2, 1, 3)`` of two feet stepping in turn: each
    foot planted (still, 1 cm up) for half a second, then swinging 15 cm up at 1.2 m/s."""
    t = np.arange(frames) / fps
    heights = np.zeros((frames, 2, 1))
    points = np.zeros((frames, 2, 1, 3))
    for side in range(2):
        phase = (t + 0.5 * side) % 1.0
        swing = phase >= 0.5
        heights[:, side, 0] = np.where(swing, 0.01 + 0.15 * np.sin(np.pi * (phase - 0.5) / 0.5),
                                       0.01)
        steps = np.floor(t + 0.5 * side)  # how many swings are done
        progress = np.where(swing, (phase - 0.5) / 0.5, 0.0)
        points[:, side, 0, 2] = 0.6 * (steps + progress)
    return heights, points


def test_the_rule_is_the_same_frame_by_frame_and_over_a_clip() -> None:
    heights, points = _walk(240, 60.0)
    whole = track_feet(heights, points, 60.0, np.zeros(2))
    live = FootTracker()
    frames = [live.track(heights[f:f + 1], points[f:f + 1], 1 / 60, np.zeros(2))
              for f in range(240)]
    for k in range(3):
        np.testing.assert_array_equal(np.concatenate([f[k] for f in frames]), whole[k])
    planted = whole[0]
    # each foot planted through its stance, off by one frame at most at each touchdown (its
    # speed is measured from the frame before, still swinging) and lift-off (the hysteresis
    # holds the plant a frame into the swing), and at the first frame (no speed known yet)
    t = np.arange(240) / 60
    for side in range(2):
        stance = ((t + 0.5 * side) % 1.0) < 0.5
        wrong = np.flatnonzero(planted[:, side] != stance)
        edges = np.flatnonzero(np.diff(stance.astype(int)) != 0) + 1
        assert set(wrong.tolist()) <= {0, *edges.tolist()}, wrong
    # planted feet stand on the floor learned under them (their 1 cm)
    assert np.abs(whole[1][planted] - 0.01).max() < 1e-9


def test_hysteresis_keeps_a_rolling_foot_planted() -> None:
    # a planted toe rolling at 0.4 m/s (faster than a touchdown may be, slower than a release)
    heights = np.zeros((60, 2, 1))
    points = np.zeros((60, 2, 1, 3))
    points[:, 0, 0, 0] = np.r_[np.zeros(20), 0.4 / 60 * np.arange(1, 41)]
    planted, _, _ = track_feet(heights, points, 60.0, np.zeros(2))
    assert planted[:, 0].all()
    # the same speed coming down from the air never plants
    rolling = np.zeros((60, 2, 1, 3))
    rolling[:, 0, 0, 0] = 0.4 / 60 * np.arange(60)
    falling = heights.copy()
    falling[0, 0, 0] = 0.5
    planted, _, _ = track_feet(falling, rolling, 60.0, np.zeros(2))
    assert not planted[:, 0].any()


def _calibrated(clip: Clip, name: str) -> tuple[RetargetRig, Calibration]:
    avatar = load_avatar(DATA / "avatars" / name)
    mapping = avatar.target_mapping()
    r = Retargeter(clip.skeleton, avatar.skeleton, None, mapping,
                   target_rest=avatar.rest_rotations, **avatar_targets(avatar, mapping))
    r.calibrate_for(clip)
    return r.rig, r.calibration


@pytest.mark.parametrize("avatar", AVATARS)
@pytest.mark.parametrize("path", HUMANOID_BVH_FILES, ids=lambda p: p.stem)
def test_live_equals_offline_with_planting_on(path, avatar: str) -> None:
    whole = bvh.load(path)
    clip = whole[: int(SECONDS * whole.fps)]
    rig, calibration = _calibrated(clip, avatar)
    assert calibration.values["plant_feet"]
    result = retarget_clip(rig, calibration, clip)
    offline, offline_contacts = result.clip, result.planted
    # A fresh live state on a rig of its own, fed the clip frame by frame.
    live_rig, live_calibration = _calibrated(clip, avatar)
    cal, stream = live_rig.calibrated(live_calibration), LiveRetarget()
    rotations, positions = np.empty_like(offline.rotations), np.empty_like(offline.positions)
    live_contacts = np.zeros((clip.frame_count, 2), dtype=bool)
    for f in range(clip.frame_count):
        rotations[f], positions[f] = stream.step(cal, live_calibration.values,
                                                 clip.rotations[f], clip.positions[f],
                                                 1.0 / clip.fps, stance_level=np.zeros(2))
        live_contacts[f] = stream.planted
    live = Clip(offline.skeleton, rotations, positions, clip.fps)
    warm = slice(min(int(round(clip.fps)), clip.frame_count - 1), None)  # after 1 s
    assert np.mean(live_contacts[warm] == offline_contacts[warm]) >= 0.98
    feet = [offline.skeleton.index(rig.target_map[b]) for b in ("LeftFoot", "RightFoot")]
    height_offline = offline.global_positions()[:, feet, 1]
    height_live = live.global_positions()[:, feet, 1]
    planted = (offline_contacts & live_contacts)[warm]
    if planted.any():
        gap = np.abs(height_live[warm] - height_offline[warm])[planted]
        assert gap.max() <= 0.005, gap.max()
    # More than the issue asks: the whole pose, every frame from the first, is the same, for the
    # holds (stance width, toe offset, contact patch) are one rule applied to frames in order.
    # (Before, offline held the stance-width shift through the whole swing and through
    # shuffles: RobotExpressive's legs were up to 0.96 m from the live ones on cmu_01_01.)
    moved = np.abs(live.global_positions() - offline.global_positions()).max()
    assert moved <= 0.001, moved


def test_horizontal_speeds_back_from_each_frame_or_centred_on_it() -> None:
    # x = 0, 1, 3 m (y ignored) at 10 fps: back from each frame 0, 10, 20 m/s (a stream knows
    # nothing before its first frame); centred (the offline option) 10, 15, 20 m/s (one-sided at
    # the ends, the mean of the steps either side inside).
    points = np.array([[0.0, 5.0, 0.0], [1.0, -5.0, 0.0], [3.0, 0.0, 0.0]])
    assert horizontal_speeds(points, 10.0).tolist() == pytest.approx([0.0, 10.0, 20.0])
    assert horizontal_speeds(points, 10.0, centred=True).tolist() == pytest.approx(
        [10.0, 15.0, 20.0])
    assert horizontal_speeds(points[:1], 10.0, centred=True).tolist() == [0.0]


def test_the_offline_option_lets_go_in_the_frame_the_foot_starts_to_move() -> None:
    # A low point still for three frames, then moving 0.2 m a frame at 10 fps (2 m/s). Back
    # from each frame (a stream) the move is first seen in frame 3; centred on each frame (the
    # offline option) frame 2 already reads (0.2 m / 2 frames) = 1 m/s, above the release speed:
    # the foot lets go a frame earlier, where its move begins. The other foot is 1 m up.
    x = np.array([0.0, 0.0, 0.0, 0.2, 0.4, 0.6])
    points = np.zeros((6, 2, 1, 3))
    points[:, 0, 0, 0] = x
    heights = np.zeros((6, 2, 1))
    heights[:, 1] = 1.0
    stream, _, _ = track_feet(heights, points, 10.0, np.zeros(2), plant=False)
    offline, _, _ = track_feet(heights, points, 10.0, np.zeros(2), plant=False, centred=True)
    assert stream[:, 0].tolist() == [True, True, True, False, False, False]
    assert offline[:, 0].tolist() == [True, True, False, False, False, False]
    assert not stream[:, 1].any() and not offline[:, 1].any()


def test_a_foot_sinks_only_as_deep_as_it_goes_into_the_ground() -> None:
    # support joints (ankle, ball, toe tip) over the ground, metres; planted at 80, 20 and 0 mm
    from footfall.footing.stance_level import stance_defect

    rest = np.array([[0.080, 0.020, 0.0], [0.080, 0.020, 0.0]])
    heights = np.array([[
        [0.080, 0.001, 0.002],   # ball pressed 19 mm, toes turned up: every point out of the ground
        [0.060, 0.000, -0.020],  # the whole foot 20 mm down
    ], [
        [0.060, 0.030, 0.010],   # the heel (ankle) 20 mm down, the toes up
        [0.080, 0.020, -0.050],  # a toe bent 50 mm through the floor, the foot flat
    ], [
        [0.080, 0.005, -0.003],  # ball 15 mm down, the lowest point 3 mm in: 3 mm, no more
        [0.095, 0.030, 0.012],   # floating by its lowest point over planted: 10 mm
    ]])
    assert stance_defect(heights, rest) == pytest.approx(
        np.array([[0.0, -0.020], [-0.020, 0.0], [-0.003, 0.010]]), abs=1e-12)


def test_one_kneeling_rule_a_frame_at_a_time_and_over_arrays() -> None:
    # knee 0.15 leg lengths up or lower: kneeling in full; 0.25 or higher: not; linear between
    from footfall.footing.kneeling import kneeling, kneeling_s

    heights = np.array([[0.0, 0.15, 0.2], [0.225, 0.25, 0.5]])
    assert kneeling(heights, 1.0) == pytest.approx(np.array([[1.0, 1.0, 0.5], [0.25, 0.0, 0.0]]))
    assert kneeling(2.0 * heights, 2.0) == pytest.approx(
        np.array([[kneeling_s(h, 1.0) for h in row] for row in heights]))
