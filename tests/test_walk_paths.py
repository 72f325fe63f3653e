"""Curved walks (issue 25 item 2): ``footfall walk --path circle|eight`` computed from the phase
clock, measured on the written BVH's forward kinematics, never on the walker's targets."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import bvh, terrain
from footfall.cli import main
from footfall.footing.foot_model import legs_of, toe_tips
from footfall.gait import GaitParams, ProceduralWalker, WalkPath
from footfall.grounding.clip import prepare_clip
from footfall.metrics import ground_gaps
from footfall.skeleton import Clip

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


# ------------------------------------------------------------------ walks written as BVH

START_X = 2.8  # the middle of the stairs' landing: a circle there crosses both flights


def _walk(tmp_path: Path, *args: str, seconds: float = 6.0) -> Clip:
    out = tmp_path / "walk.bvh"
    assert main(["walk", "--seconds", str(seconds), "-o", str(out), *args]) == 0
    return bvh.load(out)


def _joint(clip: Clip, name: str) -> np.ndarray:
    return clip.global_positions()[:, clip.skeleton.index(name)]


def _facing(clip: Clip) -> np.ndarray:
    """Body yaw ``(F,)`` radians (0 faces +Z) from the hip joints: the right hip to the left
    one is the body's left; the hips twist (±6°) rides on it."""
    left = _joint(clip, "LeftUpperLeg") - _joint(clip, "RightUpperLeg")
    return np.arctan2(-left[:, 2], left[:, 0])


def _wrapped(angle: np.ndarray) -> np.ndarray:
    return np.mod(angle + math.pi, 2 * math.pi) - math.pi


@pytest.mark.parametrize(("turn", "radius"), [("left", 1.0), ("right", 0.6)])
def test_a_circle_walk_has_the_radius_and_faces_along_it(tmp_path, turn, radius) -> None:
    clip = _walk(tmp_path, "--path", "circle", "--radius", str(radius), "--turn", turn,
                 "--start-x", str(START_X))
    assert clip.frame_count == 361
    hips = _joint(clip, "Hips")[:, [0, 2]] - [START_X, 0.0]
    distance = np.linalg.norm(hips, axis=-1)
    assert np.abs(distance / radius - 1.0).max() < 0.02
    # it really went round: more than half the circle in 6 s at 0.56 m/s
    swept = np.unwrap(np.arctan2(hips[:, 1], hips[:, 0]))
    assert abs(swept[-1] - swept[0]) > min(math.pi, 3.0 / radius)
    # the tangent of a circle round the centre, turning to the walker's left (+1) or right
    side = 1.0 if turn == "left" else -1.0
    tangent = np.arctan2(side * hips[:, 1], -side * hips[:, 0])
    off = _wrapped(_facing(clip) - tangent)
    assert np.degrees(np.abs(off).max()) < 8.0  # the hips twist is ±6°
    assert np.degrees(abs(np.mean(off))) < 1.5


def _stance_speed(clip: Clip) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal speed (m/s) ``(F-1, 2)`` of each foot's lowest touch point (heel or toe),
    the same point followed between two frames, and the frame pairs where the foot is down in
    both: in contact by footfall's own detection on the clip, that point on the floor (5 mm)."""
    prepared = prepare_clip(clip, legs_of(clip.skeleton))
    touch = prepared.feet.touch
    lowest = np.nanargmin(touch[1:, ..., 1], axis=-1)
    moved = np.take_along_axis(np.diff(touch, axis=0), lowest[..., None, None], axis=2)[:, :, 0]
    speed = np.linalg.norm(moved[..., [0, 2]], axis=-1) * clip.fps
    down = prepared.contacts & (np.nanmin(touch[..., 1], axis=-1) - prepared.floor < 0.005)
    return speed, down[1:] & down[:-1]


