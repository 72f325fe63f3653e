"""The timing constants of grounding, metrics and the walker, pinned by what they do.

Each test fails if its constant is changed (the four mutants issue 14 found surviving): the
blend-out length of a held lift, the hips smoothing time, the skate speed of
``contact_skate_ratio`` and the walker's ground-follow rate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh, metrics
from footfall.footing.foot_model import legs_of
from footfall.gait import ProceduralWalker
from footfall.grounding.clip import ground_clip
from footfall.grounding.clip.placement import along_x
from footfall.grounding.clip.smoothing import blend_out
from footfall.humanoid.limbs import hips_joint
from footfall.terrain import LevelGround
from footfall.terrain.hits import RayHits


def test_a_held_lift_fades_out_linearly_over_the_blend_frames() -> None:
    contacts = np.zeros((9, 1), dtype=bool)
    contacts[3:5] = True
    lift = np.ones((9, 1))
    out = blend_out(lift, contacts, 2)[:, 0]
    # Worked by hand: weight 1 - distance / (frames + 1) at 1 and 2 frames from the contact.
    assert out == pytest.approx([0, 1 / 3, 2 / 3, 1, 1, 2 / 3, 1 / 3, 0, 0], abs=1e-12)


def test_contact_skate_ratio_counts_contacts_faster_than_half_a_metre_per_second() -> None:
    fps = 100.0
    frames = 11
    t = np.arange(frames) / fps
    # foot 0 slides at 0.49 m/s, foot 1 at 0.51 m/s along x; both in contact throughout
    positions = np.zeros((frames, 2, 3))
    positions[:, 0, 0] = 0.49 * t
    positions[:, 1, 2] = 0.51 * t
    contacts = np.ones((frames, 2), dtype=bool)
    assert metrics.contact_skate_ratio(positions[:, :1], contacts[:, :1], fps) == 0.0
    assert metrics.contact_skate_ratio(positions[:, 1:], contacts[:, 1:], fps) == 1.0
    # the swing frames of a fast foot do not count
    contacts[5:, 1] = False
    assert metrics.contact_skate_ratio(positions, contacts, fps) == pytest.approx(0.4)


class _Cliff:
    """Level ground at ``floor`` where ``sign · x < sign · edge``, ``drop`` m lower beyond
    (a cliff, normals up everywhere)."""

    name = "cliff"
    params: dict[str, float] = {}

    def __init__(self, floor: float, edge: float, sign: float, drop: float) -> None:
        self.floor, self.edge, self.sign, self.drop = floor, edge, sign, drop
        self.bounds = ((-1e6, -1e6), (1e6, 1e6))
        self.height_range = (floor - drop, floor)

    def beyond(self, x: np.ndarray) -> np.ndarray:
        return self.sign * np.asarray(x) >= self.sign * self.edge

    def height(self, xz: np.ndarray) -> np.ndarray:
        return np.where(self.beyond(np.asarray(xz)[..., 0]), self.floor - self.drop, self.floor)

    def raycast_down(self, xz: np.ndarray) -> RayHits:
        xz = np.asarray(xz, dtype=np.float64)
        shape = xz.shape[:-1]
        point = np.stack([xz[..., 0], self.height(xz), xz[..., 1]], axis=-1)
        return RayHits(point, np.broadcast_to([0.0, 1.0, 0.0], (*shape, 3)),
                       np.ones(shape, dtype=bool), np.zeros(shape))


def test_the_hips_lowers_over_a_quarter_second_before_the_ground_drops() -> None:
    # Turned to walk along +X: as captured it walks along Z, so the drop "halfway along x" ran
    # beside its path, under one foot for the whole clip (issue 25: that foot now stands on the
    # upper side rather than put its toes in the wall). Across the path, before and after
    # issue 25 alike: lowered over 0.50 s, begun 0.58 s and done 0.08 s before the first ankle
    # is over the drop.
    clip = along_x(bvh.load(DATA / "bvh" / "games105_walk60.bvh"))
    legs = legs_of(clip.skeleton)
    _, gpos = clip.forward_kinematics()
    hips = hips_joint(clip.skeleton, legs)
    # Level ground at the clip's own floor, and the same with a 10 cm drop halfway along the
    # hips path in x.
    floor = float(np.percentile(gpos[:, [legs[0].foot, legs[1].foot], 1], 1))
    path_x = gpos[:, hips, 0]
    drop = 0.10
    cliff = _Cliff(floor, float(path_x[len(path_x) // 2]),
                   1.0 if path_x[-1] > path_x[0] else -1.0, drop)
    flat = ground_clip(clip, LevelGround(floor), place=False).clip
    dropped = ground_clip(clip, cliff, place=False).clip
    _, flat_pos = flat.forward_kinematics()
    _, drop_pos = dropped.forward_kinematics()
    lowered = flat_pos[:, hips, 1] - drop_pos[:, hips, 1]
    ankles = drop_pos[:, [legs[0].foot, legs[1].foot], 0]
    first_over = int(np.nonzero(cliff.beyond(ankles).any(axis=1))[0][0])
    start = int(np.nonzero(lowered > 0.005)[0][0])
    done = int(np.nonzero(lowered > drop - 0.005)[0][0])
    ramp_s = (done - start) / clip.fps
    # smooth: the 10 cm are taken over the hips smoothing and the swing onto the lower
    # ground, not in a jump and not over more than 0.55 s; and in time: begun at most 0.6 s
    # before the first ankle is over the drop, done within 0.1 s after it
    assert 0.18 <= ramp_s <= 0.55, ramp_s
    assert done <= first_over + math.ceil(0.1 * clip.fps)
    assert first_over - start <= math.ceil(0.6 * clip.fps)


def test_the_walker_follows_a_lower_ground_at_ten_per_second() -> None:
    fps = 60.0
    reference = ProceduralWalker(count=1)
    lowered = ProceduralWalker(count=1)
    floor, below = LevelGround(0.0), LevelGround(-0.1)
    for _ in range(30):  # half a second on the same ground
        reference.step(1 / fps, floor)
        lowered.step(1 / fps, floor)
    gaps = []
    for _ in range(12):
        a = reference.step(1 / fps, floor)
        b = lowered.step(1 / fps, below)
        gaps.append(a.global_positions[0, 0, 1] - b.global_positions[0, 0, 1])
    # Worked by hand: the body ground follows exponentially, 0.1 m · (1 − e^(−10 t)).
    t = np.arange(1, 13) / fps
    assert np.asarray(gaps) == pytest.approx(0.1 * (1 - np.exp(-10.0 * t)), abs=1e-9)
