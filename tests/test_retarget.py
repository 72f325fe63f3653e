"""Retargeter core: identity, across real rigs, spine redistribution, live step, bad input."""

from functools import cache

import numpy as np
import pytest

from conftest import HUMANOID_BVH_FILES, NOT_HUMANOID_BVH
from footfall import bvh, quat
from footfall.errors import MappingError, SettingsError, SkeletonError
from footfall.retarget import Retargeter
from footfall.retarget.spine import group_last
from footfall.retarget.toes import Toes
from footfall.skeleton import Clip, Skeleton

FEET = ("LeftFoot", "RightFoot")
HANDS = ("LeftHand", "RightHand")
# One file per rig (the two CMU files are the same motion in other units): seven rigs.
RIGS = [p for p in HUMANOID_BVH_FILES if p.stem != "cmu_131_01_metres"]


def rig(stem: str):
    return next(p for p in RIGS if p.stem == stem)


# Every clip with motion onto representative targets (all onto all is
# ``test_retarget_real_clips.py``'s contact check): a CMU capture skeleton (thighs 4 cm ahead
# of the hips joint, legs of unequal length), Mixamo (T-pose, high ankles) and MocapBank (no toe
# joints: its toes are End Sites). bvhio_example has two frames: no motion to follow.
TARGETS = [rig("cmu_131_01"), rig("mixamo_stepping"), rig("mocapbank_zxy_cm")]
MOTION = [p for p in RIGS if p.stem != "bvhio_example"]
MAX_SECONDS = 5.0


@cache
def load(path) -> Clip:
    return bvh.load(path)


@cache
def motion(path) -> Clip:
    clip = load(path)
    return clip[: int(MAX_SECONDS * clip.fps)]


def joints(skeleton: Skeleton, mapping: dict, bones: tuple[str, ...]) -> list[int]:
    return [skeleton.index(mapping[b]) for b in bones]


# ---------------------------------------------------------------- identity


@pytest.mark.parametrize("path", HUMANOID_BVH_FILES, ids=lambda p: p.stem)
def test_identity_reproduces_global_positions(path) -> None:
    clip = load(path)
    retargeter = Retargeter(clip.skeleton, clip.skeleton)
    out = retargeter.apply(clip)
    assert out.frame_count == clip.frame_count
    # The same motion, stood on the floor: a capture whose planted feet float above its y = 0
    # (CMU's toe joints sit 4–6 cm up) comes down, each foot planted on the floor; the path and
    # the rest of the pose stay.
    levels = retargeter.stance_levels(clip)
    hips = retargeter.correspondence.hips[0]
    shift = out.global_positions() - clip.global_positions()
    np.testing.assert_allclose(shift[:, hips, [0, 2]], 0.0, atol=1e-6)
    # Lowered by the feet's mean stance level, a little more only where the lower foot could
    # not be reached otherwise.
    assert np.all(shift[:, hips, 1] <= -levels.mean(axis=-1) + 1e-6)
    assert np.median(shift[:, hips, 1] + levels.mean(axis=-1)) == pytest.approx(0.0, abs=3e-3)
    toes = Toes.of(clip.skeleton, retargeter.target_map)
    low_out = lowest_foot_point(out, retargeter.target_map, retargeter.target_measures, toes)
    planted = retargeter.source_contacts(clip)
    if planted.sum() > 10:  # (bvhio_example: two frames, each foot on its own level)
        # (a foot lowered by another height than the hips bends its knee: a few joints move a
        # little sideways in a few frames)
        assert np.percentile(np.abs(shift[..., [0, 2]]), 99) < 0.03
        assert np.median(np.abs(low_out[planted])) < 2e-3
        assert np.percentile(np.abs(low_out[planted]), 90) < 0.01
    assert low_out.min() > -0.01


