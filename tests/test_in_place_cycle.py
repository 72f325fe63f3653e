"""A clip walked in place — its root motion taken out, so the ground slides back under a planted
foot — is grounded on the level its feet return to, with contacts judged with that motion put
back (``footing.clip_contacts.treadmill_travel``); a clip that travels is judged as before.

Kenney's FBX walk (21 frames at 24 fps) is such a cycle: its stance feet slide back 0.23-0.39 m
a frame and it ends on a 5-frame held pose. By world speed alone the only planted frames were
the held ones, and its floor was the raised toe joint's height, 0.152 m, where its mesh stands
at 0.0; on level ground the swing of frame 6 was lifted 30 mm for one frame (its toe-end joint
34 mm under that floor) and PhysDiff read 65.8 mm of "penetration" before grounding.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import DATA, HUMANOID_BVH_FILES
from conventions import VARIANTS
from footfall import bvh
from footfall.footing import treadmill_travel
from footfall.footing.foot_model import calibration_frames, legs_of
from footfall.grounding.clip import prepare_clip
from footfall.grounding.clip.contacts import sole_support
from footfall.motion_io import load_motion
from footfall.skeleton import Clip

KENNEY = DATA / "fbx" / "maya_kenney_character_7700_binary.fbx"
#: Where Kenney's mesh stands (metres): its lowest evaluated vertex in Blender 3.4 is -0.6 to
#: +0.3 cm in the stance frames (2-4, 9-12) and +0.1 cm in the held pose (the right heel down).
MESH_FLOOR = 0.0
#: The shared files walked in place: Kenney's cycle, and the same cycle from Blender (Z up).
IN_PLACE_FILES = ("maya_kenney_character_7700_binary.fbx", "kenney_zup_metres.fbx")


def _motion(clip: Clip) -> Clip:
    return clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]


def _in_place(clip: Clip) -> Clip:
    """``clip`` with its root's horizontal travel taken out: walked in place."""
    positions = clip.positions.copy()
    root = int(np.nonzero(clip.skeleton.parents < 0)[0][0])
    positions[:, root, [0, 2]] = positions[:1, root, [0, 2]]
    return Clip(clip.skeleton, clip.rotations, positions, clip.fps)


def _foot_heights(clip: Clip) -> dict[str, np.ndarray]:
    """Each foot joint's height ``(F,)`` by name: the foot joints and every joint below them."""
    _, positions = clip.forward_kinematics()
    skeleton = clip.skeleton
    feet = {leg.foot for leg in legs_of(skeleton)}
    return {skeleton.names[j]: positions[:, j, 1] for j in range(skeleton.joint_count)
            if feet & set(skeleton.chain(j))}


def test_kenneys_in_place_cycle_stands_where_its_mesh_does_and_no_swing_snaps(tmp_path,
                                                                              capsys) -> None:
    # As a user runs it, measured on the file written. Before: floor 0.152 m, the right foot
    # lifted 30 mm at frame 6 alone (its ankle's largest 2nd difference 142 -> 202 mm), PhysDiff
    # 65.8 mm before grounding. Now: floor 0.005 m, no foot joint's 2nd difference beyond the
    # source's, PhysDiff 4.0 mm before (the source's push-off toes at frames 5 and 13: its
    # toe-end joints 5.5 and 3.0 cm under the floor, its mesh 4.9 and 2.4 cm in Blender) and
    # 0.5 after (those two swing frames lifted out of the floor, 50 and 25 mm).
    from footfall.cli import main

    out, report = tmp_path / "level.bvh", tmp_path / "report.json"
    assert main(["ground", str(KENNEY), "--terrain", "level", "-o", str(out), "--report",
                 str(report), "--quiet"]) == 0
    capsys.readouterr()
    data = json.loads(report.read_text())
    assert abs(data["floor_m"] - MESH_FLOOR) <= 0.01, f"floor {data['floor_m']:.3f} m"
    assert data["before"]["physdiff_penetration_mm"] <= 10.0
    source = _foot_heights(_motion(load_motion(KENNEY).clip))
    written = _foot_heights(bvh.load(out))
    assert set(source) <= set(written) and len(source) >= 6
    for name, height in source.items():
        before = np.abs(np.diff(height, 2)).max()
        after = np.abs(np.diff(written[name], 2)).max()
        assert after <= before + 0.002, f"{name}: 2nd difference {before:.3f} -> {after:.3f} m"


