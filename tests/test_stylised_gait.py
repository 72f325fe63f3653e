"""Stylised avatars move like the performer (issue 35 item 3): measured on the written file.

A shared walk is retargeted with ``footfall retarget`` onto RobotExpressive (short legs hung from
a joint 20 cm above its hips joint, feet hung from the root beside them) and CesiumMan. The
written GLB is read with pygltflib alone (node transforms composed here, the feet skinned by
``skinned_feet``); the source is measured from its own joints. The figures compared:

- the legs' length: the hip joints' (upper legs') height above the lowest foot point, the
  source's in its rest pose (joints and End Sites), the avatar's in its rest pose (its skinned
  feet);
- the hips' travel over the clip: the source's times the leg-length ratio (root motion and
  stride scale by the legs, not by the hips joint's height nor the overall height);
- the hip joints' height over the leg length, median over frames: within 10 % of the
  source's (no crouch);
- the trunk's lean (hips → neck from the vertical), median over frames: within 10° of the
  source's;
- the knees' flexion (the angle at the knee between thigh and shin joints), median over frames
  of the difference from the source's: within 15°, each leg;
- the ankles' lift per swing of the source (free for ≥ 0.1 s, stance from the source's own
  foot points), over the leg length: 0.6–1.6× the source's, median over the swings (issue 35:
  RobotExpressive's long box feet put their toes on the floor while the source's heel was up,
  holding its ankles up three times as high and its knees bent 60° past the source's).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pygltflib
import pytest

import motion_measures as mm
from footfall import bvh
from footfall.cli import main
from footfall.footing.runs import segments
from footfall.gltf import load_avatar
from footfall.humanoid import map_skeleton
from footfall.skeleton import Clip, forward_kinematics
from skinned_feet import _matrices, _read, skin, source_foot_points

DATA = Path(__file__).parent / "data"
CLIPS = ("games105_walk60", "mixamo_stepping")
AVATARS = ("RobotExpressive", "CesiumMan")
UP = np.array([0.0, 1.0, 0.0])


def node_positions(path: Path) -> dict[str, np.ndarray]:
    """``{node name: (F, 3)}`` world positions at the first animation's key times."""
    gltf = pygltflib.GLTF2().load(str(path))
    blob = gltf.binary_blob()
    nodes = gltf.nodes
    parent = {c: i for i, n in enumerate(nodes) for c in (n.children or [])}
    anim = gltf.animations[0]
    tracks, count = {}, 1
    for channel in anim.channels:
        sampler = anim.samplers[channel.sampler]
        count = len(_read(gltf, blob, sampler.input))
        tracks[(channel.target.node, channel.target.path)] = _read(gltf, blob, sampler.output)
    world: dict[int, np.ndarray] = {}

    def local(i: int) -> np.ndarray:
        node = nodes[i]
        if node.matrix is not None:
            return np.broadcast_to(np.array(node.matrix, float).reshape(4, 4).T, (count, 4, 4))
        parts = {key: tracks.get((i, key), np.broadcast_to(np.asarray(value, float),
                                                          (count, len(value))))
                 for key, value in (("translation", node.translation or [0.0, 0.0, 0.0]),
                                    ("rotation", node.rotation or [0.0, 0.0, 0.0, 1.0]),
                                    ("scale", node.scale or [1.0, 1.0, 1.0]))}
        rotation = parts["rotation"] / np.linalg.norm(parts["rotation"], axis=-1, keepdims=True)
        return _matrices(parts["translation"], rotation, parts["scale"])

    def world_of(i: int) -> np.ndarray:
        if i not in world:
            world[i] = local(i) if i not in parent else world_of(parent[i]) @ local(i)
        return world[i]

    return {n.name: world_of(i)[:, :3, 3] for i, n in enumerate(nodes) if n.name}


def neck(mapping: object) -> str:
    """The neck bone, else the head: the top of the trunk."""
    return "Neck" if "Neck" in mapping else "Head"  # type: ignore[operator]


def lean(hips: np.ndarray, neck: np.ndarray) -> np.ndarray:
    """``(F,)`` degrees the hips → neck line leans from the vertical."""
    v = neck - hips
    return np.degrees(np.arccos(np.clip(v @ UP / np.linalg.norm(v, axis=-1), -1.0, 1.0)))


@cache
def source(name: str, path: Path | None = None) -> dict[str, object]:
    """The source clip's own figures: joints per frame, leg length in its rest pose, floor
    (``path``: a BVH file elsewhere than the shared clip ``name``, such as a written one)."""
    clip = bvh.load(path if path is not None else DATA / "bvh" / f"{name}.bvh")
    sk = clip.skeleton
    mapping = map_skeleton(sk).mapping
    positions = clip.global_positions()
    joints = {b: positions[:, sk.index(mapping[b])] for b in
              ("Hips", "LeftUpperLeg", "RightUpperLeg", "LeftFoot", "RightFoot")}
    joints["Neck"] = positions[:, sk.index(mapping[neck(mapping)])]
    rest_world, rest = forward_kinematics(sk.parents, np.tile([1.0, 0.0, 0.0, 0.0],
                                                              (sk.joint_count, 1)), sk.offsets)
    feet = [j for j in range(sk.joint_count)
            if any(sk.index(mapping[f]) in sk.chain(j) for f in ("LeftFoot", "RightFoot"))]
    lowest = min(rest[feet, 1].min(), *(
        (rest[j] + rest_world_rotate(rest_world[j], sk.end_sites[j]))[1]
        for j in feet if j in sk.end_sites))
    hips_rest = 0.5 * (rest[sk.index(mapping["LeftUpperLeg"]), 1]
                       + rest[sk.index(mapping["RightUpperLeg"]), 1])
    # the capture's floor: where its feet stand (the ankles' low level over the clip, less
    # their rest height above the lowest foot point)
    ankle_rest = np.mean([rest[sk.index(mapping[f]), 1] for f in ("LeftFoot", "RightFoot")])
    ankles = np.minimum(joints["LeftFoot"][:, 1], joints["RightFoot"][:, 1])
    floor = float(np.percentile(ankles, 5) - (ankle_rest - lowest))
    return {"clip": clip, "joints": joints, "leg": float(hips_rest - lowest), "floor": floor}


def rest_world_rotate(rotation: np.ndarray, offset: object) -> np.ndarray:
    from footfall import quat

    return quat.rotate(rotation, np.asarray(offset, dtype=float))