def test_a_clip_without_legs_is_a_clear_mapping_error() -> None:
    four = load(NOT_HUMANOID_BVH)  # Hips, Spine, Head, LeftLeg
    other = load(rig("games105_walk60"))
    with pytest.raises(MappingError, match=r"source skeleton has no legs to retarget: missing "
                       r"LeftUpperLeg, LeftFoot, RightUpperLeg, RightLowerLeg, RightFoot "
                       r"\(joints: Hips, Spine, Head, LeftLeg\)"):
        Retargeter(four.skeleton, other.skeleton)
    with pytest.raises(MappingError, match="target skeleton has no legs to retarget"):
        Retargeter(other.skeleton, four.skeleton)


# ---------------------------------------------------------------- across rigs


def pairs():
    return [(a, b) for a in MOTION for b in TARGETS if a != b]


def lowest_foot_point(clip: Clip, mapping: dict, measures, toes: Toes | None) -> np.ndarray:
    """``(F, 2)`` lowest foot point (ankle or toe point) above its own standing height."""
    g = clip.global_positions()
    low = g[:, joints(clip.skeleton, mapping, FEET), 1] - measures.ankle_height
    if toes is not None:
        toe = toes.positions(clip.global_rotations(), g)[..., 1] - measures.toe_height
        low = np.minimum(low, toe)
    return low


@pytest.mark.parametrize("source_path, target_path", pairs(),
                         ids=lambda p: p.stem)
def test_across_rigs_feet_grounded_paths_scaled(source_path, target_path) -> None:
    source, target = motion(source_path), load(target_path)
    r = Retargeter(source.skeleton, target.skeleton)
    out = r.apply(source)
    assert out.skeleton is target.skeleton
    gs, gt = source.global_positions(), out.global_positions()
    assert np.all(np.isfinite(gt))
    s = r.size_ratio
    an_s, an_t = joints(source.skeleton, r.source_map, FEET), joints(target.skeleton,
                                                                      r.target_map, FEET)
    # It stands up: head above hips above feet (pybvh_test1_zup_inches.bvh's rest pose lies on
    # its side; the retargeter calibrates it standing).
    for clip, g, mapping in ((source, gs, r.source_map), (out, gt, r.target_map)):
        head, hips = (clip.skeleton.index(mapping[b]) for b in ("Head", "Hips"))
        assert np.all(g[:, head, 1] > g[:, hips, 1])
        assert np.all(g[:, hips, 1] > g[:, joints(clip.skeleton, mapping, FEET), 1].max(-1))
    # Lowest foot point (ankle or toe) above its own standing height, during the contacts:
    # the source's, scaled by the size ratio within the 2 cm contact band.
    source_toes, target_toes = Toes.of(source.skeleton, r.source_map), Toes.of(
        target.skeleton, r.target_map)
    both = source_toes is not None and target_toes is not None
    low_s = lowest_foot_point(source, r.source_map, r.source_measures,
                              source_toes if both else None)
    low_t = lowest_foot_point(out, r.target_map, r.target_measures,
                              target_toes if both else None)
    contact = low_s < np.percentile(low_s, 5) + 0.02
    assert contact.mean() > 0.2
    # Planted on the target's own floor (y = 0): the source's floor is not carried over.
    lift = np.maximum(low_s - r.stance_levels(source), 0.0)
    assert np.mean(np.abs(low_t - s * lift)[contact]) <= 0.01
    # (Foot skate: GMD's ratio on every pair, ``test_retarget_real_clips.py``.)
    # Feet follow the source's paths scaled by the size ratio. Each foot keeps the target's own
    # hip placement (a small shift that turns with the body), so compare the feet's midpoint
    # after removing its typical offset.
    middle_t = gt[:, an_t][..., [0, 2]].mean(axis=1)
    middle_s = gs[:, an_s][..., [0, 2]].mean(axis=1)
    offset = middle_t - s * middle_s
    # In the source's heading frame (the shift turns with the body).
    forward = quat.rotate(source.global_rotations()[:, r.correspondence.hips[1]], [0, 0, 1])
    yaw = np.arctan2(forward[:, 0], forward[:, 2])
    cos, sin = np.cos(-yaw), np.sin(-yaw)
    local = np.stack([cos * offset[:, 0] + sin * offset[:, 1],
                      -sin * offset[:, 0] + cos * offset[:, 1]], axis=-1)
    assert np.linalg.norm(np.median(local, axis=0)) < 0.1
    path_error = np.linalg.norm(local - np.median(local, axis=0), axis=-1)
    assert path_error.mean() < 0.02 and path_error.max() < 0.1
    travel = np.linalg.norm(s * (middle_s[-1] - middle_s[0]))
    # A planted foot is held where the source's slides (issue 35): the source's drift while
    # planted may be missing from the target's travel.
    planted = r.source_contacts(source)[1:]
    steps = np.diff(gs[:, an_s][..., [0, 2]], axis=0)  # (F - 1, 2 feet, 2)
    drift = np.linalg.norm(0.5 * (steps * planted[..., None]).sum(axis=(0, 1)))
    assert np.linalg.norm(middle_t[-1] - middle_t[0]) == pytest.approx(travel,
                                                                     abs=0.03 + s * drift)


