"""BVH reading and writing on the real files of tests/data/bvh and on hand-written traps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import BVH_FILES, DATA
from footfall import bvh, quat
from footfall.errors import BVHError, FootfallError
from footfall.skeleton import Clip, Skeleton

BVH_DIR = DATA / "bvh"


def _euler_matrix(order: str, angles_deg: list[float]) -> np.ndarray:
    """``R_order[0] · R_order[1] · R_order[2]`` from textbook axis matrices (no footfall code)."""
    out = np.eye(3)
    for axis, angle in zip(order, np.radians(angles_deg), strict=True):
        c, s = np.cos(angle), np.sin(angle)
        if axis == "X":
            m = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
        elif axis == "Y":
            m = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
        else:
            m = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        out = out @ m
    return out


def _is_rotation(q: np.ndarray, matrix: np.ndarray) -> bool:
    """Whether the unit quaternion ``q`` (w, x, y, z) is the rotation ``matrix`` to 1e-12."""
    return bool(np.abs(quat.to_matrix(q) - matrix).max() < 1e-12)
# file: (frames, fps, joints, detected unit) as listed in tests/data/SOURCES.md
EXPECTED = {
    "cmu_131_01.bvh": (994, 120.0, 31, "cmu"),
    "cmu_131_01_metres.bvh": (995, 120.0, 31, "m"),
    "games105_walk60.bvh": (182, 60.0, 20, "m"),
    "mixamo_stepping.bvh": (69, 30.0, 55, "cm"),
}


@pytest.fixture(scope="module")
def loaded() -> dict[str, tuple[Clip, bvh.BVHInfo]]:
    return {path.name: bvh.load(path, return_info=True) for path in BVH_FILES}


def test_every_shared_file_is_expected() -> None:
    assert sorted(p.name for p in BVH_FILES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_file_sizes(loaded, name: str) -> None:
    clip, info = loaded[name]
    frames, fps, joints, unit = EXPECTED[name]
    assert clip.frame_count == frames
    assert clip.fps == fps
    assert clip.skeleton.joint_count == joints
    assert info.unit == unit
    assert info.up == "y"
    assert 1.4 <= info.standing_height <= 2.0
    # The loaded motion itself: a standing body, joints only, 1.2–2.0 m tall, feet near y = 0.
    positions = clip.global_positions()
    first = positions[0, :, 1]
    assert 1.2 <= first.max() - first.min() <= 2.0
    assert abs(positions[..., 1].min()) < 0.1


def test_cmu_units_match_the_metres_release(loaded) -> None:
    cmu = loaded["cmu_131_01.bvh"][0].global_positions()
    metres = loaded["cmu_131_01_metres.bvh"][0].global_positions()
    common = min(len(cmu), len(metres))
    assert np.abs(cmu[:common] - metres[:common]).max() < 0.01


def test_first_frame_values_of_the_cmu_file(loaded) -> None:
    """Root translation and ZYX rotation of frame 0, checked against scipy's Euler maths."""
    clip, info = loaded["cmu_131_01.bvh"]
    assert info.scale == 0.056444
    assert info.rotation_orders[0] == "ZYX"
    np.testing.assert_allclose(
        clip.positions[0, 0], np.array([5.2300, 16.9002, -33.8986]) * 0.056444, atol=1e-12
    )
    assert _is_rotation(clip.rotations[0, 0], _euler_matrix("ZYX", [-5.4029, 9.8098, 10.4956]))
    # LeftHip (joint 2): channels 7–9 of the line, "-5.9433 -1.1854 -30.3108".
    assert clip.skeleton.names[2] == "LeftHip"
    assert _is_rotation(clip.rotations[0, 2], _euler_matrix("ZYX", [-5.9433, -1.1854, -30.3108]))