@cache
def avatar_leg(name: str, tmp: Path) -> tuple[float, dict[str, str]]:
    """The avatar's leg length (hip joints above its lowest foot vertex, rest pose) and its
    bone names."""
    from footfall.gltf import save_motion

    avatar = load_avatar(DATA / "avatars" / f"{name}.glb")
    mapping = dict(map_skeleton(avatar.skeleton, avatar.target_mapping()).mapping)
    sk = avatar.skeleton
    rest = tmp / f"{name}_rest.glb"
    save_motion(avatar, Clip(sk, avatar.rest_rotations[None], sk.offsets[None].copy(), 30.0),
                rest)
    nodes = node_positions(rest)
    feet = skin(rest, (mapping["LeftFoot"], mapping["RightFoot"]))
    lowest = feet.vertices[0, feet.foot.any(axis=0), 1].min()
    hips = 0.5 * (nodes[mapping["LeftUpperLeg"]][0, 1] + nodes[mapping["RightUpperLeg"]][0, 1])
    return float(hips - lowest), mapping


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    folder = tmp_path_factory.mktemp("stylised")
    out = {}
    for clip in CLIPS:
        for name in AVATARS:
            path = folder / f"{clip}_{name}.glb"
            assert main(["retarget", str(DATA / "bvh" / f"{clip}.bvh"), "--to",
                         str(DATA / "avatars" / f"{name}.glb"), "-o", str(path), "--quiet"]) == 0
            out[(clip, name)] = path
    out[("rest", "")] = folder
    return out


@pytest.mark.parametrize("name", AVATARS)
@pytest.mark.parametrize("clip", CLIPS)
def test_hips_height_and_lean_as_the_performers(outputs, clip: str, name: str) -> None:
    src = source(clip)
    leg, mapping = avatar_leg(name, outputs[("rest", "")])
    nodes = node_positions(outputs[(clip, name)])
    joints = src["joints"]
    hips_s = (0.5 * (joints["LeftUpperLeg"][:, 1] + joints["RightUpperLeg"][:, 1])
              - src["floor"]) / src["leg"]
    hips_t = 0.5 * (nodes[mapping["LeftUpperLeg"]][:, 1]
                    + nodes[mapping["RightUpperLeg"]][:, 1]) / leg
    ratio = np.median(hips_t) / np.median(hips_s)
    assert 0.9 <= ratio <= 1.1, f"hip joints over leg length {ratio:.3f} × the source's"
    lean_s = np.median(lean(joints["Hips"], joints["Neck"]))
    lean_t = np.median(lean(nodes[mapping["Hips"]], nodes[mapping[neck(mapping)]]))
    assert abs(lean_t - lean_s) <= 10.0


@pytest.mark.parametrize("name", AVATARS)
def test_root_motion_scales_with_the_legs(outputs, name: str) -> None:
    clip = "games105_walk60"  # a walk: 3 m of travel
    src = source(clip)
    leg, mapping = avatar_leg(name, outputs[("rest", "")])
    hips_s = src["joints"]["Hips"][:, [0, 2]]
    hips_t = node_positions(outputs[(clip, name)])[mapping["Hips"]][:, [0, 2]]
    travel_s = np.linalg.norm(hips_s[-1] - hips_s[0])
    travel_t = np.linalg.norm(hips_t[-1] - hips_t[0])
    assert travel_s > 2.0
    assert travel_t / travel_s == pytest.approx(leg / src["leg"], rel=0.05)


#: Swings of the source rising less than this share of its leg are shuffles: no ratio.
MIN_LIFT = 0.03


@pytest.mark.parametrize("name", AVATARS)
@pytest.mark.parametrize("clip", CLIPS)
def test_long_feet_lift_and_knees_bend_as_the_performers(outputs, clip: str, name: str
                                                         ) -> None:
    # RobotExpressive's long feet, and CesiumMan's ordinary ones held to the same bounds
    src = source(clip)
    leg, mapping = avatar_leg(name, outputs[("rest", "")])
    nodes = node_positions(outputs[(clip, name)])
    data: Clip = src["clip"]  # type: ignore[assignment]
    sk = data.skeleton
    source_map = map_skeleton(sk).mapping
    positions = data.global_positions()
    frames = min(len(positions), len(nodes[mapping["Hips"]]))
    points = source_foot_points(data)[:frames]
    for side, (upper, lower, foot) in enumerate(
            [(f"{s}UpperLeg", f"{s}LowerLeg", f"{s}Foot") for s in ("Left", "Right")]):
        planted = mm.stance(mm.lowest_points(points[:, side]), data.fps)
        knee_s = mm.joint_angle(*(positions[:frames, sk.index(source_map[b])]
                                  for b in (upper, lower, foot)))
        knee_t = mm.joint_angle(*(nodes[mapping[b]][:frames] for b in (upper, lower, foot)))
        knee = float(np.median(np.abs(knee_t - knee_s)))
        assert knee <= 15.0, f"{foot}: knee flexion {knee:.1f}° off the source's"
        lift_s = mm.swing_lifts(positions[:frames, sk.index(source_map[foot]), 1], planted,
                                data.fps) / src["leg"]
        lift_t = mm.swing_lifts(nodes[mapping[foot]][:frames, 1], planted, data.fps) / leg
        ratios = (lift_t / lift_s)[lift_s >= MIN_LIFT]
        assert len(ratios) >= 1
        ratio = float(np.median(ratios))
        assert 0.6 <= ratio <= 1.6, f"{foot}: ankle lift {ratio:.2f} × the source's"


#: A long walk (120 fps, 23 s: walking, turning, stopping) whose most standing frame stands
#: straight-legged: the avatars' rest poses bend their knees (RobotExpressive 31°, CesiumMan
#: 25°), and measured there the standing heights set them crouching.
LONG_WALK = "cmu_01_01_fairmotion"


@cache
def long_walk(name: str, folder: Path) -> Path:
    """``LONG_WALK`` retargeted onto avatar ``name`` with ``footfall retarget`` (defaults)."""
    path = folder / f"{LONG_WALK}_{name}.glb"
    assert main(["retarget", str(DATA / "bvh" / f"{LONG_WALK}.bvh"), "--to",
                 str(DATA / "avatars" / f"{name}.glb"), "-o", str(path), "--quiet"]) == 0
    return path


def legs_and_stance(legs: np.ndarray, floor: float, planted: np.ndarray
                    ) -> tuple[np.ndarray, float]:
    """``(F,)`` the hip joints' mean height over ``floor`` divided by the leg length, and the
    leg length (metres): thigh + shin (median joint distances) + the ankle's height over the
    floor while ``planted (F, 2)``, the mean of both legs. ``legs (F, 2, 3, 3)``: hip, knee,
    ankle per side."""
    ground = np.broadcast_to(np.array([0.0, floor, 0.0]), legs.shape[:1] + (3,)).copy()
    lengths = [mm.leg_length(legs[:, side, 0], legs[:, side, 1], legs[:, side, 2],
                             ground + legs[:, side, 2] * [1.0, 0.0, 1.0], planted[:, side])
               for side in range(2)]
    leg = float(np.mean(lengths))
    return (legs[:, :, 0, 1].mean(axis=1) - floor) / leg, leg


