"""Every shared BVH capture (tests/data/bvh, nine conventions): what it holds, which way is up,
and a save that the default load reads back identically."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import ALL_BVH_FILES
from conventions import conjugated
from footfall import bvh, quat
from footfall.skeleton import Clip, Skeleton

# file: (frames, fps, joints, detected unit, file's up axis) — SOURCES.md and the files' headers.
EXPECTED = {
    "bvhio_example.bvh": (2, 30.0, 18, "inch", "y"),
    "cmu_01_01_fairmotion.bvh": (2752, 120.0, 31, "cmu", "y"),
    "cmu_131_01.bvh": (994, 120.0, 31, "cmu", "y"),
    "cmu_131_01_metres.bvh": (995, 120.0, 31, "m", "y"),
    "games105_walk60.bvh": (182, 60.0, 20, "m", "y"),
    "mixamo_stepping.bvh": (69, 30.0, 55, "cm", "y"),
    "mocapbank_zxy_cm.bvh": (455, 30.0, 19, "cm", "y"),
    "pybvh_rotation_first_root.bvh": (4, 25.0, 4, "cmu", "y"),
    "pybvh_test1_zup_inches.bvh": (75, 30.0, 24, "inch", "z"),
}
NAMES = [path.name for path in ALL_BVH_FILES]


@pytest.fixture(scope="module")
def loaded() -> dict[str, tuple[Clip, bvh.BVHInfo]]:
    return {path.name: bvh.load(path, return_info=True) for path in ALL_BVH_FILES}


def test_all_nine_files_are_listed() -> None:
    assert sorted(NAMES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
def test_frames_fps_joints_unit_and_up(loaded, name: str) -> None:
    clip, info = loaded[name]
    frames, fps, joints, unit, up = EXPECTED[name]
    assert clip.frame_count == frames
    assert clip.fps == fps
    assert clip.skeleton.joint_count == joints
    assert info.unit == unit
    assert info.up == up


@pytest.mark.parametrize("name", [n for n in NAMES if n != "pybvh_rotation_first_root.bvh"])
def test_humanoids_stand_upright_in_y(loaded, name: str) -> None:
    """After load every humanoid's head is above its feet along +Y (the world's up)."""
    clip, _ = loaded[name]
    names = clip.skeleton.names
    head = next(i for i, n in enumerate(names) if "head" in n.lower())
    points = clip.global_positions()[0]
    along = points[head] - points.min(axis=0)
    assert along[1] > 1.0  # metres of body under the head, along Y
    assert along[1] > 2.0 * abs(points[head, 2] - np.median(points[:, 2]))


@pytest.mark.parametrize("name", NAMES)
def test_save_then_default_load_is_identical(loaded, tmp_path: Path, name: str) -> None:
    """Positions of every joint in every frame to 1e-6 m, from any source convention."""
    clip, _ = loaded[name]
    out = tmp_path / name
    bvh.save(clip, out)
    back, info = bvh.load(out, return_info=True)
    assert (info.unit, info.up) == ("m", "y")
    assert back.skeleton.names == clip.skeleton.names
    np.testing.assert_array_equal(back.skeleton.parents, clip.skeleton.parents)
    assert (back.frame_count, back.fps) == (clip.frame_count, clip.fps)
    error = np.abs(back.global_positions() - clip.global_positions()).max()
    assert error < 1e-6


def _creature(length_z: float, height_y: float) -> Clip:
    """A four-legged creature (not a humanoid: no limb names) standing on Y, long along Z."""
    names = ["body", "tail", "neck", "snout", "leg_a", "leg_b", "leg_c", "leg_d"]
    parents = np.array([-1, 0, 0, 2, 0, 0, 0, 0])
    half = length_z / 2
    offsets = np.array([
        [0, height_y, 0], [0, 0, -half], [0, 0.1, half], [0, 0.05, 0.1],
        [0.15, -height_y, half * 0.8], [-0.15, -height_y, half * 0.8],
        [0.15, -height_y, -half * 0.8], [-0.15, -height_y, -half * 0.8],
    ])
    skeleton = Skeleton(names, parents, offsets)
    frames = 3
    rotations = quat.identity((frames, len(names)))
    positions = np.broadcast_to(offsets, (frames, len(names), 3)).copy()
    positions[:, 0, 2] = np.arange(frames) * 0.05
    return Clip(skeleton, rotations, positions, 30.0)


@pytest.mark.parametrize("length_z", [1.2, 2.0, 4.0])
def test_a_y_up_creature_wider_than_tall_stays_y_up(tmp_path: Path, length_z: float) -> None:
    creature = _creature(length_z, 0.5)
    bvh.save(creature, tmp_path / "dog.bvh")
    back, info = bvh.load(tmp_path / "dog.bvh", scale=1.0, return_info=True)
    assert info.up == "y"
    np.testing.assert_allclose(back.global_positions(), creature.global_positions(), atol=1e-6)


def test_z_up_source_saved_and_reloaded_is_not_turned_twice(loaded, tmp_path: Path) -> None:
    """The issue's case: pybvh_test1_zup_inches.bvh loaded, saved, reloaded with defaults."""
    clip, _ = loaded["pybvh_test1_zup_inches.bvh"]
    bvh.save(clip, tmp_path / "again.bvh")
    back = bvh.load(tmp_path / "again.bvh")
    head = next(i for i, n in enumerate(clip.skeleton.names) if "head" in n.lower())
    np.testing.assert_allclose(back.global_positions()[:, head], clip.global_positions()[:, head],
                               atol=1e-6)


