"""Contacts from motion, foot locks and the footstep plan of a clip."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from footfall.grounding.contacts import detect_contacts, median_filter, segments
from footfall.grounding.locks import ball_locks, contact_plan, foot_locks


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
    turn = np.linspace(0.0, 0.4, frames)  # the animated foot yaws about its ankle
    ankle = np.zeros((frames, 1, 3))
    ball = np.stack([0.15 * np.sin(turn), np.zeros(frames), 0.15 * np.cos(turn)], -1)[:, None]
    ankle_lock, weight, lock_turn = ball_locks(ankle, ball, np.ones((frames, 1), bool), 30.0)
    assert weight[:, 0] == pytest.approx(np.ones(frames))
    assert lock_turn[:, 0] == pytest.approx(-turn)
    # turning the foot back by lock_turn about the locked ankle puts the ball where it landed
    angle = turn + lock_turn[:, 0]
    ball_xz = ankle_lock[:, 0] + 0.15 * np.stack([np.sin(angle), np.cos(angle)], -1)
    assert ball_xz == pytest.approx(np.tile([0.0, 0.15], (frames, 1)))


def test_contact_plan_swings_between_footsteps() -> None:
    ankle = np.stack([np.arange(8.0), np.zeros(8)], -1)[:, None, :]
    contacts = np.array([1, 1, 0, 0, 0, 1, 1, 1], bool)[:, None]
    stance, swing, plant, next_plant = contact_plan(ankle, contacts)
    assert stance[:, 0].tolist() == contacts[:, 0].tolist()
    assert plant[3, 0] == pytest.approx([0.0, 0.0])
    assert next_plant[3, 0] == pytest.approx([5.0, 0.0])
    assert swing[2:5, 0] == pytest.approx([0.25, 0.5, 0.75])
    assert plant[6, 0] == pytest.approx([5.0, 0.0])
