"""Curved walks (issue 25 item 2): ``footfall walk --path circle|eight`` computed from the phase
clock, measured on the written BVH's forward kinematics, never on the walker's targets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.gait import WalkPath

# ------------------------------------------------------------------ the path on its own


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["circle", "eight"]), radius=st.floats(0.3, 50.0),
       side=st.sampled_from([1.0, -1.0]),
       start=st.lists(st.floats(-300.0, 300.0), min_size=5, max_size=5),
       ahead=st.floats(-2.0, 2.0))
def test_a_path_moved_along_piecewise_is_the_path(kind, radius, side, start, ahead) -> None:
    path = WalkPath(kind, radius, side)
    distance = np.array(start)
    offset, heading = path.pose(distance)
    far, far_heading = path.pose(distance + ahead)
    moved, turned = path.relative(distance, ahead)
    # the relative move, turned into the frame at ``distance``, lands on the path's own pose
    cos, sin = np.cos(heading), np.sin(heading)
    world = np.stack([moved[:, 0] * cos + moved[:, 1] * sin,
                      -moved[:, 0] * sin + moved[:, 1] * cos], axis=-1)
    assert np.allclose(offset + world, far, atol=1e-9 * max(1.0, radius))
    assert np.allclose(np.mod(heading + turned - far_heading + math.pi, 2 * math.pi) - math.pi,
                       0.0, atol=1e-9)
    # unit speed, and every point a radius from one of the loops' centres
    assert np.all(np.linalg.norm(moved, axis=-1) <= abs(ahead) + 1e-9)
    centres = np.array([[side * radius, 0.0], [-side * radius, 0.0]])
    to_centre = np.linalg.norm(far[:, None] - centres, axis=-1)
    assert np.allclose(np.abs(to_centre - radius).min(axis=-1), 0.0, atol=1e-9 * radius)


def test_a_straight_path_moves_exactly_forward() -> None:
    moved, turned = WalkPath().relative(np.array([0.0, 7.5]), np.array([0.25, -1.0]))
    assert np.array_equal(moved, [[0.0, 0.25], [0.0, -1.0]]) and np.array_equal(turned, [0, 0])


def test_an_eight_turns_one_way_then_the_other_through_its_start() -> None:
    path = WalkPath("eight", 2.0, 1.0)
    loop = 2 * math.pi * 2.0
    offset, heading = path.pose(np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]) * loop)
    assert np.allclose(offset[[0, 4]], 0.0, atol=1e-12)  # through the start after each circle
    assert np.allclose(offset[[2, 6]], [[4.0, 0.0], [-4.0, 0.0]])  # left first, then right
    assert np.allclose(heading[[0, 2, 4, 6]], [0.0, math.pi, 2 * math.pi, math.pi])


@pytest.mark.parametrize(("kwargs", "needle"),
                         [({"kind": "spiral"}, "spiral"),
                          ({"kind": "circle", "radius": 0.0}, "radius"),
                          ({"kind": "circle", "radius": math.nan}, "radius"),
                          ({"kind": "circle", "radius": math.inf}, "radius"),
                          ({"kind": "circle", "radius": 1.0, "side": 0.5}, "side")])
def test_bad_paths_are_settings_errors(kwargs, needle) -> None:
    from footfall.errors import SettingsError

    with pytest.raises(SettingsError, match=needle):
        WalkPath(**kwargs)
