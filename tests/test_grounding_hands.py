"""Hands kept out of the ground (``grounding.clip.hands``): grounding moves the body with the
feet and leaves the arms as animated. mocapbank_zxy_cm kneels facing up the stairs (mirrored,
backward), a hand hanging low ahead of its knee: grounded, the tip of that hand (its End Site)
went 47.7 mm into the tread ahead (51.8 mm circling right, backward). The arm is now bent by the
two-bone IK so the hand rises to the surface.

Measured on the output against the terrain; the expected heights are the source's over its own
floor, never read off the code under test.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import DATA, ground_table
from conventions import VARIANTS
from footfall import bvh, quat
from footfall.footing.foot_model import calibration_frames, legs_of
from footfall.footing.kneeling import KNEELING
from footfall.grounding.clip import ground_clip
from footfall.grounding.clip.hands import HAND_TOLERANCE, hand_clearance
from footfall.grounding.clip.placement import place_clip, scene_size
from footfall.humanoid.limbs import body_joints, find_arms
from footfall.metrics import ground_gaps
from footfall.skeleton import Clip, Skeleton
from footfall.terrain import scene
from footfall.terrain.level import LevelGround
from skinned_feet import source_contacts, source_foot_points

#: PhysDiff's tolerance (metres): a point this far into the ground is not counted.
TOLERANCE = 0.005


def _hand_points(clip: Clip) -> np.ndarray:
    """World positions ``(F, N, 3)`` of both hands' points: each wrist, the joints below it
    and their End Sites, found here from the arms' names and the hierarchy."""
    skeleton = clip.skeleton
    grot, gpos = clip.forward_kinematics()
    points = []
    for arm in find_arms(skeleton).values():
        below = [arm.hand]
        for j in range(skeleton.joint_count):
            if skeleton.parents[j] in below:
                below.append(j)
        points += [gpos[:, j] for j in below]
        points += [gpos[:, j] + quat.rotate(grot[:, j], skeleton.end_sites[j])
                   for j in below if j in skeleton.end_sites]
    return np.stack(points, axis=1)


@functools.cache
def _grounded(variant: str) -> tuple[Clip, Clip, object, float]:
    """mocapbank_zxy_cm (as ``variant``) placed on the stairs and grounded: the placed
    source, the output, the terrain and the source's own floor."""
    clip = VARIANTS[variant](bvh.load(DATA / "bvh" / "mocapbank_zxy_cm.bvh"))
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    length, width = scene_size(motion)
    terrain = scene("stairs", length=length, width=width)
    source = place_clip(motion, terrain)
    return source, ground_clip(source, terrain, place=False).clip, terrain, \
        _own_floor(source)


def _own_floor(source: Clip) -> float:
    """The source's floor (metres) as the independent scorer finds it (``tools/ground_table``:
    the 2nd percentile of its planted foot points over its own contacts), not grounding's."""
    return float(ground_table().source_floor(source_foot_points(source), source_contacts(source)))


@pytest.mark.parametrize("variant", ["mirrored", "backward", "circle_right_backward"])
def test_a_kneel_facing_up_the_stairs_keeps_its_hands_out_of_the_treads(variant: str) -> None:
    source, out, terrain, floor = _grounded(variant)
    own = _hand_points(source)[..., 1] - floor
    assert np.nanmin(own) > -TOLERANCE, "the source holds its hands over its own floor"
    gaps = ground_gaps(terrain, _hand_points(out))
    # before: a hand tip 47.7 mm into the tread ahead (circle_right_backward 51.8 mm)
    assert np.nanmin(gaps) >= -TOLERANCE, f"a hand {-1000 * np.nanmin(gaps):.1f} mm inside"
    # and the kneel itself as it was: its kneeling knee out of the ground, the body too
    legs = legs_of(out.skeleton)
    _, positions = out.forward_kinematics()
    assert np.nanmin(ground_gaps(terrain, positions[:, body_joints(out.skeleton, legs)])) \
        >= -TOLERANCE


@pytest.mark.parametrize("variant", ["mirrored", "backward", "circle_right_backward"])
def test_a_kneel_facing_up_the_stairs_keeps_its_knee_at_its_source_height(variant: str) -> None:
    # the kneel stays across the riser (its move onto one tread is refused), and the kneeling
    # foot pivoting on its toes (grounding.clip.kneels.shin_pivot) lets the knee rest on the
    # upper tread, the toes on the one below: without it the knee hung 33-38 mm (median)
    source, out, terrain, floor = _grounded(variant)
    legs = legs_of(source.skeleton)
    _, positions = source.forward_kinematics()
    offsets = source.skeleton.offsets
    length = np.array([np.linalg.norm(offsets[leg.lower]) + np.linalg.norm(offsets[leg.foot])
                       for leg in legs])
    knees = [leg.lower for leg in legs]
    wanted = positions[:, knees, 1] - floor
    kneeling = wanted < KNEELING[0] * length
    assert kneeling.sum() > 100, "the clip kneels"
    _, solved = out.forward_kinematics()
    over = ground_gaps(terrain, solved[:, knees]) - wanted
    median = float(np.median(over[kneeling]))
    assert median < TOLERANCE, f"knee {1000 * median:.1f} mm over its source height"


# --- a hand-built arm ---------------------------------------------------------------------

