"""Grounded feet do not jump: the height grounding adds to a foot changes smoothly.

A planted foot the source slides over a tread's edge, and a swing lifted over a nose that lands
just past it, made the foot's height correction step by a whole tread in one frame: 150 mm at
120 fps (18 m/s) where the source's foot moved 3 mm (cmu_131_01 circling right, backward, on
the stairs, frame 227); 135 mm at 60 fps at a landing (games105_walk60 the same way, frame
107). Measured here on the output's foot joints against the source's (``skinned_feet``: the
mapped foot bones, forward kinematics on the test side): between two frames the added height
changes by at most 2 m/s plus 2.5 times as much as the foot moves horizontally (a swing over
the treads climbs them as it goes) plus 2 mm — the bound is the test's, looser than the code's
rule (``grounding.clip.solve.CORRECTION_SPEED``: 1.5 m/s and 2 m/m).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import DATA
from conventions import VARIANTS, grounded_on_scene
from footfall import bvh
from footfall.grounding.clip.smoothing import rate_limited_above
from skinned_feet import foot_joint_positions

#: Metres per second the added height may change by with the foot standing still.
SPEED = 2.0
#: Metres it may change by per metre the foot travels horizontally.
SLOPE = 2.5
#: Rounding and the IK's own settling, metres.
SLACK = 0.002


@functools.cache
def _excess(name: str, made: str, terrain: str) -> tuple[float, int, int]:
    """The largest change of a foot's added height between two frames beyond the bound
    (metres), the frame and the foot: shared clip ``name`` (first 600 frames, variant
    ``made``) grounded on ``terrain``."""
    source, out, _ = grounded_on_scene(
        VARIANTS[made](bvh.load(DATA / "bvh" / name)[:600]), terrain)
    before, after = foot_joint_positions(source), foot_joint_positions(out)
    added = after[..., 1] - before[..., 1]
    moved = np.linalg.norm(np.diff(after[..., [0, 2]], axis=0), axis=-1)
    excess = np.abs(np.diff(added, axis=0)) - (SPEED / source.fps + SLOPE * moved + SLACK)
    frame, foot = np.unravel_index(np.argmax(excess), excess.shape)
    return float(excess.max()), int(frame), int(foot)


@pytest.mark.parametrize(("name", "made", "terrain"), [
    ("cmu_131_01.bvh", "circle_right_backward", "stairs"),  # 150 mm in a frame, planted
    ("games105_walk60.bvh", "circle_right_backward", "stairs"),  # 135 mm at a landing
    ("games105_walk60.bvh", "fps120", "stairs"),  # 150 mm, planted
    ("pybvh_test1_zup_inches.bvh", "circle", "stairs"),  # up and down a tread, 30 fps
    ("mixamo_stepping.bvh", "circle_right_backward", "stairs"),  # a stroke over four treads
    ("games105_walk60.bvh", "fps120", "rocks"),
])
def test_a_grounded_foot_does_not_jump(name: str, made: str, terrain: str) -> None:
    excess, frame, foot = _excess(name, made, terrain)
    assert excess <= 0.0, (1000 * excess, frame, foot)


def test_a_step_is_met_by_a_ramp_never_below_it() -> None:
    """Worked by hand: a step up of 0.3 and back down, 0.1 allowed a frame (0.2 between the
    last two frames), becomes a ramp up before it and down after it; nothing is lowered."""
    values = np.array([0.0, 0.0, 0.0, 0.3, 0.3, 0.0, 0.0, 0.0])
    step = np.array([0.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2])
    out = rate_limited_above(values, step)
    assert out == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.3, 0.2, 0.1, 0.0])
    assert rate_limited_above(values, 1.0) == pytest.approx(values)


@functools.cache
def _swerve(name: str, made: str, terrain: str) -> tuple[float, float, int, int]:
    """The largest change of a foot joint's horizontal offset from the source between two
    frames (metres), the bound on it (2 m/s plus :data:`SLACK` a frame), the frame and the
    foot: shared clip ``name`` (first 600 frames, variant ``made``) grounded on ``terrain``."""
    source, out, _ = grounded_on_scene(
        VARIANTS[made](bvh.load(DATA / "bvh" / name)[:600]), terrain)
    offset = (foot_joint_positions(out) - foot_joint_positions(source))[..., [0, 2]]
    step = np.linalg.norm(np.diff(offset, axis=0), axis=-1)
    frame, foot = np.unravel_index(np.argmax(step), step.shape)
    return float(step.max()), SPEED / source.fps + SLACK, int(frame), int(foot)


@pytest.mark.parametrize(("name", "made", "terrain"), [
    # a contact broken into a one-frame stance between two one-frame swings (frames 17-20):
    # fitted to the treads apart, that frame got its own move, 187 mm sideways in one frame
    ("pybvh_test1_zup_inches.bvh", "circle_right_backward", "stairs"),
    # a sole tilted to a rock turned about the ankle and carried the ball 44 mm away; held
    # back only while a lock held a slip, the planted foot slid 57 mm in one frame (394)
    ("cmu_131_01.bvh", "straight", "rocks"),
    # the same where a lock lets go, 25 of 189 runs on b5683ff beyond 2 m/s; the worst three
    ("mixamo_stepping.bvh", "fps120", "rocks"),  # 67.8 mm in a frame (8.1 m/s)
    ("mocapbank_zxy_cm.bvh", "fps120", "rocks"),  # 39.3 mm (4.7 m/s)
    ("cmu_131_01.bvh", "circle", "rocks"),  # 29.6 mm (3.6 m/s)
])
def test_a_grounded_foot_does_not_swerve(name: str, made: str, terrain: str) -> None:
    """Sideways too: the foot joints' horizontal offset from the source changes by at most
    2 m/s plus 2 mm a frame. Fitted as one footstep (restep's grouping), the broken contact
    swerves 24 mm; with every planted ball held where the source has it (moved by the plan)
    and the hold carried between held runs (``solve._carried``), cmu_131_01 moves 4.4 mm."""
    step, bound, frame, foot = _swerve(name, made, terrain)
    assert step <= bound, (1000 * step, frame, foot)