@pytest.mark.parametrize("source_path, target_path", pairs(), ids=lambda p: p.stem)
def test_hands_follow_scaled_source_with_arm_ik(source_path, target_path) -> None:
    source, target = motion(source_path), load(target_path)
    r = Retargeter(source.skeleton, target.skeleton)
    r.settings["ik_mode"] = "ik"
    out = r.apply(source)
    gs, gt = source.global_positions(), out.global_positions()
    hips_t, hips_s = r.correspondence.hips
    hand_s = joints(source.skeleton, r.source_map, HANDS)
    hand_t = joints(target.skeleton, r.target_map, HANDS)
    relative_t = gt[:, hand_t] - gt[:, [hips_t]]
    relative_s = gs[:, hand_s] - gs[:, [hips_s]]
    error = np.linalg.norm(relative_t - r.size_ratio * relative_s, axis=-1)
    # Out-of-reach frames stay short by the reach clamp only: by how far the target lies
    # beyond the arm's reach from the shoulder.
    arms = [joints(target.skeleton, r.target_map, (f"{side}UpperArm", f"{side}LowerArm"))
            for side in ("Left", "Right")]
    shoulders = gt[:, [arm[0] for arm in arms]]
    reach = np.array([np.linalg.norm(gt[0, arm[1]] - gt[0, arm[0]])
                      + np.linalg.norm(gt[0, h] - gt[0, arm[1]])
                      for arm, h in zip(arms, hand_t, strict=True)])
    wanted = gt[:, [hips_t]] + r.size_ratio * relative_s
    beyond = np.maximum(np.linalg.norm(wanted - shoulders, axis=-1) - reach, 0.0)
    assert np.mean(error - beyond) < 0.01
    # Switching the arms' IK off lets the hands drift with the rig's own proportions.
    r.settings["ik_mode"] = "fk"
    gt_fk = r.apply(source).global_positions()
    error_fk = np.linalg.norm(gt_fk[:, hand_t] - gt_fk[:, [hips_t]] - r.size_ratio * relative_s,
                              axis=-1)
    assert error_fk.mean() > error.mean()


def test_t_pose_target_calibrates_against_i_pose_source() -> None:
    cmu = load(next(p for p in RIGS if p.stem == "cmu_131_01"))  # rest: arms down
    mixamo = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))  # rest: T-pose
    r = Retargeter(cmu.skeleton, mixamo.skeleton)
    pose = Clip.from_rest(cmu.skeleton)
    rot, pos = r.step(pose.rotations[0], pose.positions[0])
    out = Clip(mixamo.skeleton, rot[None], pos[None], 60.0).global_positions()[0]
    hand = mixamo.skeleton.index(r.target_map["LeftHand"])
    shoulder = mixamo.skeleton.index(r.target_map["LeftUpperArm"])
    arm = out[hand] - out[shoulder]
    assert arm[1] < -0.8 * np.linalg.norm(arm)  # the avatar's arm hangs down like the source's


