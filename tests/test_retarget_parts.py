"""Retargeting parts that stand alone: settings, fingers, props, head, limb weights."""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall import quat
from footfall.errors import MappingError, SettingsError
from footfall.footing.kneeling import kneeling_s
from footfall.ramps import ramp
from footfall.retarget.fingers import FINGERS, PRESET_ALIASES, PRESETS, FingerRig, preset
from footfall.retarget.head import (
    apply_head_offset,
    auto_avatar_scale,
    head_forward_offset_deg,
    head_offset_rotation,
)
from footfall.retarget.props import DEFAULT_OFFSETS, SEED_OFFSETS_UNITY, PropAttachments
from footfall.retarget.settings import (
    PARAMETERS,
    RetargetSettings,
    SettingsWarning,
    load_settings,
    save_settings,
    settings_path,
)
from footfall.retarget.weights import (
    WeightSmoother,
    goal_weights,
    smooth_series,
)
from footfall.skeleton import Skeleton, forward_kinematics

# ---------------------------------------------------------------- a small two-handed rig


def hand_rig() -> tuple[Skeleton, dict[str, str]]:
    """Hips, chest, head, two arms along ±X (T-pose, palms down), five 3-joint fingers each."""
    names = ["Hips", "Chest", "Head"]
    parents = [-1, 0, 1]
    offsets = [[0, 1, 0], [0, 0.4, 0], [0, 0.25, 0]]
    mapping = {"Hips": "Hips", "Chest": "Chest", "Head": "Head"}
    canonical = {"thumb": "Thumb", "index": "Index", "middle": "Middle", "ring": "Ring",
                 "pinky": "Little"}
    for side, sign in (("Left", 1.0), ("Right", -1.0)):
        names += [f"{side}Arm", f"{side}Hand"]
        parents += [1, len(names) - 2]
        offsets += [[sign * 0.2, 0.3, 0], [sign * 0.5, 0, 0]]
        mapping[f"{side}UpperArm"] = f"{side}Arm"
        mapping[f"{side}Hand"] = f"{side}Hand"
        hand = len(names) - 1
        for f, finger in enumerate(FINGERS):
            z = 0.04 - 0.02 * f  # thumb most forward (+Z), little most back
            for s, seg in enumerate(("Proximal", "Intermediate", "Distal")):
                name = f"{side}{canonical[finger]}{seg}"
                parents.append(hand if s == 0 else len(names) - 1)
                offsets.append([sign * 0.08, 0, z] if s == 0 else [sign * 0.03, 0, 0])
                names.append(name)
                mapping[name] = name
    return Skeleton(names, np.array(parents), np.array(offsets, dtype=float)), mapping


# ---------------------------------------------------------------- settings


def test_settings_registry_is_typed_and_ranged() -> None:
    s = RetargetSettings()
    assert s["avatar_scale"] == 1.0
    s["avatar_scale"] = 2
    assert s["avatar_scale"] == 2.0 and isinstance(s["avatar_scale"], float)
    with pytest.raises(SettingsError, match="avatar_scale.*outside"):
        s["avatar_scale"] = 3.5
    with pytest.raises(SettingsError, match="head_scale.*number"):
        s["head_scale"] = "big"
    with pytest.raises(SettingsError, match="fingers_enabled.*true or false"):
        s["fingers_enabled"] = 1
    with pytest.raises(SettingsError, match="unknown setting 'nope'"):
        s["nope"] = 1.0
    with pytest.raises(SettingsError, match="ik_mode"):
        s["ik_mode"] = "sometimes"
    # An update with one bad value changes nothing.
    with pytest.raises(SettingsError):
        s.update({"floor_height": 0.5, "head_scale": -1.0})
    assert s["floor_height"] == 0.0
    described = PARAMETERS["left_index_curl"].describe()
    assert described["min"] == -1.0 and described["max"] == 1.0 and described["type"] == "float"
    assert all(p.validate(p.default) == p.default for p in PARAMETERS.values())


def test_settings_round_trip_atomic(tmp_path) -> None:
    s = RetargetSettings()
    s.update({"floor_height": 0.12, "left_thumb_curl": -0.5, "ik_mode": "ik"})
    s.calibration = {"offsets": {"Hips": [1, 0, 0, 0]}}
    path = save_settings(s, "Robot Expressive/1", tmp_path)
    assert path == settings_path("Robot Expressive/1", tmp_path)
    assert path.parent == tmp_path and "/" not in path.name
    loaded = load_settings("Robot Expressive/1", tmp_path)
    assert loaded.values == s.values and loaded.calibration == s.calibration
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_missing_settings_give_defaults(tmp_path) -> None:
    assert load_settings("nobody", tmp_path).values == RetargetSettings().values


