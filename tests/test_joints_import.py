"""``footfall import``: joint positions → a skeleton with rotations, measured on what it writes.

The data are made here (``joints_data``): the procedural walker on the Mixamo test rig, written
as HumanML3D's 22 joints at 20 fps with 1 mm of noise. Every check reads the written file back
and compares its forward kinematics with the positions that went in.
"""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from footfall import bvh, quat
from footfall.cli import main
from footfall.gltf import load_animation
from footfall.humanoid import find_legs, map_skeleton
from footfall.joints import LAYOUTS, solve_positions
from footfall.joints.from_clip import positions_from_clip
from footfall.joints.layouts import Z_UP_TO_Y_UP
from joints_data import FPS, NOISE, noisy, walker_joints

HUMANML3D = LAYOUTS["humanml3d"]


@pytest.fixture(scope="module")
def clean() -> np.ndarray:
    return walker_joints()


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory, clean: np.ndarray):
    """The noisy walk as a .npy file (float32, as models save), and its positions."""
    folder = tmp_path_factory.mktemp("walk")
    positions = noisy(clean).astype(np.float32)
    path = folder / "walk.npy"
    np.save(path, positions)
    return path, positions.astype(np.float64)


def _bone_lengths(clip) -> np.ndarray:
    """``(F, J)`` distance of each joint from its parent in every frame of a clip."""
    world = clip.global_positions()
    parents = clip.skeleton.parents
    child = np.nonzero(parents >= 0)[0]
    return np.linalg.norm(world[:, child] - world[:, parents[child]], axis=-1)