# ---------------------------------------------------------------- spine redistribution


def spine_rig(count: int) -> Skeleton:
    """Hips, legs, ``count`` spine bones, neck, head; all upright in the rest pose."""
    names = ["Hips"]
    parents = [-1]
    offsets = [[0.0, 0.9, 0.0]]
    for side, x in (("Left", 0.1), ("Right", -0.1)):
        start = len(names)
        names += [f"{side}UpperLeg", f"{side}LowerLeg", f"{side}Foot", f"{side}Toes"]
        parents += [0, start, start + 1, start + 2]
        offsets += [[x, -0.05, 0], [0, -0.4, 0], [0, -0.4, 0], [0, -0.05, 0.1]]
    spine_names = (["Spine", "Chest", "UpperChest"] if count == 3
                   else [f"Spine{k}" if k else "Spine" for k in range(count)])
    for k, name in enumerate(spine_names):
        parents.append(0 if k == 0 else len(names) - 1)
        names.append(name)
        offsets.append([0, 0.5 / count, 0])
    parents += [len(names) - 1, len(names)]
    names += ["Neck", "Head"]
    offsets += [[0, 0.1, 0], [0, 0.1, 0]]
    return Skeleton(names, np.array(parents), np.array(offsets, dtype=float))


@pytest.mark.parametrize("source_count, target_count", [(5, 3), (3, 5)])
def test_spine_redistribution_keeps_chest_and_neck(source_count, target_count) -> None:
    source, target = spine_rig(source_count), spine_rig(target_count)
    rng = np.random.default_rng(3)
    frames = 20
    clip = Clip.from_rest(source, frames)
    spine = [j for j, n in enumerate(source.names) if n.startswith(("Spine", "Chest", "Upper"))]
    for j in [*spine, source.index("Neck"), source.index("Head")]:
        clip.rotations[:, j] = quat.from_scaled_angle_axis(rng.normal(0, 0.25, (frames, 3)))
    r = Retargeter(source, target)
    out = r.apply(clip)
    gs, gt = clip.global_rotations(), out.global_rotations()
    chest_s, chest_t = spine[-1], target.index("Neck") - 1
    assert quat.angle_between(gs[:, chest_s], gt[:, chest_t]).max() < 1e-6
    for name in ("Neck", "Head"):
        angle = quat.angle_between(gs[:, source.index(name)], gt[:, target.index(name)])
        assert angle.max() < 1e-6
    # The middle of the chain follows the grouped source bones too.
    chains = {c.name: c for c in r.correspondence.spine}
    assert [source.names[j] for j in chains["spine"].source_for_target] == [
        source.names[spine[i]] for i in group_last(source_count, target_count)]


def test_group_last() -> None:
    assert group_last(5, 3) == [1, 3, 4]
    assert group_last(3, 5) == [0, 1, 1, 2, 2]
    assert group_last(4, 4) == [0, 1, 2, 3]
    assert group_last(0, 3) == []


# ---------------------------------------------------------------- live step


