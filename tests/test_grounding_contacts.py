"""Contacts from motion, foot locks and the footstep plan of a clip."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from footfall.footing import (
    CLIP_RULE,
    CONTACT_RULE,
    bridge_gaps,
    clip_contacts,
    hold_contacts,
    majority_vote,
    segments,
)
from footfall.grounding.locks import slip_locks


def test_majority_vote_removes_flicker() -> None:
    flags = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1], bool)
    assert majority_vote(flags, 3).astype(int).tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]


@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_segments_cover_exactly_the_true_frames(values: list[bool]) -> None:
    flags = np.array(values)
    covered = np.zeros(len(flags), bool)
    for start, stop in segments(flags):
        assert stop > start and not covered[start:stop].any()
        covered[start:stop] = True
    assert np.array_equal(covered, flags)


def _feet(heights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(F, 2, 2, 3) heel and ball of two feet: heights (F, 2, 2), heel at x (F, 2), ball 15 cm
    ahead."""
    points = np.zeros((*heights.shape, 3))
    points[..., 1] = heights
    points[..., 0] = x[..., None] + np.array([0.0, 0.15])
    return points


def test_a_clip_plants_feet_low_and_slow_over_its_known_floor() -> None:
    fps, frames = 60.0, 30
    heights = np.full((frames, 2, 2), 0.01)
    x = np.zeros((frames, 2))
    # left: held still 6 cm over the floor the whole clip — low for a stream's rule (12 cm, a
    # floor not known yet) but not a contact over a known floor
    heights[:, 0] = 0.06
    # right: standing, with a one-frame flicker up (voted away), then the heel lifts and the
    # foot rolls on its ball (planted: one point low and slow), then it swings off at 2 m/s
    heights[10, 1] = 0.2
    heights[18:, 1, 0] = np.linspace(0.02, 0.2, 12)
    x[24:, 1] = np.arange(1, 7) * 2.0 / fps
    heights[24:, 1, 1] = 0.1
    points = _feet(heights, x)
    contacts = clip_contacts(points, points, points[:, :, 1], 0.0, fps)
    assert not contacts[:, 0].any()
    assert contacts[:23, 1].all() and not contacts[25:, 1].any()
    # the stream's rule plants the raised foot: the lift is the one parameter they differ by
    assert CONTACT_RULE.lift > 0.06 > CLIP_RULE.lift
    raised = clip_contacts(points, points, points[:, :, 1], 0.0, fps,
                           replace(CLIP_RULE, lift=CONTACT_RULE.lift))
    assert raised[:, 0].all()
    # without the vote the flicker breaks the stance
    flicker = clip_contacts(points, points, points[:, :, 1], 0.0, fps,
                            replace(CLIP_RULE, vote_seconds=0.0, bridge_seconds=0.0))
    assert not flicker[10, 1] and flicker[9, 1] and flicker[11, 1]


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
    bridged = bridge_gaps(contacts, positions, fps=20.0)
    # the 2-frame break over 2 cm is closed; the 4-frame, 48 cm step is not
    assert bridged[:, 0].astype(int).tolist() == [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1]


def _ball(x: np.ndarray) -> np.ndarray:
    """(F, 1, 3) ball positions along x."""
    return np.stack([x, np.zeros_like(x), np.zeros_like(x)], -1)[:, None, :]


def test_slip_lock_holds_a_sliding_planted_ball_and_hands_it_back_in_the_swing() -> None:
    fps = 100.0
    x = np.concatenate([np.linspace(0.0, 0.02, 20), 0.02 + np.linspace(0.0, 0.5, 30),
                        np.full(5, 0.52)])  # slide, swing 0.5 m, land
    contacts = np.zeros((55, 1), bool)
    contacts[:20] = True
    contacts[50:] = True
    rise = np.zeros((55, 1))
    rise[20:50, 0] = 0.1 * np.sin(np.linspace(0.0, np.pi, 30))  # up to 10 cm and down
    shift, pinned = slip_locks(_ball(x), contacts, rise, fps)
    held = x[:20] + shift[:20, 0, 0]
    assert np.abs(held - held[0]).max() < 1e-12  # the ball stays where it landed
    assert shift[0, 0] == pytest.approx([0.0, 0.0])  # no jump when the lock starts
    assert pinned[:20, 0].all() and not pinned[20:50, 0].any()
    assert np.abs(shift[:20, 0, 0]).max() <= 0.02 + 1e-12  # never more than the source slid
    assert np.abs(shift[22:, 0]).max() < 1e-12  # handed back once the ball is 2 cm up
    assert np.all(np.diff(np.abs(shift[19:50, 0, 0])) <= 1e-12)  # fading, never growing


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
    rise = np.where(contacts, 0.0, np.cumsum(~contacts, axis=0) * 0.01)  # 1 cm a frame
    shift, pinned = slip_locks(_ball(x), contacts, rise, fps, slip_speed=0.4)
    # Central differences: the speed starts rising at frame 20 and passes 0.4 m/s at 25.
    assert pinned[1:20, 0].all()  # the slide is held (0.5 mm per frame)
    size = np.abs(shift[:, 0, 0])
    assert size[19] > 0.0
    assert np.all(np.diff(size[20:]) <= 1e-12), size[18:32]  # the speed-up is not held
    assert not pinned[20:, 0].any()
    assert size[31:].max() == 0.0  # handed back as the ball rose


def test_slip_lock_lets_go_of_a_foot_the_source_moves_fast_or_far() -> None:
    fps = 100.0
    fast = np.concatenate([np.zeros(10), np.linspace(0.0, 0.3, 11)[1:]])  # 3 m/s, in contact
    contacts = np.ones((20, 1), bool)
    shift, pinned = slip_locks(_ball(fast), contacts, np.zeros((20, 1)), fps, slip_speed=0.4)
    assert not pinned[12:, 0].any()
    assert np.abs(shift[:, 0]).max() < 0.01  # a swing is never held back
    far = np.linspace(0.0, 0.2, 100)  # 0.2 m/s, slow but 20 cm
    shift, pinned = slip_locks(_ball(far), np.ones((100, 1), bool), np.zeros((100, 1)), fps,
                               slip_radius=0.05)
    assert np.abs(shift[:, 0, 0]).max() <= 0.05 + 1e-9
    assert not pinned[-1, 0]  # let go past the radius, no new lock in the same contact
