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
"""

from __future__ import annotations

import numpy as np

from conventions import scene_scores
from footfall.grounding.clip.smoothing import smooth_above, spread_above

#: Issue 36's rules: swing height over the blended ground (mean), depth beyond the source's dip.
SWING_RULE, DEPTH_RULE = 0.020, 0.005


def test_a_swing_over_two_noses_comes_down_between_them() -> None:
    got = scene_scores("games105_walk60.bvh", "circle_right_backward", "stairs")
    assert got["swing"] <= SWING_RULE, got
    assert got["beyond_dip"] <= DEPTH_RULE, got


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