def test_step_equals_apply_frame_by_frame() -> None:
    # Same rig at 1.3× size: the stance-width hold (live: fixed fade, offline: whole swing)
    # has nothing to do, so the live path must reproduce the batched one — up to the toe
    # offset's swing blend (live: fixed fade, offline: paced by the toe's travel), which the
    # 2 cm contact band's scaling leaves a few tenths of a millimetre to do.
    source = load(next(p for p in RIGS if p.stem == "games105_walk60"))[:40]
    offline = Retargeter(source.skeleton, source.skeleton)
    live = Retargeter(source.skeleton, source.skeleton)
    for r in (offline, live):
        # (plant_feet blends a planted foot onto the floor over a centred window offline and a
        # trailing one live: the machinery is compared without it)
        r.settings.update({"avatar_scale": 1.3, "floor_height": 0.02, "plant_feet": False})
    # Live frames stand on the capture's floor the live retargeter is given (one level per
    # foot); offline the same level, not the per-stance one it measures by default.
    level = offline.stance_level(source)
    out = offline.apply(source, stance_level=level)
    assert not np.allclose(out.global_positions(), source.global_positions(), atol=0.05)
    for f in range(source.frame_count):
        rot, pos = live.step(source.rotations[f], source.positions[f], 1.0 / source.fps,
                             stance_level=level)
        assert quat.angle_between(rot, out.rotations[f]).max() < 2e-3
        np.testing.assert_allclose(pos, out.positions[f], atol=1e-9)


def test_live_step_close_to_offline_across_rigs() -> None:
    source = load(next(p for p in RIGS if p.stem == "games105_walk60"))[:60]
    target = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))
    offline = Retargeter(source.skeleton, target.skeleton)
    live = Retargeter(source.skeleton, target.skeleton)
    for r in (offline, live):  # the machinery, not plant_feet's offline/live floor learning
        r.settings.update({"plant_feet": False})
    level = offline.stance_level(source)
    out = offline.apply(source, stance_level=level).global_positions()
    frames = [live.step(source.rotations[f], source.positions[f], 1.0 / source.fps,
                        stance_level=level)
              for f in range(source.frame_count)]
    rot = np.stack([f[0] for f in frames])
    pos = np.stack([f[1] for f in frames])
    live_global = Clip(target.skeleton, rot, pos, source.fps).global_positions()
    assert np.abs(live_global - out).max() < 0.03


def test_floor_height_and_avatar_scale() -> None:
    clip = load(next(p for p in RIGS if p.stem == "games105_walk60"))[:30]
    r = Retargeter(clip.skeleton, clip.skeleton)
    base = r.apply(clip).global_positions()
    r.settings["floor_height"] = 0.1
    raised = r.apply(clip).global_positions()
    foot = clip.skeleton.index(r.target_map["LeftFoot"])
    np.testing.assert_allclose(raised[:, foot, 1] - base[:, foot, 1], 0.1, atol=1e-6)
    r.settings["floor_height"] = 0.0
    r.settings["avatar_scale"] = 2.0
    big = r.apply(clip)
    assert big.skeleton.offsets[1] == pytest.approx(2 * clip.skeleton.offsets[1])
    g = big.global_positions()
    hips = r.correspondence.hips[0]
    # Twice the size: the hips rise by the hips-height difference (lowered only where a leg
    # could not reach) and travel twice as far.
    raised = np.mean(g[:, hips, 1]) - np.mean(base[:, hips, 1])
    assert 0.9 * r.target_measures.hips_height < raised <= r.target_measures.hips_height + 1e-9
    np.testing.assert_allclose(g[:, hips, [0, 2]], 2 * base[:, hips, [0, 2]], atol=1e-6)


def test_head_offset_fingers_and_auto_calibration() -> None:
    clip = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))[:5]
    r = Retargeter(clip.skeleton, clip.skeleton)
    base = r.apply(clip)
    r.settings["head_rotation_offset_y_deg"] = 30.0
    turned = r.apply(clip)
    head = clip.skeleton.index(r.target_map["Head"])
    angle = np.degrees(quat.angle_between(base.rotations[:, head], turned.rotations[:, head]))
    np.testing.assert_allclose(angle, 30.0, atol=1e-6)
    r.settings["head_rotation_offset_y_deg"] = 0.0
    r.set_hand_pose("rock")
    fist = r.apply(clip)
    finger_joints = set(r.fingers.joints.ravel().tolist()) - {-1}
    body = [j for j in range(clip.skeleton.joint_count) if j not in finger_joints]
    np.testing.assert_allclose(fist.rotations[:, body], base.rotations[:, body], atol=1e-12)
    assert not np.allclose(fist.rotations[:, sorted(finger_joints)],
                           base.rotations[:, sorted(finger_joints)])
    assert r.auto_calibrate() == pytest.approx(1.0)
    # Head-forward calibration: after it, the head faces the body's heading.
    offset = r.calibrate_head_forward(clip.rotations[2], clip.positions[2])
    assert np.all(np.abs(offset) <= 180.0)


