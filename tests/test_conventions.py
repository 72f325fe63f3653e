"""The stages after reading see no file convention (issue: BVH captures of every convention).

Each shared humanoid is written the ways real exports write it — in millimetres, Z-up
centimetres (rest pose and motion alike), walking along +X instead of +Z, under a static
reference root, with XYZ Euler channels, with a rest pose facing +X or −Z (a rig's forward is a
convention too: before, either retargeted 120–370 mm off) — and read back with the default
``load``. Retargeting that variant (as the source onto GAMES-105's skeleton and CesiumMan, or as
the target skeleton for GAMES-105's walk) gives the same joint positions as the original file,
every joint, every frame, to 1e-5 m (the variant turned along +X: the same turned by 90° about
Y).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from conventions import conjugated, eight
from footfall import bvh, quat
from footfall.gltf import load_avatar
from footfall.retarget import Retargeter
from footfall.skeleton import Clip, Skeleton
from test_bvh_real_clips import HUMANOIDS, _under_a_static_root

SECONDS = 1.0  # enough frames for the stance and floor layers; the module stays quick
TOLERANCE = 1e-5  # metres; the files hold 9 decimals
_Z_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.pi / 2)
_TURN = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)  # +Z walking → +X walking
VARIANTS = ("millimetres", "z_up_centimetres", "along_x", "static_root", "xyz_order",
            "rest_facing_x", "rest_facing_back")
#: A rest pose (and the motion with it) facing another way than +Z: a world turn about +Y.
_FACING = {"rest_facing_x": _TURN,
           "rest_facing_back": quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi)}


def _turned_at_the_root(clip: Clip, turn: np.ndarray) -> Clip:
    """``clip`` with its whole motion turned by ``turn`` about the origin (its roots' offsets,
    rotations and positions; the rest pose below the roots unchanged)."""
    skeleton = clip.skeleton
    roots = skeleton.parents < 0
    offsets, rotations, positions = (skeleton.offsets.copy(), clip.rotations.copy(),
                                     clip.positions.copy())
    offsets[roots] = quat.rotate(turn, offsets[roots])
    rotations[:, roots] = quat.mul(turn, rotations[:, roots])
    positions[:, roots] = quat.rotate(turn, positions[:, roots])
    return Clip(Skeleton(list(skeleton.names), skeleton.parents.copy(), offsets,
                         dict(skeleton.end_sites)), rotations, positions, clip.fps)


def write_variant(clip: Clip, variant: str, path: Path) -> Path:
    """Write ``clip`` to ``path`` in one of :data:`VARIANTS`; returns ``path``."""
    if variant == "millimetres":
        path.write_text(bvh.format_bvh(conjugated(clip, quat.identity(()), 1000.0)))
    elif variant == "z_up_centimetres":
        path.write_text(bvh.format_bvh(conjugated(clip, _Z_UP, 100.0)))
    elif variant == "along_x":
        bvh.save(_turned_at_the_root(clip, _TURN), path)
    elif variant == "static_root":
        bvh.save(_under_a_static_root(clip), path)
    elif variant in _FACING:
        bvh.save(conjugated(clip, _FACING[variant], 1.0), path)
    else:
        bvh.save(clip, path, order="XYZ")
    return path


@cache
def original(name: str) -> Clip:
    clip = bvh.load(DATA / "bvh" / name)
    return clip[: int(SECONDS * clip.fps)]


@cache
def variant_clip(name: str, variant: str, folder: Path) -> Clip:
    return bvh.load(write_variant(original(name), variant, folder / f"{variant}_{name}"))


@cache
def targets() -> dict[str, tuple[Skeleton, np.ndarray | None]]:
    avatar = load_avatar(DATA / "avatars" / "CesiumMan.glb")
    return {"games105": (original("games105_walk60.bvh").skeleton, None),
            "CesiumMan": (avatar.skeleton, avatar.rest_rotations)}


def retargeted(clip: Clip, target: Skeleton, rest: np.ndarray | None = None) -> np.ndarray:
    """World joint positions ``(F, J, 3)`` (metres) of ``clip`` retargeted onto ``target``."""
    return Retargeter(clip.skeleton, target, target_rest=rest).apply(clip).global_positions()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("conventions")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", HUMANOIDS)
def test_a_variant_source_retargets_as_the_original(folder: Path, name: str,
                                                    variant: str) -> None:
    source = variant_clip(name, variant, folder)
    for target, rest in targets().values():
        expected = retargeted(original(name), target, rest)
        out = retargeted(source, target, rest)
        if variant == "along_x":
            out = quat.rotate(quat.inv(_TURN), out)
        elif variant in _FACING:  # the whole capture turned: the avatar's motion turns with it
            out = quat.rotate(quat.inv(_FACING[variant]), out)
        assert np.abs(out - expected).max() < TOLERANCE


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", HUMANOIDS)
def test_a_variant_target_receives_as_the_original(folder: Path, name: str,
                                                   variant: str) -> None:
    source = original("games105_walk60.bvh")
    expected = retargeted(source, original(name).skeleton)
    out = retargeted(source, variant_clip(name, variant, folder).skeleton)
    if variant == "static_root":
        out = out[:, 1:]
    assert np.abs(out - expected).max() < TOLERANCE


@pytest.mark.parametrize("name", ["bvhio_example.bvh", "mocapbank_zxy_cm.bvh"])
def test_a_z_up_file_has_the_toe_points_of_the_original(folder: Path, name: str) -> None:
    """bvhio's foot End Site is a sole marker below the ankle (the ball ahead of it at the sole's
    depth), MocapBank's reaches forward to the tip of the toes — in a Z-up file too, whose foot
    frames hold them along Z."""
    from footfall.humanoid import map_skeleton
    from footfall.retarget.toes import Toes

    skeleton = original(name).skeleton
    z_up = variant_clip(name, "z_up_centimetres", folder).skeleton
    toes = Toes.of(skeleton, map_skeleton(skeleton).mapping)
    toes_z = Toes.of(z_up, map_skeleton(z_up).mapping)
    if toes is None:
        assert toes_z is None
        return
    assert toes_z is not None
    # The file's foot frames are the original's turned by _Z_UP, the ball with them.
    np.testing.assert_allclose(toes_z.offsets, quat.rotate(_Z_UP, toes.offsets), atol=1e-9)


@pytest.mark.parametrize("name", HUMANOIDS)
def test_a_z_up_rest_pose_stands_up_by_the_files_own_turn(folder: Path, name: str) -> None:
    """A Z-up file's rest pose lies (the loader turns only its roots); standing it up undoes
    exactly the file's turn, not the few degrees a capture's rest pose leans by as well
    (cmu_131_01 leans 3°: the original is not straightened either)."""
    from footfall.humanoid import map_skeleton, upright_turn

    skeleton = original(name).skeleton
    z_up = variant_clip(name, "z_up_centimetres", folder).skeleton
    turn = upright_turn(skeleton, map_skeleton(skeleton).mapping)
    turn_z = upright_turn(z_up, map_skeleton(z_up).mapping)
    # The file's rest pose is the original's turned by _Z_UP: standing it up turns it back.
    expected = quat.mul(turn, quat.inv(_Z_UP))
    assert min(np.abs(turn_z - expected).max(), np.abs(turn_z + expected).max()) < 1e-9


#: variant: (unit, up axis) ``load`` reports (the last three are written by ``bvh.save``).
READ_AS = {"millimetres": ("mm", "y"), "z_up_centimetres": ("cm", "z"), "along_x": ("m", "y"),
           "static_root": ("m", "y"), "xyz_order": ("m", "y"), "rest_facing_x": ("m", "y"),
           "rest_facing_back": ("m", "y")}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", HUMANOIDS)
def test_a_variant_reads_with_its_unit_up_axis_and_the_originals_height(
        folder: Path, name: str, variant: str) -> None:
    """What ``footfall info`` prints: the variant's own unit and up axis, the body's standing
    height (a static root at the origin is no part of the body: cmu_01_01's feet start 38 mm
    above it)."""
    clip = original(name)
    path = write_variant(clip, variant, folder / f"info_{variant}_{name}")
    _, info = bvh.load(path, return_info=True)
    _, expected = bvh.load(DATA / "bvh" / name, return_info=True)
    assert (info.unit, info.up) == READ_AS[variant]
    assert abs(info.standing_height - expected.standing_height) < 1e-6


@pytest.mark.parametrize("variant", VARIANTS)
def test_footfall_walk_says_how_far_any_variant_walked(folder: Path, variant: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The summary line's metres are the body's (the hips'), not a static root's (which
    never moves: it said 0.00 m)."""
    from footfall.cli import main

    said = []
    for path in (DATA / "bvh" / "games105_walk60.bvh",
                 write_variant(original("games105_walk60.bvh"), variant,
                               folder / f"walk_{variant}.bvh")):
        assert main(["walk", "--skeleton", str(path), "--seconds", "2",
                     "-o", str(folder / f"walked_{variant}.bvh")]) == 0
        said.append(capsys.readouterr().out.rsplit(",", 1)[-1])
    assert said[0] == said[1]
    assert float(said[0].split()[0]) > 1.0


