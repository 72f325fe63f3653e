"""A planted foot's contact patch stays put while the performer pivots on it (issue 35 item 2).

RobotExpressive has no toe joints and long box feet hung from the root beside its legs: the
patch its sole stands on lies 57–84 cm from its foot joint. Turned about that joint as the
performer pivots on the ball of the foot, the patch swung up to 56 cm across the floor
(cmu_131_01's left foot, pybvh_test1_zup_inches' right foot). Measured here on the written
file alone: the output GLB skinned by ``skinned_feet`` (pygltflib, no footfall), the source's
stance from its own foot points (joints and End Sites, ``motion_measures.stance``), and each
stance's drift of the patch (its vertices within 1 cm of the lowest, followed vertex by
vertex) against the source's lowest foot points', scaled by the leg-length ratio: at most the
source's worst + 2 cm, offline (``footfall retarget``) and live (``Retargeter.step`` frame by
frame). A kneeling leg's foot is not held about its patch (held, RobotExpressive's body went
17 cm through the floor in mocapbank_zxy_cm's kneel): stances whose knee is within
:data:`KNEELING` leg lengths of the foot's lowest point are not judged here (cmu_131_01's left
foot rising from a kneel, frames 424–436, drifts 9.5 cm offline, 10.7 live; 10.6 offline
before the hold). A foot rising from a kneel is judged over its whole stance on
mocapbank_zxy_cm: it ends the stance where it stood before the kneel.

A foot with toe joints (CesiumMan) is judged as issue 35 judges it, whole stances: its patch's
median speed over the source's stance and its worst drift against the source's lowest foot
points', scaled — the patch moves as the source's does, not more.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import motion_measures as mm
from footfall import bvh
from footfall.cli import main
from footfall.gltf import load_avatar, save_motion
from footfall.humanoid import map_skeleton
from footfall.skeleton import Clip
from skinned_feet import skin, source_foot_points
from test_stylised_gait import node_positions

DATA = Path(__file__).parent / "data"
AVATAR = DATA / "avatars" / "RobotExpressive.glb"
#: Avatars whose feet have toe joints: a skinned mesh, and a rig of joints alone (measured at
#: its joints and End Sites, as the source is).
TOED = DATA / "avatars" / "CesiumMan.glb"
TOED_JOINTS = DATA / "bvh" / "mixamo_stepping.bvh"
#: Clips whose performer pivots on a planted foot (a turn on the ball, a swivel at push-off,
#: a push-off on the tips of the toes while the toe joints already move).
CLIPS = ("pybvh_test1_zup_inches", "cmu_131_01", "mixamo_stepping", "cmu_01_01_fairmotion")
MEASURE_FPS = 30.0  # the skinned mesh is measured at about this rate
DRIFT_MARGIN = 0.02  # metres beyond the source's worst drift, scaled (issue 35)
SLIDE_MARGIN = 0.03  # metres per second beyond the source's median slide, scaled (issue 35)
#: Leg lengths: a knee lower over its foot's lowest point kneels, or partly
#: (``footing.kneeling.KNEELING``: its foot is held less, not at all from 0.15)
KNEELING = 0.25


LEGS = [(f"{s}UpperLeg", f"{s}LowerLeg", f"{s}Foot") for s in ("Left", "Right")]


@cache
def _mapping(path: Path = AVATAR) -> dict[str, str]:
    avatar = load_avatar(path)
    return dict(map_skeleton(avatar.skeleton, avatar.target_mapping()).mapping)


def _leg(joints: list[np.ndarray], soles: list[np.ndarray], planted: list[np.ndarray]) -> float:
    """Mean leg length of both legs (``motion_measures.leg_length``), metres: ``joints`` per
    leg ``(F, 3, 3)`` hip, knee, ankle; ``soles`` per leg ``(F, P, 3)``."""
    return float(np.mean([mm.leg_length(j[:, 0], j[:, 1], j[:, 2], mm.lowest_points(s), p)
                          for j, s, p in zip(joints, soles, planted, strict=True)]))


def _live(clip: Clip, output: Path, avatar: Path = AVATAR) -> None:
    """``Retargeter.step`` fed ``clip`` frame by frame, the frames written as ``footfall
    retarget`` writes them (the target built as ``footfall live`` builds it)."""
    from footfall.live.loop import load_target
    from footfall.retarget import Retargeter

    spec = load_target(avatar)
    r = Retargeter(clip.skeleton, spec.skeleton, None, spec.mapping, target_rest=spec.rest,
                   target_feet=spec.feet, target_hands=spec.hands, target_body=spec.body)
    r.calibrate_for(clip)
    rot = np.empty((clip.frame_count, spec.skeleton.joint_count, 4))
    pos = np.empty((clip.frame_count, spec.skeleton.joint_count, 3))
    for f in range(clip.frame_count):
        rot[f], pos[f] = r.step(clip.rotations[f], clip.positions[f], 1.0 / clip.fps)
    out = Clip(r.output_skeleton(), rot, pos, clip.fps)
    if spec.avatar is None:  # a BVH rig
        bvh.save(out, output)
    else:
        save_motion(spec.avatar, out, output, joint_scales=r.joint_scales(),
                    root_scale=r.avatar_scale)


def _drifts(tmp_path: Path, name: str, mode: str, kneels: bool) -> list[tuple[float, float]]:
    """Per foot, the worst drift of the target's patch in a stance and the source's (scaled
    by the leg-length ratio), metres: ``name`` retargeted onto RobotExpressive (``mode``
    offline or live), the output skinned by ``skinned_feet``. ``kneels``: judge whole
    stances, a kneel in them too; otherwise only their frames whose knee stands at least
    :data:`KNEELING` leg lengths over the foot's lowest point."""
    return [(t[1], s[1]) for t, s in _patch_motion(tmp_path, name, mode, kneels, AVATAR)]