def both_legs(data: Clip, source_map: dict[str, str], mapping: dict[str, str],
              nodes: dict[str, np.ndarray], positions: np.ndarray, frames: int
              ) -> tuple[list[list[str]], np.ndarray, np.ndarray, np.ndarray]:
    """The legs' bone names, the source's and the avatar's hip, knee and ankle ``(F, 2, 3, 3)``
    over the first ``frames`` and the source's stance ``(F, 2)`` (its own foot points,
    ``motion_measures.stance``)."""
    sk = data.skeleton
    bones = [[f"{s}{b}" for b in ("UpperLeg", "LowerLeg", "Foot")] for s in ("Left", "Right")]
    legs_s = np.stack([positions[:frames][:, [sk.index(source_map[b]) for b in side]]
                       for side in bones], axis=1)
    legs_t = np.stack([np.stack([nodes[mapping[b]][:frames] for b in side], axis=1)
                       for side in bones], axis=1)
    points = source_foot_points(data)[:frames]
    planted = np.stack([mm.stance(mm.lowest_points(points[:, side]), data.fps)
                        for side in range(2)], axis=1)
    return bones, legs_s, legs_t, planted


def knee_offsets(legs_s: np.ndarray, legs_t: np.ndarray) -> list[float]:
    """Per leg, the median over frames of |knee flexion T − S|, degrees, from the source's and
    the avatar's hip, knee and ankle ``(F, 2, 3, 3)`` (:func:`both_legs`)."""
    return [float(np.median(np.abs(mm.joint_angle(*(legs_t[:, side, j] for j in range(3)))
                                   - mm.joint_angle(*(legs_s[:, side, j] for j in range(3))))))
            for side in range(2)]


@pytest.mark.parametrize("name", AVATARS)
def test_knees_and_hips_follow_the_performer_on_a_long_walk(tmp_path_factory, name: str
                                                            ) -> None:
    # Measured on the written file's joints against the source's own: per leg the median over
    # frames of |knee flexion T − S| within 15°, and the hip joints' height over the leg length
    # (thigh + shin + ankle over the floor in stance) median over frames within 10 % of the
    # source's. Before the standing heights were the knees-straight ones, RobotExpressive's
    # knees were 27° off on this walk and CesiumMan's 18°.
    src = source(LONG_WALK)
    data: Clip = src["clip"]  # type: ignore[assignment]
    sk = data.skeleton
    source_map = map_skeleton(sk).mapping
    _, mapping = avatar_leg(name, tmp_path_factory.mktemp("rest"))
    nodes = node_positions(long_walk(name, tmp_path_factory.mktemp("walk")))
    positions = data.global_positions()
    frames = min(len(positions), len(nodes[mapping["Hips"]]))
    bones, legs_s, legs_t, planted = both_legs(data, source_map, mapping, nodes, positions,
                                               frames)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 15.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"
    hips_s, _ = legs_and_stance(legs_s, src["floor"], planted)  # type: ignore[arg-type]
    hips_t, _ = legs_and_stance(legs_t, 0.0, planted)  # the avatar stands on y = 0
    ratio = float(np.median(hips_t) / np.median(hips_s))
    assert 0.9 <= ratio <= 1.1, f"hip joints over leg length {ratio:.3f} × the source's"


def test_wide_hips_roll_by_the_performers_hip_drop_in_one_frame_as_in_a_batch() -> None:
    # RobotExpressive's thighs hang 1.27 m apart from its "Body": rolled as the performer's
    # hips, each roll lifted one hip joint 4.7× the performer's scaled difference. Standing
    # (hips weight 1), the hip joints' height difference is the performer's times the size
    # ratio; a live frame (one pose) rolls exactly as a batch of frames.
    from footfall import quat
    from footfall.retarget import Retargeter
    from footfall.skinning import avatar_targets

    avatar = load_avatar(DATA / "avatars" / "RobotExpressive.glb")
    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:40]
    mapping = avatar.target_mapping()
    r = Retargeter(clip.skeleton, avatar.skeleton, None, mapping,
                   target_rest=avatar.rest_rotations, **avatar_targets(avatar, mapping))
    r.calibrate_for(clip)
    cal, sk = r.calibrated, avatar.skeleton
    limbs = cal.limbs
    srot, spos = clip.forward_kinematics()
    thighs = [sk.index(r.target_map[f"{s}UpperLeg"]) for s in ("Left", "Right")]
    holder = int(sk.parents[thighs[0]])
    world = np.repeat(cal.calibration_world[None], clip.frame_count, axis=0)
    hips = r.source.index(r.source_map["Hips"])
    world[:, holder] = quat.mul(srot[:, hips], quat.inv_mul(srot[0, hips], world[:, holder]))
    ratio = r.size_ratio
    batch = world.copy()
    limbs.level_hips(batch, spos, ratio, 1.0, np.ones(clip.frame_count))
    span = quat.rotate(batch[:, holder], sk.offsets[thighs[0]] - sk.offsets[thighs[1]])
    drop = spos[:, [r.source.index(r.source_map[f"{s}UpperLeg"]) for s in ("Left", "Right")], 1]
    np.testing.assert_allclose(span[:, 1], ratio * (drop[:, 0] - drop[:, 1]), atol=1e-9)
    rolled = quat.rotate(world[:, holder], sk.offsets[thighs[0]] - sk.offsets[thighs[1]])
    assert np.abs(rolled[:, 1] - span[:, 1]).max() > 0.02  # copied, the roll lifted more
    for f in range(clip.frame_count):
        one = world[f].copy()
        limbs.level_hips(one, spos[f], ratio, 1.0, np.array(0.6))
        half = world[f:f + 1].copy()
        limbs.level_hips(half, spos[f:f + 1], ratio, 1.0, np.full(1, 0.6))
        np.testing.assert_allclose(one, half[0], atol=1e-12)


#: A two-frame capture caught mid-run (a dancer's kick): knees bent 52–60°, the trunk leaning
#: 19–22°, one foot 15 cm up. No frame of it stands.
NEVER_STANDS = "bvhio_example"