def test_end_sites_and_names_kept(loaded) -> None:
    clip, _ = loaded["mixamo_stepping.bvh"]
    names = clip.skeleton.names
    assert names[0] == "mixamorig:Hips"
    head_top = names.index("mixamorig:HeadTop_End")
    np.testing.assert_allclose(clip.skeleton.offsets[head_top] * 100, [0.0002, 18.4747, 6.6364],
                               atol=1e-9)
    np.testing.assert_allclose(clip.skeleton.end_sites[head_top], [0, 0, 0])
    cmu, _ = loaded["cmu_131_01.bvh"]
    toe = cmu.skeleton.index("LeftToe")
    np.testing.assert_allclose(cmu.skeleton.end_sites[toe], np.array([0, -0.0, 1.13491]) * 0.056444)
    games, _ = loaded["games105_walk60.bvh"]
    assert games.skeleton.names[0] == "RootJoint"
    assert games.skeleton.names[games.skeleton.parents[games.skeleton.index("lKnee")]] == "lHip"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_round_trip_of_shared_files(loaded, tmp_path: Path, name: str) -> None:
    clip, _ = loaded[name]
    out = tmp_path / name
    bvh.save(clip, out)
    back, info = bvh.load(out, return_info=True)
    assert info.unit == "m"
    assert back.skeleton.names == clip.skeleton.names
    np.testing.assert_array_equal(back.skeleton.parents, clip.skeleton.parents)
    assert back.fps == clip.fps
    assert back.frame_count == clip.frame_count
    assert back.skeleton.end_sites.keys() == clip.skeleton.end_sites.keys()
    error = np.abs(back.global_positions() - clip.global_positions()).max()
    assert error < 1e-6
    # Only the root moves in these files, so only it gets position channels.
    assert [len(c) for c in info.channels] == [6] + [3] * (clip.skeleton.joint_count - 1)


@pytest.mark.parametrize("order", ["XYZ", "ZXY", "yzx"])
def test_save_order_is_written(loaded, tmp_path: Path, order: str) -> None:
    clip = loaded["games105_walk60.bvh"][0][:5]
    bvh.save(clip, tmp_path / "a.bvh", order=order)
    back, info = bvh.load(tmp_path / "a.bvh", return_info=True)
    assert set(info.rotation_orders) == {order.upper()}
    assert np.abs(back.global_positions() - clip.global_positions()).max() < 1e-6


def _write(tmp_path: Path, text: str, name: str = "t.bvh") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


TRAPS = """HIERARCHY
ROOT Reference
{
  OFFSET 0.5 0.0 -0.25
  CHANNELS 3 Yrotation Xrotation Zrotation
  JOINT Pelvis
  {
    OFFSET 0 1 0
    CHANNELS 6 Zrotation Xposition Yrotation Zposition Yposition Xrotation
    JOINT Chest
    {
      OFFSET 0 0.5 0
      CHANNELS 1 Xrotation
      End Site
      {
        OFFSET 0 0.3 0
      }
    }
    JOINT Leg
    {
      OFFSET 0.1 -0.9 0
      CHANNELS 0
    }
  }
}
ROOT Prop
{
  OFFSET 2 0 0
  CHANNELS 3 Xposition Yposition Zposition
}
MOTION
Frames: 2
Frame Time: 0.04
90 0 0   10 0.1 20 0.3 0.2 30   45   1 2 3
0 90 0   0 0.0 0 0.0 0.0 0      0    4 5 6
"""