@pytest.mark.parametrize(
    "content, fault",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"version": 1, "values": {"avatar_scale": 9.0}}), "avatar_scale"),
        (json.dumps({"version": 1, "values": {"bogus": 1}}), "unknown setting 'bogus'"),
        (json.dumps([1, 2]), "expected an object"),
        (json.dumps({"version": 7, "values": {}}), "version 7"),
    ],
)
def test_corrupt_settings_kept_aside_and_defaults_used(tmp_path, content, fault) -> None:
    path = settings_path("hero", tmp_path)
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SettingsError, match=fault):
        load_settings("hero", tmp_path, on_corrupt="raise")
    assert path.read_text(encoding="utf-8") == content  # raise mode touches nothing
    with pytest.warns(SettingsWarning, match=fault) as record:
        loaded = load_settings("hero", tmp_path)
    assert str(path) in str(record[0].message)
    assert loaded.values == RetargetSettings().values
    aside = path.with_name(path.name + ".corrupt")
    assert aside.read_text(encoding="utf-8") == content
    assert not path.exists()
    # A second corrupt file does not overwrite the first one kept aside.
    path.write_text("also bad", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SettingsWarning)
        load_settings("hero", tmp_path)
    assert aside.read_text(encoding="utf-8") == content
    assert path.with_name(path.name + ".corrupt1").read_text(encoding="utf-8") == "also bad"


# ---------------------------------------------------------------- fingers


def test_fingers_curl_toward_palm_and_leave_body_untouched() -> None:
    skeleton, mapping = hand_rig()
    rig = FingerRig.build(skeleton, mapping)
    assert rig.present and np.all(rig.joints >= 0)
    rest = quat.identity((skeleton.joint_count,))
    curl, spread = preset("rock")
    posed = rig.apply(rest, curl, spread)
    finger_joints = set(rig.joints.ravel().tolist())
    body = [j for j in range(skeleton.joint_count) if j not in finger_joints]
    np.testing.assert_array_equal(posed[body], rest[body])
    _, before = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
    _, after = forward_kinematics(skeleton.parents, posed, skeleton.offsets)
    np.testing.assert_allclose(after[body], before[body], atol=1e-12)
    # Palms face down in this T-pose: a fist moves every fingertip down.
    tips = rig.joints[:, 1:, 2].ravel()
    assert np.all(after[tips, 1] < before[tips, 1] - 0.02)
    # Fingertips come back toward the wrist (x shrinks in magnitude).
    assert np.all(np.abs(after[tips, 0]) < np.abs(before[tips, 0]))


def test_finger_spread_and_reset() -> None:
    skeleton, mapping = hand_rig()
    rig = FingerRig.build(skeleton, mapping)
    rest = quat.identity((skeleton.joint_count,))
    _, before = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
    curl, spread = preset("paper")
    _, after = forward_kinematics(skeleton.parents, rig.apply(rest, curl, spread),
                                  skeleton.offsets)
    index_tip, little_tip = rig.joints[:, 1, 2], rig.joints[:, 4, 2]
    gap_before = np.linalg.norm(before[index_tip] - before[little_tip], axis=-1)
    gap_after = np.linalg.norm(after[index_tip] - after[little_tip], axis=-1)
    assert np.all(gap_after > gap_before + 0.01)  # spread opens both hands
    curl, spread = preset("초기화")
    np.testing.assert_allclose(rig.apply(rest, curl, spread), rest, atol=1e-12)


def test_finger_hands_switch_and_presets() -> None:
    skeleton, mapping = hand_rig()
    rig = FingerRig.build(skeleton, mapping)
    rest = quat.identity((skeleton.joint_count,))
    curl, spread = preset("rock")
    left_only = rig.apply(rest, curl, spread, hands=(True, False))
    np.testing.assert_array_equal(left_only[rig.joints[1].ravel()], rest[rig.joints[1].ravel()])
    assert not np.allclose(left_only[rig.joints[0].ravel()], rest[rig.joints[0].ravel()])
    assert set(PRESET_ALIASES.values()) == set(PRESETS)
    v_curl, v_spread = preset("V")
    assert v_curl[0, 1] == 0 and v_curl[0, 3] == 1 and v_spread[0, 1] > 0 > v_spread[0, 2]
    with pytest.raises(SettingsError, match="unknown hand pose preset 'spock'"):
        preset("spock")
    with pytest.raises(SettingsError, match="−1…1"):
        rig.apply(rest, np.full((2, 5), 1.5), spread)


def test_finger_mapping_to_missing_joint_raises() -> None:
    skeleton, mapping = hand_rig()
    mapping["LeftIndexDistal"] = "NoSuchBone"
    with pytest.raises(MappingError, match="NoSuchBone"):
        FingerRig.build(skeleton, mapping)


# ---------------------------------------------------------------- props