def retargeted(clip: str, name: str, tmp_path: Path
               ) -> tuple[dict[str, object], Clip, dict[str, str], dict[str, str],
                          dict[str, np.ndarray], np.ndarray, int]:
    """``footfall retarget`` of shared ``clip`` onto avatar ``name``: the source's figures
    (:func:`source`), its clip, its and the avatar's bone maps, the written file's node
    positions, the source's world joint positions and the frames both have."""
    src = source(clip)
    data: Clip = src["clip"]  # type: ignore[assignment]
    source_map = dict(map_skeleton(data.skeleton).mapping)
    _, mapping = avatar_leg(name, tmp_path)
    out = tmp_path / f"{clip}_{name}.glb"
    assert main(["retarget", str(DATA / "bvh" / f"{clip}.bvh"), "--to",
                 str(DATA / "avatars" / f"{name}.glb"), "-o", str(out), "--quiet"]) == 0
    nodes = node_positions(out)
    positions = data.global_positions()
    return src, data, source_map, mapping, nodes, positions, min(len(positions),
                                                                 len(nodes[mapping["Hips"]]))


@pytest.mark.parametrize("name", AVATARS)
def test_a_clip_that_never_stands_keeps_its_crouch_and_lean(tmp_path, name: str) -> None:
    # Measured on the written file's joints (pygltflib) against the source's own: the trunk's
    # lean (hips → neck) within 10° of the source's and, on CesiumMan, each knee's flexion
    # within 15°, medians over the frames. Calibrated from the frame as it is, its bend and
    # lean were taken for the avatar's standing pose: every avatar stood straight and upright
    # (knees 43–44° off, lean 18–19° off). RobotExpressive's kicking leg bent 16° past the
    # performer's while its hip joints, 19 cm above its hips joint, swung back with the
    # hips (now 8°: the hip joints go where the performer's go, ``solve.hip_joints_shift``).
    src, data, source_map, mapping, nodes, positions, frames = retargeted(NEVER_STANDS, name,
                                                                          tmp_path)
    sk = data.skeleton
    assert frames == 2
    joints = src["joints"]
    lean_s = lean(joints["Hips"][:frames], joints["Neck"][:frames])
    lean_t = lean(nodes[mapping["Hips"]][:frames], nodes[mapping[neck(mapping)]][:frames])
    assert np.median(lean_s) > 15.0  # the source leans: an upright avatar is 15° off
    assert float(np.median(np.abs(lean_t - lean_s))) <= 10.0
    for upper, lower, foot in [(f"{s}UpperLeg", f"{s}LowerLeg", f"{s}Foot")
                               for s in ("Left", "Right")]:
        knee_s = mm.joint_angle(*(positions[:frames, sk.index(source_map[b])]
                                  for b in (upper, lower, foot)))
        knee_t = mm.joint_angle(*(nodes[mapping[b]][:frames] for b in (upper, lower, foot)))
        assert np.median(knee_s) > 45.0  # the source crouches
        knee = float(np.median(np.abs(knee_t - knee_s)))
        assert knee <= 15.0, f"{foot}: knee flexion {knee:.1f}° off the source's"


@pytest.mark.parametrize(("clip", "name"), [("cmu_131_01", "RobotExpressive"),
                                            ("mocapbank_zxy_cm", "CesiumMan")])
def test_the_hip_joints_stand_over_the_feet_as_the_performers(tmp_path, clip: str,
                                                              name: str) -> None:
    # Measured on the written file's joints against the source's own: per frame the
    # horizontal line from the hip joints' midpoint to the ankles' midpoint over the leg
    # length, the avatar's against the source's, median over frames of their distance within
    # 0.04. The hips joint was placed where the performer's goes (scaled) and the hip joints
    # wherever the avatar's hips put them: RobotExpressive's thighs hang from a joint 19 cm
    # above its hips joint, CesiumMan's 6.5 cm below it (the performer's 1 cm), so a tilted
    # hips swung them fore and aft: 0.092 leg lengths off on cmu_131_01 (RobotExpressive's
    # knees 22° off the performer's), 0.062 on mocapbank_zxy_cm (CesiumMan's 27° off).
    src, data, source_map, mapping, nodes, positions, frames = retargeted(clip, name, tmp_path)
    bones, legs_s, legs_t, planted = both_legs(data, source_map, mapping, nodes, positions,
                                               frames)
    _, leg_s = legs_and_stance(legs_s, src["floor"], planted)  # type: ignore[arg-type]
    _, leg_t = legs_and_stance(legs_t, 0.0, planted)

    def over_feet(legs: np.ndarray, leg: float) -> np.ndarray:
        line = (legs[:, :, 2].mean(axis=1) - legs[:, :, 0].mean(axis=1)) / leg
        return line[:, [0, 2]]

    apart = np.linalg.norm(over_feet(legs_t, leg_t) - over_feet(legs_s, leg_s), axis=-1)
    assert float(np.median(apart)) <= 0.04, float(np.median(apart))


#: A capture that kneels on its right knee (frames 130–324: the knee 3 cm over the floor, the
#: hips 0.43 leg lengths up, the front knee bent 107°).
KNEELS = "mocapbank_zxy_cm"


