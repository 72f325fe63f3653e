"""The ground a planted foot stands on in the per-frame pipeline (grounding/standing.py): rays
along its sole, the line it rests on and its height under the ankle."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.grounding.standing import sole_offsets, standing_ground
from footfall.terrain.heightfield import HeightfieldTerrain

BOUNDS = ((-5.0, -5.0), (5.0, 5.0))
ALONG = sole_offsets(np.array([0.04, 0.06]), np.array([0.13, 0.18]))  # (2, S)


def _plane(rise: float, side: float) -> HeightfieldTerrain:
    return HeightfieldTerrain(lambda x, z: rise * x + side * z + 0.3,
                              lambda x, z: (np.full_like(x, rise), np.full_like(z, side)),
                              BOUNDS, draw_spacing=1.0)


def _ridge(height: float) -> HeightfieldTerrain:
    """A smooth ridge along z, ``height`` metres high, its crest at x = 0 (a rock's crest, at
    most 47° steep for ``height`` ≤ 0.1)."""
    def bump(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return height * np.exp(-((x / 0.08) ** 2)) + 0.0 * z

    def slope(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return -2 * x / 0.08 ** 2 * bump(x, z), np.zeros_like(z)

    return HeightfieldTerrain(bump, slope, BOUNDS, march_step=0.002)


RIDGES = {height: _ridge(height) for height in (0.03, 0.06, 0.1)}


def _feet(seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ankle = rng.uniform(-2.0, 2.0, (count, 2, 2))
    angle = rng.uniform(-np.pi, np.pi, (count, 2))
    heading = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    return ankle, heading


@settings(max_examples=10, deadline=None)
@given(st.floats(-0.4, 0.4), st.floats(-0.4, 0.4), st.integers(0, 2**31 - 1))
def test_on_a_plane_a_foot_stands_on_it_pitched_by_its_slope(rise, side, seed) -> None:
    ankle, heading = _feet(seed, 8)
    ground = _plane(rise, side)
    along = np.broadcast_to(ALONG, (8, 2, ALONG.shape[1]))
    limit = np.full((8, 2), 0.45)
    height, pitch, on_line, _ = standing_ground(ground, ankle, heading, along,
                                                np.full((8, 2), 0.5), limit)
    assert on_line.all()
    slope = heading @ np.array([rise, side])  # rise per metre along each foot
    np.testing.assert_allclose(pitch, np.clip(np.arctan(slope), -limit, limit), atol=1e-6)
    # under the ankle where the pitch is the plane's; higher where it was clamped (the sole
    # rests on the plane's highest point under it, never in it)
    under = ground.height(ankle)
    free = np.abs(np.arctan(slope)) < 0.45 - 1e-6
    np.testing.assert_allclose(height[free], under[free], atol=1e-6)
    assert np.all(height >= under - 1e-9)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(RIDGES)), st.floats(-0.25, 0.1), st.integers(0, 2**31 - 1))
def test_no_sole_sample_is_under_the_line_a_foot_rests_on(height, ankle_x, seed) -> None:
    # A ridge anywhere under a foot walking along +X (the bunny's rocks: a crest under the
    # arch, under the toes, behind the heel): the sole line through the height found under
    # the ankle at the pitch found has every sample of the ground on or under it and touches
    # one. Before (the ray under the ankle, its normal's slope) a crest ahead of the ankle
    # was in the sole.
    rng = np.random.default_rng(seed)
    ankle = np.stack([ankle_x + rng.uniform(-0.01, 0.01, (4, 2)),
                      rng.uniform(-1.0, 1.0, (4, 2))], axis=-1)
    heading = np.broadcast_to(np.array([1.0, 0.0]), (4, 2, 2))
    along = np.broadcast_to(ALONG, (4, 2, ALONG.shape[1]))
    rest, pitch, on_line, samples = standing_ground(RIDGES[height], ankle, heading, along,
                                                    np.full((4, 2), 0.5), np.full((4, 2), 0.45))
    assert on_line.all()
    sole = rest[..., None] + np.tan(pitch)[..., None] * along
    gap = sole - samples
    assert np.all(gap >= -1e-9)
    np.testing.assert_allclose(gap.min(axis=-1), 0.0, atol=1e-9)