def _under_a_static_root(clip: Clip) -> Clip:
    """``clip`` under an extra root joint that never moves (exports that put a reference node
    above the hips); the hips keep their position channels."""
    skeleton, frames = clip.skeleton, clip.frame_count
    parents = np.r_[-1, np.where(skeleton.parents < 0, 0, skeleton.parents + 1)]
    return Clip(Skeleton(["Reference", *skeleton.names], parents,
                         np.r_[np.zeros((1, 3)), skeleton.offsets],
                         {j + 1: e for j, e in skeleton.end_sites.items()}),
                np.concatenate([quat.identity((frames, 1)), clip.rotations], axis=1),
                np.concatenate([np.zeros((frames, 1, 3)), clip.positions], axis=1), clip.fps)


_Y_TO_Z_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.pi / 2)
#: convention: (world turn, metres → file unit, expected unit, expected up)
CONVENTIONS = {
    "millimetres": (quat.identity(()), 1000.0, "mm", "y"),
    "z_up_metres": (_Y_TO_Z_UP, 1.0, "m", "z"),
    "z_up_centimetres": (_Y_TO_Z_UP, 100.0, "cm", "z"),
    "z_up_millimetres": (_Y_TO_Z_UP, 1000.0, "mm", "z"),
}
HUMANOIDS = [n for n in NAMES if n not in ("pybvh_rotation_first_root.bvh",
                                           "cmu_131_01_metres.bvh")]


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("name", HUMANOIDS)
def test_other_conventions_read_as_the_original(loaded, tmp_path: Path, name: str,
                                                convention: str) -> None:
    """Every shared humanoid written in another unit and up axis (rest pose and motion alike)
    loads with the default ``load`` as the original: every joint, every frame, to 1e-6 m."""
    clip, _ = loaded[name]
    turn, scale, unit, up = CONVENTIONS[convention]
    path = tmp_path / f"{convention}.bvh"
    path.write_text(bvh.format_bvh(conjugated(clip, turn, scale)))
    back, info = bvh.load(path, return_info=True)
    assert (info.unit, info.up) == (unit, up)
    error = np.abs(back.global_positions() - clip.global_positions()).max()
    assert error < 1e-6


@pytest.mark.parametrize("name", HUMANOIDS)
def test_a_static_root_above_the_hips_changes_nothing(loaded, tmp_path: Path, name: str) -> None:
    clip, _ = loaded[name]
    bvh.save(_under_a_static_root(clip), tmp_path / "rooted.bvh")
    back = bvh.load(tmp_path / "rooted.bvh")
    error = np.abs(back.global_positions()[:, 1:] - clip.global_positions()).max()
    assert error < 1e-6


#: How other tools save the same text: a byte-order mark (Windows editors), UTF-16 ("Unicode"
#: in Notepad), keywords in lower case.
SPELLINGS = {
    "utf8_bom": lambda text: "\ufeff".encode() + text.encode(),
    "utf16": lambda text: text.encode("utf-16"),
    "utf16_be": lambda text: "\ufeff".encode("utf-16-be") + text.encode("utf-16-be"),
    "lower_case_motion": lambda text: text.replace("MOTION", "motion").replace(
        "Frames:", "frames:").replace("Frame Time:", "frame time:").encode(),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_other_spellings_of_the_same_file_read_alike(loaded, tmp_path: Path,
                                                     spelling: str) -> None:
    """A file re-saved by another tool reads as the original (before: "expected 'HIERARCHY',
    found '\ufeffHIERARCHY'" for a BOM, "no MOTION section" in lower case)."""
    name = "games105_walk60.bvh"
    clip, _ = loaded[name]
    text = (Path(__file__).parent / "data" / "bvh" / name).read_text()
    path = tmp_path / f"{spelling}.bvh"
    path.write_bytes(SPELLINGS[spelling](text))
    back = bvh.load(path)
    assert np.abs(back.global_positions() - clip.global_positions()).max() < 1e-9

