"""Grounding any clip (``footfall ground``) on the real BVH files and the three terrains."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import BVH_FILES
from footfall import bvh, metrics
from footfall.cli import main
from footfall.errors import SkeletonError
from footfall.grounding.postprocess import _clip_setup, clip_feet, ground_clip, place_clip
from footfall.skeleton import Clip
from footfall.terrain import scene

TERRAINS = {name: scene(name) for name in ("stairs", "hills", "rocks")}
FRAMES = 300  # the first few hundred frames keep the test fast


@pytest.fixture(scope="module")
def clips() -> dict[str, Clip]:
    out = {}
    for path in BVH_FILES:
        clip = bvh.load(path)
        out[path.name] = clip[: min(FRAMES, clip.frame_count)]
    return out


@pytest.mark.parametrize("terrain", sorted(TERRAINS))
@pytest.mark.parametrize("name", [p.name for p in BVH_FILES])
def test_grounded_clip_meets_the_issue(clips: dict[str, Clip], name: str, terrain: str) -> None:
    clip = clips[name]
    result = ground_clip(clip, TERRAINS[terrain])
    out = result.clip
    assert np.all(np.isfinite(out.rotations)) and np.all(np.isfinite(out.positions))
    # bone lengths exact: only rotations and the root translation change
    assert np.array_equal(out.positions[:, 1:], clip.positions[:, 1:])
    assert out.skeleton is clip.skeleton and out.fps == clip.fps
    assert out.frame_count == clip.frame_count
    after, before = result.after, result.before
    assert result.contacts.mean() > 0.2  # contacts were found in the motion itself
    assert after["penetration_m"] <= 0.005
    assert after["floating_m"] <= 0.005
    assert after["contact_skate_ratio"] <= 0.02
    assert after["foot_skate_ratio"] <= 0.02  # GMD's ratio, every clip, every terrain
    assert result.fallback_frames == 0
    # the terrain really was uneven under the raw clip (placed over its roughest stretch)
    assert before["contact_error_m"] > after["contact_error_m"]
    assert before["penetration_m"] > 0.02


def test_flat_ground_only_cleans_the_contacts(clips: dict[str, Clip]) -> None:
    clip = clips["games105_walk60.bvh"]
    result = ground_clip(clip, scene("flat"), place=False)
    # not placed: the root keeps its path over the ground, the body only moves vertically
    assert result.clip.positions[:, 0, [0, 2]] == pytest.approx(clip.positions[:, 0, [0, 2]])
    _, before = clip.forward_kinematics()
    _, after = result.clip.forward_kinematics()
    spine = [j for j, n in enumerate(clip.skeleton.names) if "Hip" not in n and "Knee" not in n
             and "Ankle" not in n and "Toe" not in n and n.startswith(("l", "r")) is False]
    assert np.abs((after - before)[:, spine][..., [0, 2]]).max() < 1e-9
    assert np.abs((after - before)[:, spine, 1]).max() < 0.05
    # this clip's feet dip up to 1.4 cm below its own floor; grounded, they touch exactly
    assert result.before["penetration_m"] > 0.001
    assert result.after["penetration_m"] <= 0.001
    assert result.after["floating_m"] <= 0.001


def test_whole_cmu_clip_does_not_skate() -> None:
    clip = bvh.load(BVH_FILES[0].parent / "cmu_131_01_metres.bvh")
    result = ground_clip(clip, TERRAINS["stairs"])
    assert result.before["foot_skate_ratio"] > 0.2  # the feet cut through the stairs before
    assert result.after["foot_skate_ratio"] <= 0.02
    assert result.after["penetration_m"] <= 0.005 and result.after["floating_m"] <= 0.005


def test_push_off_stays_locked_until_the_toe_lifts(clips: dict[str, Clip]) -> None:
    # games105's toe tip slides 0.35 – 0.6 m/s on the floor at push-off (frames 76 – 81 of
    # the left foot) after heel and ball speeds end the raw contact; the held contact keeps it
    # locked, so the ball no longer skates under 5 cm (GMD ratio 0.127 before the hold)
    clip = clips["games105_walk60.bvh"]
    result = ground_clip(clip, scene("flat"))
    assert result.contacts[76:81, 0].all() and not result.contacts[84, 0]
    assert result.after["foot_skate_ratio"] == 0.0
    legs, models, _, _ = _clip_setup(clip, None)
    feet = clip_feet(result.clip.rotations, result.clip.positions, clip.skeleton, legs, models)
    ball_step = np.linalg.norm(np.diff(feet.toe[70:81, 0][:, [0, 2]], axis=0), axis=-1)
    assert ball_step.max() < 1e-6  # pinned


def test_swinging_soles_keep_their_clearance_over_stairs(clips: dict[str, Clip]) -> None:
    # a swing toe used to cut 8 cm into a stair (games105, right foot); each swinging sole
    # sample now keeps at least the height it had over the animation's own floor
    stairs = TERRAINS["stairs"]
    placed = place_clip(clips["games105_walk60.bvh"], stairs)
    legs, models, floor, source = _clip_setup(placed, None)
    result = ground_clip(placed, stairs, place=False)
    feet = clip_feet(result.clip.rotations, result.clip.positions, placed.skeleton, legs, models)
    gaps = metrics.ground_gaps(stairs, feet.sole)
    swing = ~result.contacts
    assert np.nanmin(gaps[swing] - (source.sole[..., 1] - floor)[swing]) > -1e-6
    assert np.nanmin(gaps[swing]) > 0.0  # nothing inside the stairs


def test_fast_swings_keep_the_ball_clear_and_the_switch_turns_it_off(
    clips: dict[str, Clip],
) -> None:
    # mixamo_stepping's quick low steps drag the toes along the floor at up to 5 m/s: grounded,
    # every swinging ball that moves faster than 0.5 m/s is at least 5 cm over the ground
    clip = clips["mixamo_stepping.bvh"]
    flat = scene("flat")
    result = ground_clip(clip, flat)
    legs, models, _, _ = _clip_setup(clip, None)
    feet = clip_feet(result.clip.rotations, result.clip.positions, clip.skeleton, legs, models)
    height = metrics.ground_gaps(flat, feet.toe)
    speed = np.linalg.norm(np.diff(feet.toe[..., [0, 2]], axis=0), axis=-1) * clip.fps
    fast = (speed > 0.5) & ~result.contacts[:-1]
    assert fast.sum() > 10
    assert height[:-1][fast].min() >= 0.05
    assert 0.03 < result.swing_lift_max_m < 0.08  # raised a few centimetres, no more
    assert result.report()["swing_lift_max_m"] == result.swing_lift_max_m
    # switched off, the toes drag as animated and GMD's test counts them
    plain = ground_clip(clip, flat, ball_clearance=0.0)
    assert plain.after["foot_skate_ratio"] > 0.2
    assert plain.swing_lift_max_m < result.swing_lift_max_m
    with pytest.raises(SkeletonError, match="ball_clearance"):
        ground_clip(clip, flat, ball_clearance=-0.01)


def test_clips_are_placed_over_the_rocks_and_in_the_middle_of_flat_ground(
    clips: dict[str, Clip],
) -> None:
    clip = clips["games105_walk60.bvh"]
    rocks, flat = TERRAINS["rocks"], scene("flat")
    legs, _, _, _ = _clip_setup(clip, None)
    _, gpos = place_clip(clip, rocks).forward_kinematics()
    under = rocks.height(gpos[:, [leg.foot for leg in legs]][..., [0, 2]])
    assert under.max() > 0.08 and under.std() > 0.02  # boulders under the feet
    (x0, _), (x1, _) = flat.bounds
    _, gpos = place_clip(clip, flat).forward_kinematics()
    middle = (gpos[:, 0, 0].min() + gpos[:, 0, 0].max()) / 2
    assert middle == pytest.approx((x0 + x1) / 2, abs=1e-6)


def test_locked_feet_stay_put_on_a_faceted_mesh(clips: dict[str, Clip], tmp_path) -> None:
    # The rocks scene exported as a triangle mesh: the normal under a moving ankle jumps from
    # face to face. The sole angles are smoothed once and held over the correction passes, so
    # the lock correction holds: no planted ball slides (it slid at up to 4 m/s before).
    import trimesh

    from footfall.terrain import load_mesh

    rocks = TERRAINS["rocks"]
    path = tmp_path / "rocks.obj"
    trimesh.Trimesh(np.asarray(rocks.vertices), np.asarray(rocks.faces)).export(path)
    mesh = load_mesh(path)
    result = ground_clip(clips["games105_walk60.bvh"], mesh)
    assert result.after["contact_skate_ratio"] <= 0.02
    assert result.after["foot_skate_ratio"] <= 0.02
    assert result.after["penetration_m"] <= 0.005 and result.after["floating_m"] <= 0.005
    assert result.before["penetration_m"] > 0.02  # boulders under the feet


def test_nan_in_a_clip_names_frame_and_joint(clips: dict[str, Clip]) -> None:
    clip = clips["games105_walk60.bvh"].copy()
    clip.rotations[7, 3, 1] = np.nan
    with pytest.raises(SkeletonError, match=r"frame 7.*" + clip.skeleton.names[3]):
        ground_clip(clip, TERRAINS["stairs"])


def test_feet_off_the_terrain_fall_back_and_say_so(clips: dict[str, Clip]) -> None:
    small = scene("flat", length=2.0, width=1.0)
    result = ground_clip(clips["games105_walk60.bvh"], small, place=False)
    assert result.fallback_frames > 0
    assert "out of reach" in result.warnings[0]
    assert np.all(np.isfinite(result.clip.positions))
    assert result.report()["fallback_frames"] == result.fallback_frames


def test_ground_command_writes_bvh_and_report(tmp_path, capsys) -> None:
    source = BVH_FILES[0].parent / "games105_walk60.bvh"
    out, report = tmp_path / "out.bvh", tmp_path / "report.json"
    code = main(["ground", str(source), "--terrain", "stairs", "-o", str(out),
                 "--report", str(report), "--quiet"])
    assert code == 0
    data = json.loads(report.read_text())
    for side in ("before", "after"):
        assert {"penetration_m", "floating_m", "foot_skate_ratio", "contact_error_m"} <= set(
            data[side])
    grounded, original = bvh.load(out), bvh.load(source)
    assert grounded.skeleton.names == original.skeleton.names
    assert grounded.fps == original.fps
    assert grounded.skeleton.bone_lengths() == pytest.approx(original.skeleton.bone_lengths())
    assert "penetration_m" in capsys.readouterr().out


def test_ground_command_on_a_mesh_file(tmp_path) -> None:
    import trimesh

    stairs = TERRAINS["stairs"]
    mesh_path = tmp_path / "stairs.obj"
    trimesh.Trimesh(stairs.vertices, stairs.faces, process=False).export(mesh_path)
    source = BVH_FILES[0].parent / "mixamo_stepping.bvh"
    out = tmp_path / "out.bvh"
    assert main(["ground", str(source), "--terrain", str(mesh_path), "-o", str(out),
                 "--quiet"]) == 0
    assert bvh.load(out).frame_count == bvh.load(source).frame_count


def test_ground_command_bad_input(tmp_path, capsys) -> None:
    source = BVH_FILES[0].parent / "mixamo_stepping.bvh"
    assert main(["ground", str(source), "--terrain", "moon", "-o", str(tmp_path / "o.bvh")]) == 2
    assert "neither a scene" in capsys.readouterr().err
    broken = tmp_path / "broken.bvh"
    broken.write_text("HIERARCHY\nROOT Hips\n{\n")
    assert main(["ground", str(broken), "--terrain", "stairs", "-o", str(tmp_path / "o.bvh")]) == 2


def _write_heightmap(path) -> None:  # noqa: ANN001
    from PIL import Image

    x = np.linspace(0.0, 1.0, 64)
    ramp = 0.5 + 0.5 * np.sin(2 * np.pi * 3 * x)[None, :] * np.cos(2 * np.pi * 2 * x)[:, None]
    Image.fromarray((ramp * 255).astype(np.uint8), mode="L").save(path)


def test_ground_command_on_a_heightmap_image(tmp_path) -> None:
    image = tmp_path / "bumps.png"
    _write_heightmap(image)
    source = BVH_FILES[0].parent / "games105_walk60.bvh"
    out, report = tmp_path / "out.bvh", tmp_path / "report.json"
    assert main(["ground", str(source), "--terrain", str(image), "--size", "8", "8",
                 "--height-range", "0", "0.3", "-o", str(out), "--report", str(report),
                 "--quiet"]) == 0
    data = json.loads(report.read_text())
    # the bumps were under the feet (0.3 m range over 8 m), and the grounded feet meet them
    assert data["before"]["penetration_m"] > 0.05  # flat-floor feet sink into the bumps
    assert data["after"]["penetration_m"] <= 0.005 and data["after"]["floating_m"] <= 0.005
    assert data["fallback_frames"] == 0
    assert bvh.load(out).frame_count == bvh.load(source).frame_count


def test_ground_command_heightmap_errors(tmp_path, capsys) -> None:
    source = BVH_FILES[0].parent / "mixamo_stepping.bvh"
    out = str(tmp_path / "o.bvh")
    fake = tmp_path / "fake.png"
    fake.write_text("not an image")
    assert main(["ground", str(source), "--terrain", str(fake), "-o", out]) == 2
    assert "cannot read heightmap image" in capsys.readouterr().err
    image = tmp_path / "bumps.png"
    _write_heightmap(image)
    assert main(["ground", str(source), "--terrain", str(image), "--size", "0", "5",
                 "-o", out]) == 2
    assert "size_xz must be two positive" in capsys.readouterr().err
    assert main(["ground", str(source), "--terrain", str(tmp_path / "missing.png"),
                 "-o", out]) == 2
    assert "neither a scene" in capsys.readouterr().err