def kneel_figures(legs: np.ndarray, leg: float, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """``(F,)`` the hip joints' mean height over ``floor`` and ``(F,)`` the lower knee's,
    each over the rest-pose leg length ``leg``; ``legs (F, 2, 3, 3)``: hip, knee, ankle."""
    return ((legs[:, :, 0, 1].mean(axis=1) - floor) / leg,
            (legs[:, :, 1, 1].min(axis=1) - floor) / leg)


def kneel_retargeted(name: str, tmp_path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray, np.ndarray, list[float]]:
    """:data:`KNEELS` retargeted onto ``name`` (a GLB avatar, or a shared BVH rig) with
    ``footfall retarget``, measured on the written file: the source's and the target's hip
    joints' height and lower knee's height over their floor per frame (over their rest-pose leg
    lengths), the source's kneeling frames, and per leg the median over frames of the knee
    flexion's difference, degrees."""
    src = source(KNEELS)
    data: Clip = src["clip"]  # type: ignore[assignment]
    sk = data.skeleton
    source_map = dict(map_skeleton(sk).mapping)
    positions = data.global_positions()
    bones = [[f"{s}{b}" for b in ("UpperLeg", "LowerLeg", "Foot")] for s in ("Left", "Right")]
    if (DATA / "bvh" / f"{name}.bvh").exists():  # a BVH rig: the file read back
        out = tmp_path / f"{KNEELS}_{name}.bvh"
        assert main(["retarget", str(DATA / "bvh" / f"{KNEELS}.bvh"), "--to",
                     str(DATA / "bvh" / f"{name}.bvh"), "-o", str(out), "--quiet"]) == 0
        written = source(name, out)
        written_clip: Clip = written["clip"]  # type: ignore[assignment]
        mapping = dict(map_skeleton(written_clip.skeleton).mapping)
        g = written_clip.global_positions()
        nodes = {mapping[b]: g[:, written_clip.skeleton.index(mapping[b])]
                 for side in bones for b in side}
        leg = float(written["leg"])  # type: ignore[arg-type]
    else:
        leg, mapping = avatar_leg(name, tmp_path)
        out = tmp_path / f"{KNEELS}_{name}.glb"
        assert main(["retarget", str(DATA / "bvh" / f"{KNEELS}.bvh"), "--to",
                     str(DATA / "avatars" / f"{name}.glb"), "-o", str(out), "--quiet"]) == 0
        nodes = node_positions(out)
    frames = min(len(positions), len(nodes[mapping["LeftFoot"]]))
    legs_s = np.stack([positions[:frames][:, [sk.index(source_map[b]) for b in side]]
                       for side in bones], axis=1)
    legs_t = np.stack([np.stack([nodes[mapping[b]][:frames] for b in side], axis=1)
                       for side in bones], axis=1)
    hips_s, knee_s = kneel_figures(legs_s, float(src["leg"]),  # type: ignore[arg-type]
                                   float(src["floor"]))  # type: ignore[arg-type]
    hips_t, knee_t = kneel_figures(legs_t, leg, 0.0)
    knees = [float(np.median(np.abs(mm.joint_angle(*(legs_t[:, side, j] for j in range(3)))
                                    - mm.joint_angle(*(legs_s[:, side, j] for j in range(3))))))
             for side in range(2)]
    return hips_s, hips_t, knee_s, knee_t, knee_s < 0.1, knees


@pytest.mark.parametrize("name", ["CesiumMan", "mixamo_stepping"])
def test_a_kneeling_body_keeps_the_performers_hips_and_knees(tmp_path, name: str) -> None:
    # Measured on the written file's joints (pygltflib for a GLB, the BVH read back) against
    # the source's own, each over its rest-pose leg length (hip joints over the lowest foot
    # point). While the source kneels (its lower knee within 0.1 leg lengths of its floor):
    # the hip joints' height within 10 % of the source's and the kneeling knee down by the
    # floor (within 0.15 leg lengths); each knee's flexion within 15° of the source's (median
    # over every frame). Low hips were taken for a seat (the performer's hips height kept, not
    # scaled by the legs, ``weights``): CesiumMan knelt with its hip joints 1.36 times as high
    # as the performer's, its kneeling knee 0.32 leg lengths up, its front knee 19° less bent.
    # With the hips scaled, only the hips joint's height was: mixamo_stepping's hip joints,
    # far below its hips joint, knelt 1.13 times as high (``solve.hip_joints_shift``).
    hips_s, hips_t, _, knee_t, kneels, knees = kneel_retargeted(name, tmp_path)
    assert kneels.sum() > 100  # the source kneels for seconds
    ratio = float(np.median(hips_t[kneels]) / np.median(hips_s[kneels]))
    assert 0.9 <= ratio <= 1.1, f"kneeling hip joints {ratio:.2f} × the source's height"
    assert float(np.median(knee_t[kneels])) <= 0.15, "the kneeling knee is off the floor"
    for side, knee in enumerate(knees):
        assert knee <= 15.0, f"leg {side}: knee flexion {knee:.1f}° off the source's"


def test_a_kneeling_long_foot_stands_where_the_performers_does(tmp_path) -> None:
    """RobotExpressive on :data:`KNEELS`, measured on the written file: each knee's flexion
    within 15° of the performer's (median over frames), and each skinned foot's contact patch
    (vertices within 1 cm of its lowest) drifting within a stance of the source's own feet
    (their joints and End Sites) no more than the source's worst, scaled by the leg-length
    ratio, + 2 cm (issue 35 item 2's limit).

    Its kneeling foot (hung from its root, a long box held on its toes) was left at the
    source's pitch: it stood 0.83 m up, above its hip joints once those knelt at the
    performer's height scaled, and the leg folded shut (knee 29° off the source's). Pitched
    as a standing long foot (``limb_kernel.long_foot``), its toes travelled with the ankle as
    the performer rolled onto their toes, unless held about its patch (in full: a locked foot
    ``limb_kernel.long_foot`` pitches its own way): 8.4 cm where the source's moved 3.5
    (scaled)."""
    *_, knees = kneel_retargeted("RobotExpressive", tmp_path)
    for side, knee in enumerate(knees):
        assert knee <= 15.0, f"leg {side}: knee flexion {knee:.1f}° off the source's"
    src = source(KNEELS)
    out = tmp_path / f"{KNEELS}_RobotExpressive.glb"
    for side, (drift_t, drift_s) in enumerate(worst_drifts(src, out, tmp_path)):
        assert drift_t <= drift_s + 0.02, (
            f"foot {side}: the patch drifts {100 * drift_t:.1f} cm in a stance, the source's "
            f"{100 * drift_s:.1f} (scaled)")


def worst_drifts(src: dict[str, object], out: Path, tmp_path: Path) -> list[tuple[float, float]]:
    """Per foot, the worst drift (metres) of a contact patch within one stance: the written
    RobotExpressive file ``out``'s skinned foot (vertices within 1 cm of its lowest) and the
    source's own foot (its joints and End Sites; ``src``: :func:`source`), the latter scaled
    by the leg-length ratio; stances are the source foot's own (``motion_measures.stance``)."""
    data: Clip = src["clip"]  # type: ignore[assignment]
    leg, mapping = avatar_leg("RobotExpressive", tmp_path)
    feet = skin(out, (mapping["LeftFoot"], mapping["RightFoot"]))
    points = source_foot_points(data)
    frames = min(len(points), len(feet.vertices))
    ratio = leg / float(src["leg"])  # type: ignore[arg-type]
    worst = []
    for side in range(2):
        own = points[:frames, side]
        own = own[:, ~np.isnan(own).any(axis=(0, 2))]
        planted = mm.stance(mm.lowest_points(own), data.fps)
        _, drift_s = mm.slide(own, planted, data.fps)
        _, drift_t = mm.slide(feet.vertices[:frames][:, feet.foot[side]], planted, data.fps)
        worst.append((drift_t, ratio * drift_s))
    return worst


#: A capture that kneels on one knee (the left, frames 370–410 at 120 fps) with its toes still
#: on the floor behind it, and rises from it (410–440).
KNEELS_ON_ONE = "cmu_131_01"
#: Metres a patch may drift in a stance beyond the source's own drift in that stance, scaled
#: (issue 35 item 2's margin, asked of each stance).
STANCE_MARGIN = 0.02


@pytest.mark.parametrize("made", ["straight", "backward"])
def test_a_long_foot_kneeling_on_one_knee_keeps_its_toes_where_the_performers_are(
        tmp_path, made: str) -> None:
    """:data:`KNEELS_ON_ONE` on RobotExpressive, as captured and played backward
    (``tests/conventions.py``), measured on the written file: in each stance of the source's
    foot (its own joints and End Sites) during which its knee comes within 0.1 leg lengths of
    its floor, the skinned foot's contact patch (vertices within 1 cm of its lowest) drifts no
    more than the source's foot does in that same stance, scaled by the leg-length ratio,
    + :data:`STANCE_MARGIN`; and the hip joints' height over the floor never falls below 0.4
    times the source's (both over their leg lengths).

    The performer kneels on the left knee, toes still behind it (their patch moves 0.4–0.8 cm,
    scaled). RobotExpressive's box foot (3.6 times the source toe's reach, scaled; no toe
    joints) was held about its patch 72 % as it knelt (``limb_kernel.excess_share``): the
    unheld rest slid the patch 7.8 cm in the kneel. Held in full (``long_share``), the offset
    it took on standing before the kneel (0.43 leg lengths, played backward) reached
    ``PATCH_HOLD_MAX`` and the patch slid 15.3 cm; kept whole after the kneel, it bent the
    left knee 4° further off the performer's for 250 frames (median 7.9 → 12.3°) and, as
    captured, pulled the hips down to 0.24 of the source's height at the next push-off (0.52
    before). The kneel's part of the offset is now apart from that bound and given back as
    the leg rises, as the source's own patch moves (``_hold_patch``)."""
    from conventions import VARIANTS

    path = DATA / "bvh" / f"{KNEELS_ON_ONE}.bvh"
    if made != "straight":
        path = tmp_path / f"{KNEELS_ON_ONE}_{made}.bvh"
        bvh.save(VARIANTS[made](bvh.load(DATA / "bvh" / f"{KNEELS_ON_ONE}.bvh")), path)
    src = source(KNEELS_ON_ONE, path)
    data: Clip = src["clip"]  # type: ignore[assignment]
    sk = data.skeleton
    source_map = dict(map_skeleton(sk).mapping)
    positions = data.global_positions()
    leg, mapping = avatar_leg("RobotExpressive", tmp_path)
    out = tmp_path / f"{KNEELS_ON_ONE}_{made}_RobotExpressive.glb"
    assert main(["retarget", str(path), "--to", str(DATA / "avatars" / "RobotExpressive.glb"),
                 "-o", str(out), "--quiet"]) == 0
    feet = skin(out, (mapping["LeftFoot"], mapping["RightFoot"]))
    points = source_foot_points(data)
    frames = min(len(points), len(feet.vertices))
    leg_s, floor_s = float(src["leg"]), float(src["floor"])  # type: ignore[arg-type]
    ratio = leg / leg_s
    kneeled = 0
    for side, knee_bone in enumerate(("LeftLowerLeg", "RightLowerLeg")):
        knee = (positions[:frames, sk.index(source_map[knee_bone]), 1] - floor_s) / leg_s
        own = points[:frames, side]
        own = own[:, ~np.isnan(own).any(axis=(0, 2))]
        planted = mm.stance(mm.lowest_points(own), data.fps)
        theirs = mm.stance_drifts(own, planted)
        drifts = mm.stance_drifts(feet.vertices[:frames][:, feet.foot[side]], planted)
        for (a, b), drift, drift_s in zip(segments(planted[:-1] & planted[1:]), drifts,
                                          theirs, strict=True):
            if knee[a:b + 1].min() > 0.1:
                continue
            kneeled += 1
            assert drift <= ratio * drift_s + STANCE_MARGIN, (
                f"foot {side}, frames {a}–{b}: the patch drifts {100 * drift:.1f} cm, the "
                f"source's {100 * ratio * drift_s:.1f} in that stance (scaled)")
    assert kneeled >= 1  # the source kneels within a stance
    nodes = node_positions(out)
    hips_t = np.mean([nodes[mapping[f"{s}UpperLeg"]][:frames, 1] for s in ("Left", "Right")],
                     axis=0) / leg
    hips_s = (np.mean([positions[:frames, sk.index(source_map[f"{s}UpperLeg"]), 1]
                       for s in ("Left", "Right")], axis=0) - floor_s) / leg_s
    lowest = float(np.min(hips_t / hips_s))
    assert lowest >= 0.4, f"the hip joints fall to {lowest:.2f} of the source's height"


#: A capture whose left foot swivels on its toe tip (6.3–6.5 s: the ankle circles at up to
#: 2.6 m/s, the foot turning up to 45° a frame at 30 fps) while the performer's patch stays put.
PIVOTS = "cmu_131_01"


def test_a_long_foot_pivoting_fast_on_its_toes_holds_its_patch_at_30_fps(tmp_path) -> None:
    """:data:`PIVOTS` resampled to 30 fps (``tests/conventions.py``'s ``fps30``) on
    RobotExpressive, measured on the written file: each skinned foot's contact patch drifts
    within a stance of the source's own feet no more than the source's worst, scaled by the
    leg-length ratio, + 2 cm (issue 35 item 2's limit; at the capture's 120 fps it does).

    The box foot rolls across its sole as it swivels: the patch held (``limb_kernel.
    _patch_shift``) was the points lowest at the end of each frame's step only, so the part it
    had stood on at the start swept the floor by the whole step's turn (at 30 fps four times a
    frame's turn at 120): the left patch drifted 12.6 cm in that stance, where the source's
    drifted 1.2 (scaled; 7.4 in its worst stance). Held by the points it stands on at either
    end of the step: 3.6."""
    from conventions import VARIANTS

    path = tmp_path / f"{PIVOTS}_fps30.bvh"
    bvh.save(VARIANTS["fps30"](bvh.load(DATA / "bvh" / f"{PIVOTS}.bvh")), path)
    out = tmp_path / f"{PIVOTS}_fps30_RobotExpressive.glb"
    assert main(["retarget", str(path), "--to", str(DATA / "avatars" / "RobotExpressive.glb"),
                 "-o", str(out), "--quiet"]) == 0
    for side, (drift_t, drift_s) in enumerate(worst_drifts(source(PIVOTS, path), out,
                                                           tmp_path)):
        assert drift_t <= drift_s + 0.02, (
            f"foot {side}: the patch drifts {100 * drift_t:.1f} cm in a stance, the source's "
            f"{100 * drift_s:.1f} at most (scaled)")


#: A capture standing on a nearly straight leg (knee 4–6°, hip-to-ankle 0.9987 of thigh +
#: shin): a centimetre of hips height is ~17° of knee there.
STRAIGHT_LEG = "pybvh_test1_zup_inches"


@pytest.mark.parametrize("name", AVATARS)
def test_a_straight_standing_leg_stays_straight(tmp_path, name: str) -> None:
    # Measured on the written file's joints (pygltflib) against the source's own joints: each
    # knee's flexion within 15° of the source's, median over frames (joint angles need neither
    # the capture's units nor its up axis). With the standing height measured in the rest pose
    # alone (the legs at the source pose's mean extension), CesiumMan's left knee bent 20–28°
    # where the performer's is 4–6° (16.6° off), RobotExpressive's 16.9° off; the calibration
    # now stands the target as the solve does (``retarget.standing_height``): 13.6° and 13.9°.
    _, data, source_map, mapping, nodes, positions, frames = retargeted(
        STRAIGHT_LEG, name, tmp_path)
    bones, legs_s, legs_t, _ = both_legs(data, source_map, mapping, nodes, positions, frames)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 15.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"


def test_a_pose_with_feet_at_two_heights_keeps_the_knees(tmp_path) -> None:
    # Measured on the written file's joints (pygltflib) against the source's own: each knee's
    # flexion within 3° of the performer's on CesiumMan (median over the two frames). The
    # calibration pose footfall stands bvhio_example up in puts its feet at two heights; solved
    # only with both feet on one floor, the higher foot's leg asked the standing height for a
    # rise of ~1 cm (``standing_height``) and the right knee stood 4.1° straighter than the
    # performer's; from each foot's own level too (the smaller rise), 0.4°.
    _, data, source_map, mapping, nodes, positions, frames = retargeted(
        NEVER_STANDS, "CesiumMan", tmp_path)
    bones, legs_s, legs_t, _ = both_legs(data, source_map, mapping, nodes, positions, frames)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 3.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"


def _variant_on(tmp_path: Path, stem: str, made: str, avatar: str = "RobotExpressive"
               ) -> tuple[Any, ...]:
    """A shared clip made into ``made`` (``tests/conventions.py``; "straight" as it is), saved,
    retargeted onto ``avatar`` by the command: (the BVH path, the clip read back, the avatar's
    leg length, its bone mapping, the output, frames, leg bones, source and target legs —
    :func:`both_legs`)."""
    from conventions import VARIANTS

    clip = bvh.load(DATA / "bvh" / f"{stem}.bvh")
    if made != "straight":
        clip = VARIANTS[made](clip)
    path = tmp_path / f"{stem}_{made}.bvh"
    bvh.save(clip, path)
    data = bvh.load(path)
    source_map = dict(map_skeleton(data.skeleton).mapping)
    leg, mapping = avatar_leg(avatar, tmp_path)
    out = tmp_path / f"{made}_{avatar}.glb"
    assert main(["retarget", str(path), "--to", str(DATA / "avatars" / f"{avatar}.glb"),
                 "-o", str(out), "--quiet"]) == 0
    nodes = node_positions(out)
    positions = data.global_positions()
    frames = min(len(positions), len(nodes[mapping["Hips"]]))
    bones, legs_s, legs_t, _ = both_legs(data, source_map, mapping, nodes, positions, frames)
    return path, data, leg, mapping, out, frames, bones, legs_s, legs_t


@pytest.mark.parametrize("made", ["straight", "backward", "circle"])
def test_a_long_foot_swivelling_on_a_sliding_toe_keeps_the_knees_bent_as_the_performers(
        tmp_path, made: str) -> None:
    """mixamo_stepping on RobotExpressive as variants of other conventions
    (``tests/conventions.py``; played backward, bent along an arc), measured on the written
    file: each knee's flexion within 15° of the performer's (median over frames) and each
    skinned foot's contact patch drifting within a stance of the source's own feet no more
    than the source's worst (scaled) + 2 cm.

    Played backward, the performer's left foot comes down toe first (frames 37–43) and
    swivels 75° on its toe tip while the tip still slides at 0.5–1.3 m/s; its ball, slow and
    low, counted as standing. RobotExpressive's long box foot, held about its patch 60–80 cm
    ahead of its ankle, swept its ankle 0.5 leg lengths away (the hold's bound) and kept it
    there through the whole stance after: the leg could not reach, the hips went down, and the
    other knee bent 40° past the performer's in its swing (17.7° off, median; on the arc 18°).
    """
    path, data, leg, mapping, out, frames, bones, legs_s, legs_t = _variant_on(
        tmp_path, "mixamo_stepping", made)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 15.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"
    feet = skin(out, (mapping["LeftFoot"], mapping["RightFoot"]))
    points = source_foot_points(data)[:frames]
    ratio = leg / float(source("mixamo_stepping", path)["leg"])  # type: ignore[arg-type]
    for side in range(2):
        planted = mm.stance(mm.lowest_points(points[:, side]), data.fps)
        _, drift_s = mm.slide(points[:, side], planted, data.fps)
        _, drift_t = mm.slide(feet.vertices[:frames][:, feet.foot[side]], planted, data.fps)
        assert drift_t <= ratio * drift_s + 0.02, (
            f"foot {side}: the patch drifts {100 * drift_t:.1f} cm in a stance, the source's "
            f"{100 * ratio * drift_s:.1f} (scaled)")


@pytest.mark.parametrize(("made", "limit"), [("straight", 10.0), ("circle", 15.0)])
def test_a_heel_up_on_its_toes_does_not_bend_the_other_knee_of_a_toeless_avatar(
        tmp_path, made: str, limit: float) -> None:
    """:data:`STRAIGHT_LEG` on RobotExpressive (no toe joints) as captured and bent along an
    arc (``tests/conventions.py``), measured on the written file's joints against the
    source's own: each knee's flexion within ``limit`` of the performer's (median over
    frames; 15° is issue 35's limit, the capture as it is held closer).

    The performer stands on its nearly straight left leg (4–6°) and rises onto its right toes
    (frames 54–72: the right ankle 16–19 cm up, its toes 2–4 cm). Tracked by its ankle alone
    (the toes were counted only when both rigs had toes), the right foot read as standing on
    a floor 8 cm higher: the hips stood over the mean of the two levels and the right leg,
    its foot stood flat on that floor, needed the hips lower still: the left knee bent 13.9°
    off the performer's (median; 17.3° on the arc). The source's contacts are now tracked on
    its own toes whatever the target has: 7.3° (14.0° on the arc).
    """
    _, data, _, mapping, out, frames, bones, legs_s, legs_t = _variant_on(
        tmp_path, STRAIGHT_LEG, made)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= limit, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"
    # Standing on its toes, the foot stands on the floor: each skinned foot's lowest point
    # within 1 cm of it (the avatar stands on y = 0) in 90 % of the performer's stance frames
    # (its own foot points, ``motion_measures.stance``). With the stance level kept on the
    # floor but the foot's lift read from the ankle alone, the right foot hovered 1–4 cm
    # while the performer's heel was up (frames 3–27).
    feet = skin(out, (mapping["LeftFoot"], mapping["RightFoot"]))
    points = source_foot_points(data)[:frames]
    for side in range(2):
        planted = mm.stance(mm.lowest_points(points[:, side]), data.fps)
        low = mm.lowest_points(feet.vertices[:frames][:, feet.foot[side]])[planted, 1]
        assert np.percentile(low, 90) <= 0.01, (
            f"foot {side}: the sole {100 * np.percentile(low, 90):.1f} cm over the floor")


@pytest.mark.parametrize("made", ["straight", "mirrored"])
def test_a_nearly_straight_standing_leg_keeps_its_knee_on_feet_turned_by_the_calibration(
        tmp_path, made: str) -> None:
    """:data:`STRAIGHT_LEG` on CesiumMan as captured and mirrored (``tests/conventions.py``),
    measured on the written file's joints against the source's own: each knee's flexion within
    10° of the performer's (median over frames; issue 35's limit is 15°).

    The performer stands on its nearly straight left leg (4–6° bent: hip joint to ankle 0.9987
    of thigh + shin), where a millimetre of hips is a degree of knee. CesiumMan's feet, turned
    as the calibration pairs them with the performer's (its calibration pose stands its ankles
    6.5 and 11 mm higher over their soles than its standing pose), are stood by the solve with
    the planted ankles 3–6 mm over the standing height its hips were set from: the standing
    knee bent 13.4° off the performer's (mirrored 15.1°). The standing height now counts the
    ankles where the solve stands them in the calibration pose: 7.3° (mirrored 9.1°).
    """
    *_, bones, legs_s, legs_t = _variant_on(tmp_path, STRAIGHT_LEG, made, "CesiumMan")
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 10.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"


def test_feet_turned_in_a_pose_stood_up_by_footfall_do_not_raise_the_standing_height(
        tmp_path) -> None:
    """:data:`NEVER_STANDS` on CesiumMan, measured on the written file's joints against the
    source's own: each knee's flexion within 2° of the performer's (median over its two
    frames). Its calibration pose is stood up by footfall (legs straightened): the feet's turn
    there is not the capture's, and counted in the standing height (as a captured pose's is)
    it raised the hips 0.9 mm over legs asked to stand straight: the right knee 0.4° → 2.9°
    off the performer's."""
    src, data, source_map, mapping, nodes, positions, frames = retargeted(NEVER_STANDS,
                                                                          "CesiumMan", tmp_path)
    sk = data.skeleton
    for upper, lower, foot in [(f"{s}UpperLeg", f"{s}LowerLeg", f"{s}Foot")
                               for s in ("Left", "Right")]:
        knee_s = mm.joint_angle(*(positions[:frames, sk.index(source_map[b])]
                                  for b in (upper, lower, foot)))
        knee_t = mm.joint_angle(*(nodes[mapping[b]][:frames] for b in (upper, lower, foot)))
        knee = float(np.median(np.abs(knee_t - knee_s)))
        assert knee <= 2.0, f"{foot}: knee flexion {knee:.1f}° off the source's"


#: A clip whose performer swivels the left foot on its toes, then rolls back onto the heel and
#: stands a long while (frames ~800–990 at 120 fps) on that straight leg stretched out, the
#: right leg bent 52–56°.
TOE_PIVOT_LET_GO = "cmu_131_01"


@pytest.mark.parametrize("made", ["straight", "circle"])
def test_a_toe_pivot_letting_go_does_not_hold_the_foot_off_for_the_stance(
        tmp_path, made: str) -> None:
    """:data:`TOE_PIVOT_LET_GO` onto the Mixamo-rig BVH (both rigs have toes: the patch hold
    follows the source's), as captured and bent along an arc (``tests/conventions.py``),
    measured on the written file's joints against the source's own: each knee's flexion within
    15° of the performer's (median over frames; issue 35's limit).

    At frame ~798 the performer's left foot rolls off its toes onto the heel: the toe pivot
    lets go within one or two frames and the left ankle target jumps 8–10 cm (11.6 m/s, the
    source's ankle at 0.4 m/s). The foot, low and slow, counted as standing: the patch hold
    took the whole jump back and kept it through the 190 frames the performer stands there,
    the straight left leg's ankle 9–12 cm off its target. On the arc, where the
    target's left foot stood nearer the hips, the hips were lowered less and the bent right
    knee stood 16.2° straighter than the performer's (median; as captured 7.9°). A jump of the
    ankle target (faster than a swinging foot beyond the source ankle's step, scaled) is now
    held, and given back at a stance slip's pace while the performer's toe tip is up
    (``limb_kernel.JUMP_SPEED``, ``JUMP_RETURN_SPEED``): 11.9° on the arc (as captured
    6.5°).
    """
    from conventions import VARIANTS

    clip = bvh.load(DATA / "bvh" / f"{TOE_PIVOT_LET_GO}.bvh")
    if made != "straight":
        clip = VARIANTS[made](clip)
    path = tmp_path / f"{TOE_PIVOT_LET_GO}_{made}.bvh"
    bvh.save(clip, path)
    out = tmp_path / f"{made}_mixamo.bvh"
    assert main(["retarget", str(path), "--to", str(DATA / "bvh" / "mixamo_stepping.bvh"),
                 "-o", str(out), "--quiet"]) == 0
    data, written = bvh.load(path), bvh.load(out)
    source_map = dict(map_skeleton(data.skeleton).mapping)
    target_map = dict(map_skeleton(written.skeleton).mapping)
    positions, target = data.global_positions(), written.global_positions()
    frames = min(len(positions), len(target))
    nodes = {target_map[b]: target[:frames, written.skeleton.index(target_map[b])]
             for b in target_map}
    bones, legs_s, legs_t, _ = both_legs(data, source_map, target_map, nodes, positions, frames)
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 15.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"


@pytest.mark.parametrize("made", ["backward", "circle"])
def test_a_bent_standing_leg_does_not_raise_the_standing_height(tmp_path, made: str) -> None:
    """cmu_131_01 on CesiumMan, played backward and bent along an arc: each knee within 10° of
    the performer's (median over frames, measured on the written file's joints against the
    source's own; issue 35's limit is 15°). Its standing legs are bent (0.94–0.95 extended), so
    the standing height counts their ankles at the standing pose's height, not where the solve
    stands the calibration-turned feet (``standing_height.leg_needs``: only legs at least
    ``limb_kernel.REACH`` extended): counted for bent legs too, CesiumMan stood 4.8 mm higher
    and these knees went 9 → 11° and 8 → 10° off (before the patch hold's jump give-back)."""
    *_, bones, legs_s, legs_t = _variant_on(tmp_path, "cmu_131_01", made, "CesiumMan")
    for side, knee in enumerate(knee_offsets(legs_s, legs_t)):
        assert knee <= 10.0, f"{bones[side][2]}: knee flexion {knee:.1f}° off the source's"
