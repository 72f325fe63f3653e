"""Issue 36 item 1: level ground does no harm, judged by the independent scorer of
``tools/ground_table.py`` (the source's own contacts, heel stances and floor from its rig,
``tests/skinned_feet.py``) on every shared clip and on clips of other conventions made from them
(``tests/conventions.py``).

``footfall ground --terrain level`` changes a frame only where the source has a stance defect —
a planted foot sunk under its planted height, or sliding — by no more than that defect; the
body above the knees never moves, the floor stays where it was, and neither GMD's foot-skate
ratio (+0.005 at most) nor PhysDiff's penetration gets worse.

Not asserted here, measured in the table: the changes beyond the source's defects of a walk
played backwards (mocapbank: 2.2 mm, a lock holding a ball from a landing the independent
rule finds later). Resampled to 120 fps, a clip is held to its defects as at 30 and 60 fps
(mixamo_stepping was changed 10.1 mm beyond them: a push-off judged frame by frame, missed
where the resampled ball's speed wobbles between keys, and its ball held 21 mm back;
``grounding.locks.PUSH_OFF_STEP_SECONDS``).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from conftest import DATA, HUMANOID_BVH_FILES, ground_table
from conventions import VARIANTS
from footfall import bvh
from footfall.footing.foot_model import calibration_frames, legs_of
from footfall.grounding.clip import animation_floor, ground_clip
from footfall.skeleton import Clip
from footfall.terrain import LevelGround
from skinned_feet import source_contacts, source_foot_points

FRAMES = 600  # the first seconds of the long captures keep the module quick
#: As the file is, and the conventions whose level clean-up is held to the source's defects.
EXACT = ("as_is", "mirrored", "z_up", "inches", "fps30", "fps60", "fps120")
#: Conventions held to the body, floor, GMD and PhysDiff rules.
OTHERS = ("backward",)


@cache
def _clip(name: str, variant: str) -> Clip:
    clip = bvh.load(DATA / "bvh" / name)[:FRAMES]
    clip = clip if variant == "as_is" else VARIANTS[variant](clip)
    return clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]


CASES = [(path.name, variant) for path in HUMANOID_BVH_FILES for variant in EXACT + OTHERS]


@pytest.mark.parametrize(("name", "variant"), CASES)
def test_level_ground_changes_only_the_sources_own_stance_defects(name: str,
                                                                  variant: str) -> None:
    # A planted foot held higher than its planted height keeps that height (it stands on
    # something; the sustained float was lowered before). Before, first 600 frames: changed
    # beyond the source's defects by 6.6 mm on mocapbank and 1.8 mm on cmu_131_01, which moved
    # 38.3 mm at most against the input moved rigidly (now 23.4, all of it a sliding stance
    # held); games105 12.8 mm (a knee swung by a raised foot lowered 2.5 mm; now 1.8).
    tool = ground_table()
    source = _clip(name, variant)
    result = ground_clip(source, LevelGround(animation_floor(source)), place=False)
    out = result.clip
    legs = legs_of(source.skeleton)
    _, a = source.forward_kinematics()
    _, b = out.forward_kinematics()
    knees = {leg.lower for leg in legs}
    above = [j for j in range(source.skeleton.joint_count)
             if not knees & set(source.skeleton.chain(j))]
    assert np.abs(b[:, above] - a[:, above]).max() < 1e-6, "the body above the knees moved"
    got = tool.independent_scores(source, out, LevelGround(0.0))
    assert abs(got["floor_out"] - got["floor"]) <= 0.003, "the floor moved"
    before, after = result.before, result.after
    assert after["gmd_foot_skate_ratio"] <= before["gmd_foot_skate_ratio"] + 0.005
    assert after["physdiff_penetration_mm"] <= before["physdiff_penetration_mm"] + 0.01
    if variant in EXACT:
        harm = tool.level_harm(source, out)
        assert harm <= 0.001, f"changed {1000 * harm:.1f} mm beyond the source's own defects"


#: The shared clips HumanML3D's layout describes (mocapbank has no toe joints; bvhio_example,
#: two frames, has no motion at 20 fps).
JOINT_CLIPS = [path.name for path in HUMANOID_BVH_FILES
               if path.name not in ("mocapbank_zxy_cm.bvh", "bvhio_example.bvh")]


@pytest.mark.parametrize("name", JOINT_CLIPS)
def test_joint_positions_cleaned_on_level_ground_keep_every_untouched_joint(tmp_path, capsys,
                                                                            name: str) -> None:
    # Joint positions (HumanML3D's 22 joints at 20 fps, 3 mm of capture noise) cleaned up on
    # level ground: joints above the knees come back exactly as given, GMD's ratio and PhysDiff's
    # penetration are no worse, and `measure` reports what `ground` did. Before: the file was
    # written back from the skeleton fitted to it, every joint moved by the fit's error (up to
    # 26 mm on cmu_01_01) and GMD's ratio went 0.050 -> 0.060.
    import json

    from footfall.cli import main
    from footfall.joints import LAYOUTS
    from footfall.joints.from_clip import positions_from_clip
    from joints_data import noisy

    clip = _clip(name, "as_is")[:1200].resample(20.0)
    layout = LAYOUTS["humanml3d"]
    joints = positions_from_clip(clip, layout)
    joints[..., 1] -= joints[..., 1].min()  # HumanML3D's floor at 0
    source = tmp_path / "walk.npy"
    np.save(source, noisy(joints, seed=1, noise=0.003))
    cleaned, report = tmp_path / "cleaned.npy", tmp_path / "report.json"
    assert main(["ground", str(source), "--terrain", "level", "-o", str(cleaned), "--report",
                 str(report), "--quiet"]) == 0
    measured = tmp_path / "measured.json"
    assert main(["measure", str(source), "--json", str(measured)]) == 0
    capsys.readouterr()
    given, written = np.load(source), np.load(cleaned)
    legs = [layout.joints.index(j) for j in ("left_knee", "right_knee", "left_ankle",
                                             "right_ankle", "left_foot", "right_foot")]
    rest = [j for j in range(layout.joint_count) if j not in legs]
    assert np.abs(written[:, rest] - given[:, rest]).max() < 1e-6
    data, row = json.loads(report.read_text()), json.loads(measured.read_text())
    for key in ("gmd_foot_skate_ratio", "physdiff_penetration_mm"):
        assert data["after"][key] <= data["before"][key] + (0.005 if "gmd" in key else 0.01)
        assert row[f"after.{key}"] == pytest.approx(data["after"][key], abs=1e-9), key



WHOLE_FILES = [path.name for path in HUMANOID_BVH_FILES] + [
    "maya_character_7500_binary.fbx", "maya_kenney_character_7700_binary.fbx"]
#: GMD's ratio on its own floor (the clip's lowest joint) is not asserted for Kenney's in-place
#: cycle: that lowest joint is a push-off toe 5.5 cm under the floor (frame 5; its mesh 4.9 cm
#: in, Blender), which grounding lifts out, so GMD's floor rises 5 cm and finds the stance toes
#: in contact, sliding back with the treadmill at walking speed as an in-place cycle does in
#: the world: 0.0 -> 0.2 (0.0 -> 0.05 against the ground that travels under it, as the report
#: measures an in-place cycle: one pair of 20, the right toe landing at 0.65 m/s over the
#: ground the planted feet show, as the source lands it). On the source's floor (asserted)
#: it stays 0.0 -> 0.0.
GMD_OWN_FLOOR_ON_A_DIP = ("maya_kenney_character_7700_binary.fbx",)


@pytest.mark.parametrize("name", WHOLE_FILES)
def test_a_whole_file_grounded_on_level_ground_is_no_worse(tmp_path, capsys, name: str) -> None:
    # As a user runs it: the whole file through the command, GMD's ratio and PhysDiff's
    # penetration re-measured on the file written, GMD on its own floor (the clip's lowest
    # joint) as on the source's. cmu_01_01 whole (2,752 frames) read 0.0153 -> 0.0524 when its
    # left foot was lifted 8-28 mm, on and off, for a toe End Site the source bends 56 mm
    # through its floor (grounding.clip.toe_bend turns the toe up), then 0.0415 while the stance
    # rule still lifted the ball 19 mm under its planted height but only 3 mm under the floor
    # (GMD's floor, that ball, rose 12.6 mm and every toe read lower); the ball is sunk only as
    # deep as the foot is in the ground now (footing.stance_level): 0.0153.
    from footfall.cli import main
    from footfall.motion_io import load_motion

    folder = "fbx" if name.endswith(".fbx") else "bvh"
    source = DATA / folder / name
    out = tmp_path / "level.bvh"
    assert main(["ground", str(source), "--terrain", "level", "-o", str(out), "--quiet"]) == 0
    capsys.readouterr()
    given = load_motion(source).clip
    given = given[~calibration_frames(given.rotations, given.skeleton.parents)]
    # PhysDiff's penetration under the floor the independent scorer finds (tools/ground_table:
    # the source's own contacts and foot points), not grounding's: Kenney's in-place cycle
    # reads 0.152 m to grounding (a held pose with a foot raised) and -0.029 to the scorer
    floor = ground_table().source_floor(source_foot_points(given), source_contacts(given))
    before = _gmd_and_penetration(given, floor)
    after = _gmd_and_penetration(bvh.load(out), floor, before[2])
    assert after[1] <= before[0] + 0.005, f"source's floor: {before[0]:.4f} -> {after[1]:.4f}"
    if name not in GMD_OWN_FLOOR_ON_A_DIP:
        assert after[0] <= before[0] + 0.005, f"GMD's ratio {before[0]:.4f} -> {after[0]:.4f}"
    assert after[3] <= before[3] + 0.01, f"penetration {before[3]:.3f} -> {after[3]:.3f} mm"


def _gmd_and_penetration(clip: Clip, floor: float, gmd_floor: float | None = None
                         ) -> tuple[float, float, float, float]:
    """Measured here from the joints' positions (not from the command's report), calibration
    frames left out: GMD's foot-skate ratio over the body's joints on its own floor (the lowest
    joint of the frames it samples), the same on ``gmd_floor`` (metres; its own when None),
    that own floor, and PhysDiff's penetration (mm, mean over frames) of the lowest body joint
    under ``floor`` (the independent scorer's floor of the source, metres)."""
    from footfall.humanoid.limbs import body_joints
    from footfall.metrics.measures import gmd_foot_skate_ratio, gmd_frame_step

    clip = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    legs = legs_of(clip.skeleton)
    body = body_joints(clip.skeleton, legs)
    toes = np.searchsorted(body, [leg.foot if leg.toes is None else leg.toes for leg in legs])
    _, positions = clip.forward_kinematics()
    positions = positions[:, body]
    own = float(np.nanmin(positions[:: gmd_frame_step(clip.fps)][..., 1]))
    lowest = positions[..., 1].min(axis=1)
    return (gmd_foot_skate_ratio(positions, clip.fps, *toes),
            gmd_foot_skate_ratio(positions, clip.fps, *toes,
                                 floor=own if gmd_floor is None else gmd_floor),
            own, 1000.0 * float(np.maximum(floor - lowest, 0.0).mean()))
