"""Small motion files of every format footfall reads, made from the real files in tests/data
(for the front-door tests and the README's format × command table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from footfall import bvh, quat
from footfall.gltf import load_avatar, save_animation, save_vrm_animation
from footfall.joints import LAYOUTS
from footfall.joints.from_clip import positions_from_clip
from footfall.skeleton import Clip

DATA = Path(__file__).parent / "data"
WALK = DATA / "bvh" / "games105_walk60.bvh"  # a real walk, metres
CESIUM = DATA / "avatars" / "CesiumMan.glb"
ROBOT = DATA / "avatars" / "RobotExpressive.glb"
VRM = DATA / "avatars" / "vrm1_debug_robot.vrm"


def real_joints(frames: int = 40) -> np.ndarray:
    """HumanML3D joint positions ``(T, 22, 3)`` at 20 fps of the real walk (games105)."""
    clip = bvh.load(WALK).resample(20.0)
    return positions_from_clip(clip, LAYOUTS["humanml3d"])[:frames]


def mdm_results(path: Path, samples: int = 3, frames: int = 40) -> np.ndarray:
    """An MDM-style ``results.npy`` (what MDM's sampling script saves: a pickled dict with
    ``motion (N, 22, 3, T)``, ``text``, ``lengths``, ``num_samples``, ``num_repetitions``)
    holding windows of the real walk turned to different headings; returns the motion array.
    Sample ``n`` is ``frames - 5 n`` frames long (the rest padded, as MDM pads)."""
    joints = real_joints(frames + 5 * samples)
    motion = np.zeros((samples, 22, 3, frames), dtype=np.float32)
    for n in range(samples):
        turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), 0.7 * n)
        window = quat.rotate(turn, joints[5 * n: 5 * n + frames])
        motion[n] = np.moveaxis(window, 0, -1)
    lengths = np.array([frames - 5 * n for n in range(samples)])
    np.save(path, {"motion": motion, "text": [f"a person walks, take {n}" for n in
                                              range(samples)],
                   "lengths": lengths, "num_samples": samples, "num_repetitions": 1},
            allow_pickle=True)
    return motion


def vrm_clip(frames: int = 30, seed: int = 0) -> tuple[object, Clip]:
    """The VRM debug robot and a clip of it: every bone turned by a smooth seeded wobble, the
    hips walking forward."""
    avatar = load_avatar(VRM)
    rng = np.random.default_rng(seed)
    clip = avatar.rest_clip(frames, 30.0)
    phase = np.linspace(0.0, 2 * np.pi, frames)[:, None, None]
    axes = rng.normal(size=(1, avatar.skeleton.joint_count, 3))
    angles = 0.3 * np.sin(phase + rng.uniform(0, 6, (1, avatar.skeleton.joint_count, 1)))
    wobble = quat.from_scaled_angle_axis(axes / np.linalg.norm(axes, axis=-1,
                                                                 keepdims=True) * angles)
    clip.rotations[:] = quat.mul(clip.rotations, wobble)
    root = int(np.flatnonzero(avatar.skeleton.parents < 0)[0])
    clip.positions[:, root, 2] += np.linspace(0.0, 0.8, frames)
    return avatar, clip


def write_formats(folder: Path) -> dict[str, Path]:
    """One small file per readable format in ``folder``: ``{format: path}``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    walk = bvh.load(WALK)
    short = Clip(walk.skeleton, walk.rotations[:60].copy(), walk.positions[:60].copy(), walk.fps)
    files["bvh"] = folder / "walk.bvh"
    bvh.save(short, files["bvh"])
    files["glb"] = folder / "cesium.glb"
    files["glb"].write_bytes(CESIUM.read_bytes())
    cesium = load_avatar(CESIUM)
    from footfall.gltf import load_animation

    files["gltf"] = folder / "cesium.gltf"
    save_animation(cesium, load_animation(CESIUM, fps=24.0, avatar=cesium), files["gltf"])
    avatar, clip = vrm_clip()
    files["vrm"] = folder / "robot.vrm"
    save_animation(avatar, clip, files["vrm"])
    files["vrma"] = folder / "robot.vrma"
    save_vrm_animation(avatar, clip, files["vrma"])
    files["npy"] = folder / "joints.npy"
    np.save(files["npy"], real_joints(40).astype(np.float32))
    files["mdm"] = folder / "results.npy"
    mdm_results(files["mdm"])
    return files
