"""Contact metrics as a library: exact cases and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import metrics, quat
from footfall.footing.foot_model import sole_world
from footfall.grounding import measure_clip
from footfall.terrain import scene


def test_contact_metrics_exact_case() -> None:
    # 2 frames × 1 foot × 4 samples; the second frame is swing and must not count.
    gaps = np.array([[[0.0, 0.01, -0.03, 0.002]], [[0.5, 0.5, 0.5, 0.5]]])
    stance = np.array([[True], [False]])
    m = metrics.contact_metrics(gaps, stance)
    assert m["contact_error_m"] == pytest.approx((0.0 + 0.01 + 0.03 + 0.002) / 4)
    assert m["support_defect_ratio"] == pytest.approx(0.25)  # only |−0.03| > 0.02
    assert m["penetration_m"] == pytest.approx(0.03)
    assert m["floating_m"] == 0.0
    floating = metrics.contact_metrics(np.full((3, 2, 5), 0.004), np.ones((3, 2), bool))
    assert floating["floating_m"] == pytest.approx(0.004)
    assert floating["penetration_m"] == 0.0
    # nothing in stance: zeros, not NaN
    none = metrics.contact_metrics(gaps, np.zeros((2, 1), bool))
    assert all(v == 0.0 for v in none.values())


@settings(max_examples=40)
@given(st.lists(st.floats(-0.1, 0.1), min_size=6, max_size=6))
def test_contact_error_bounds(values: list[float]) -> None:
    gaps = np.array(values).reshape(2, 1, 3)
    m = metrics.contact_metrics(gaps, np.ones((2, 1), bool))
    assert m["contact_error_m"] <= np.abs(gaps).max() + 1e-15
    assert 0.0 <= m["support_defect_ratio"] <= 1.0
    lowest = gaps.min(axis=-1)
    assert m["penetration_m"] == pytest.approx(np.maximum(-lowest, 0).mean())
    assert m["floating_m"] == pytest.approx(np.maximum(lowest, 0).mean())


def test_ground_gaps_on_real_stairs_and_off_terrain() -> None:
    stairs = scene("stairs", step_height=0.2, tread_depth=0.3, start=1.0)
    points = np.array([[1.15, 0.25, 0.0], [0.5, -0.01, 0.0], [99.0, 0.0, 0.0]])
    gaps = metrics.ground_gaps(stairs, points)
    assert gaps[0] == pytest.approx(0.05)
    assert gaps[1] == pytest.approx(-0.01)
    assert np.isnan(gaps[2])


def test_sole_world_rotates_the_sole() -> None:
    sole = np.array([[0.0, -0.1, -0.04], [0.0, -0.1, 0.13]])
    turn = quat.from_axis_angle([0.0, 1.0, 0.0], np.pi / 2)  # +Z toes now point +X
    world = sole_world(turn, np.array([1.0, 0.1, 2.0]), sole)
    assert world == pytest.approx(np.array([[0.96, 0.0, 2.0], [1.13, 0.0, 2.0]]))


def test_sole_grid_spans_the_width_across_the_sole() -> None:
    sole = np.array([[x, -0.1, 0.0] for x in np.linspace(-0.04, 0.13, 18)])  # along +x
    grid = metrics.sole_grid(sole, [0.0, 1.0, 0.0], width=0.06)
    assert grid.shape == (54, 3)
    # three columns: the centre line and ±3 cm across (along z, perpendicular to x and up)
    assert np.unique(np.round(grid[:, 2], 9)).tolist() == pytest.approx([-0.03, 0.0, 0.03])
    assert np.allclose(grid[:, 1], -0.1) and np.allclose(grid[18:36], sole)
    # rolled 0.2 rad about the sole's long axis on a level floor: the edges are ±3 cm·sin 0.2 off
    roll = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), 0.2)
    world = sole_world(roll, np.array([0.0, 0.1, 0.0]), grid)
    assert world[:, 1].max() - world[:, 1].min() == pytest.approx(0.06 * np.sin(0.2), abs=1e-12)


def test_stance_slip_counts_only_planted_pairs() -> None:
    positions = np.array([[0.0, 0, 0], [0.003, 0, 0.004], [1.0, 0, 0], [1.0, 0, 0]])[:, None]
    stance = np.array([[True], [True], [False], [True]])
    assert metrics.stance_slip(positions, stance) == pytest.approx(0.005)


def test_hips_jerk_of_a_cubic() -> None:
    dt = 1 / 60
    t = np.arange(30) * dt
    assert metrics.hips_jerk(2.0 * t**3, dt) == pytest.approx(12.0)
    assert metrics.hips_jerk(np.full(30, 0.5), dt) == 0.0


def test_clamped_ratio_any_leg_per_frame() -> None:
    clamped = np.array([[False, False], [True, False], [True, True], [False, False]])
    assert metrics.clamped_ratio(clamped) == 0.5


def test_contact_skate_ratio_counts_only_planted_feet() -> None:
    fps = 30.0
    positions = np.zeros((4, 1, 3))
    positions[:, 0, 0] = [0.0, 0.1, 0.2, 0.2]  # 3 m/s, 3 m/s, then still
    contacts = np.array([[True], [True], [False], [True]])
    assert metrics.contact_skate_ratio(positions, contacts, fps) == pytest.approx(1 / 3)
    assert metrics.contact_skate_ratio(positions, np.zeros((4, 1), bool), fps) == 0.0


def test_score_clip_on_a_real_clip_and_bad_contacts() -> None:
    from conftest import DATA
    from footfall import bvh
    from footfall.errors import SkeletonError

    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    flat = scene("flat")
    scores = measure_clip(clip, flat)
    assert {"contact_error_m", "stance_sink_m", "stance_float_m", "gmd_foot_skate_ratio",
            "physdiff_penetration_mm"} <= set(scores)
    raised = scene("flat", height=0.1)  # the same clip sunk 10 cm into the ground
    sunk = measure_clip(clip, raised)
    assert sunk["stance_sink_m"] == pytest.approx(scores["stance_sink_m"] + 0.1, abs=0.01)
    assert sunk["physdiff_penetration_mm"] > scores["physdiff_penetration_mm"] + 50
    with pytest.raises(SkeletonError, match="contacts have shape"):
        measure_clip(clip, flat, contacts=np.ones((3, 2), bool))
    # A calibration frame before the motion (the rest pose, as exporters write one) is not
    # measured: the jump out of it is no foot sliding, and it sets no floor.
    from footfall.skeleton import Clip

    rest = Clip(clip.skeleton, quat.identity((1, clip.skeleton.joint_count)),
                clip.positions[:1].copy(), clip.fps)
    assert measure_clip(rest.concatenate(clip), flat) == scores


def _toe_clip(toe_xz: np.ndarray, toe_y: np.ndarray, body_y: float = 1.0) -> np.ndarray:
    """(T, 3, 3): joint 0 a body joint high up, joints 1 and 2 the left and right toes."""
    frames = toe_xz.shape[0]
    positions = np.zeros((frames, 3, 3))
    positions[:, 0, 1] = body_y
    positions[:, 1, [0, 2]] = toe_xz
    positions[:, 1, 1] = toe_y
    positions[:, 2, [0, 2]] = [[0.3, 0.0]]
    positions[:, 2, 1] = toe_y.min()  # the right toe rests on the floor, never moving
    return positions


def test_gmd_ratio_worked_by_hand() -> None:
    # 20 fps, 8 frames; the left toe slides 0.04 m per frame (0.8 m/s) from frame 2 to 5, low.
    x = np.array([0.0, 0.0, 0.0, 0.04, 0.08, 0.12, 0.12, 0.12])
    toe_xz = np.stack([x, np.zeros(8)], axis=1)
    toe_y = np.full(8, 0.02)
    # speeds per pair (m/s): 0 0 .8 .8 .8 0 0; 5-frame centred averages (zeros outside):
    # [.16, .32, .48, .48, .48, .32, .16]: pairs 2, 3, 4 exceed 0.5 in speed but their averages
    # (.48) do not, so nothing skates.
    assert metrics.gmd_foot_skate_ratio(_toe_clip(toe_xz, toe_y), 20.0, 1, 2) == 0.0
    # Faster: 0.06 m per frame (1.2 m/s) → averages [.24, .48, .72, .72, .72, .48, .24]:
    # pairs 2, 3 and 4 skate → 3 / 7.
    x = np.array([0.0, 0.0, 0.0, 0.06, 0.12, 0.18, 0.18, 0.18])
    toe_xz = np.stack([x, np.zeros(8)], axis=1)
    ratio = metrics.gmd_foot_skate_ratio(_toe_clip(toe_xz, toe_y), 20.0, 1, 2)
    assert ratio == pytest.approx(3 / 7)
    # The same slide 6 cm above the clip's floor (the lowest joint) is not contact.
    high = _toe_clip(toe_xz, toe_y + 0.06)
    high[:, 2, 1] = 0.02  # the right toe stays down and sets the floor
    assert metrics.gmd_foot_skate_ratio(high, 20.0, 1, 2) == 0.0
    # At 60 fps GMD keeps every third frame: the same 20 fps motion, frames interleaved with
    # copies, gives the same figure.
    dense = np.repeat(_toe_clip(toe_xz, toe_y), 3, axis=0)
    assert metrics.gmd_frame_step(60.0) == 3 and metrics.gmd_frame_step(30.0) == 1
    assert metrics.gmd_foot_skate_ratio(dense, 60.0, 1, 2) == pytest.approx(3 / 7)


def test_gmd_ratio_floor_is_the_lowest_joint_not_zero() -> None:
    # The whole clip 1 m up: same ratio as on the floor (the floor is the lowest joint).
    x = np.array([0.0, 0.0, 0.0, 0.06, 0.12, 0.18, 0.18, 0.18])
    clip = _toe_clip(np.stack([x, np.zeros(8)], axis=1), np.full(8, 0.02))
    lifted = clip + np.array([0.0, 1.0, 0.0])
    assert metrics.gmd_foot_skate_ratio(lifted, 20.0, 1, 2) == pytest.approx(3 / 7)
    assert metrics.gmd_foot_skate_ratio(clip[:1], 20.0, 1, 2) == 0.0


def test_physdiff_metrics_worked_by_hand() -> None:
    # 4 frames, 2 joints; the lowest joint per frame: -0.01, 0.003, 0.002, 0.05 m.
    heights = np.array([[-0.01, 0.5], [0.003, 0.5], [0.5, 0.002], [0.05, 0.4]])
    horizontal = np.zeros((4, 2, 2))
    horizontal[:, 0, 0] = [0.0, 0.01, 0.03, 0.06]
    horizontal[:, 1, 0] = [0.0, 0.0, 0.004, 0.0]
    m = metrics.physdiff_metrics(heights, horizontal)
    assert m["penetration_mm"] == pytest.approx(10.0 / 4)
    assert m["floating_mm"] == pytest.approx((0.05 - 0.005) * 1000 / 4)
    # touching (|h| <= 5 mm) in frames 1 and 2: one pair (1→2), joint 0 of frame 1 moved 2 cm.
    assert m["sliding_mm"] == pytest.approx(20.0)
