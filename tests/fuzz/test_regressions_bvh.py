"""Minimal reproducers of the BVH defects the hostile-input campaigns found (issues 15 and 26),
each a clear one-line error naming the file and line now, or a clip read as written."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from fuzz_harness import Case, run_cases

from footfall import bvh
from footfall.bvh.reader import MAX_DEPTH, MAX_LINE_CHARS
from footfall.cli import main
from footfall.errors import BVHError, SkeletonError
from footfall.sizes import MAX_REACH_METRES, check_size, reach
from footfall.skeleton import Clip, Skeleton


def _chain(depth: int) -> str:
    """A root with ``depth`` joints nested one inside the other, one frame."""
    lines = ["HIERARCHY", "ROOT Hips", "{", "OFFSET 0 0 0", "CHANNELS 6 Xposition Yposition "
             "Zposition Zrotation Xrotation Yrotation"]
    for index in range(depth):
        lines += [f"JOINT J{index}", "{", "OFFSET 0 1 0",
                  "CHANNELS 3 Zrotation Xrotation Yrotation"]
    lines += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * (depth + 1)
    lines += ["MOTION", "Frames: 1", "Frame Time: 0.033333",
              " ".join(["0"] * (6 + 3 * depth))]
    return "\n".join(lines) + "\n"


SMALL = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Chest
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 0.7 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.033333
0 1 0 0 0 0 0 0 0
0 1 0 0 0 0 0 0 0
"""