def test_prop_points_use_seed_offsets_and_follow_bones() -> None:
    skeleton, mapping = hand_rig()
    props = PropAttachments.build(skeleton, mapping)
    assert set(props.points) == {"left_hand", "right_hand", "head"}
    rest = quat.identity((skeleton.joint_count,))
    grot, gpos = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
    frames = props.point_transforms(grot, gpos)
    left = skeleton.index("LeftHand")
    np.testing.assert_allclose(frames["left_hand"][0] - gpos[left], [0.039, -0.022, 0.0])
    np.testing.assert_allclose(frames["head"][0] - gpos[skeleton.index("Head")], [0, 0.16, 0])
    assert SEED_OFFSETS_UNITY["left_hand"] == (-0.039, -0.022, 0.0)
    assert DEFAULT_OFFSETS["right_hand"] == (-0.039, -0.022, 0.0)
    # Rotate the whole body 90° about Y: the point turns with the hand.
    turn = quat.from_axis_angle([0, 1, 0], np.pi / 2)
    turned = rest.copy()
    turned[0] = turn
    grot2, gpos2 = forward_kinematics(skeleton.parents, turned, skeleton.offsets)
    moved = props.point_transforms(grot2, gpos2)["left_hand"][0]
    np.testing.assert_allclose(moved - gpos2[left], quat.rotate(turn, [0.039, -0.022, 0.0]),
                               atol=1e-12)


def test_attach_detach_list_props() -> None:
    skeleton, mapping = hand_rig()
    props = PropAttachments.build(skeleton, mapping)
    props.attach("cup", "left_hand", position=(0, 0, 0.1))
    props.attach("hat", "head")
    props.attach("mic", "left_hand")
    assert props.attached("left_hand") == ["cup", "mic"]
    props.attach("cup", "right_hand")  # moving a prop
    assert props.attached("left_hand") == ["mic"] and props.attached("right_hand") == ["cup"]
    rest = quat.identity((3, skeleton.joint_count))
    grot, gpos = forward_kinematics(skeleton.parents, rest, skeleton.offsets)
    where = props.prop_transforms(grot, gpos)
    assert where["cup"][0].shape == (3, 3)
    props.detach("hat")
    assert props.attached("head") == []
    with pytest.raises(SettingsError, match="'hat' is not attached"):
        props.detach("hat")
    with pytest.raises(SettingsError, match="unknown attach point 'tail'"):
        props.attach("x", "tail")


# ---------------------------------------------------------------- head


def test_head_offset_and_forward_calibration() -> None:
    rotations = quat.identity((4, 3))
    turned = apply_head_offset(rotations, 2, [0.0, 30.0, 0.0])
    angle = np.degrees(quat.angle_between(turned[:, 2], rotations[:, 2]))
    np.testing.assert_allclose(angle, 30.0)
    np.testing.assert_array_equal(turned[:, :2], rotations[:, :2])
    # Body turned 40° left, head looking 25° down and 10° right of it: the offset undoes the
    # head's own turn but keeps the body's heading.
    body = quat.from_axis_angle([0, 1, 0], np.radians(40.0))
    head = quat.mul(body, quat.from_euler(np.radians([25.0, -10.0, 0.0]), "XYZ"))
    offset = head_forward_offset_deg(head, body, quat.identity(), quat.identity())
    corrected = quat.mul(head, head_offset_rotation(offset))
    assert quat.angle_between(corrected, body) < 1e-9


@given(st.floats(0.01, 5.0), st.floats(0.01, 5.0))
def test_auto_scale_is_clamped_ratio(source: float, target: float) -> None:
    scale = auto_avatar_scale(source, target)
    assert 0.1 <= scale <= 3.0
    if 0.1 < source / target < 3.0:
        assert scale == pytest.approx(source / target)


# ---------------------------------------------------------------- limb weights


def test_weight_layers_combine_max_for_arms_min_for_legs() -> None:
    hands = np.array([[[0.3, 1.0, 0.0], [-0.3, 1.0, 0.0]],   # apart
                      [[0.02, 1.0, 0.0], [-0.02, 1.0, 0.0]]])  # clapping
    feet = np.array([[[0.1, 0.1, 0.0], [-0.1, 0.1, 0.0]]] * 2)
    lift = np.array([[0.0, 0.7], [0.0, 0.7]])  # left planted, right lifted high
    hips = np.array([[0.0, 0.9, 0.0]] * 2)
    w = goal_weights(hands, lift, feet, hips, np.array([1.0, 1.0]))
    np.testing.assert_allclose(w.arms, [[0, 0], [1, 1]])
    np.testing.assert_allclose(w.legs, [[1, 0], [1, 0]])
    np.testing.assert_allclose(w.hips, [1, 1])
    # A prop near the right hand only: right arm IK on (max of the layers).
    w = goal_weights(hands[:1], lift[:1], feet[:1], hips[:1], [1.0], props=[[-0.3, 1.05, 0]])
    np.testing.assert_allclose(w.arms, [[0, 1]])
    # Seated on a chair with feet under the hips and low hips: hips weight 0, legs FK.
    w = goal_weights(hands[:1], [[0.0, 0.0]], [[[0.05, 0.1, 0], [-0.05, 0.1, 0]]],
                     [[0.0, 0.5, 0.0]], [0.55], chairs=[[0.0, 0.45, 0.0]])
    np.testing.assert_allclose(w.hips, [0.0])
    assert np.all(w.legs < 0.5)