WALKERS = ["games105_walk60.bvh", "cmu_131_01.bvh"]  # cmu_131_01's rest pose leans 3°


def _walk(path: Path, out: Path) -> np.ndarray:
    """World joint positions ``(F, J, 3)`` of ``footfall walk`` up the stairs for 2 s."""
    from footfall.cli import main

    assert main(["walk", "--skeleton", str(path), "--terrain", "stairs", "--seconds", "2",
                 "-o", str(out)]) == 0
    return bvh.load(out).global_positions()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", WALKERS)
def test_a_variant_walks_the_stairs_as_the_original(folder: Path, name: str,
                                                    variant: str) -> None:
    """``footfall walk --skeleton VARIANT --terrain stairs``: the original's walk within 1 mm
    (the walk amplifies the files' 1e-9 m rounding: a re-saved original differs by 0.2 mm)."""
    expected = _walk(DATA / "bvh" / name, folder / f"stairs_{name}")
    path = write_variant(original(name), variant, folder / f"stairs_{variant}_{name}")
    out = _walk(path, folder / f"stairs_out_{variant}_{name}")
    if variant == "static_root":
        out = out[:, 1:]
    assert np.abs(out - expected).max() < 1e-3


def test_footfall_eval_gives_a_z_up_file_the_originals_figures(folder: Path) -> None:
    """``footfall eval --humanoid``: every figure of the humanoid's rows (stairs and slope,
    every walker) as the original's, for the Z-up copy of cmu_131_01, whose leaning rest pose
    was straightened when it was stood up."""
    import json

    from footfall.cli import main

    rows = []
    name = "cmu_131_01.bvh"
    for path in (DATA / "bvh" / name,
                 write_variant(original(name), "z_up_centimetres", folder / f"eval_{name}")):
        out = folder / f"eval_{path.stem}.json"
        assert main(["eval", "--humanoid", str(path), "--heights", "0.15", "--seconds", "2",
                     "--quiet", "--json", str(out)]) == 0
        rows.append([{k: v for k, v in row.items() if k != "character"}
                     for row in json.loads(out.read_text())["rows"]
                     if row["character"].startswith("humanoid")])
    assert len(rows[0]) == len(rows[1]) > 0
    for original_row, row in zip(*rows, strict=True):
        assert original_row.keys() == row.keys()
        for key, value in original_row.items():
            if isinstance(value, float):
                assert value == pytest.approx(row[key], rel=1e-6, abs=1e-9), key
            else:
                assert value == row[key], key


def test_an_eight_of_a_clip_too_short_says_so() -> None:
    """bvhio_example has 2 frames: bending each half needs two, so the eight is refused with
    the frame count rather than numpy's gradient error (the conventions table printed that)."""
    clip = bvh.load(DATA / "bvh" / "bvhio_example.bvh")
    with pytest.raises(ValueError, match="4 frames at least.*has 2"):
        eight(clip, 5.0)
    assert eight(clip[[0, 1, 0, 1]], 5.0).frame_count == 4
