"""Contacts from motion, foot locks and the footstep plan of a clip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from footfall.grounding.contacts import (
    bridge_gaps,
    detect_contacts,
    hold_contacts,
    median_filter,
    segments,
)
from footfall.grounding.locks import (
    ball_locks,
    contact_plan,
    foot_locks,
    release_over_swing,
    rest_frames,
)


def test_median_filter_removes_flicker() -> None:
    flags = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1], bool)
    assert median_filter(flags, 3).astype(int).tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]


@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_segments_cover_exactly_the_true_frames(values: list[bool]) -> None:
    flags = np.array(values)
    covered = np.zeros(len(flags), bool)
    for start, stop in segments(flags):
        assert stop > start and not covered[start:stop].any()
        covered[start:stop] = True
    assert np.array_equal(covered, flags)


def test_detect_contacts_low_and_slow() -> None:
    height = np.array([[0.01], [0.01], [0.2], [0.01], [0.01], [0.01]])
    heel = np.array([[0.0], [0.0], [0.0], [2.0], [2.0], [0.1]])
    toe = np.array([[1.0], [1.0], [0.0], [0.05], [2.0], [2.0]])
    contacts = detect_contacts(height, heel, toe, fps=10.0, median_seconds=0.0)
    assert contacts[:, 0].tolist() == [True, True, False, True, False, True]


def test_hold_contacts_keeps_a_sliding_planted_foot() -> None:
    contacts = np.array([0, 0, 1, 1, 0, 0, 0, 0], bool)[:, None]
    # the toe still touches (< 2 cm) and slides slower than a swing (< 1 m/s) for two frames
    height = np.array([0.10, 0.01, 0.0, 0.0, 0.005, 0.01, 0.01, 0.0])[:, None]
    speed = np.array([0.1, 0.5, 0.0, 0.1, 0.6, 0.9, 1.5, 0.2])[:, None]
    held = hold_contacts(contacts, height, speed)
    assert held[:, 0].astype(int).tolist() == [0, 1, 1, 1, 1, 1, 0, 0]
    # nothing to hold: the flags are returned as they were
    assert np.array_equal(hold_contacts(contacts, height + 1.0, speed), contacts)


def test_foot_lock_holds_releases_past_radius_and_blends() -> None:
    frames = 12
    x = np.linspace(0.0, 0.55, frames)  # drifts 5 cm per frame
    ankle = np.stack([x, np.zeros(frames)], axis=-1)[:, None, :]
    contacts = np.ones((frames, 1), bool)
    contacts[9:] = False
    lock, weight = foot_locks(ankle, contacts, fps=20.0, unlock_radius=0.2, blend_seconds=0.1)
    assert lock[0, 0] == pytest.approx([0.0, 0.0])
    assert weight[:4, 0] == pytest.approx([1.0, 1.0, 1.0, 1.0])
    # x = 0.25 at frame 5 is past 0.2 m: released, then faded over 0.1 s = 2 frames
    assert weight[5, 0] == pytest.approx(0.5)
    assert weight[6, 0] == 0.0
    assert np.all(lock[5:8, 0] == lock[0, 0])  # the held spot stays while fading


def test_ball_lock_keeps_the_ball_and_heading() -> None:
    frames = 5
    turn = np.linspace(0.0, 0.3, frames)  # the animated foot yaws about its ankle (< 0.35)
    ankle = np.zeros((frames, 1, 3))
    ball = np.stack([0.15 * np.sin(turn), np.zeros(frames), 0.15 * np.cos(turn)], -1)[:, None]
    ankle_lock, weight, lock_turn = ball_locks(ankle, ball, np.ones((frames, 1), bool), 30.0)
    assert weight[:, 0] == pytest.approx(np.ones(frames))
    assert lock_turn[:, 0] == pytest.approx(-turn)
    # turning the foot back by lock_turn about the locked ankle puts the ball where it landed
    angle = turn + lock_turn[:, 0]
    ball_xz = ankle_lock[:, 0] + 0.15 * np.stack([np.sin(angle), np.cos(angle)], -1)
    assert ball_xz == pytest.approx(np.tile([0.0, 0.15], (frames, 1)))


def test_heading_lock_lets_a_pivot_turn_go_past_the_unlock_angle() -> None:
    frames = 12
    turn = np.linspace(0.0, 1.1, frames)  # 0.1 rad per frame: turning on the spot
    ankle = np.zeros((frames, 1, 3))
    ball = np.stack([0.15 * np.sin(turn), np.zeros(frames), 0.15 * np.cos(turn)], -1)[:, None]
    _, weight, lock_turn = ball_locks(ankle, ball, np.ones((frames, 1), bool), 30.0,
                                      unlock_angle=0.35)
    assert weight[:, 0] == pytest.approx(np.ones(frames))  # the ball stays pinned
    assert lock_turn[:4, 0] == pytest.approx(-turn[:4])  # held up to 0.3 rad
    # past 0.35 rad it is let go over 0.1 s (3 frames at 30 fps) and the foot turns with the
    # animation
    assert abs(lock_turn[4, 0]) < abs(turn[4])
    assert lock_turn[7:, 0] == pytest.approx(np.zeros(frames - 7))


def test_ball_lock_is_taken_where_the_ball_comes_to_rest() -> None:
    frames = 8
    # heel strike at frame 0 with the ball still sliding forward 2 cm per frame until frame 3
    z = np.array([0.0, 0.02, 0.04, 0.05, 0.05, 0.05, 0.05, 0.05]) + 0.15
    ball = np.stack([np.zeros(frames), np.zeros(frames), z], -1)[:, None]
    ankle = ball - [0.0, 0.0, 0.15]
    ankle_lock, weight, _ = ball_locks(ankle, ball, np.ones((frames, 1), bool), 60.0)
    assert weight[0, 0] == 1.0
    assert ankle_lock[:, 0, 1] == pytest.approx(np.full(frames, 0.05))  # where it settles


def test_rest_frames_stay_inside_their_contact() -> None:
    contacts = np.array([1, 1, 1, 0, 1, 1], bool)[:, None]
    settled = np.array([0, 0, 1, 0, 0, 0], bool)[:, None]
    assert rest_frames(contacts, settled)[:, 0].tolist() == [2, 2, 2, 3, 4, 5]


def test_release_over_swing_lets_go_as_the_foot_swings() -> None:
    contacts = np.array([1, 1, 0, 0, 0, 1], bool)[:, None]
    _, swing, _, _ = contact_plan(np.zeros((6, 1, 2)), contacts)
    weight = release_over_swing(np.ones((6, 1)), contacts, swing)[:, 0]
    assert weight[:2].tolist() == [1.0, 1.0] and weight[5] == 1.0
    assert 1.0 > weight[2] > weight[3] > weight[4] > 0.0
    assert weight[3] == pytest.approx(0.5)  # half-way through the swing


def test_bridge_gaps_closes_a_weight_shift_not_a_step() -> None:
    contacts = np.array([1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1], bool)[:, None]
    z = np.array([0, 0, 0, 0, 0.02, 0.02, 0.1, 0.2, 0.3, 0.4, 0.5])
    positions = np.stack([np.zeros(11), np.zeros(11), z], -1)[:, None]
    bridged = bridge_gaps(contacts, positions, fps=20.0, seconds=0.2, distance=0.05)
    # the 2-frame break over 2 cm is closed; the 4-frame, 48 cm step is not
    assert bridged[:, 0].astype(int).tolist() == [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1]


def test_contact_plan_swings_between_footsteps() -> None:
    ankle = np.stack([np.arange(8.0), np.zeros(8)], -1)[:, None, :]
    contacts = np.array([1, 1, 0, 0, 0, 1, 1, 1], bool)[:, None]
    stance, swing, plant, next_plant = contact_plan(ankle, contacts)
    assert stance[:, 0].tolist() == contacts[:, 0].tolist()
    assert plant[3, 0] == pytest.approx([0.0, 0.0])
    assert next_plant[3, 0] == pytest.approx([5.0, 0.0])
    assert swing[2:5, 0] == pytest.approx([0.25, 0.5, 0.75])
    assert plant[6, 0] == pytest.approx([5.0, 0.0])