def test_round_trip_through_bvh_within_2_mm(walk, clean, tmp_path, capsys) -> None:
    path, positions = walk
    out = tmp_path / "walk.bvh"
    assert main(["import", str(path), "--layout", "humanml3d", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    clip = bvh.load(out)
    assert clip.fps == FPS and clip.frame_count == positions.shape[0]
    back = positions_from_clip(clip, HUMANML3D)
    error = np.linalg.norm(back - positions, axis=-1)
    assert error.mean() < 0.002  # against the noisy input: ≈ 1.8 mm
    # The noise is ≈ 1.6 mm a joint; the fixed bones average part of it away: every joint but
    # the head (a bone the walker stretches, see below) ends closer to the noise-free truth.
    body = np.arange(HUMANML3D.joint_count) != HUMANML3D.index("head")
    solved_off = np.linalg.norm(back - clean, axis=-1)[:, body].mean()
    input_off = np.linalg.norm(positions - clean, axis=-1)[:, body].mean()
    assert input_off > NOISE and solved_off < input_off
    assert f"{1000 * error.mean():.2f} mm mean" in printed
    lengths = _bone_lengths(clip)
    assert np.ptp(lengths, axis=0).max() < 1e-6  # fixed bone lengths in every frame


def test_rigid_joints_are_reproduced_exactly(clean) -> None:
    fit = solve_positions(clean, HUMANML3D, FPS)
    error = fit.error_m
    head, neck = HUMANML3D.index("head"), HUMANML3D.index("neck")
    others = np.delete(error, head, axis=1)
    # to 0.05 mm (a nearly straight arm's elbow is found by a search to about 20 µm)
    assert others.max() < 5e-5 and others.mean() < 1e-7
    # The walker moves its head against the neck (head-bob compensation): the only bone whose
    # length changes. Its error is exactly that change from the median length, nothing more.
    measured = np.linalg.norm(clean[:, head] - clean[:, neck], axis=-1)
    assert np.ptp(measured) > 0.01
    np.testing.assert_allclose(error[:, head], np.abs(measured - np.median(measured)), atol=1e-6)


def test_bone_lengths_are_the_median_or_given(clean, tmp_path) -> None:
    fit = solve_positions(noisy(clean), HUMANML3D, FPS)
    lengths = fit.clip.skeleton.bone_lengths()
    knee = HUMANML3D.index("left_knee")
    measured = np.linalg.norm(clean[:, knee] - clean[:, HUMANML3D.index("left_hip")], axis=-1)
    assert abs(lengths[knee] - np.median(measured)) < 5e-4
    given = tmp_path / "lengths.json"
    given.write_text('{"left_knee": 0.5}')
    np.save(tmp_path / "walk.npy", clean)
    out = tmp_path / "long.bvh"
    assert main(["import", str(tmp_path / "walk.npy"), "-o", str(out), "--lengths",
                 str(given), "--quiet"]) == 0
    clip = bvh.load(out)
    assert abs(clip.skeleton.bone_lengths()[clip.skeleton.index("left_knee")] - 0.5) < 1e-9


def test_round_trip_through_glb_matches_the_bvh(walk, tmp_path) -> None:
    path, positions = walk
    assert main(["import", str(path), "-o", str(tmp_path / "walk.glb"), "--quiet"]) == 0
    assert main(["import", str(path), "-o", str(tmp_path / "walk.bvh"), "--quiet"]) == 0
    glb = load_animation(tmp_path / "walk.glb", fps=FPS)
    from_glb = positions_from_clip(glb, HUMANML3D)
    from_bvh = positions_from_clip(bvh.load(tmp_path / "walk.bvh"), HUMANML3D)
    assert glb.frame_count == positions.shape[0]
    assert np.abs(from_glb - from_bvh).max() < 1e-5  # float32 glTF channels
    assert np.linalg.norm(from_glb - positions, axis=-1).mean() < 0.002


def test_twist_never_flips(clean) -> None:
    # Nearly straight arms and legs are the trap: noise turns their bending plane over. Between
    # frames at 20 fps no joint may turn by more than a quarter turn (a flip is half a turn).
    for sigma in (0.001, 0.005):
        clip = solve_positions(noisy(clean, seed=3, noise=sigma), HUMANML3D, FPS).clip
        turn = quat.angle_between(clip.rotations[1:], clip.rotations[:-1])
        assert np.degrees(turn).max() < 90.0, sigma
    # Without noise the knees bend in one plane: a pure hinge about the thigh's x axis.
    clip = solve_positions(clean, HUMANML3D, FPS).clip
    knee = clip.rotations[:, HUMANML3D.index("left_knee")]
    axis, angle = quat.to_axis_angle(knee)
    bent = angle > np.radians(25)
    assert bent.any()
    assert np.abs(np.abs(axis[bent, 0]) - 1).max() < 1e-3


def test_names_are_recognised_by_the_humanoid_mapping(walk, tmp_path) -> None:
    path, _ = walk
    out = tmp_path / "walk.bvh"
    assert main(["import", str(path), "-o", str(out), "--quiet"]) == 0
    skeleton = bvh.load(out).skeleton
    mapping = map_skeleton(skeleton).mapping
    expected = {"Hips": "pelvis", "LeftUpperLeg": "left_hip", "LeftLowerLeg": "left_knee",
                "LeftFoot": "left_ankle", "LeftToes": "left_foot", "Spine": "spine1",
                "Chest": "spine2", "UpperChest": "spine3", "Neck": "neck", "Head": "head",
                "LeftShoulder": "left_collar", "LeftUpperArm": "left_shoulder",
                "LeftLowerArm": "left_elbow", "LeftHand": "left_wrist",
                "RightHand": "right_wrist", "RightToes": "right_foot"}
    assert {bone: mapping.get(bone) for bone in expected} == expected
    legs = find_legs(skeleton)
    assert skeleton.names[legs["left"].foot] == "left_ankle"


def test_rest_pose_is_a_t_pose_facing_z(walk, tmp_path) -> None:
    path, _ = walk
    out = tmp_path / "walk.bvh"
    assert main(["import", str(path), "-o", str(out), "--quiet"]) == 0
    skeleton = bvh.load(out).skeleton
    rest = skeleton.rest_positions()
    at = {name: rest[skeleton.index(name)] - rest[0] for name in skeleton.names}  # from pelvis
    assert at["head"][1] > at["neck"][1] > 0 > at["left_knee"][1] > at["left_ankle"][1]
    assert abs(at["left_knee"][0] - at["left_ankle"][0]) < 1e-9  # legs straight down
    assert at["left_wrist"][0] > at["left_elbow"][0] > at["left_shoulder"][0] > 0.1
    assert at["right_wrist"][0] < at["right_elbow"][0] < at["right_shoulder"][0] < -0.1
    assert abs(at["left_wrist"][1] - at["left_shoulder"][1]) < 1e-9  # arms level
    assert at["left_foot"][2] > at["left_ankle"][2] + 0.05  # toes forward (+Z)


def test_smpl24_and_z_up(tmp_path) -> None:
    positions = noisy(walker_joints("smpl24"), seed=5)
    z_up = quat.inv_rotate(Z_UP_TO_Y_UP, positions)  # as AMASS's world holds them
    assert np.abs(z_up[..., 2].mean() - positions[..., 1].mean()) < 1e-12
    np.save(tmp_path / "z.npy", z_up)
    out = tmp_path / "z.bvh"
    assert main(["import", str(tmp_path / "z.npy"), "--layout", "smpl24", "--up", "z",
                 "--fps", "30", "-o", str(out), "--quiet"]) == 0
    clip = bvh.load(out)
    assert clip.skeleton.joint_count == 24 and clip.fps == 30
    back = positions_from_clip(clip, LAYOUTS["smpl24"])  # Y up again
    assert np.linalg.norm(back - positions, axis=-1).mean() < 0.002


def _amass_from(clip, turn_to_z: np.ndarray) -> dict[str, np.ndarray]:
    """AMASS fields that give ``clip`` back (SMPL-H: 22 body joints, then hands at rest)."""
    frames = clip.frame_count
    rotations = clip.rotations.copy()
    rest = clip.skeleton.rest_positions()
    rotations[:, 0] = quat.mul(turn_to_z, rotations[:, 0])
    poses = np.zeros((frames, 156))
    poses[:, :66] = quat.to_scaled_angle_axis(rotations).reshape(frames, 66)
    trans = quat.rotate(turn_to_z, clip.positions[:, 0]) - rest[0]
    return {"poses": poses, "trans": trans, "mocap_framerate": np.array(FPS),
            "betas": np.zeros(16), "gender": np.array("neutral")}


def test_amass_npz_with_the_models_skeleton_or_joints(clean, tmp_path) -> None:
    clip = solve_positions(clean, HUMANML3D, FPS).clip
    np.savez(tmp_path / "take.npz", **_amass_from(clip, quat.inv(Z_UP_TO_Y_UP)))
    np.save(tmp_path / "rest.npy", clip.skeleton.rest_positions())
    out = tmp_path / "take.bvh"
    assert main(["import", str(tmp_path / "take.npz"), "--skeleton", str(tmp_path / "rest.npy"),
                 "-o", str(out), "--quiet"]) == 0
    read = bvh.load(out)
    assert read.fps == FPS
    expected = clip.global_positions()
    assert np.abs(positions_from_clip(read, HUMANML3D) - expected).max() < 1e-6
    # The model's joint positions per frame instead (Z up, as a body-model pass gives them).
    np.save(tmp_path / "joints.npy", quat.inv_rotate(Z_UP_TO_Y_UP, expected))
    assert main(["import", str(tmp_path / "take.npz"), "--joints", str(tmp_path / "joints.npy"),
                 "-o", str(out), "--quiet"]) == 0
    assert np.abs(positions_from_clip(bvh.load(out), HUMANML3D) - expected).max() < 1e-5


class _MakesFolder:
    """Unpickling this makes a folder (the harm a pickled .npy could do)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):  # noqa: ANN204 - pickle protocol
        return (os.mkdir, (self.path,))


def _refused(capsys, argv: list[str], *words: str) -> None:
    assert main(argv) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("footfall import: error:"), lines
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("array, words", [
    (np.zeros((10, 22)), ("shape (10, 22)", "(T, J, 3)")),
    (np.zeros((22, 3, 10)), ("(J, 3, T)",)),
    (np.zeros((2, 10, 22, 3)), ("one clip per file",)),
    (np.zeros((0, 22, 3)), ("no frames",)),
    (np.zeros((10, 21, 3)), ("21 joints",)),
    (np.array([["a"]]), ("<U1",)),
])
def test_bad_arrays_are_one_line_errors(array, words, tmp_path, capsys) -> None:
    np.save(tmp_path / "bad.npy", array)
    out = tmp_path / "out.bvh"
    _refused(capsys, ["import", str(tmp_path / "bad.npy"), "-o", str(out)], "bad.npy", *words)
    assert not out.exists()


def test_nan_wrong_layout_pickle_and_garbage(clean, tmp_path, capsys) -> None:
    out = tmp_path / "out.bvh"
    holed = clean.copy()
    holed[7, 4, 1] = np.nan
    np.save(tmp_path / "nan.npy", holed)
    _refused(capsys, ["import", str(tmp_path / "nan.npy"), "-o", str(out)],
             "NaN", "frame 7, joint 4")
    np.save(tmp_path / "walk.npy", clean)
    _refused(capsys, ["import", str(tmp_path / "walk.npy"), "--layout", "smpl24", "-o",
                      str(out)], "22 joints", "'smpl24' has 24")
    np.save(tmp_path / "results.npy", {"motion": clean, "text": ["a person walks"]},
            allow_pickle=True)  # MDM's dictionary, but motion (T, J, 3), not (N, J, 3, T)
    _refused(capsys, ["import", str(tmp_path / "results.npy"), "-o", str(out)], "MDM",
             "'motion' has shape (121, 22, 3)")
    # An object array's pickle naming anything but NumPy arrays is refused before it runs:
    # this one would make a folder if it were unpickled.
    marker = tmp_path / "unpickled"
    np.save(tmp_path / "objects.npy", np.array([_MakesFolder(str(marker))], dtype=object),
            allow_pickle=True)
    _refused(capsys, ["import", str(tmp_path / "objects.npy"), "-o", str(out)], "pickle",
             "refused posix.mkdir")
    assert not marker.exists()
    with open(tmp_path / "plain.npy", "wb") as handle:
        pickle.dump(clean, handle)  # pickle.dump, not np.save
    _refused(capsys, ["import", str(tmp_path / "plain.npy"), "-o", str(out)], "a pickle")
    (tmp_path / "text.npy").write_text("not an array")
    _refused(capsys, ["import", str(tmp_path / "text.npy"), "-o", str(out)], "text.npy",
             "no .npy header")
    zeros = np.zeros((5, 22, 3))
    np.save(tmp_path / "zeros.npy", zeros)
    _refused(capsys, ["import", str(tmp_path / "zeros.npy"), "-o", str(out)], "zero length")
    _refused(capsys, ["import", str(tmp_path / "walk.npy"), "-o", str(tmp_path / "x.fbx")],
             "writes .bvh, .glb, .gltf", "not .fbx")
    assert not out.exists()


def test_amass_npz_problems_are_one_line_errors(clean, tmp_path, capsys) -> None:
    out = tmp_path / "out.bvh"
    fields = {"poses": np.zeros((4, 156)), "trans": np.zeros((4, 3)),
              "mocap_framerate": np.array(120.0)}
    np.savez(tmp_path / "take.npz", **fields)
    _refused(capsys, ["import", str(tmp_path / "take.npz"), "-o", str(out)],
             "body model", "--skeleton", "--joints")
    np.savez(tmp_path / "nopose.npz", trans=fields["trans"])
    _refused(capsys, ["import", str(tmp_path / "nopose.npz"), "-o", str(out)], "'poses'")
    np.savez(tmp_path / "short.npz", **{**fields, "poses": np.zeros((4, 50))})
    _refused(capsys, ["import", str(tmp_path / "short.npz"), "-o", str(out)], "(4, 50)")
    np.save(tmp_path / "rest.npy", np.zeros((5, 3)))
    _refused(capsys, ["import", str(tmp_path / "take.npz"), "--skeleton",
                      str(tmp_path / "rest.npy"), "-o", str(out)], "rest.npy", "(5, 3)")
    assert not out.exists()