def _bent_afterwards(clip: Clip, radius: float) -> Clip:
    """A straight walk along +X bent onto a circle to the left as a finished clip: each frame
    turned about the circle's centre by the distance its root has walked over the radius."""
    from footfall import quat

    root = np.nonzero(clip.skeleton.parents < 0)[0][0]
    positions, rotations = clip.positions.copy(), clip.rotations.copy()
    walked = positions[:, root, 0] - positions[0, root, 0]
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), walked / radius)
    centre = np.array([positions[0, root, 0], 0.0, -radius])
    back = positions[:, root] - centre - walked[:, None] * [1.0, 0.0, 0.0]
    positions[:, root] = centre + quat.rotate(turn, back)
    rotations[:, root] = quat.mul(turn, rotations[:, root])
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def _plants(clip: Clip) -> list[np.ndarray]:
    """Per foot, the horizontal place ``(N, 2)`` of its ball in the middle of each contact."""
    prepared = prepare_clip(clip, legs_of(clip.skeleton))
    out = []
    for side in range(2):
        contact = prepared.contacts[:, side].astype(int)
        starts = np.nonzero(np.diff(contact) == 1)[0] + 1
        stops = np.nonzero(np.diff(contact) == -1)[0] + 1
        middles = [(a + b) // 2 for a in starts for b in stops[stops > a][:1]]
        out.append(prepared.feet.ball[middles, side][:, [0, 2]])
    return out


@pytest.mark.parametrize("path", ["circle", "eight"])
def test_planted_feet_do_not_slide_on_a_curve(tmp_path, path) -> None:
    clip = _walk(tmp_path, "--path", path, "--radius", "0.8", seconds=10.0)
    assert np.ptp(_joint(clip, "Hips")[:, 2]) > 1.0  # it turned
    speed, planted = _stance_speed(clip)
    assert planted.sum() > 300
    assert speed[planted].max() < 0.03  # m/s; the body walks at 0.56 m/s
    assert np.median(speed[planted]) < 1e-3
    # The measure sees a slide: the straight walk bent onto the same circle afterwards drags
    # its planted feet round with the body.
    straight = _walk(tmp_path, seconds=10.0)
    speed, planted = _stance_speed(_bent_afterwards(straight, 0.8))
    assert speed[planted].max() > 0.1 and np.median(speed[planted]) > 0.03


def test_the_inside_stride_is_shorter_than_the_outside_one(tmp_path) -> None:
    radius = 0.8
    clip = _walk(tmp_path, "--path", "circle", "--radius", str(radius), "--turn", "left",
                 seconds=8.0)
    left, right = _plants(clip)  # turning left: the left foot is inside
    inside = np.linalg.norm(np.diff(left, axis=0), axis=-1)
    outside = np.linalg.norm(np.diff(right, axis=0), axis=-1)
    assert len(inside) >= 4 and len(outside) >= 4
    # both feet plant on circles round the centre: the inside one nearer
    centre = np.array([0.0, 0.0])
    r_in = np.linalg.norm(left - centre, axis=-1).mean()
    r_out = np.linalg.norm(right - centre, axis=-1).mean()
    assert r_in < radius < r_out
    # a stride is the same angle round the centre for both: lengths in the radii's ratio
    ratio = np.median(inside) / np.median(outside)
    assert ratio == pytest.approx(r_in / r_out, rel=0.03)
    assert ratio < 0.9


# ------------------------------------------------------------------ on uneven ground


def _support_points(clip: Clip) -> np.ndarray:
    """``(F, 2, P, 3)`` each foot's ankle and toe tips (joints and End Sites)."""
    from footfall import quat

    legs = legs_of(clip.skeleton)
    grot, gpos = clip.forward_kinematics()
    tips = [toe_tips(clip.skeleton, leg) for leg in legs]
    out = np.full((clip.frame_count, 2, 1 + max(len(t) for t in tips), 3), np.nan)
    for side, leg in enumerate(legs):
        out[:, side, 0] = gpos[:, leg.foot]
        for i, (joint, offset) in enumerate(tips[side], start=1):
            out[:, side, i] = gpos[:, joint] + quat.rotate(grot[:, joint], offset)
    return out


@pytest.mark.parametrize("scene", ["stairs", "rocks"])
@pytest.mark.parametrize("path", ["circle", "eight"])
def test_a_curved_walk_on_uneven_ground_keeps_planted_feet_on_it(tmp_path, scene, path) -> None:
    # The source is the walk the grounding pipeline was given: the same walker on the flat
    # floor, reading the slope from the scene. Each planted foot's lowest support joint keeps
    # its height over the ground under it (source: over the floor) within 10 mm on average.
    seconds, radius = 8.0, 0.85
    args = ["--path", path, "--radius", str(radius), "--terrain", scene,
            "--start-x", str(START_X)]
    grounded = _walk(tmp_path, *args, seconds=seconds)
    ground = terrain.scene(scene)
    walk_path = WalkPath(path, radius, 1.0)
    walker = ProceduralWalker(params=GaitParams(), start=walk_path.start_for((START_X, 0, 0)),
                              path=walk_path, flat_floor=True)
    frames = walker.generate(seconds, ground)
    source = walker.to_clips(frames)[0]
    stance = np.stack([f.stance[0] for f in frames])
    under = np.nanmin(ground_gaps(ground, _support_points(grounded)), axis=-1)
    over_floor = np.nanmin(_support_points(source)[..., 1], axis=-1)
    offsets = (under - over_floor)[stance]
    assert np.isfinite(offsets).all()
    assert np.abs(offsets).mean() <= 0.010, 1000 * np.abs(offsets).mean()
    # the ground under the planted feet really was uneven
    heights = ground.height(_support_points(grounded)[:, :, 0][stance][:, [0, 2]])
    assert np.ptp(heights) > 0.05
    # and no planted foot slides on it either
    speed, planted = _stance_speed_on(grounded, stance)
    assert np.median(speed[planted]) < 0.005


def _stance_speed_on(clip: Clip, stance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal speed (m/s) ``(F-1, 2)`` of each foot's lowest support joint (ankle or toe
    tip), the same point followed between two frames, and the frame pairs in ``stance (F, 2)``
    in both."""
    points = _support_points(clip)
    lowest = np.nanargmin(points[1:, ..., 1], axis=-1)
    moved = np.take_along_axis(np.diff(points, axis=0), lowest[..., None, None], axis=2)[:, :, 0]
    return np.linalg.norm(moved[..., [0, 2]], axis=-1) * clip.fps, stance[1:] & stance[:-1]


# ------------------------------------------------------------------ the command line


def test_a_curved_walk_file_reads_back(tmp_path, capsys) -> None:
    out = tmp_path / "eight.bvh"
    assert main(["walk", "--path", "eight", "--radius", "1.5", "--seconds", "1",
                 "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "eight" in said and "61 frames" in said
    clip = bvh.load(out)
    assert clip.frame_count == 61 and clip.skeleton.joint_count == 22
    assert np.isfinite(clip.rotations).all()


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--path", "spiral"], "spiral"),
     (["--path", "circle", "--radius", "0"], "radius"),
     (["--path", "circle", "--radius", "-1"], "radius"),
     (["--path", "circle", "--radius", "nan"], "radius"),
     (["--path", "circle", "--radius", "1e9"], "radius"),
     (["--path", "circle", "--radius", "0.05"], "radius"),  # tighter than a step
     (["--path", "eight", "--radius", "abc"], "abc"),
     (["--radius", "2"], "--path"),  # a straight walk has no radius
     (["--turn", "right"], "--path"),
     (["--path", "circle", "--turn", "up"], "up"),
     (["--path", "circle", "--radius", "3", "--terrain", "stairs"], "stairs")],  # off the scene
)
def test_bad_path_arguments_are_one_line_and_keep_the_file(tmp_path, capsys, args, needle):
    out = tmp_path / "x.bvh"
    out.write_text("the user's earlier file")
    try:
        code = main(["walk", *args, "--seconds", "0.1", "-o", str(out)])
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert needle in lines[0] and "Traceback" not in err
    assert out.read_text() == "the user's earlier file"
