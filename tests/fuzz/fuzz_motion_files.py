"""The front door's readers under attack (footfall.motion_io): VRM Animation files, MDM's
pickled results.npy, and any motion file handed to ``footfall import`` under a suffix that says
nothing (so the format is found from the mutated content alone). Registered into
:data:`fuzz_readers.READERS` when that module is imported."""

from __future__ import annotations

import contextlib
import io
import pickle
import random
from pathlib import Path

import fuzz_mutate as mutate_lib
import numpy as np
from fuzz_readers import DATA, check, check_finite, reader

_WALK = DATA / "bvh" / "games105_walk60.bvh"


def _real_joints(frames: int = 24) -> np.ndarray:
    from footfall import bvh
    from footfall.joints import LAYOUTS
    from footfall.joints.from_clip import positions_from_clip

    clip = bvh.load(_WALK).resample(20.0)
    return positions_from_clip(clip, LAYOUTS["humanml3d"])[:frames].astype(np.float32)


def _mdm_bytes(motion: object, **fields: object) -> bytes:
    """An MDM results.npy (np.save of the dict) holding ``motion`` and ``fields``."""
    buffer = io.BytesIO()
    np.save(buffer, {"motion": motion, "text": ["a person walks"], **fields},
            allow_pickle=True)
    return buffer.getvalue()


def mdm_seeds() -> list[bytes]:
    joints = _real_joints()
    motion = np.moveaxis(joints, 0, -1)[None]  # (1, 22, 3, T)
    pair = np.concatenate([motion, motion[..., ::-1]])
    raw = pickle.dumps({"motion": pair, "text": ["a", "b"], "lengths": np.array([24, 20])})
    return [_mdm_bytes(motion, lengths=np.array([24])), _mdm_bytes(pair), raw]


def mutate_mdm(data: bytes, rng: random.Random) -> bytes:
    """Bytes mutated, or a dictionary of the wrong things (huge lengths, NaN, odd shapes)."""
    if rng.random() < 0.35:
        motion = np.moveaxis(_real_joints(8), 0, -1)[None]
        odd = rng.choice([
            lambda: _mdm_bytes(motion, lengths=np.array([2**62])),
            lambda: _mdm_bytes(motion, lengths=np.array([-5])),
            lambda: _mdm_bytes(motion * np.nan),
            lambda: _mdm_bytes(motion * 1e30),
            lambda: _mdm_bytes(motion[..., :0]),
            lambda: _mdm_bytes(motion.reshape(1, 22, 24, 1)),
            lambda: _mdm_bytes(motion.tolist()),
            lambda: _mdm_bytes(np.zeros((1, 23, 3, 4))),
            lambda: _mdm_bytes(motion, text=[{"x": 1}]),
            lambda: _mdm_bytes(motion.astype(np.complex64)),
            lambda: pickle.dumps([1, 2, 3]),
        ])
        return odd()
    return mutate_lib.mutate_binary(data, rng)


def _read_checked(path: Path, **options: object) -> None:
    from footfall.motion_io import load_motion

    motion = load_motion(path, **options)
    clip = motion.clip
    check(clip.frame_count > 0, "a clip without frames was read")
    check_finite(clip.rotations, "rotations")
    check_finite(clip.global_positions(), "global positions")


@reader("motion-mdm", suffix=".npy", seeds=mdm_seeds, mutate=mutate_mdm)
def read_mdm(path: Path) -> None:
    """``load_motion(results.npy)``: a finite clip, or one clean line."""
    _read_checked(path)


def vrma_seeds() -> list[bytes]:
    """A VRM Animation of the VRM sample, written by footfall (the bones wobbling)."""
    import tempfile

    from footfall import quat
    from footfall.gltf import load_avatar, save_vrm_animation

    avatar = load_avatar(DATA / "avatars" / "vrm1_debug_robot.vrm")
    clip = avatar.rest_clip(6, 30.0)
    turn = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), np.linspace(0, 0.5, 6))
    clip.rotations[:] = quat.mul(clip.rotations, turn[:, None])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed.vrma"
        save_vrm_animation(avatar, clip, path)
        return [path.read_bytes()]


@reader("motion-vrma", suffix=".vrma", seeds=vrma_seeds, mutate=mutate_lib.mutate_glb)
def read_vrma(path: Path) -> None:
    """``load_motion(x.vrma)``: a finite clip of its own skeleton, or one clean line."""
    _read_checked(path)


def any_seeds() -> list[bytes]:
    """One of each: BVH, GLB, VRMA, joint positions, MDM results; first the command modules
    imported here in the parent (forked children start with them)."""
    from footfall.cli import build_parser

    build_parser()
    buffer = io.BytesIO()
    np.save(buffer, _real_joints())
    bvh_text = _WALK.read_bytes().split(b"\n")
    at = next(i for i, line in enumerate(bvh_text) if line.startswith(b"Frames"))
    short = b"\n".join([*bvh_text[:at], b"Frames: 4", *bvh_text[at + 1: at + 6]]) + b"\n"
    return [short, (DATA / "avatars" / "CesiumMan.glb").read_bytes(), *vrma_seeds(),
            buffer.getvalue(), mdm_seeds()[0]]


def mutate_any(data: bytes, rng: random.Random) -> bytes:
    """Any byte mutation, and now and then a wrong magic (the first bytes replaced)."""
    if rng.random() < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + data[8:]
    return mutate_lib.mutate_binary(data, rng)


@reader("motion-cli", suffix=".dat", seeds=any_seeds, mutate=mutate_any)
def read_any_cli(path: Path) -> None:
    """``footfall import FILE.dat -o out.bvh`` (the format found from the content): exit 0
    and an output that reads back with as many frames, or exit 2 with one stderr line naming
    the file and nothing written."""
    from footfall import bvh
    from footfall.cli import main
    from footfall.errors import FootfallError

    out = path.with_name("imported.bvh")
    stdout, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        code = main(["import", str(path), "-o", str(out), "--quiet"])
    if code == 0:
        check(out.exists(), "exit 0 without an output")
        check_finite(bvh.load(out).global_positions(), "imported positions")
        return
    lines = err.getvalue().splitlines()
    check(code == 2 and len(lines) == 1 and not out.exists(),
          f"exit {code}, stderr {err.getvalue()[:300]!r}, written {out.exists()}")
    raise FootfallError(lines[0])