def test_position_channels_mixed_layouts_and_several_roots(tmp_path: Path) -> None:
    clip, info = bvh.load(_write(tmp_path, TRAPS), scale=1.0, up="y", return_info=True)
    skeleton = clip.skeleton
    assert skeleton.names == ["Reference", "Pelvis", "Chest", "Leg", "Prop"]
    np.testing.assert_array_equal(skeleton.parents, [-1, 0, 1, 1, -1])
    assert clip.fps == 25.0
    assert info.channels[1] == (
        "Zrotation", "Xposition", "Yrotation", "Zposition", "Yposition", "Xrotation"
    )
    assert info.rotation_orders == ("YXZ", "ZYX", "XYZ", "XYZ", "XYZ")
    # Root without position channels sits at its (non-zero) OFFSET.
    np.testing.assert_allclose(clip.positions[:, 0], [[0.5, 0, -0.25]] * 2)
    # Position channels replace Pelvis' OFFSET, frame by frame.
    np.testing.assert_allclose(clip.positions[:, 1], [[0.1, 0.2, 0.3], [0, 0, 0]])
    np.testing.assert_allclose(clip.positions[:, 4], [[1, 2, 3], [4, 5, 6]])
    # Pelvis: Zrotation 10, Yrotation 20, Xrotation 30 in that order.
    pelvis_rotation = _euler_matrix("ZYX", [10, 20, 30])
    assert _is_rotation(clip.rotations[0, 1], pelvis_rotation)
    # Root rotation Y=90 then frame 1 X=90.
    assert _is_rotation(clip.rotations[0, 0], _euler_matrix("Y", [90]))
    assert _is_rotation(clip.rotations[1, 0], _euler_matrix("X", [90]))
    # A single Xrotation channel, and no channels at all.
    assert _is_rotation(clip.rotations[0, 2], _euler_matrix("X", [45]))
    np.testing.assert_allclose(clip.rotations[:, 3], [[1, 0, 0, 0]] * 2)
    np.testing.assert_allclose(skeleton.end_sites[2], [0, 0.3, 0])
    # The global position of Chest in frame 0, by hand: Reference turned 90° about Y.
    reference = _euler_matrix("Y", [90])
    pelvis = reference @ [0.1, 0.2, 0.3] + [0.5, 0, -0.25]
    chest = pelvis + reference @ pelvis_rotation @ [0, 0.5, 0]
    np.testing.assert_allclose(clip.global_positions()[0, 2], chest, atol=1e-12)


def test_traps_round_trip_with_six_channels_where_animated(tmp_path: Path) -> None:
    clip = bvh.load(_write(tmp_path, TRAPS), scale=1.0, up="y")
    bvh.save(clip, tmp_path / "out.bvh", order="XZY")
    back, info = bvh.load(tmp_path / "out.bvh", scale=1.0, up="y", return_info=True)
    assert back.skeleton.names == clip.skeleton.names
    np.testing.assert_array_equal(back.skeleton.parents, clip.skeleton.parents)
    assert [len(c) for c in info.channels] == [3, 6, 3, 3, 6]
    assert back.fps == 25.0
    assert np.abs(back.global_positions() - clip.global_positions()).max() < 1e-6
    np.testing.assert_allclose(back.skeleton.offsets, clip.skeleton.offsets, atol=1e-9)


def _turned(clip: Clip, rotation: np.ndarray) -> Clip:
    """The clip with its root turned by ``rotation`` (w, x, y, z) about the world origin."""
    rotations = clip.rotations.copy()
    positions = clip.positions.copy()
    rotations[:, 0] = quat.mul(rotation, rotations[:, 0])
    positions[:, 0] = quat.rotate(rotation, positions[:, 0])
    skeleton = clip.skeleton
    offsets = skeleton.offsets.copy()
    offsets[0] = quat.rotate(rotation, offsets[0])
    turned = Skeleton(skeleton.names, skeleton.parents, offsets, skeleton.end_sites)
    return Clip(turned, rotations, positions, clip.fps)


Y_UP_TO_Z_UP = quat.from_axis_angle([1.0, 0.0, 0.0], np.pi / 2)


def _rest_turned(clip: Clip, rotation: np.ndarray) -> Clip:
    """The clip expressed in a world turned by ``rotation``: its rest pose turns too."""
    skeleton = clip.skeleton
    # Rotating every offset and end site and conjugating the rotations rotates rest and motion.
    offsets = quat.rotate(rotation, skeleton.offsets)
    end_sites = {j: quat.rotate(rotation, v) for j, v in skeleton.end_sites.items()}
    rotations = quat.mul(quat.mul(rotation, clip.rotations), quat.inv(rotation))
    positions = quat.rotate(rotation, clip.positions)
    turned = Skeleton(skeleton.names, skeleton.parents, offsets, end_sites)
    return Clip(turned, rotations, positions, clip.fps)


