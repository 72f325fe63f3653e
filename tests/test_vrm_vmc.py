"""``footfall live --to AVATAR.vrm --vmc …`` against a VMC receiver that holds the same VRM.

The receiver here is written from the VRM and VMC conventions alone, not from footfall's code:
it reads the .vrm file itself, loads it as UniVRM does into Unity's frame (VRM 1.0: x negated;
VRM 0.x, which faces −Z: z negated; either way the model faces Unity's +Z), takes the model's
normalized humanoid (the T-pose, every bone rotation the identity, each bone hanging from its
nearest humanoid ancestor) and applies every received ``/VMC/Ext/Bone/Pos`` local rotation to
it, the hips placed at their received local position. The joints it gets must be the joints of
footfall's own retargeted pose (the live loop's, frame by frame) carried into Unity the same
way. The bones received are exactly the VRM's humanoid bones, under Unity's names.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh
from footfall.live.loop import LiveLoop, load_target
from footfall.live.vmc import VmcSender
from footfall.skeleton import Clip
from test_live_e2e import EveryFrame, Receiver
from vrm_files import UNITY_NAMES, avatar_files, bone_nodes, read_glb, world_matrices

CLIP = DATA / "bvh" / "cmu_131_01.bvh"
FRAMES = 60


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The four avatars by id: each VRM 1.0 sample and its VRM 0.x rewrite."""
    return avatar_files(tmp_path_factory.mktemp("vrm0"))


class NormalizedModel:
    """A VRM as a VMC receiver holds it: its humanoid in Unity's frame, normalized."""

    def __init__(self, path: Path) -> None:
        document, _ = read_glb(path)
        self.vrm0 = "VRM" in document["extensions"]
        self.to_unity = np.array([1.0, 1.0, -1.0]) if self.vrm0 else np.array([-1.0, 1.0, 1.0])
        nodes = bone_nodes(document)  # VRM 1.0 bone name → node
        world = world_matrices(document)
        parent_of = {child: n for n, node in enumerate(document["nodes"])
                     for child in node.get("children", [])}
        bone_of = {node: UNITY_NAMES[bone] for bone, node in nodes.items()}
        self.rest = {bone_of[n]: world[n][:3, 3] * self.to_unity for n in bone_of}
        self.parent: dict[str, str | None] = {}
        for node, bone in bone_of.items():
            above = parent_of.get(node)
            while above is not None and above not in bone_of:
                above = parent_of.get(above)
            self.parent[bone] = None if above is None else bone_of[above]
        self.bones = sorted(self.rest, key=self._depth)

    def _depth(self, bone: str) -> int:
        depth = 0
        while self.parent[bone] is not None:
            bone, depth = self.parent[bone], depth + 1
        return depth

    def joints(self, received: dict[str, tuple]) -> dict[str, np.ndarray]:
        """World positions (Unity frame) of every bone posed by the received
        ``{bone: (px, py, pz, qx, qy, qz, qw)}``."""
        turn: dict[str, np.ndarray] = {}
        at: dict[str, np.ndarray] = {}
        for bone in self.bones:  # parents first
            values = np.array(received[bone], dtype=np.float64)
            local = _matrix(values[3:])
            parent = self.parent[bone]
            if parent is None:
                turn[bone], at[bone] = local, values[:3]
            else:
                turn[bone] = turn[parent] @ local
                at[bone] = at[parent] + turn[parent] @ (self.rest[bone] - self.rest[parent])
        return at


def _matrix(xyzw: np.ndarray) -> np.ndarray:
    x, y, z, w = xyzw / np.linalg.norm(xyzw)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("name", ["debug_robot-1.0", "debug_robot-0.x", "mtoon_uv_test-1.0",
                                  "mtoon_uv_test-0.x"])
def test_a_receiver_holding_the_vrm_poses_it_as_footfall_did(files: dict[str, Path], name: str,
                                                              tmp_path: Path) -> None:
    path = files[name]
    clip = bvh.load(CLIP)[:FRAMES]
    source = EveryFrame(clip)
    receiver = Receiver()
    target = load_target(path)
    loop = LiveLoop(source, [target], vmc=[(path.stem, VmcSender(("127.0.0.1",
                                                                  receiver.port)))],
                    settings_folder=tmp_path)
    source._loop = loop
    poses: dict[float, tuple[np.ndarray, np.ndarray]] = {}

    def keep(loop: LiveLoop) -> None:  # between frames: the pose of the newest frame
        character = next(iter(loop._characters.values()), None)
        frame = loop.source_frame()
        if character is not None and character.pose is not None and frame is not None:
            poses[frame.seconds] = (character.pose[0].copy(), character.pose[1].copy())
        loop.add_between_frames(keep)

    loop.add_between_frames(keep)
    loop.run(duration=30)
    time.sleep(0.1)
    receiver.close()
    assert loop.stats.frames == FRAMES
    model = NormalizedModel(path)
    avatar = target.avatar
    # Exactly the VRM's humanoid bones, under Unity's names.
    assert set(model.rest) == set(avatar.humanoid)
    complete = [t for t, bones in receiver.frames.items() if set(bones) == set(model.rest)]
    assert all(set(bones) <= set(model.rest) for bones in receiver.frames.values())
    assert len(complete) >= FRAMES * 2 // 3, len(complete)
    # VRM 0.x: footfall's model space is the file's turned 180° about Y; back, then as loaded.
    footfall_to_file = np.array([-1.0, 1.0, -1.0]) if model.vrm0 else np.ones(3)
    errors = []
    for t in complete:
        seconds = min(poses, key=lambda s: abs(s - t))
        assert abs(seconds - t) < 1e-4
        rotations, translations = poses[seconds]
        expected = Clip(avatar.skeleton, rotations[None], translations[None],
                        30.0).global_positions()[0] * footfall_to_file * model.to_unity
        got = model.joints(receiver.frames[t])
        errors.append(max(np.abs(got[bone] - expected[avatar.skeleton.index(joint)]).max()
                          for bone, joint in avatar.humanoid.items()))
    assert max(errors) < 1e-5, max(errors)


def test_live_command_sends_the_vrm_humanoid(files: dict[str, Path], tmp_path: Path) -> None:
    path = files["mtoon_uv_test-0.x"]
    receiver = Receiver()
    done = subprocess.run(
        [sys.executable, "-m", "footfall.cli", "live", "--replay", str(CLIP), "--to", str(path),
         "--vmc", f"127.0.0.1:{receiver.port}", "--no-view", "--no-control",
         "--settings-dir", str(tmp_path / "s"), "--record", str(tmp_path / "take.vrma"),
         "--duration", "1.0"], capture_output=True, text=True, timeout=120)
    receiver.close()
    assert done.returncode == 0, done.stderr
    expected = {UNITY_NAMES[bone] for bone in bone_nodes(read_glb(path)[0])}
    complete = [bones for bones in receiver.frames.values() if set(bones) == expected]
    assert len(complete) >= 30
    assert all(set(bones) <= expected for bones in receiver.frames.values())
    assert read_glb(tmp_path / "take.vrma")[0]["extensions"]["VRMC_vrm_animation"]