def test_hips_low_over_a_knee_on_the_floor_kneel_not_sit() -> None:
    # Hips at 45 % of their standing height: on a seat (knees at half the standing hips
    # height) the hips keep the performer's height (weight 0); over a knee on the floor the
    # legs carry them (weight 1: scaled by the legs); a chair beside them still seats them.
    hands = np.array([[[0.3, 1.0, 0.0], [-0.3, 1.0, 0.0]]] * 3)
    feet = np.array([[[0.1, 0.1, 0.3], [-0.1, 0.1, -0.3]]] * 3)
    hips = np.array([[0.0, 0.4, 0.0]] * 3)
    leg = 0.8  # thigh + shin, metres
    knee = np.array([0.5, 0.2, 0.03]) * leg  # the lower knee over the floor
    kneeling = [kneeling_s(k, leg) for k in knee]
    w = goal_weights(hands, np.zeros((3, 2)), feet, hips, np.full(3, 0.45), kneeling=kneeling)
    np.testing.assert_allclose(w.hips, [0.0, 0.5, 1.0])
    w = goal_weights(hands[:1], [[0.0, 0.0]], feet[:1], hips[:1], [0.45],
                     chairs=[[0.0, 0.4, 0.0]], kneeling=[kneeling_s(0.03 * leg, leg)])
    np.testing.assert_allclose(w.hips, [0.0])


@given(st.floats(-10, 10), st.floats(-5, 5), st.floats(0.01, 5))
def test_ramp_bounds(value: float, start: float, width: float) -> None:
    r = ramp(value, start, start + width)
    assert 0.0 <= r <= 1.0
    if value <= start:
        assert r == 0.0
    if value >= start + width:
        assert r == 1.0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=40), st.floats(0.5, 50))
def test_batched_smoothing_equals_live_smoothing(goals: list[float], speed: float) -> None:
    series = np.array(goals)
    batch = smooth_series(series, speed, 1 / 60)
    live = WeightSmoother(speed)
    from footfall.retarget.weights import LimbWeights

    for k, g in enumerate(series):
        state = live(LimbWeights(np.array([g]), np.array([g]), np.array(g)), 1 / 60)
        assert state.arms[0] == pytest.approx(batch[k], abs=1e-12)
    assert np.all(batch >= -1e-12) and np.all(batch <= 1 + 1e-12)


def test_smoothing_of_empty_and_single_series() -> None:
    assert smooth_series(np.zeros((30, 0)), 10.0, 1 / 60).shape == (30, 0)
    assert smooth_series(np.zeros((0, 2)), 10.0, 1 / 60).shape == (0, 2)
    np.testing.assert_allclose(smooth_series(np.array([[0.3, 0.7]]), 10.0, 1 / 60), [[0.3, 0.7]])
    long = np.r_[np.zeros(100), np.ones(200)]  # crosses block boundaries
    out = smooth_series(long, 5.0, 1 / 60)
    assert out[99] == 0.0 and 0.0 < out[100] < out[150] < out[299] < 1.0


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1.0, 1.0), min_size=10, max_size=10),
    st.lists(st.floats(-1.0, 1.0), min_size=10, max_size=10),
)
def test_finger_measure_inverts_apply(curls: list[float], spreads: list[float]) -> None:
    skeleton, mapping = hand_rig()
    rig = FingerRig.build(skeleton, mapping)
    rest = quat.identity((skeleton.joint_count,))
    curl = np.reshape(curls, (2, 5))
    spread = np.reshape(spreads, (2, 5))
    got_curl, got_spread = rig.measure(rig.apply(rest, curl, spread))
    np.testing.assert_allclose(got_curl, curl, atol=1e-9)
    np.testing.assert_allclose(got_spread, spread, atol=1e-9)
    # Per frame: (F, 2, 5) values give (F, J, 4) poses and measure back frame by frame.
    frames = np.stack([curl, -curl, np.zeros_like(curl)])
    posed = rig.apply(np.tile(rest, (3, 1, 1)), frames, np.zeros_like(frames))
    np.testing.assert_allclose(rig.measure(posed)[0], frames, atol=1e-9)