@pytest.mark.parametrize("name", ["games105_walk60.bvh", "mixamo_stepping.bvh"])
@pytest.mark.parametrize("arms_along_y", [False, True])
def test_z_up_files_are_detected_and_turned(
    loaded, tmp_path: Path, name: str, arms_along_y: bool
) -> None:
    clip, _ = loaded[name]
    clip = clip[:10]
    # Arms along the file's Y axis make Y and Z extents alike: the symmetry rule decides.
    face = quat.from_axis_angle([0.0, 1.0, 0.0], np.pi / 2 if arms_along_y else 0.0)
    upright = _rest_turned(clip, face)
    z_up = _rest_turned(upright, Y_UP_TO_Z_UP)
    assert np.ptp(z_up.global_positions()[0, :, 2]) > 1.2  # really Z-up now
    bvh.save(z_up, tmp_path / "z.bvh")
    back, info = bvh.load(tmp_path / "z.bvh", return_info=True)
    assert info.up == "z"
    assert 1.4 <= info.standing_height <= 2.0
    np.testing.assert_allclose(back.global_positions(), upright.global_positions(), atol=1e-6)
    forced, info = bvh.load(tmp_path / "z.bvh", up="y", return_info=True)
    assert info.up == "y"
    assert np.ptp(forced.global_positions()[0, :, 2]) > 1.2  # left lying, as asked


def test_explicit_scale_overrides_auto(tmp_path: Path) -> None:
    raw = bvh.load(BVH_DIR / "cmu_131_01.bvh", scale=1.0)
    np.testing.assert_allclose(raw.positions[0, 0], [5.2300, 16.9002, -33.8986])
    mixamo, info = bvh.load(BVH_DIR / "mixamo_stepping.bvh", scale=0.01, return_info=True)
    assert info.unit == "given"
    np.testing.assert_allclose(mixamo.positions[0, 0], [-0.002399, 0.982948, -0.005224])


def test_odd_sized_body_is_fitted_to_1_7_m(tmp_path: Path) -> None:
    # A 0.1 m tall chain: no unit lands near adult height, nor is it a plausible character in
    # metres.
    skeleton = Skeleton(["a", "b", "c"], [-1, 0, 1], [[0, 0, 0], [0, 0.04, 0], [0, 0.06, 0]])
    bvh.save(Clip.from_rest(skeleton, 3, 30.0), tmp_path / "small.bvh")
    clip, info = bvh.load(tmp_path / "small.bvh", return_info=True)
    assert info.unit == "fitted"
    assert info.standing_height == pytest.approx(1.7)
    assert np.ptp(clip.global_positions()[0, :, 1]) == pytest.approx(1.7)
    exact = bvh.load(tmp_path / "small.bvh", scale=1.0)
    np.testing.assert_allclose(exact.skeleton.offsets, skeleton.offsets, atol=1e-12)


@pytest.mark.parametrize("height", [0.3, 5.15])
def test_a_plausible_character_in_metres_reads_back_at_its_size(tmp_path: Path,
                                                                height: float) -> None:
    # A rabbit-sized and a robot-sized chain (RobotExpressive retargeted is 5.15 m): files
    # footfall writes are in metres and must read back so, not scaled to 1.7 m.
    skeleton = Skeleton(["a", "b", "c"], [-1, 0, 1],
                        [[0, 0, 0], [0, height / 3, 0], [0, 2 * height / 3, 0]])
    bvh.save(Clip.from_rest(skeleton, 3, 30.0), tmp_path / "odd.bvh")
    clip, info = bvh.load(tmp_path / "odd.bvh", return_info=True)
    assert info.unit == "m"
    assert np.ptp(clip.global_positions()[0, :, 1]) == pytest.approx(height)


def test_non_depth_first_skeleton_comes_back_in_file_order(tmp_path: Path) -> None:
    skeleton = Skeleton(
        ["root", "left", "right", "left_tip", "right_tip"],
        [-1, 0, 0, 1, 2],
        [[0, 1, 0], [0.2, 0, 0], [-0.2, 0, 0], [0, -0.5, 0], [0, -0.5, 0]],
    )
    rng = np.random.default_rng(3)
    rotations = quat.normalize(rng.normal(size=(4, 5, 4)))
    clip = Clip(skeleton, rotations, np.broadcast_to(skeleton.offsets, (4, 5, 3)), 60.0)
    bvh.save(clip, tmp_path / "a.bvh")
    back = bvh.load(tmp_path / "a.bvh", scale=1.0, up="y")
    order = bvh.depth_first_order(skeleton)
    assert back.skeleton.names == [skeleton.names[j] for j in order]
    np.testing.assert_allclose(
        back.global_positions(), clip.global_positions()[:, order], atol=1e-6
    )