#: The variants of games105_walk60 walked in place, and the share of frames whose contacts must
#: be the travelling walk's (a walk bent into a circle turns its treadmill: 0.94 of them).
WALKS = {"as_is": 0.95, "mirrored": 0.95, "fps30": 0.95, "fps120": 0.95, "circle": 0.9}


@pytest.mark.parametrize("variant", sorted(WALKS))
def test_a_walk_with_its_root_travel_taken_out_keeps_the_walks_floor_and_contacts(variant: str
                                                                                   ) -> None:
    # The expected floor and contacts are the travelling walk's own. Without the rule the walk
    # in place had no contact (36% of frames agreeing: those both feet swing in) and a floor
    # 4 mm lower; now the same floor and 98-100% of the contacts (94% in a circle).
    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    clip = _motion(clip if variant == "as_is" else VARIANTS[variant](clip))
    legs = legs_of(clip.skeleton)
    walk = prepare_clip(clip, legs)
    in_place = prepare_clip(_in_place(clip), legs)
    assert walk.contacts.any(axis=0).all()
    assert abs(in_place.floor - walk.floor) <= 0.01
    agree = float((in_place.contacts == walk.contacts).mean())
    assert agree >= WALKS[variant], f"contacts agree in {agree:.1%} of frames"


@pytest.mark.parametrize("path", [*HUMANOID_BVH_FILES, *sorted((DATA / "fbx").glob("*.fbx"))],
                         ids=lambda path: path.name)
def test_only_a_clip_walked_in_place_is_judged_with_its_ground_put_back(path) -> None:  # noqa: ANN001
    # Every shared file travels or stands (its floor and contacts bit-identical before and
    # after the rule came in) but Kenney's cycle; the walk taken in place is one.
    clip = _motion(load_motion(path).clip)
    legs = legs_of(clip.skeleton)

    def walked_in_place(motion: Clip) -> bool:
        feet = prepare_clip(motion, legs).feet
        return treadmill_travel(sole_support(feet), feet.ball) is not None

    assert walked_in_place(clip) == (path.name in IN_PLACE_FILES)
    if path.name == "games105_walk60.bvh":
        assert walked_in_place(_in_place(clip))


def test_a_standing_heel_that_swivels_a_little_is_no_treadmill() -> None:
    # Two feet standing, the left heel (the lowest point) swivelling 2 cm about its ball over a
    # second: the ground went 2 cm, a weight shift's worth, while the feet stayed: no walk.
    frames = 60
    points = np.zeros((frames, 2, 2, 3))  # (frame, foot, heel / ball, xyz)
    points[:, :, :, 0] = [[-0.1], [0.1]]  # the feet side by side
    points[:, :, 1, 2] = 0.15  # the balls ahead of the heels
    points[:, :, 1, 1] = 0.01  # ... and a little higher
    points[:, 0, 0, 0] += np.linspace(0.0, 0.02, frames)
    assert treadmill_travel(points, points[:, :, 1]) is None


#: The sliding figures of the report (``footfall.metrics.clip.score``), each against the ground,
#: and how near the walk's its in-place copy reads them: the ground under a cycle is known only
#: as its planted feet show it, so a little of their slip goes with the ground (games105:
#: contact skate 0.083 -> 0.028, GMD's ratio at 30 fps 0.111 -> 0.056, stance slip 8.1 -> 6.4
#: mm a frame, 13.8 -> 10.6 at 30 fps).
TOLERANCE = {"gmd_foot_skate_ratio": 0.06, "physdiff_sliding_mm": 2.0, "stance_slip_m": 0.004,
             "contact_skate_ratio": 0.06}


@pytest.mark.parametrize("variant", ["as_is", "circle", "fps30"])
def test_a_walk_in_place_slides_as_much_over_its_ground_as_the_walk_over_the_floor(
        variant: str) -> None:
    # The expected figures are the travelling walk's own, measured the same way: taken in place
    # the world saw its planted feet slide back at walking speed (PhysDiff's sliding 0.0 ->
    # 26 mm, the stance slip 8 mm -> 21 mm a frame); over the ground that travels under it
    # (the report's ground_travel_m, about the root travel taken out) they are the walk's.
    from footfall.grounding.clip import ground_clip
    from footfall.terrain import LevelGround

    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    clip = _motion(clip if variant == "as_is" else VARIANTS[variant](clip))
    walk = ground_clip(clip, LevelGround(prepare_clip(clip, legs_of(clip.skeleton)).floor),
                       place=False)
    taken = _in_place(clip)
    in_place = ground_clip(taken, LevelGround(walk.floor), place=False)
    assert walk.ground_travel_m == 0.0
    root = int(np.nonzero(clip.skeleton.parents < 0)[0][0])
    removed = np.linalg.norm(clip.positions[-1, root, [0, 2]] - clip.positions[0, root, [0, 2]])
    assert abs(in_place.ground_travel_m - removed) <= 0.1 * removed
    for key in TOLERANCE:
        for when in ("before", "after"):
            got, want = in_place.report()[when][key], walk.report()[when][key]
            assert got == pytest.approx(want, abs=TOLERANCE[key]), (
                f"{when} {key}: in place {got:.4f}, the walk {want:.4f}")


