"""The procedural walker measured on its generated motion (solved joints via FK), not on params."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import HUMANOID_BVH_FILES, NOT_HUMANOID_BVH
from footfall import quat, terrain
from footfall.bvh import load
from footfall.errors import FootfallError, MappingError, SettingsError
from footfall.gait import GaitParams, ProceduralWalker, WalkPath, seam_jumps, swing
from footfall.skeleton import Skeleton

LEG = 0.37  # the bunny's leg


def stack(frames, field):
    return np.stack([getattr(f, field) for f in frames], axis=1)  # (K, F, ...)


def pivots(walker, frames):
    """World heel and ball (K, F, 2, 3) of the solved feet."""
    rig = walker.rig
    grot = stack(frames, "global_rotations")
    gpos = stack(frames, "global_positions")
    feet = [leg.foot for leg in rig.legs]
    rot = quat.mul(grot[:, :, feet], rig.facing)
    heel = gpos[:, :, feet] + quat.rotate(rot, rig.heel)
    ball = gpos[:, :, feet] + quat.rotate(rot, rig.ball)
    return heel, ball


def stance_slip(walker, frames):
    """Largest total horizontal slide of the contact point over any one stance, metres.

    The contact point is whichever of heel and ball is lower in the current frame (the foot
    rolls about the heel, then lies flat, then rolls about the ball).
    """
    heel, ball = pivots(walker, frames)
    on_heel = heel[:, 1:, :, 1] <= ball[:, 1:, :, 1]
    step = np.where(on_heel[..., None], heel[:, 1:] - heel[:, :-1], ball[:, 1:] - ball[:, :-1])
    slide = np.linalg.norm(step[..., [0, 2]], axis=-1)  # (K, F-1, 2)
    stance = stack(frames, "stance")
    both = stance[:, 1:] & stance[:, :-1]
    worst = 0.0
    for k in range(slide.shape[0]):
        for side in range(2):
            run = 0.0
            for moved, planted in zip(slide[k, :, side], both[k, :, side], strict=True):
                run = run + moved if planted else 0.0
                worst = max(worst, run)
    return worst, slide[~both].max()


@pytest.fixture(scope="module")
def steady():
    walker = ProceduralWalker(count=1)
    return walker, walker.generate(3.75)  # 225 ticks, six steps at 1.6 Hz


@pytest.fixture(scope="module")
def wobbly():
    params = GaitParams(speed_wobble=0.12)
    walker = ProceduralWalker(count=2, params=params, start=[[0, 0, 0.5], [1, 0, -0.5]],
                              cycle=[0.0, 0.37])
    return walker, walker.generate(2.5)


def test_planted_feet_do_not_slip_despite_speed_wobble(wobbly):
    walker, frames = wobbly
    worst, swinging = stance_slip(walker, frames)
    assert worst <= 1e-4  # 0.1 mm per stance
    assert swinging > 0.01  # the same measure sees the swinging feet move
    root = stack(frames, "global_positions")[:, :, walker.rig.root, 0]
    speed = np.diff(root, axis=1) * 60
    assert speed.max() / speed.min() > 1.2  # the body speed really wobbles (±12 %)


def test_planted_feet_touch_the_ground(steady):
    walker, frames = steady
    heel, ball = pivots(walker, frames)
    stance = stack(frames, "stance")
    lowest = np.minimum(heel[..., 1], ball[..., 1])
    assert np.abs(lowest[stance]).max() < 1e-9
    assert lowest[~stance].min() > 0.0  # swinging feet clear the ground


def test_identical_inputs_identical_output():
    a = ProceduralWalker(count=2, params=GaitParams(speed_wobble=0.1), cycle=[0.0, 0.5])
    b = ProceduralWalker(count=2, params=GaitParams(speed_wobble=0.1), cycle=[0.0, 0.5])
    fa, fb = a.generate(0.5), b.generate(0.5)
    for x, y in zip(fa, fb, strict=True):
        assert np.array_equal(x.rotations, y.rotations)
        assert np.array_equal(x.positions, y.positions)
    c = ProceduralWalker(count=2, params=GaitParams(speed_wobble=0.1), cycle=[0.0, 0.25])
    assert not np.array_equal(c.generate(0.5)[-1].rotations, fa[-1].rotations)


def test_batched_equals_one_at_a_time():
    params = GaitParams(step_rate_hz=1.9)
    batch = ProceduralWalker(count=2, params=params, start=[[0, 0, 0], [3, 0, 1]],
                             cycle=[0.0, 0.3]).generate(0.4)
    single = ProceduralWalker(count=1, params=params, start=[3, 0, 1], cycle=0.3).generate(0.4)
    assert np.allclose(batch[-1].global_positions[1], single[-1].global_positions[0], atol=1e-12)


def test_speed_is_step_length_times_rate(steady):
    walker, frames = steady
    root = stack(frames, "global_positions")[0, :, walker.rig.root]
    speed = (root[-1, 0] - root[0, 0]) / 3.75
    assert speed == pytest.approx(2 * LEG * math.sin(math.radians(28)) * 1.6, rel=1e-9)
    assert abs(root[:, 2]).max() < 1e-12  # straight along +X


def test_phase_seamless_and_stance_share(steady):
    _, frames = steady
    phase = stack(frames, "phase")[0]  # (225, 2)
    assert phase.shape[0] == 226 and seam_jumps(phase[1:]) == 0
    stance = stack(frames, "stance")[0]
    assert stance.mean() == pytest.approx(0.6, abs=0.02)
    assert (stance[:, 0] & stance[:, 1]).mean() == pytest.approx(0.2, abs=0.02)
    # each stance lasts 0.375 s: 22 or 23 ticks at 60 Hz
    starts = np.flatnonzero(stance[1:, 0] & ~stance[:-1, 0]) + 1
    ends = np.flatnonzero(~stance[1:, 0] & stance[:-1, 0]) + 1
    lengths = [e - s for s in starts for e in ends[ends > s][:1]]
    assert lengths and all(len_ in (22, 23) for len_ in lengths)


def test_hip_and_head_bob_measured(steady):
    walker, frames = steady
    gpos = stack(frames, "global_positions")[0]
    hip = gpos[:, walker.rig.legs[0].upper, 1]
    head = gpos[:, walker.rig.head, 1]
    assert (hip.max() - hip.min()) / LEG == pytest.approx(0.08, abs=0.002)  # 7.20 px of 90
    assert (head.max() - head.min()) / (hip.max() - hip.min()) == pytest.approx(0.18, abs=0.01)
    low = np.argmin(hip[:40])
    assert frames[low].stance[0].all()  # lowest in double support


def _yaw_of(vector):
    return np.arctan2(-vector[..., 2], vector[..., 0])


def test_twist_measured(steady):
    walker, frames = steady
    gpos = stack(frames, "global_positions")[0]
    rig = walker.rig
    heading_turn = quat.from_axis_angle([0, 1, 0], -math.pi / 2)  # world +X → canonical +Z
    hips = quat.rotate(heading_turn, gpos[:, rig.legs[0].upper] - gpos[:, rig.legs[1].upper])
    arms = quat.rotate(heading_turn, gpos[:, rig.arms[0].upper] - gpos[:, rig.arms[1].upper])
    hips = np.degrees(_yaw_of(hips))
    chest = np.degrees(_yaw_of(arms))
    assert np.abs(hips).max() == pytest.approx(6.0, abs=0.05)
    assert np.abs(chest).max() == pytest.approx(7.2, abs=0.06)
    assert np.all(hips * chest <= 1e-9)


def test_arms_measured(steady):
    walker, frames = steady
    rig = walker.rig
    grot = stack(frames, "global_rotations")[0]
    gpos = stack(frames, "global_positions")[0]
    phase = stack(frames, "phase")[0]
    chest = quat.mul(grot[:, rig.spine], rig.facing)
    for side, arm in enumerate(rig.arms):
        upper = quat.inv_rotate(chest, gpos[:, arm.lower] - gpos[:, arm.upper])
        lower = quat.inv_rotate(chest, gpos[:, arm.hand] - gpos[:, arm.lower])
        swing = np.degrees(np.arcsin(upper[:, 2] / np.linalg.norm(upper, axis=-1)))
        assert swing.max() == pytest.approx(16.8, abs=0.1)
        assert swing.min() == pytest.approx(-16.8, abs=0.1)
        cos = np.sum(upper * lower, -1) / np.linalg.norm(upper, axis=-1) / np.linalg.norm(
            lower, axis=-1)
        elbow = np.degrees(np.arccos(np.clip(cos, -1, 1)))
        assert elbow.max() == pytest.approx(61.6, abs=0.3)
        # opposite the legs: the arm is back when its own leg strikes the heel
        strikes = np.flatnonzero(phase[:, side] < 1.6 / 60)
        assert np.all(swing[strikes] < -16.0)


def test_ankle_roll_measured(steady):
    walker, frames = steady
    rig = walker.rig
    grot = stack(frames, "global_rotations")[0]
    phase = stack(frames, "phase")[0, :, 0]
    toe_dir = quat.rotate(quat.mul(grot[:, rig.legs[0].foot], rig.facing), [0.0, 0.0, 1.0])
    roll = np.degrees(np.arctan2(-toe_dir[:, 1], np.hypot(toe_dir[:, 0], toe_dir[:, 2])))
    assert roll[phase == 0.0] == pytest.approx(-14.0, abs=1e-6)
    mid = (phase > 0.13) & (phase < 0.44)
    assert np.abs(roll[mid]).max() < 1e-6
    push = (phase > 0.45) & (phase < 0.6)
    assert 14.0 < roll[push].max() <= 16.0 + 1e-9


def test_swing_arc_clearance_measured(steady):
    walker, frames = steady
    gpos = stack(frames, "global_positions")[0]
    phase = stack(frames, "phase")[0]
    k = swing.swing_progress(phase)
    ankle = gpos[:, [leg.foot for leg in walker.rig.legs], 1]
    held = (k >= 0.15) & (k <= 0.85)
    above = ankle - walker.rig.ankle_height  # height above the planted ankle
    minimum = swing.arc_min_height(1.6, LEG)
    assert minimum == pytest.approx(20 / 90 * LEG)
    assert above[held].min() >= minimum


def test_gaze_leads_the_body_turn():
    walker = ProceduralWalker(count=1)
    walker.generate(0.5)
    walker.turn(0.0, at=1.0)  # from +X to +Z
    frames = walker.generate(1.2)
    times = np.array([f.time for f in frames])
    rig = walker.rig
    head = quat.mul(np.stack([f.global_rotations[0, rig.head] for f in frames]), rig.facing)
    forward = quat.rotate(head, [0.0, 0.0, 1.0])
    gaze = np.arctan2(forward[:, 0], forward[:, 2])
    root = np.stack([f.global_positions[0, rig.root] for f in frames])
    moving = np.arctan2(np.diff(root[:, 0]), np.diff(root[:, 2]))

    def at(t):
        return int(np.argmin(np.abs(times - t)))

    assert gaze[at(0.55)] == pytest.approx(math.pi / 2, abs=1e-9)
    assert gaze[at(0.8)] == pytest.approx(math.pi / 4, abs=0.03)  # halfway, body not turned
    assert moving[at(0.8)] == pytest.approx(math.pi / 2, abs=1e-9)
    assert gaze[at(1.0)] == pytest.approx(0.0, abs=1e-9)
    assert moving[at(1.0) - 1] == pytest.approx(math.pi / 2, abs=1e-9)  # body turns from 1.0 s
    assert moving[-1] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(("angle", "heading", "lean", "rate"),
                         [(14.0, -math.pi / 2, 7.0, "2.02"), (10.0, math.pi / 2, -2.5, "1.6")])
def test_slope_lean_and_rate_measured(angle, heading, lean, rate):
    ground = terrain.scene("slope", angle_deg=angle)
    start = [26.0, 0.0, 0.0] if heading < 0 else [1.0, 0.0, 0.0]
    walker = ProceduralWalker(count=1, start=start, heading=heading)
    frames = walker.generate(2.0, ground)
    late = frames[-30:]
    rig = walker.rig
    spine = np.stack([f.global_positions[0, rig.spine] - f.global_positions[0, rig.root]
                      for f in late])
    along = spine[:, 0] * math.sin(heading) + spine[:, 2] * math.cos(heading)
    assert np.degrees(np.arctan2(along, spine[:, 1])) == pytest.approx(lean, abs=0.05)
    phase = np.stack([f.phase[0, 0] for f in late])
    measured = np.mod(np.diff(phase), 1.0) * 60
    assert abs(measured.mean() - float(rate)) <= 0.005
    # planted feet stand on the slope
    heel, ball = pivots(walker, late)
    stance = stack(late, "stance")
    gap = np.minimum(heel[..., 1] - ground.height(heel[..., [0, 2]]),
                     ball[..., 1] - ground.height(ball[..., [0, 2]]))
    assert np.abs(gap[stance]).max() < 1e-9


def test_walks_any_humanoid_without_slipping():
    for path in HUMANOID_BVH_FILES:  # all eight shared humanoid captures
        walker = ProceduralWalker(load(path).skeleton, params=GaitParams(speed_wobble=0.1))
        frames = walker.generate(1.0)
        assert all(np.isfinite(f.rotations).all() for f in frames), path.name
        assert max(f.residual.max() for f in frames) < 1e-9, path.name
        assert stance_slip(walker, frames)[0] <= 1e-4, path.name
        # It walks standing up: head above hips above feet (pybvh_test1_zup_inches.bvh's rest
        # pose lies on its side and stands up through its root rotation).
        rig = walker.rig
        feet = [leg.foot for leg in rig.legs]
        for f in frames:
            heights = f.global_positions[0, :, 1]
            assert heights[rig.head] > heights[rig.root] + 0.3, path.name
            assert heights[rig.root] > heights[feet].max(), path.name


def test_a_clip_without_legs_cannot_walk_and_says_why():
    with pytest.raises(MappingError, match=r"skeleton has no legs: .*\(joints: Hips, Spine, "
                       r"Head, LeftLeg\)"):
        ProceduralWalker(load(NOT_HUMANOID_BVH).skeleton)


def test_ten_walker_minutes_on_the_course_stay_finite():
    """50 bunnies × 12 s spread over the whole course, turning at the ends: 10 minutes."""
    course = terrain.scene("course")
    count = 50
    start = np.stack([np.linspace(-1.5, 29.5, count), np.zeros(count),
                      np.linspace(-1.0, 1.0, count)], axis=-1)
    heading = np.where(np.arange(count) % 2 == 0, math.pi / 2, -math.pi / 2)
    walker = ProceduralWalker(count=count, start=start, heading=heading,
                              cycle=np.linspace(0, 1, count))
    walker.patrol(0.0, 28.0)
    frame = walker.step(0.0, course)
    turned = np.zeros(count, dtype=bool)
    for _ in range(12 * 60):
        frame = walker.step(1 / 60, course)
        assert np.isfinite(frame.rotations).all() and np.isfinite(frame.global_positions).all()
        turned |= np.cos(frame.heading - heading) < 0
    assert turned.sum() >= 4  # some walkers really turned around at the ends
    assert frame.time == pytest.approx(12.0)


def test_reduced_motion_is_one_resting_pose():
    walker = ProceduralWalker(count=2, params=GaitParams(reduced_motion=True))
    first = walker.step(1 / 60)
    later = walker.step(0.05)
    assert np.array_equal(first.rotations, later.rotations)
    assert first.stance.all()
    heel, ball = pivots(walker, [first])
    assert np.abs(heel[..., 1]).max() < 1e-9 and np.abs(ball[..., 1]).max() < 1e-9
    assert np.isfinite(first.global_positions).all()


def test_clock_drives_fixed_ticks():
    walker = ProceduralWalker(count=1)
    walker.step(0.0)
    frame = walker.step(1.0)  # clamped to 0.05 s: three ticks
    assert frame.time == pytest.approx(3 / 60)
    walker.step(0.01)
    frame = walker.step(0.01)  # 0.02 s accumulated: one more tick
    assert frame.time == pytest.approx(4 / 60)


@pytest.mark.parametrize(
    "kwargs",
    [{"count": 0}, {"count": 2.5}, {"start": [[0, 0, 0], [1, 1, 1], [2, 2, 2]], "count": 2},
     {"heading": float("nan")}, {"cycle": "x"}],
)
def test_bad_walker_arguments(kwargs):
    with pytest.raises(SettingsError):
        ProceduralWalker(**kwargs)


def test_bad_turn_and_patrol():
    walker = ProceduralWalker()
    with pytest.raises(SettingsError, match="turn time"):
        walker.turn(0.0, at=float("inf"))
    with pytest.raises(SettingsError, match="x_min < x_max"):
        walker.patrol(5.0, 1.0)
    with pytest.raises(SettingsError, match="straight path, not a circle"):
        ProceduralWalker(path=WalkPath("circle", 1.0)).patrol(0.0, 5.0)


@pytest.mark.parametrize("side", [1.0, -1.0])
def test_on_a_curve_the_gaze_leads_the_body_by_where_the_path_turns(side):
    # On a circle the body turns steadily; the head looks where the body will face 0.4 s on:
    # (speed × 0.4 s) / radius further round, to the side of the turn.
    path = WalkPath("circle", 0.8, side)
    walker = ProceduralWalker(path=path, start=path.start_for((0.0, 0.0, 0.0)))
    frames = walker.generate(2.0)
    rig = walker.rig
    head = quat.mul(np.stack([f.global_rotations[0, rig.head] for f in frames]), rig.facing)
    forward = quat.rotate(head, [0.0, 0.0, 1.0])
    root = np.stack([f.global_positions[0, rig.root] for f in frames])
    moving = np.arctan2(np.gradient(root[:, 0]), np.gradient(root[:, 2]))
    lead = np.mod(np.arctan2(forward[:, 0], forward[:, 2]) - moving + np.pi, 2 * np.pi) - np.pi
    speed = walker.step_length * 1.6
    assert lead[5:-5] == pytest.approx(side * speed * 0.4 / 0.8, abs=0.01)


def test_skeleton_without_legs_is_a_clear_error():
    chain = Skeleton(["Hips", "Spine", "Head"], [-1, 0, 1], np.array([[0, 1, 0], [0, 0.2, 0],
                                                                      [0, 0.3, 0.0]]))
    with pytest.raises(MappingError, match="no legs"):
        ProceduralWalker(chain)
    assert issubclass(MappingError, FootfallError)


def test_flat_floor_reads_only_the_slope():
    ground = terrain.scene("slope", angle_deg=14.0)
    walker = ProceduralWalker(start=[26.0, 0.0, 0.0], heading=-math.pi / 2, flat_floor=True)
    frames = walker.generate(1.5, ground)
    assert frames[-1].step_rate[0] == pytest.approx(2.02, abs=1e-3)
    heel, ball = pivots(walker, frames[-20:])
    stance = stack(frames[-20:], "stance")
    assert np.abs(np.minimum(heel[..., 1], ball[..., 1])[stance]).max() < 1e-9
    # the footsteps handed to the grounding pipeline are the planted ankles' ground points
    last = frames[-1]
    for side in range(2):
        if last.stance[0, side]:
            ankle = last.global_positions[0, walker.rig.legs[side].foot]
            if abs(last.ankle_roll[0, side]) < 1e-12:
                assert np.allclose(last.footstep[0, side, [0, 2]], ankle[[0, 2]], atol=1e-9)


@settings(max_examples=8, deadline=None)
@given(
    stride_deg=st.floats(10.0, 44.0),
    rate=st.floats(0.8, 2.8),
    share=st.floats(0.55, 0.8),
    wobble=st.floats(0.0, 0.12),
    cycle=st.floats(0.0, 1.0),
)
def test_any_seed_range_gait_keeps_feet_locked(stride_deg, rate, share, wobble, cycle):
    params = GaitParams(stride_deg=stride_deg, step_rate_hz=rate, stance_share=share,
                        speed_wobble=wobble)
    walker = ProceduralWalker(params=params, cycle=cycle)
    # two whole gait cycles (one lasts 1 / rate s): the stance share is a share of whole cycles
    # (over 1 s at 0.8 Hz, 0.8 of a cycle starting in stance, it read 0.85 for 0.78)
    frames = walker.generate(2.0 / rate)
    assert all(np.isfinite(f.global_positions).all() for f in frames)
    assert max(f.residual.max() for f in frames) < 1e-9
    assert stance_slip(walker, frames)[0] <= 1e-4
    stance = stack(frames, "stance")
    assert stance.mean() == pytest.approx(share, abs=0.07)