def test_save_replaces_atomically(loaded, tmp_path: Path) -> None:
    target = tmp_path / "a.bvh"
    target.write_text("old")
    bvh.save(loaded["games105_walk60.bvh"][0][:3], target)
    assert target.read_text().startswith("HIERARCHY")
    assert [p.name for p in tmp_path.iterdir()] == ["a.bvh"]


def test_a_failed_save_keeps_the_earlier_file(loaded, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fills half-way through the write: the user's file stays whole and no
    temporary is left beside it."""
    target = tmp_path / "a.bvh"
    target.write_text("the user's earlier file")

    def half_write(self: Path, text: str, **_: object) -> int:
        with open(self, "w", encoding="utf-8") as handle:
            handle.write(text[: len(text) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_write)
    with pytest.raises(BVHError, match="cannot write.*No space left"):
        bvh.save(loaded["games105_walk60.bvh"][0][:3], target)
    monkeypatch.undo()
    assert target.read_text() == "the user's earlier file"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bvh"]


def test_save_errors(loaded, tmp_path: Path) -> None:
    clip = loaded["games105_walk60.bvh"][0][:3]
    with pytest.raises(BVHError, match="rotation order"):
        bvh.save(clip, tmp_path / "a.bvh", order="XXY")
    with pytest.raises(BVHError, match="cannot write"):
        bvh.save(clip, tmp_path / "missing" / "a.bvh")
    bad = clip.copy()
    bad.rotations[1, 4] = np.nan
    with pytest.raises(BVHError, match="frame 1, joint 4"):
        bvh.save(bad, tmp_path / "a.bvh")
    skeleton = Skeleton(["left hip{"], [-1], [[0, 0, 0]])
    with pytest.raises(BVHError, match="joint name"):
        bvh.save(Clip.from_rest(skeleton), tmp_path / "a.bvh")
    assert not (tmp_path / "a.bvh").exists()


GOOD = """HIERARCHY
ROOT Hips
{
\tOFFSET 0 0 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0 10 0
\t\tCHANNELS 3 Zrotation Xrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 10 0
\t\t}
\t}
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 90 0 0 0 0 0 0 0
0 90 0 0 0 0 10 0 0
"""


def test_the_good_sample_loads(tmp_path: Path) -> None:
    clip = bvh.load(_write(tmp_path, GOOD), scale=0.01)
    assert clip.frame_count == 2 and clip.fps == 30.0


BAD_CASES = {
    # name: (text, regex the message must match)
    "missing MOTION": (GOOD.split("MOTION")[0], r"line 15: no MOTION section"),
    "truncated hierarchy": (GOOD[: GOOD.index("\t\tEnd Site")], r"line 9: no MOTION section"),
    "truncated frames": (GOOD[: GOOD.rindex("0 90 0 0 0 0 10")], r"line 17: 'Frames: 2' but 1"),
    "truncated frame line": (GOOD[:-8] + "\n", r"line 20: frame line has 6 values, expected 9"),
    "wrong value count": (
        GOOD.replace("0 90 0 0 0 0 0 0 0", "0 90 0 0 0 0 0 0 0 7"),
        r"line 19: frame line has 10 values, expected 9",
    ),
    "not a number": (GOOD.replace("0 90 0 0 0 0 10", "0 90 0 0 zero 0 10"),
                     r"line 20: 'zero' is not a number"),
    "unknown channel": (GOOD.replace("Xrotation Yrotation\n\t\t", "Xrotation Wrotation\n\t\t"),
                        r"line 9: unknown channel 'Wrotation' on joint 'Spine'"),
    "nan value": (GOOD.replace("0 90 0 0 0 0 10", "0 90 0 0 nan 0 10"),
                  r"line 20: value nan in column 5 is not finite"),
    "inf value": (GOOD.replace("0 90 0 0 0 0 0", "0 inf 0 0 0 0 0"),
                  r"line 19: value inf in column 2"),
    "zero frame time": (GOOD.replace("0.0333333", "0"),
                        r"line 18: frame time must be a positive number"),
    "negative frame time": (GOOD.replace("0.0333333", "-0.1"), r"line 18: frame time"),
    "nan frame time": (GOOD.replace("0.0333333", "nan"), r"line 18: frame time"),
    "empty hierarchy": ("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.1\n",
                        r"line 2: empty hierarchy"),
    "missing opening brace": (GOOD.replace("\tJOINT Spine\n\t{", "\tJOINT Spine\n"),
                              r"line 8: expected '\{', found 'OFFSET'"),
    "missing closing brace": (GOOD.replace("\t}\n}\nMOTION", "\t}\nMOTION"),
                              r"line 15: file ends inside joint 'Hips'; missing '}'"),
    "frame count mismatch": (GOOD.replace("Frames: 2", "Frames: 5"), r"line 17: 'Frames: 5' but 2"),
    "bad frame count": (GOOD.replace("Frames: 2", "Frames: two"), r"line 17: frame count"),
    "missing frames line": (GOOD.replace("Frames: 2\n", ""), r"line 17: expected 'Frames: N'"),
    "missing frame time": (GOOD.replace("Frame Time: 0.0333333\n", ""),
                           r"line 18: expected 'Frame Time"),
    "bad offset": (GOOD.replace("OFFSET 0 10 0", "OFFSET 0 ten 0", 1),
                   r"line 8: OFFSET of 'Spine' must be a number, found 'ten'"),
    "nan offset": (GOOD.replace("OFFSET 0 10 0", "OFFSET 0 nan 0", 1), r"line 8: OFFSET"),
    "bad channel count": (GOOD.replace("CHANNELS 3", "CHANNELS x"), r"line 9: CHANNELS count"),
    "repeated channel": (GOOD.replace("Zrotation Xrotation Yrotation\n\t\t",
                                      "Zrotation Zrotation Yrotation\n\t\t"),
                         r"line 9: joint 'Spine' repeats a channel"),
    "no HIERARCHY": (GOOD.replace("HIERARCHY\n", ""), r"line 1: expected 'HIERARCHY'"),
    "stray word": (GOOD.replace("\tJOINT Spine", "\tBONE Spine"), r"line 6: unexpected 'BONE'"),
    "nameless joint": (GOOD.replace("JOINT Spine", "JOINT"), r"line 6: JOINT without a name"),
    "empty file": ("", r"line 1: the file is empty"),
    "binary garbage": ("\x00\x01\x02\x7f" * 50, r"no MOTION section"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_malformed_input_names_file_and_line(tmp_path: Path, case: str) -> None:
    text, pattern = BAD_CASES[case]
    path = _write(tmp_path, text, "bad.bvh")
    with pytest.raises(BVHError, match=pattern) as caught:
        bvh.load(path)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, FootfallError)


def test_unreadable_paths(tmp_path: Path) -> None:
    with pytest.raises(BVHError, match="nope.bvh: cannot read the file"):
        bvh.load(tmp_path / "nope.bvh")
    with pytest.raises(BVHError, match="cannot read the file"):
        bvh.load(tmp_path)


def test_bad_arguments(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD)
    with pytest.raises(BVHError, match="scale must be"):
        bvh.load(path, scale=-1.0)
    with pytest.raises(BVHError, match="scale must be"):
        bvh.load(path, scale="cm")  # type: ignore[arg-type]
    with pytest.raises(BVHError, match="up must be"):
        bvh.load(path, up="x")  # type: ignore[arg-type]


def test_crlf_and_blank_lines_are_accepted(tmp_path: Path) -> None:
    text = GOOD.replace("0 90 0 0 0 0 10 0 0", "\n0 90 0 0 0 0 10 0 0\n\n").replace("\n", "\r\n")
    clip = bvh.load(_write(tmp_path, text), scale=0.01)
    assert clip.frame_count == 2
    assert _is_rotation(clip.rotations[1, 1], _euler_matrix("Z", [10]))


def test_zero_frames_and_names_with_spaces(tmp_path: Path) -> None:
    text = GOOD.replace("JOINT Spine", "JOINT Upper  Spine").split("Frames:")[0]
    text += "Frames: 0\nFrame Time: 0.0333333\n"
    clip, info = bvh.load(_write(tmp_path, text), scale=0.01, return_info=True)
    assert clip.frame_count == 0
    assert clip.skeleton.names == ["Hips", "Upper Spine"]
    assert info.standing_height == pytest.approx(0.2)  # measured on the rest pose
    bvh.save(clip, tmp_path / "out.bvh")
    back = bvh.load(tmp_path / "out.bvh", scale=1.0)
    assert back.frame_count == 0 and back.skeleton.names == ["Hips", "Upper Spine"]
    np.testing.assert_allclose(back.skeleton.offsets, clip.skeleton.offsets, atol=1e-9)


@pytest.mark.parametrize("order", quat.EULER_ORDERS)
@pytest.mark.parametrize("middle", [90.0, -90.0, 89.9999999])
def test_gimbal_lock_round_trip(tmp_path: Path, order: str, middle: float) -> None:
    """A middle Euler angle at ±90° (gimbal lock in the written order) still comes back."""
    skeleton = Skeleton(["a", "b", "c"], [-1, 0, 1], [[0, 1, 0], [0.3, 0.4, 0.5], [1, 0, 0]])
    angles = np.radians([[[30.0, middle, -70.0]] * 3, [[-120.0, middle, 10.0]] * 3])
    clip = Clip(skeleton, quat.from_euler(angles, order), np.broadcast_to(skeleton.offsets,
                                                                          (2, 3, 3)), 30.0)
    bvh.save(clip, tmp_path / "lock.bvh", order=order)
    back = bvh.load(tmp_path / "lock.bvh", scale=1.0, up="y")
    assert np.abs(back.global_positions() - clip.global_positions()).max() < 1e-6
    assert np.abs(quat.to_matrix(back.rotations) - quat.to_matrix(clip.rotations)).max() < 1e-7


@pytest.mark.parametrize("order", quat.EULER_ORDERS)
def test_to_euler_at_exact_gimbal_lock(order: str) -> None:
    """Regression (quat.to_euler): an exact ±90° middle angle used to miss the lock branch."""
    for middle in (np.pi / 2, -np.pi / 2):
        q = quat.from_euler([np.radians(30.0), middle, np.radians(-70.0)], order)
        back = quat.from_euler(quat.to_euler(q, order), order)
        assert np.abs(quat.to_matrix(back) - quat.to_matrix(q)).max() < 1e-9


def test_motion_must_be_a_keyword(tmp_path: Path) -> None:
    text = GOOD.replace("JOINT Spine", "JOINT MOTIONSpine").replace("\nMOTION\n", "\nMOTIONS\n")
    with pytest.raises(BVHError, match="no MOTION section"):
        bvh.load(_write(tmp_path, text))


def test_skeleton_carried_by_position_channels(loaded, tmp_path: Path) -> None:
    """All OFFSETs zero, every joint translated by its channels (a real exporter's habit):
    size and up axis come from the first frame, and the motion survives."""
    clip = loaded["games105_walk60.bvh"][0][:20]
    skeleton = clip.skeleton
    bare = Skeleton(skeleton.names, skeleton.parents, np.zeros_like(skeleton.offsets),
                    skeleton.end_sites)
    carried = Clip(bare, clip.rotations, clip.positions * 100.0, clip.fps)  # centimetres
    bvh.save(carried, tmp_path / "carried.bvh")
    back, info = bvh.load(tmp_path / "carried.bvh", return_info=True)
    assert all(len(c) == 6 for c in info.channels)
    assert (info.unit, info.up) == ("cm", "y")
    np.testing.assert_allclose(back.global_positions(), clip.global_positions(), atol=1e-6)