def test_settings_saved_and_restored(tmp_path) -> None:
    clip = load(next(p for p in RIGS if p.stem == "games105_walk60"))
    r = Retargeter(clip.skeleton, clip.skeleton)
    r.settings["floor_height"] = 0.05
    r.save("walker", tmp_path)
    fresh = Retargeter(clip.skeleton, clip.skeleton)
    fresh.load("walker", tmp_path)
    assert fresh.settings["floor_height"] == 0.05
    np.testing.assert_allclose(fresh.offsets, r.offsets)


# ---------------------------------------------------------------- bad input


def test_mapping_naming_missing_bones_raises() -> None:
    clip = load(rig("cmu_131_01"))
    with pytest.raises(MappingError, match="NoSuchJoint"):
        Retargeter(clip.skeleton, clip.skeleton, mapping={"LeftHand": "NoSuchJoint"})


def test_skeleton_without_legs_raises() -> None:
    clip = load(rig("cmu_131_01"))
    torso = Skeleton(["Hips", "Spine", "Chest", "Neck", "Head"], np.array([-1, 0, 1, 2, 3]),
                     np.array([[0, 1, 0], [0, 0.1, 0], [0, 0.2, 0], [0, 0.2, 0], [0, 0.1, 0]]))
    with pytest.raises(MappingError, match="no legs.*LeftUpperLeg"):
        Retargeter(clip.skeleton, torso)
    with pytest.raises(MappingError, match="source skeleton has no legs"):
        Retargeter(torso, clip.skeleton)


def test_zero_length_bone_in_t_pose_raises() -> None:
    rig = spine_rig(3)
    offsets = rig.offsets.copy()
    offsets[rig.index("LeftLowerLeg")] = 0.0
    broken = Skeleton(rig.names, rig.parents, offsets)
    with pytest.raises(SkeletonError, match="LeftUpperLeg.*LeftLowerLeg.*length 0"):
        Retargeter(rig, broken)


def test_clip_of_another_skeleton_and_nan_clip_raise() -> None:
    a, b = load(rig("cmu_131_01")), load(rig("games105_walk60"))
    r = Retargeter(a.skeleton, b.skeleton)
    with pytest.raises(SkeletonError, match="does not match"):
        r.apply(b)
    bad = a[:3].copy()
    bad.rotations[1, 2] = np.nan
    with pytest.raises(SkeletonError, match="frame 1"):
        r.apply(bad)


# ---------------------------------------------------------------- remote-control registry


