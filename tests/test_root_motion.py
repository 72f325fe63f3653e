"""Root motion (footfall.root_motion and --root-motion): world poses unchanged, the travel on
the root bone or taken out, planted feet as planted in world space as before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import bvh, quat
from footfall.contact_curves import clip_contacts
from footfall.errors import SkeletonError
from footfall.metrics.measures import stance_slip
from footfall.root_motion import (
    ROOT_NAME,
    apply_root_motion,
    apply_track,
    extract_root_motion,
    in_place,
    read_track_csv,
    root_track,
    track_path,
)
from footfall.skeleton import Clip, Skeleton

DATA = Path(__file__).parent / "data"
WALK = DATA / "bvh" / "cmu_01_01_fairmotion.bvh"
SRC = Path(__file__).resolve().parents[1] / "src"


def _random_clip(seed: int, frames: int, joints: int, roots: int = 1) -> Clip:
    """A random hierarchy (``roots`` root joints) with random rotations and a root that
    travels and turns."""
    rng = np.random.default_rng(seed)
    parents = [-1] * roots + [int(rng.integers(0, j)) for j in range(roots, joints)]
    offsets = rng.normal(scale=0.3, size=(joints, 3))
    skeleton = Skeleton([f"j{k}" for k in range(joints)], parents, offsets)
    rotations = quat.normalize(rng.normal(size=(frames, joints, 4)))
    positions = np.broadcast_to(offsets, (frames, joints, 3)).copy()
    positions[:, :roots] += rng.normal(scale=2.0, size=(frames, roots, 3))
    return Clip(skeleton, rotations, positions, 30.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 9), st.integers(1, 2),
       st.floats(-1.0, 1.0))
def test_extract_keeps_every_world_pose(seed: int, frames: int, joints: int, roots: int,
                                        floor: float) -> None:
    roots = min(roots, joints)
    clip = _random_clip(seed, frames, joints, roots)
    out = extract_root_motion(clip, floor=floor)
    grot, gpos = clip.forward_kinematics()
    orot, opos = out.forward_kinematics()
    assert out.skeleton.names[0] == ROOT_NAME and out.skeleton.parents[0] == -1
    assert np.all(out.skeleton.parents[1:] >= 0)  # one root now: the added bone
    np.testing.assert_allclose(opos[:, 1:], gpos, atol=1e-9)
    np.testing.assert_allclose(np.abs(quat.dot(orot[:, 1:], grot)), 1.0, atol=1e-9)
    # The root stands on the floor and turns only about Y; the moving joint's x, z are zero
    # in the root's frame, its height over the floor kept.
    np.testing.assert_allclose(out.positions[:, 0, 1], floor)
    np.testing.assert_allclose(out.rotations[:, 0, [1, 3]], 0.0, atol=1e-12)
    np.testing.assert_allclose(out.positions[:, 1, [0, 2]], 0.0, atol=1e-9)
    np.testing.assert_allclose(out.positions[:, 1, 1], gpos[:, 0, 1] - floor, atol=1e-9)
    # The rest pose is the same too.
    np.testing.assert_allclose(out.skeleton.rest_positions()[1:],
                               clip.skeleton.rest_positions(), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.integers(1, 9), st.booleans())
def test_in_place_and_its_track_give_the_motion_back(seed: int, frames: int, joints: int,
                                                     heading: bool) -> None:
    clip = _random_clip(seed, frames, joints)
    still, track = in_place(clip, heading=heading)
    np.testing.assert_allclose(still.global_positions()[:, 0, [0, 2]], 0.0, atol=1e-9)
    np.testing.assert_allclose(still.global_positions()[:, 0, 1], clip.positions[:, 0, 1])
    np.testing.assert_allclose(track.positions[:, 1], 0.0)
    back = apply_track(still, track)
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(), atol=1e-9)
    turn = root_track(still).heading
    if heading:  # faces +Z throughout
        np.testing.assert_allclose(np.angle(np.exp(1j * turn)), 0.0, atol=1e-9)
    else:  # the turn is left in the clip: the same as before
        np.testing.assert_allclose(track.heading, 0.0)
        np.testing.assert_allclose(np.exp(1j * turn), np.exp(1j * root_track(clip).heading),
                                   atol=1e-9)


def test_heading_is_the_turn_about_y_and_continuous() -> None:
    skeleton = Skeleton(["hips", "leg"], [-1, 0], [[0, 1, 0], [0, -0.5, 0]])
    clip = Clip.from_rest(skeleton, 200, 30.0)
    angles = np.linspace(0.0, 4 * np.pi, 200)  # two whole turns, pitched forward 20°
    clip.rotations[:, 0] = quat.mul(quat.from_axis_angle([0, 1, 0], angles),
                                    quat.from_axis_angle([1, 0, 0], np.radians(20.0)))
    np.testing.assert_allclose(root_track(clip).heading, angles, atol=1e-9)
    # Measured from the rest: a rest turned 90° about Y faces +Z at heading 0.
    rest = quat.identity((2,))
    rest[0] = quat.from_axis_angle([0, 1, 0], np.pi / 2)
    clip.rotations[:, 0] = quat.mul(quat.from_axis_angle([0, 1, 0], angles), rest[0])
    np.testing.assert_allclose(root_track(clip, rest_rotations=rest).heading, angles,
                               atol=1e-9)


@pytest.fixture(scope="module")
def walk() -> tuple[Clip, np.ndarray]:
    clip = bvh.load(WALK)[:900]
    return clip, clip_contacts(clip)


def _feet(clip: Clip) -> np.ndarray:
    """World ankle positions ``(F, 2, 3)`` (left, right) of the CMU skeleton."""
    index = [clip.skeleton.index("LeftFoot"), clip.skeleton.index("RightFoot")]
    return clip.global_positions()[:, index]


def test_planted_feet_slide_the_same_in_world_space(walk: tuple[Clip, np.ndarray]) -> None:
    """Foot slide while planted, measured in world space (the root bone's motion included),
    is the same before and after every mode; the in-place clip on its own (the track not put
    back) is another motion, which the same measure tells apart."""
    clip, contacts = walk
    assert contacts.mean() > 0.3  # a walk: the measure sees many planted frames
    before = stance_slip(_feet(clip), contacts)
    extracted = extract_root_motion(clip)
    index = [extracted.skeleton.index("LeftFoot"), extracted.skeleton.index("RightFoot")]
    extracted_feet = extracted.global_positions()[:, index]
    still, track = in_place(clip, heading=True)
    restored = apply_track(still, track)
    for feet in (extracted_feet, _feet(restored), _feet(apply_root_motion(clip, "keep").clip)):
        assert stance_slip(feet, contacts) == pytest.approx(before, abs=1e-12)
        np.testing.assert_allclose(feet, _feet(clip), atol=1e-9)
    # The travel is really gone from the in-place clip: its planted feet move backwards.
    travel = np.linalg.norm(np.diff(track.positions[:, [0, 2]], axis=0), axis=-1).mean()
    assert travel > 0.002  # m per frame (120 fps): the clip walks
    assert stance_slip(_feet(still), contacts) > 3 * before
    # ... and the extracted root carries it.
    np.testing.assert_allclose(extracted.positions[:, 0, [0, 2]], track.positions[:, [0, 2]],
                               atol=1e-12)


def test_extract_round_trips_through_bvh(walk: tuple[Clip, np.ndarray], tmp_path: Path) -> None:
    clip, _ = walk
    out = extract_root_motion(clip[:120])
    bvh.save(out, tmp_path / "root.bvh")
    back = bvh.load(tmp_path / "root.bvh")
    assert back.skeleton.names[0] == ROOT_NAME
    assert back.skeleton.names[1:] == clip.skeleton.names
    np.testing.assert_allclose(back.global_positions()[:, 1:], clip[:120].global_positions(),
                               atol=1e-4)


def test_track_csv_round_trip_and_bad_files(tmp_path: Path) -> None:
    from footfall.root_motion import write_track_csv

    clip = _random_clip(4, 10, 3)
    _, track = in_place(clip, heading=True)
    path = track_path(tmp_path / "out.bvh")
    assert path.name == "out.root.csv"
    write_track_csv(track, path)
    back = read_track_csv(path)
    np.testing.assert_allclose(back.positions, track.positions, atol=1e-6)
    np.testing.assert_allclose(back.heading, track.heading, atol=1e-6)
    assert back.fps == pytest.approx(30.0, rel=1e-3)
    text = path.read_text()
    for bad in (text[:20], text.replace("0.", "x.", 1), "nope\n", ""):
        path.write_text(bad)
        with pytest.raises(SkeletonError, match="out.root.csv"):
            read_track_csv(path)


def test_unknown_mode_and_wrong_track() -> None:
    clip = _random_clip(1, 5, 3)
    with pytest.raises(SkeletonError, match="expected one of keep, in-place, extract"):
        apply_root_motion(clip, "sideways")
    _, track = in_place(_random_clip(1, 6, 3))
    with pytest.raises(SkeletonError, match="6 frames; the clip has 5"):
        apply_track(clip, track)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "footfall.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SRC)})


def test_retarget_extract_and_in_place_on_the_command_line(tmp_path: Path) -> None:
    """``footfall retarget --root-motion extract`` writes a BVH whose added root carries the
    travel, every other joint where ``keep`` puts it; in-place writes OUT.root.csv, which puts
    the motion back; --remove-heading alone and extract into an avatar's file are refused
    before anything is written."""
    source = DATA / "bvh" / "games105_walk60.bvh"
    target = DATA / "bvh" / "cmu_01_01_fairmotion.bvh"
    outs = {}
    for mode in ("keep", "extract", "in-place"):
        out = tmp_path / f"{mode}.bvh"
        done = _cli("retarget", str(source), "--to", str(target), "-o", str(out), "--quiet",
                    "--root-motion", mode, "--floor-height", "0.05", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outs[mode] = bvh.load(out)
    keep, extracted = outs["keep"], outs["extract"]
    assert extracted.skeleton.names == [ROOT_NAME, *keep.skeleton.names]
    np.testing.assert_allclose(extracted.global_positions()[:, 1:], keep.global_positions(),
                               atol=1e-4)
    np.testing.assert_allclose(extracted.positions[:, 0, 1], 0.05, atol=1e-6)
    assert np.ptp(extracted.positions[:, 0, 2]) > 0.5  # the walk's travel is on the root
    track = read_track_csv(tmp_path / "in-place.root.csv")
    np.testing.assert_allclose(apply_track(outs["in-place"], track).global_positions(),
                               keep.global_positions(), atol=1e-4)
    refused = _cli("retarget", str(source), "--to", str(DATA / "avatars" / "vrm1_debug_robot.vrm"),
                   "-o", str(tmp_path / "x.vrm"), "--root-motion", "extract", cwd=tmp_path)
    assert refused.returncode == 2 and "VRM humanoid cannot take" in refused.stderr
    alone = _cli("retarget", str(source), "--to", str(target), "-o", str(tmp_path / "y.bvh"),
                 "--remove-heading", cwd=tmp_path)
    assert alone.returncode == 2 and "--remove-heading goes with" in alone.stderr
    assert not (tmp_path / "x.vrm").exists() and not (tmp_path / "y.bvh").exists()


@pytest.mark.parametrize("avatar", ["CesiumMan", "RobotExpressive"])
def test_extract_into_an_avatars_glb_adds_a_root_bone(avatar: str, tmp_path: Path) -> None:
    """``retarget --to AVATAR.glb --root-motion extract``: the written file's skin has a bone
    ``root`` above the old root joint, the avatar's rest pose is where it was, and every joint
    plays (read back from the file) where ``keep`` puts it; the root stays on the floor."""
    from footfall.gltf import load_animation, load_avatar

    source = DATA / "bvh" / "games105_walk60.bvh"
    target = DATA / "avatars" / f"{avatar}.glb"
    read = {}
    for mode in ("keep", "extract"):
        out = tmp_path / f"{mode}.glb"
        done = _cli("retarget", str(source), "--to", str(target), "-o", str(out), "--quiet",
                    "--root-motion", mode, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        read[mode] = load_avatar(out)
        read[mode + "_clip"] = load_animation(out, fps=60.0, avatar=read[mode])
    original = load_avatar(target)
    rooted = read["extract"]
    assert rooted.skeleton.names == [ROOT_NAME, *original.skeleton.names]
    np.testing.assert_allclose(rooted.rest_clip().global_positions()[0, 1:],
                               original.rest_clip().global_positions()[0], atol=1e-6)
    keep, extracted = read["keep_clip"], read["extract_clip"]
    np.testing.assert_allclose(extracted.global_positions()[:, 1:], keep.global_positions(),
                               atol=1e-5)
    root = extracted.global_positions()[:, 0]
    np.testing.assert_allclose(root[:, 1], 0.0, atol=1e-6)
    assert np.ptp(root[:, [0, 2]], axis=0).max() > 0.5  # the walk's travel is on the root


def test_ground_refuses_remove_heading_without_in_place_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "g.glb"
    done = _cli("ground", str(DATA / "avatars" / "CesiumMan.glb"), "--terrain", "level",
                "-o", str(out), "--root-motion", "extract", "--remove-heading", cwd=tmp_path)
    assert done.returncode == 2 and "--remove-heading goes with" in done.stderr
    assert done.stderr.count("\n") == 1 and not out.exists()
