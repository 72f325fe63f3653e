"""A swing lifted over two stair noses in a row comes down between them as far as the lift
spread from each nose lets it (``grounding.clip.smoothing.spread_above``), not held up by a
moving maximum that fills the valley before averaging (``smooth_above``) — measured on the
written output with ``tools/ground_table.py``'s independent scorer (issue 36 item 3).

games105_walk60 circle_right_backward (60 fps) climbs the stairs backward, its heel first: a
swing of the right foot crosses three risers (frames 88-137), and between the noses at frames
118 and 123 the moving maximum kept the foot 21-39 mm higher than any nose needed (frames
119-122). With the lift spread linearly from each frame's need (the same fall-off a lone nose
had), the swing figure is 19.2 mm (20.5 mm with ``smooth_above`` in its place, where this test
fails) and no foot point goes deeper into the stairs.

The same walk lands its right heel 0.4-4 mm short of the riser at x = 2.2 (frames 104-110); at
frame 107 the modelled heel is on the riser's plane and the ground straight under it is the
tread above: its least lift for that frame was 97 mm, ramped over the frames around it (swing
20.7 mm by the heel scorer, the tables' own). A point within ``GRAZE`` (2 mm) of lower ground
grazes the riser's face (``plan.grazing_gaps``): 17.3 mm, no point deeper in the stairs.
"""

from __future__ import annotations

import numpy as np
import pytest

from conventions import scene_scores
from footfall.grounding.clip.plan import GRAZE, grazing_gaps, least_lift
from footfall.grounding.clip.smoothing import smooth_above, spread_above
from footfall.metrics import ground_gaps
from footfall.terrain.profiles import stairs

#: Issue 36's rules: swing height over the blended ground (mean), depth beyond the source's dip.
SWING_RULE, DEPTH_RULE = 0.020, 0.005


def test_a_swing_over_two_noses_comes_down_between_them() -> None:
    got = scene_scores("games105_walk60.bvh", "circle_right_backward", "stairs")
    assert got["swing"] <= SWING_RULE, got
    assert got["beyond_dip"] <= DEPTH_RULE, got


def test_a_heel_landing_at_a_risers_face_is_not_lifted_over_the_tread_above() -> None:
    # By the heel scorer (the tables'): 20.7 mm with GRAZE = 0, 17.3 with it.
    got = scene_scores("games105_walk60.bvh", "circle_right_backward", "stairs", heel=True)
    assert got["swing"] <= SWING_RULE, got
    assert got["beyond_dip"] <= DEPTH_RULE, got


def test_a_point_at_a_risers_face_grazes_it_and_one_inside_does_not() -> None:
    terrain = stairs()  # a riser from 0.15 to 0.30 m at x = 1.3, facing -x
    x = np.array([1.3, 1.3 + 0.5 * GRAZE, 1.3 + 3 * GRAZE, 1.29])
    points = np.stack([x, np.full(4, 0.2), np.zeros(4)], axis=-1)  # 5 cm over the lower tread
    assert np.allclose(ground_gaps(terrain, points), [-0.1, -0.1, -0.1, 0.05])
    assert np.allclose(grazing_gaps(terrain, points), [0.05, 0.05, -0.1, 0.05])
    # the padding the swing points carry stays NaN
    assert np.isnan(grazing_gaps(terrain, np.full((1, 3), np.nan))).all()


def test_the_spread_lift_is_the_least_with_a_lone_peaks_fall_off() -> None:
    rng = np.random.default_rng(36)
    for window in (1, 2, 3, 6):
        for _ in range(50):
            need = np.where(rng.random((30, 2)) < 0.2, rng.random((30, 2)), 0.0)
            spread, boxed = spread_above(need, window), smooth_above(need, window)
            assert np.all(spread >= need) and np.all(spread <= boxed + 1e-12)
        lone = np.zeros(20)
        lone[10] = 0.1
        assert np.allclose(spread_above(lone, window), smooth_above(lone, window))
    valley = np.zeros(12)
    valley[[4, 8]] = 0.1
    assert spread_above(valley, 3)[6] < smooth_above(valley, 3)[6]


def test_a_point_is_judged_at_a_riser_where_it_swings_not_where_it_was_animated() -> None:
    # A swing over the stairs is judged with its foot raised by the ground blended under it:
    # the same point 1 mm under the upper tread at the nose (its way out straight up) is lifted
    # out, 50 mm under it against the face it grazes and is not. Judged at its animated height
    # (0.6 m lower, deep under every tread) the nose would have counted as a face.
    terrain = stairs()  # a riser from 0.15 to 0.30 m at x = 1.3, facing -x
    frames, rise = 5, 0.6
    contacts = np.zeros((frames, 2), dtype=bool)
    contacts[[0, -1]] = True
    lifts = []
    for under in (0.001, 0.05):
        points = np.full((frames, 2, 1, 3), [0.5, 0.0, 0.0])  # far from the stairs
        points[2, 0, 0] = [1.3, 0.3 - under - rise, 0.0]
        offset = np.full((frames, 2), rise)
        lift = least_lift(points, terrain, 0.0, offset, np.zeros((frames, 2)), contacts, 1,
                          np.zeros(1, dtype=bool), points[..., 0, 1],
                          np.ones((frames, 2, 1), dtype=bool))
        lifts.append(lift[2, 0])
    assert lifts[0] == pytest.approx(0.001, abs=1e-6)
    assert lifts[1] == 0.0