def _patch_motion(tmp_path: Path, name: str, mode: str, kneels: bool, avatar: Path
                  ) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Per foot, the target's patch's median speed over the source's stance (m/s) and its
    worst drift in a stance (m), and the source's (scaled by the leg-length ratio): ``name``
    retargeted onto ``avatar`` (``mode`` offline or live), the output skinned by
    ``skinned_feet`` (a BVH rig: its joints and End Sites); ``kneels`` as :func:`_drifts`
    takes it."""
    path = DATA / "bvh" / f"{name}.bvh"
    output = tmp_path / f"{name}_{mode}{'.bvh' if avatar.suffix == '.bvh' else '.glb'}"
    if mode == "offline":
        assert main(["retarget", str(path), "--to", str(avatar), "-o", str(output),
                     "--quiet"]) == 0
    else:
        _live(bvh.load(path), output, avatar)
    clip = bvh.load(path)
    every = max(1, round(clip.fps / MEASURE_FPS))
    rate = clip.fps / every
    every_point = source_foot_points(clip)  # (F, 2, P, 3)
    # the source's stance at its own rate (speed from frame to frame), then measured frames
    stance = [mm.stance(mm.lowest_points(every_point[:, k]), clip.fps)[::every]
              for k in range(2)]
    points = every_point[::every]
    if avatar.suffix == ".bvh":
        written = bvh.load(output)
        mapping = dict(map_skeleton(written.skeleton).mapping)
        at = written.global_positions()
        nodes = {n: at[:, written.skeleton.index(n)] for n in written.skeleton.names}
        vertices = source_foot_points(written)[::every]
        soles_of = [vertices[:, k] for k in range(2)]
    else:
        mapping = _mapping(avatar)
        feet = skin(output, (mapping["LeftFoot"], mapping["RightFoot"]), every)
        nodes = node_positions(output)
        soles_of = [feet.vertices[:, feet.foot[k]] for k in range(2)]
    source_map = map_skeleton(clip.skeleton).mapping
    positions = clip.global_positions()[::every]
    frames = min(len(soles_of[0]), len(points))
    planted = [stance[k][:frames] for k in range(2)]
    soles = [sole[:frames] for sole in soles_of]
    source_soles = [points[:frames, k] for k in range(2)]
    # the leg-length ratio scales the source's figures (as the strides scale)
    target_leg = _leg([np.stack([nodes[mapping[b]][::every][:frames] for b in leg], axis=1)
                       for leg in LEGS], soles, planted)
    source_leg = _leg([np.stack([positions[:frames, clip.skeleton.index(source_map[b])]
                                 for b in leg], axis=1) for leg in LEGS], source_soles, planted)
    motion = []
    ratio = target_leg / source_leg
    for side in range(2):
        standing = planted[side]
        if not kneels:
            knee = positions[:frames, clip.skeleton.index(source_map[LEGS[side][1]]), 1]
            standing = standing & (knee - mm.lowest_points(source_soles[side])[:, 1]
                                   >= KNEELING * source_leg)
        slide_s, drift_s = mm.slide(source_soles[side], standing, rate)
        motion.append((mm.slide(soles[side], standing, rate),
                       (ratio * slide_s, ratio * drift_s)))
    return motion


@pytest.mark.parametrize("mode", ["offline", "live"])
@pytest.mark.parametrize("name", CLIPS)
def test_a_pivoting_foot_keeps_its_patch_in_place(tmp_path: Path, name: str, mode: str) -> None:
    # a kneeling leg's foot is left alone (its shin on the floor): stances on a leg whose
    # knee stands at least KNEELING leg lengths over the foot's lowest point
    for side, (drift_t, drift_s) in enumerate(_drifts(tmp_path, name, mode, kneels=False)):
        assert drift_t <= drift_s + DRIFT_MARGIN, (
            f"{'left' if side == 0 else 'right'} foot: the patch drifts {100 * drift_t:.1f} cm "
            f"in a stance, the source's worst {100 * drift_s:.1f} cm (scaled)")


@pytest.mark.parametrize("mode", ["offline", "live"])
def test_a_foot_rising_from_a_kneel_ends_its_stance_where_it_stood(tmp_path: Path,
                                                                   mode: str) -> None:
    """mocapbank_zxy_cm's performer kneels on the right knee, the right foot on its toes, and
    rises (frames 124–355, one stance). Unheld in the kneel, RobotExpressive's long foot
    carries its patch 50 cm away and back; held again at once as the leg rose, the patch
    stayed where the kneel had left it: 19.9 cm from where it stood (20.1 live; the limit
    here: the source's worst stance, 4.0 cm scaled, + 2 cm). The whole stance is judged,
    the kneel in it."""
    for side, (drift_t, drift_s) in enumerate(
            _drifts(tmp_path, "mocapbank_zxy_cm", mode, kneels=True)):
        assert drift_t <= drift_s + DRIFT_MARGIN, (
            f"{'left' if side == 0 else 'right'} foot: the patch drifts {100 * drift_t:.1f} cm "
            f"in a stance with a kneel, the source's worst {100 * drift_s:.1f} cm (scaled)")


@pytest.mark.parametrize("mode", ["offline", "live"])
@pytest.mark.parametrize("avatar", [TOED, TOED_JOINTS], ids=lambda p: p.stem)
def test_a_foot_with_toes_moves_its_patch_as_the_source_does(tmp_path: Path, avatar: Path,
                                                             mode: str) -> None:
    """CesiumMan's feet have toe joints. On cmu_131_01 its right foot stands on its heel with
    the toes curled (frames 4–64) and its left pivots 56° on the ball (236–264); turned
    about the ankle as the source's, its patch slid 10.2 cm/s (median over the stance; the
    source's 6.0, scaled) and drifted 8.1 cm in a stance (the source's worst 3.5), offline
    and live alike; mixamo_stepping's (a rig of joints, judged at its joints and End Sites)
    slid 12.4 cm/s against 9.0. Whole stances are judged, as issue 35 judges them."""
    for side, ((slide_t, drift_t), (slide_s, drift_s)) in enumerate(
            _patch_motion(tmp_path, "cmu_131_01", mode, True, avatar)):
        foot = "left" if side == 0 else "right"
        assert slide_t <= slide_s + SLIDE_MARGIN, (
            f"{foot} foot: the patch slides {100 * slide_t:.1f} cm/s in stance, the source's "
            f"{100 * slide_s:.1f} cm/s (scaled)")
        assert drift_t <= drift_s + DRIFT_MARGIN, (
            f"{foot} foot: the patch drifts {100 * drift_t:.1f} cm in a stance, the source's "
            f"worst {100 * drift_s:.1f} cm (scaled)")