FRAMES, FPS = 40, 30.0
#: The hand-built body: hips 1 m up, shoulders 1.45 m, each elbow 0.3 m below them and 3 cm
#: forward, each wrist 0.27 m below that and back under the shoulder, the hand's End Site
#: 0.18 m below the wrist: the hand tip 0.70 m over the floor (y = 0).
TIP_OVER_FLOOR = 1.45 - 0.3 - 0.27 - 0.18


def _arms_clip(drop: np.ndarray) -> Clip:
    """Two hanging arms on a spine, the hips lowered by ``drop (F,)`` metres."""
    names = ["Hips", "Spine", "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand",
             "RightShoulder", "RightArm", "RightForeArm", "RightHand"]
    parents = np.array([-1, 0, 1, 2, 3, 4, 1, 6, 7, 8])
    offsets = np.array([[0, 1.0, 0], [0, 0.4, 0],
                        [0.15, 0.05, 0], [0.05, 0, 0], [0, -0.3, 0.03], [0, -0.27, -0.03],
                        [-0.15, 0.05, 0], [-0.05, 0, 0], [0, -0.3, 0.03], [0, -0.27, -0.03]])
    sites = {5: np.array([0.0, -0.18, 0.0]), 9: np.array([0.0, -0.18, 0.0])}
    clip = Clip.from_rest(Skeleton(names, parents, offsets, sites), FRAMES, FPS)
    clip.positions[:, 0, 1] -= drop
    return clip


def _dip(depth: float) -> np.ndarray:
    """The hips lowered so the hand tips go ``depth`` metres under the floor, frames 15-24."""
    drop = np.zeros(FRAMES)
    drop[15:25] = TIP_OVER_FLOOR + depth
    return drop


def test_a_hand_in_the_ground_is_lifted_to_it_by_its_arm_smoothly() -> None:
    source = _arms_clip(np.zeros(FRAMES))
    solved = _arms_clip(_dip(0.06))  # the body lowered, the hand tips 60 mm into the floor
    floor = LevelGround(0.0)
    out = hand_clearance(source, 0.0).clear(solved, floor)
    tips = _hand_points(out)[:, [1, 3], 1]  # each hand: the wrist, then its End Site
    assert tips.min() >= -TOLERANCE  # before: -0.06
    assert tips[15:25].max() <= TOLERANCE  # to the surface, not above it
    # blended in and out: the frames far from the dip as they were, no snap between frames
    assert np.array_equal(out.rotations[:8], solved.rotations[:8])
    assert np.array_equal(out.rotations[33:], solved.rotations[33:])
    grot, gpos = out.forward_kinematics()
    sgrot, sgpos = solved.forward_kinematics()
    arm = find_arms(out.skeleton)["left"]
    reach = gpos[:, arm.hand] - gpos[:, arm.upper]  # the wrist seen from the shoulder
    steps = np.linalg.norm(np.diff(reach, axis=0), axis=-1)
    assert steps.max() < 0.5 * 0.06, f"the wrist jumped {1000 * steps.max():.1f} mm"
    # the arm bent, not stretched: bone lengths kept, the elbow bending the same way (forward,
    # +z of the shoulder-wrist line), the wrist keeping its world turn
    for a, b in ((arm.upper, arm.lower), (arm.lower, arm.hand)):
        np.testing.assert_allclose(np.linalg.norm(gpos[:, b] - gpos[:, a], axis=-1),
                                   np.linalg.norm(sgpos[:, b] - sgpos[:, a], axis=-1), atol=1e-9)
    middle = 0.5 * (gpos[:, arm.upper] + gpos[:, arm.hand])
    assert np.all((gpos[:, arm.lower] - middle)[:, 2] > 0.0)
    np.testing.assert_allclose(np.abs(np.sum(grot[:, arm.hand] * sgrot[:, arm.hand], -1)), 1.0,
                               atol=1e-9)


def test_hands_out_of_the_ground_or_as_deep_as_the_source_are_left_alone() -> None:
    source = _arms_clip(_dip(0.04))  # the source itself puts its hand tips 40 mm under
    floor = LevelGround(0.0)
    clearance = hand_clearance(source, 0.0)
    same = _arms_clip(_dip(0.04 + 0.8 * HAND_TOLERANCE))  # within the tolerance of that
    assert clearance.clear(same, floor) is same
    deeper = _arms_clip(_dip(0.07))
    tips = _hand_points(clearance.clear(deeper, floor))[:, [1, 3], 1]
    assert tips.min() >= -0.04 - TOLERANCE  # back to the source's own dip, not beyond


def test_a_hand_its_arm_cannot_lift_out_is_lifted_as_far_as_it_goes() -> None:
    source = _arms_clip(np.zeros(FRAMES))
    high = LevelGround(2.5)  # over the shoulders' reach: 1.45 + 0.57 m
    clearance = hand_clearance(source, 0.0)
    out = clearance.clear(source, high)
    _, gpos = out.forward_kinematics()
    assert np.all(np.isfinite(gpos))
    arm = find_arms(out.skeleton)["left"]
    up = gpos[:, arm.hand] - gpos[:, arm.upper]
    assert np.all(up[:, 1] > 0.99 * 0.57 * 0.99)  # the arm stretched straight up
    assert np.all(clearance.unreached(out, high) > 0.0)