def test_actions_run_through_the_typed_registry() -> None:
    import json

    from footfall.errors import SettingsError
    from footfall.retarget.settings import ACTIONS, run_action

    cmu = load(next(p for p in RIGS if p.stem == "cmu_131_01"))
    mixamo = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))
    r = Retargeter(cmu.skeleton, mixamo.skeleton)
    frame = (cmu.rotations[0], cmu.positions[0])
    assert set(ACTIONS) == {"setHandPosePreset", "calibrateIPose", "resetCalibration",
                            "calibrateHeadForward", "autoCalibrateAll"}
    run_action(r, "setHandPosePreset", {"preset": "바위"})
    assert r.settings["fingers_enabled"] and r.settings["left_index_curl"] == 1.0
    run_action(r, "setHandPosePreset", {"preset": "reset"})
    assert not r.settings["fingers_enabled"]
    before = r.offsets.copy()
    run_action(r, "calibrateIPose", frame=frame)
    assert not np.allclose(before, r.offsets)
    # Calibrated on this very frame: the target now repeats its calibration pose there.
    rot, _ = r.step(*frame)
    pose = Clip(mixamo.skeleton, rot[None], mixamo.skeleton.offsets[None], 60)
    world = pose.global_rotations()[0]
    chest = mixamo.skeleton.index(r.target_map["Chest"])
    assert quat.angle_between(world[chest], r.calibration_world[chest]) < 1e-6
    run_action(r, "resetCalibration")
    np.testing.assert_allclose(r.offsets, before)
    offset = run_action(r, "calibrateHeadForward", frame=frame)
    assert offset.shape == (3,)
    scale = run_action(r, "autoCalibrateAll", frame=frame)
    assert 0.1 <= scale <= 3.0 and r.settings["avatar_scale"] == scale
    data = r.character_data()
    json.dumps(data)  # JSON-ready
    assert {p["name"] for p in data["parameters"]} >= {"avatar_scale", "left_thumb_curl"}
    with pytest.raises(SettingsError, match="unknown action 'fly'"):
        run_action(r, "fly")
    with pytest.raises(SettingsError, match="needs the current source frame"):
        run_action(r, "calibrateIPose")
    with pytest.raises(SettingsError, match="preset"):
        run_action(r, "setHandPosePreset", {"preset": "spock"})
    with pytest.raises(SettingsError, match="no argument"):
        run_action(r, "resetCalibration", {"force": True})


def test_props_follow_the_retargeted_hand() -> None:
    source = load(next(p for p in RIGS if p.stem == "games105_walk60"))[:10]
    mixamo = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))
    r = Retargeter(source.skeleton, mixamo.skeleton)
    r.props.attach("cup", "left_hand")
    out = r.apply(source)
    where = r.prop_transforms(out.rotations, out.positions)
    hand = out.global_positions()[:, mixamo.skeleton.index(r.target_map["LeftHand"])]
    distance = np.linalg.norm(where["cup"][0] - hand, axis=-1)
    np.testing.assert_allclose(distance, np.linalg.norm([0.039, -0.022, 0.0]), atol=1e-9)
    assert np.ptp(where["cup"][0][:, 2]) > 0.05  # it travels with the walk


def test_one_euro_filter_on_raw_positions_calms_jitter() -> None:
    source = load(next(p for p in RIGS if p.stem == "games105_walk60"))
    noisy = source.copy()
    rng = np.random.default_rng(7)
    noisy.positions[:, 0] += rng.normal(0.0, 0.01, (source.frame_count, 3))  # 1 cm jitter
    r = Retargeter(source.skeleton, source.skeleton)
    hips = r.correspondence.hips[0]

    def jitter(clip: Clip) -> float:
        path = clip.global_positions()[:, hips]
        return float(np.mean(np.linalg.norm(np.diff(path, n=2, axis=0), axis=-1)))

    level = r.stance_level(noisy)
    r.settings.update({"plant_feet": False})  # the filter alone: offline and live blend apart
    raw = jitter(r.apply(noisy, stance_level=level))
    r.settings.update({"filter_enabled": True, "filter_min_cutoff": 1.0, "filter_beta": 0.5})
    calmed = r.apply(noisy, stance_level=level)
    assert jitter(calmed) < 0.5 * raw
    assert np.all(np.isfinite(calmed.rotations))
    # Live: the same filter state carried over steps.
    live = Retargeter(source.skeleton, source.skeleton)
    live.settings.update({"filter_enabled": True, "filter_min_cutoff": 1.0, "filter_beta": 0.5,
                          "plant_feet": False})
    frames = [live.step(noisy.rotations[f], noisy.positions[f], 1 / 60, stance_level=level)[1][hips]
              for f in range(60)]
    live_path = np.array(frames)
    np.testing.assert_allclose(live_path, calmed.positions[:60, hips], atol=1e-9)


