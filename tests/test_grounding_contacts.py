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
from footfall.grounding.locks import slip_locks


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


def test_bridge_gaps_closes_a_weight_shift_not_a_step() -> None:
    contacts = np.array([1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1], bool)[:, None]
    z = np.array([0, 0, 0, 0, 0.02, 0.02, 0.1, 0.2, 0.3, 0.4, 0.5])
    positions = np.stack([np.zeros(11), np.zeros(11), z], -1)[:, None]
    bridged = bridge_gaps(contacts, positions, fps=20.0, seconds=0.2, distance=0.05)
    # the 2-frame break over 2 cm is closed; the 4-frame, 48 cm step is not
    assert bridged[:, 0].astype(int).tolist() == [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1]


def _ball(x: np.ndarray) -> np.ndarray:
    """(F, 1, 3) ball positions along x."""
    return np.stack([x, np.zeros_like(x), np.zeros_like(x)], -1)[:, None, :]


def test_slip_lock_holds_a_sliding_planted_ball_and_fades_out_within_the_blend() -> None:
    fps = 100.0
    x = np.concatenate([np.linspace(0.0, 0.02, 20), 0.02 + np.linspace(0.0, 0.5, 30)])  # slide, go
    contacts = np.zeros((50, 1), bool)
    contacts[:20] = True
    shift, pinned = slip_locks(_ball(x), contacts, fps, blend_seconds=0.1)
    held = x[:20] + shift[:20, 0, 0]
    assert np.abs(held - held[0]).max() < 1e-12  # the ball stays where it landed
    assert shift[0, 0] == pytest.approx([0.0, 0.0])  # no jump when the lock starts
    assert pinned[:20, 0].all() and not pinned[20:, 0].any()
    assert np.abs(shift[:20, 0, 0]).max() <= 0.02 + 1e-12  # never more than the source slid
    assert np.abs(shift[30:, 0]).max() == 0.0  # faded out within 0.1 s (10 frames)
    assert np.all(np.diff(np.abs(shift[19:31, 0, 0])) <= 1e-12)  # fading, never growing


def test_slip_lock_lets_go_where_the_push_off_begins() -> None:
    """A ball that slides, then speeds up into the swing while still in contact (a push-off:
    the foot rolls over the toe tip, which moves the ball): the slide is held, the roll is not
    — from the first frame of the speed-up the correction only fades. Held through the roll, the
    ball was given back afterwards, faster than the source moved it, while still on the floor
    (games105_walk60: 0.47 → 0.62 m/s; footfall's contact skate ratio 0.083 → 0.138)."""
    fps = 100.0
    speeds = np.concatenate([np.full(20, 0.05), [0.1, 0.17, 0.25, 0.33, 0.39],
                             [0.6, 1.0, 1.5], np.full(12, 2.0)])  # m/s
    x = np.concatenate([[0.0], np.cumsum(speeds) / fps])
    contacts = np.zeros((x.size, 1), bool)
    contacts[:29] = True  # the contact ends three frames after the speed passes 0.4 m/s
    shift, pinned = slip_locks(_ball(x), contacts, fps, slip_speed=0.4)
    # Central differences: the speed starts rising at frame 20 and passes 0.4 m/s at 25.
    assert pinned[1:20, 0].all()  # the slide is held (0.5 mm per frame)
    size = np.abs(shift[:, 0, 0])
    assert size[19] > 0.0
    assert np.all(np.diff(size[20:]) <= 1e-12), size[18:32]  # the speed-up is not held
    assert not pinned[20:, 0].any()
    assert size[40:].max() == 0.0  # faded within 0.1 s


def test_slip_lock_lets_go_of_a_foot_the_source_moves_fast_or_far() -> None:
    fps = 100.0
    fast = np.concatenate([np.zeros(10), np.linspace(0.0, 0.3, 11)[1:]])  # 3 m/s, in contact
    contacts = np.ones((20, 1), bool)
    shift, pinned = slip_locks(_ball(fast), contacts, fps, slip_speed=0.4)
    assert not pinned[12:, 0].any()
    assert np.abs(shift[:, 0]).max() < 0.01  # a swing is never held back
    far = np.linspace(0.0, 0.2, 100)  # 0.2 m/s, slow but 20 cm
    shift, pinned = slip_locks(_ball(far), np.ones((100, 1), bool), fps, slip_radius=0.05)
    assert np.abs(shift[:, 0, 0]).max() <= 0.05 + 1e-9
    assert not pinned[-1, 0]  # let go past the radius, no new lock in the same contact