def _write(tmp_path: Path, text: str, name: str = "hostile.bvh") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _refused(path: Path, *words: str) -> str:
    with pytest.raises(BVHError) as caught:
        bvh.load(path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    for word in words:
        assert word in message
    return message


def test_deep_nesting_is_a_limit_not_a_recursion_error(tmp_path: Path) -> None:
    """995 nested joints raised RecursionError in the recursive joint parser."""
    message = _refused(_write(tmp_path, _chain(995)), f"nested more than {MAX_DEPTH} deep")
    assert f"line {6 + 4 * (MAX_DEPTH - 1)}:" in message  # the first joint past the limit


def test_nesting_up_to_the_limit_reads(tmp_path: Path) -> None:
    # In centimetres: read as metres, a chain of 256 one-unit bones is longer than
    # footfall.sizes.MAX_REACH_METRES allows (issue 26).
    clip = bvh.load(_write(tmp_path, _chain(MAX_DEPTH - 1)), scale=0.01)
    assert clip.skeleton.joint_count == MAX_DEPTH
    assert clip.global_positions()[0, -1, 1] == pytest.approx(0.01 * (MAX_DEPTH - 1))


@pytest.mark.parametrize("count", ["²", "٣", "7", "99999999999999999999999"])
def test_channel_counts_in_unicode_digits_or_too_many(tmp_path: Path, count: str) -> None:
    """'²'.isdigit() is true but int('²') fails: a ValueError traceback before."""
    text = SMALL.replace("CHANNELS 3", f"CHANNELS {count}")
    _refused(_write(tmp_path, text), "line 9:", "CHANNELS count of 'Chest'")


@pytest.mark.parametrize("count", ["²", "٣", "1" * 5000])
def test_frame_counts_in_unicode_digits_or_huge(tmp_path: Path, count: str) -> None:
    _refused(_write(tmp_path, SMALL.replace("Frames: 2", f"Frames: {count}")), "line 17")


@pytest.mark.parametrize("frame_time", ["5e-324", "1e-6", "0.00001", "1e300", "7200"])
def test_frame_times_out_of_range(tmp_path: Path, frame_time: str) -> None:
    """A subnormal frame time made fps inf (ZeroDivisionError/OverflowError downstream)."""
    text = SMALL.replace("Frame Time: 0.033333", f"Frame Time: {frame_time}")
    _refused(_write(tmp_path, text), "line 18", "frame time")


@pytest.mark.parametrize("value", ["1e308", "-1e308", "1e8", "1.7976931348623157e308"])
def test_huge_offsets_are_refused_not_read_as_inf(tmp_path: Path, value: str) -> None:
    """OFFSETs of ±1e308 loaded and `footfall info` printed 'standing height inf m'."""
    text = SMALL.replace("OFFSET 0 1 0", f"OFFSET 0 {value} 0")
    _refused(_write(tmp_path, text), "line 8:", "OFFSET of 'Chest'")


def test_huge_channel_values_are_refused_with_their_line(tmp_path: Path) -> None:
    text = SMALL.replace("0 1 0 0 0 0 0 0 0\n0 1", "0 1 0 0 0 0 0 0 0\n1e300 1", 1)
    _refused(_write(tmp_path, text), "line 20", "column 1")


def test_joints_flung_far_by_a_tiny_fitted_unit_are_refused(tmp_path: Path) -> None:
    """A body 1e-6 units tall is fitted to 1.7 m, which sends a 1e6-unit root step to 1.7e12 m."""
    text = SMALL.replace("OFFSET 0 1 0", "OFFSET 0 0.000001 0").replace(
        "OFFSET 0 0.7 0", "OFFSET 0 0.0000001 0").replace("0 1 0 0 0 0 0 0 0\n0 1", "0 1 0 0 0 "
                                                          "0 0 0 0\n1000000 1", 1)
    _refused(_write(tmp_path, text), "joints reach", "m from the origin")


def test_duplicate_joint_names_name_the_joint_and_both_lines(tmp_path: Path) -> None:
    """Before: 'joint names must be unique' — which file, which joint, which line?"""
    text = SMALL.replace("JOINT Chest", "JOINT Hips")
    _refused(_write(tmp_path, text), "line 6", "'Hips'", "first on line 2")


def test_well_formed_edge_clips_read(tmp_path: Path) -> None:
    """One frame, 10,000 fps (the limit) and offsets × 1e6 all read as written."""
    one = SMALL.replace("Frames: 2", "Frames: 1").rsplit("0 1 0", 1)[0].rstrip() + "\n"
    assert bvh.load(_write(tmp_path, one, "one.bvh")).frame_count == 1
    fast = SMALL.replace("Frame Time: 0.033333", "Frame Time: 0.0001")
    assert bvh.load(_write(tmp_path, fast, "fast.bvh")).fps == 10_000
    big = SMALL.replace("OFFSET 0 1 0", "OFFSET 0 1000000 0").replace(
        "OFFSET 0 0.7 0", "OFFSET 0 700000 0")
    clip, info = bvh.load(_write(tmp_path, big, "big.bvh"), return_info=True)
    assert info.unit == "fitted" and info.standing_height == pytest.approx(1.7)
    assert np.isfinite(clip.global_positions()).all()


def test_info_prints_one_line_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    path = _write(tmp_path, SMALL.replace("OFFSET 0 1 0", "OFFSET 0 1e308 0"))
    assert main(["info", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and str(path) in captured.err


def test_save_refuses_what_load_would_refuse(tmp_path: Path) -> None:
    """save writes what load reads back: a clip built in code at 1e6 fps is not written."""
    clip = bvh.load(_write(tmp_path, SMALL), scale=1.0)
    fast = Clip(clip.skeleton, clip.rotations, clip.positions, 1e6)
    with pytest.raises(BVHError, match="1e\\+06 fps"):
        bvh.save(fast, tmp_path / "fast.bvh")
    far = Clip(clip.skeleton, clip.rotations, clip.positions + [2e5, 0, 0], 30.0)
    with pytest.raises(BVHError, match="m from the origin"):
        bvh.save(far, tmp_path / "far.bvh")
    assert not (tmp_path / "fast.bvh").exists() and not (tmp_path / "far.bvh").exists()


# ---------------------------------------------------------------------------- issue 26
GAMES105 = Path(__file__).resolve().parent.parent / "data" / "bvh" / "games105_walk60.bvh"
GIANT = 50_000_000  # characters: the token


def _giant(text: str, where: str, by: str) -> bytes:
    """games105_walk60 with the first ``where`` replaced by ``by`` (a 50 MB token)."""
    assert where in text
    return text.replace(where, by, 1).encode()


def _read_in_a_child(path: Path) -> None:
    bvh.load(path)


def test_a_50_mb_token_fails_fast_naming_its_line() -> None:
    """A 50 MB joint name kept the reader busy 60 s (the name split into words letter by
    letter) and was read; a 50 MB number came back in a 50 MB message. Each is now refused at
    its line; run in a child under 5 s of CPU time, each case a hang before."""
    text = GAMES105.read_text()
    head, motion = text.split("MOTION", 1)
    frame_line = motion.split("\n")[3]
    cases = {
        "name.bvh": (_giant(text, "JOINT lHip", "JOINT " + "J" * GIANT), "line 6:"),
        "offset.bvh": (_giant(text, "OFFSET   0.100000", "OFFSET   " + "1" * GIANT), "line 8:"),
        "keyword.bvh": (_giant(text, "ROOT RootJoint", "ROOT" + "T" * GIANT), "line 2:"),
        "frames.bvh": (_giant(text, "Frames: 182", "Frames: " + "1" * GIANT), "line 123:"),
        "frame.bvh": (_giant(text, frame_line, frame_line + "0" * GIANT), "line 125:"),
    }
    results = run_cases([Case("giant", name, data) for name, (data, _) in cases.items()],
                        {"giant": _read_in_a_child}, seconds=5)
    for result in results:
        assert result.outcome == "clean", (result.case.name, result.outcome, result.detail)
        assert cases[result.case.name][1] in result.detail, result.detail
        assert len(result.detail) < 300  # the message, not the token


@pytest.mark.parametrize("line", ["JOINT " + "x" * 5000, "OFFSET 0 1 " + "0" * 2000])
def test_hierarchy_lines_and_words_have_limits(tmp_path: Path, line: str) -> None:
    text = SMALL.replace("JOINT Chest" if line.startswith("JOINT") else "OFFSET 0 1 0", line)
    message = _refused(_write(tmp_path, text), "line 6:" if line.startswith("JOINT") else "line 8:")
    assert len(message) < 300
    assert ("a line of" if len(line) > MAX_LINE_CHARS else "a word of") in message


def test_a_skeleton_kilometres_tall_is_refused_naming_the_file_and_the_size(
        tmp_path: Path) -> None:
    """Offsets × 1e4 read in metres made a 11 km skeleton that grounding sampled every
    centimetre (22.8 GiB at × 1e6): refused when read, with its size."""
    text = GAMES105.read_text()
    head, motion = text.split("MOTION", 1)
    head = re.sub(r"(OFFSET\s+)(\S+)\s+(\S+)\s+(\S+)",
                  lambda m: m.group(1) + " ".join(f"{float(v) * 1e4:.6f}" for v in m.groups()[1:]),
                  head)
    path = tmp_path / "tall.bvh"
    path.write_text(head + "MOTION" + motion)
    with pytest.raises(BVHError) as caught:
        bvh.load(path, scale=1.0)
    message = str(caught.value)
    assert str(path) in message and "1.113e+04 m" in message
    assert f"{MAX_REACH_METRES:g} m" in message
    clip, info = bvh.load(path, return_info=True)  # its unit guessed: a person again
    assert info.unit == "fitted" and reach(clip) == pytest.approx(1.2, abs=0.1)


def test_check_size_refuses_what_grounding_would_choke_on() -> None:
    """The campaign's clip built in code (no reader in between): offsets × 1e6 and no frames.
    ``check_size(clip, source, min_frames=1)`` is the one call an entry makes."""
    clip = bvh.load(GAMES105)
    skeleton = clip.skeleton
    tall = Clip(Skeleton(skeleton.names, skeleton.parents, skeleton.offsets * 1e6,
                         {joint: site * 1e6 for joint, site in skeleton.end_sites.items()}),
                clip.rotations[:1], clip.positions[:1] * 1e6, 1e6)
    with pytest.raises(SkeletonError, match=r"ground_clip: the skeleton reaches 1\.113e\+06 m"):
        check_size(tall, "ground_clip", min_frames=1)
    with pytest.raises(SkeletonError, match="ground_clip: the clip has no frames"):
        check_size(clip[:0], "ground_clip", min_frames=1)
    check_size(clip, "ground_clip", min_frames=1)
    assert reach(clip) == pytest.approx(reach(clip.skeleton))  # no position channel stretches
    # The library's entry makes that call: a clip built in code is refused at once (it asked
    # for 196 GiB of sole samples before).
    from footfall.grounding import ground_clip
    from footfall.terrain import LevelGround

    with pytest.raises(SkeletonError, match="ground_clip: the skeleton reaches"):
        ground_clip(tall, LevelGround(0.0))


def test_reach_bounds_every_pose() -> None:
    """The reach (summed bone lengths) is no smaller than any frame's farthest joint from the
    root, whatever the rotations."""
    clip = bvh.load(GAMES105)
    _, positions = clip.forward_kinematics()
    farthest = np.linalg.norm(positions - positions[:, :1], axis=-1).max()
    assert farthest <= reach(clip) + 1e-9