def test_a_cycle_whose_ground_turns_back_is_still_walked_in_place() -> None:
    # A ground that goes and comes back ends near where it began: judged by where it ended,
    # Kenney's cycle bent into an eight (2.7x its feet's stray) stood on its raised toe again,
    # 0.152 m up, and mixamo_stepping taken in place (stepping forward and back, 0.0x) kept 49%
    # of its own contacts; at its furthest they go 8.8x and 4.1x.
    kenney = _motion(load_motion(KENNEY).clip)
    eight = _motion(VARIANTS["eight"](kenney))
    assert abs(prepare_clip(eight, legs_of(eight.skeleton)).floor - MESH_FLOOR) <= 0.01
    stepping = _motion(bvh.load(DATA / "bvh" / "mixamo_stepping.bvh"))
    legs = legs_of(stepping.skeleton)
    own, taken = prepare_clip(stepping, legs), prepare_clip(_in_place(stepping), legs)
    assert abs(taken.floor - own.floor) <= 0.01
    agree = float((taken.contacts == own.contacts).mean())
    assert agree >= 0.95, f"contacts agree in {agree:.1%} of frames"
    # the report says how far its ground went: at its furthest, as the root did (0.94 m; it ends
    # 1 cm from where it began, which the report read when it took the end: 0.01 m)
    from footfall.grounding.clip import ground_clip
    from footfall.terrain import LevelGround

    report = ground_clip(_in_place(stepping), LevelGround(own.floor), place=False)
    root = stepping.positions[:, 0, [0, 2]]
    furthest = float(np.linalg.norm(root - root[0], axis=-1).max())
    assert abs(report.ground_travel_m - furthest) <= 0.1 * furthest, report.ground_travel_m


def test_an_in_place_cycles_planted_feet_are_held_on_its_ground() -> None:
    # The slip locks hold a landed ball on the ground the contacts and the figures stand on:
    # held still in the world, where its ground slides back 5-9 m/s, the lock let go of every
    # ball at once (faster than a stance slip) and Kenney's feet kept the source's slip over
    # its ground. Measured on the balls over the planted frame pairs, against that ground:
    # held in the world 38 and 20 mm a frame in the left footstep as in the source (30.9 mm
    # mean), held on the ground 5 and 1 (20.2 mm mean; the right foot's three planted frames
    # push off, its heel rising 188 -> 290 mm, the lock let go after the first, and keep the
    # source's 32, 16 and 47).
    # (PhysDiff's sliding read it too, 30.4 -> 12.7 mm, until a toe End Site lifted out of the
    # floor to exactly its 5 mm tolerance at lift-off, frame 13, counted as touching or not by
    # a rounding of 1e-16: 33.2 mm with its 95 mm step over the ground.)
    from footfall.grounding.clip import ground_clip
    from footfall.terrain import LevelGround

    clip = _motion(load_motion(KENNEY).clip)
    prepared = prepare_clip(clip, legs_of(clip.skeleton))
    result = ground_clip(clip, LevelGround(prepared.floor), place=False)
    assert prepared.travel is not None
    pairs = result.contacts[1:] & result.contacts[:-1]

    def slips(feet: np.ndarray) -> np.ndarray:
        on_ground = feet[..., [0, 2]] - prepared.travel[:, None]
        return np.linalg.norm(np.diff(on_ground, axis=0), axis=-1)[pairs]

    before, after = slips(prepared.feet.ball), slips(prepared.feet_of(result.clip).ball)
    assert np.all(after <= before + 0.001), 1000 * (after - before)
    assert after.mean() <= 0.7 * before.mean(), (1000 * before, 1000 * after)