def test_step_rejects_malformed_frames() -> None:
    clip = load(next(p for p in RIGS if p.stem == "games105_walk60"))
    r = Retargeter(clip.skeleton, clip.skeleton)
    with pytest.raises(SkeletonError, match=r"expected rotations \(\.\.\., 20, 4\)"):
        r.step(clip.rotations[0, :5], clip.positions[0, :5])
    with pytest.raises(SkeletonError, match="expected rotations"):
        r.step(clip.rotations[0], clip.positions[1:3])
    rot = clip.rotations[0].copy()
    rot[3, 1] = np.nan
    with pytest.raises(SkeletonError, match="joint 3"):
        r.step(rot, clip.positions[0])
    from footfall.errors import SettingsError

    with pytest.raises(SettingsError, match="dt must be positive"):
        r.step(clip.rotations[0], clip.positions[0], dt=0.0)
    r.step(clip.rotations[0], clip.positions[0])  # still works after the bad frames


def _hand_variant(skeleton: Skeleton, mapping: dict) -> Skeleton:
    """The skeleton with a differently built hand: finger bones 1.6× as long and the fingers'
    roots spread wider apart on the palm."""
    offsets = skeleton.offsets.copy()
    for canonical, name in mapping.items():
        if any(f in canonical for f in ("Thumb", "Index", "Middle", "Ring", "Little")):
            j = skeleton.index(name)
            offsets[j] *= 1.6
            if canonical.endswith("Proximal"):
                offsets[j, 2] *= 1.8
    return Skeleton(skeleton.names, skeleton.parents, offsets)


def test_finger_copy_modes() -> None:
    """``finger_copy``: rotation (bone by bone) and curl (measured per finger, rebuilt on the
    avatar's own axes) carry the source's finger curls; none keeps the calibration pose."""
    clip = load(next(p for p in RIGS if p.stem == "mixamo_stepping"))
    same = Retargeter(clip.skeleton, clip.skeleton)
    assert same.source_fingers.present and same.fingers.present
    rng = np.random.default_rng(3)
    frames = clip.frame_count
    curl = rng.uniform(-0.4, 1.0, (frames, 2, 5))
    spread = rng.uniform(-0.6, 0.6, (frames, 2, 5))
    source = clip.copy()
    source.rotations = same.source_fingers.apply(clip.rotations, curl, spread)
    measured = same.source_fingers.measure(source.rotations)
    np.testing.assert_allclose(measured[0], curl, atol=1e-9)
    np.testing.assert_allclose(measured[1], spread, atol=1e-9)
    body = [j for j in range(clip.skeleton.joint_count) if j not in same.fingers.joints]
    outputs = {}
    for mode in ("rotation", "curl", "none"):
        same.settings["finger_copy"] = mode
        outputs[mode] = same.apply(source).rotations
        got_curl, got_spread = same.fingers.measure(outputs[mode])
        if mode == "none":
            assert np.abs(got_curl).max() < 1e-9 and np.abs(got_spread).max() < 1e-9
        else:
            np.testing.assert_allclose(got_curl, curl, atol=1e-6)
            np.testing.assert_allclose(got_spread, spread, atol=1e-6)
    # The body does not depend on the finger mode.
    np.testing.assert_allclose(outputs["curl"][:, body], outputs["rotation"][:, body], atol=1e-12)
    np.testing.assert_allclose(outputs["none"][:, body], outputs["rotation"][:, body], atol=1e-12)

    # Onto a hand built differently, curl mode gives the avatar the source's curls exactly.
    other = _hand_variant(clip.skeleton, dict(same.source_map))
    across = Retargeter(clip.skeleton, other)
    across.settings["finger_copy"] = "curl"
    got_curl, got_spread = across.fingers.measure(across.apply(source).rotations)
    np.testing.assert_allclose(got_curl, np.clip(curl, -1, 1), atol=1e-6)
    np.testing.assert_allclose(got_spread, spread, atol=1e-6)
    with pytest.raises(SettingsError, match="finger_copy"):
        across.settings["finger_copy"] = "muscles"
