"""The live view: skinned meshes read from the avatar files line up with their skeletons, the
view builds for a replayed stream and shows its state."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import numpy as np
import viser

from footfall import bvh
from footfall.gltf import load_avatar
from footfall.live.loop import LiveLoop, load_target
from footfall.live.sources import ReplaySource
from footfall.live.view import LiveView, skinned_mesh
from footfall.skeleton import forward_kinematics
from test_live_e2e import run_until  # tests/ is on the path under pytest

DATA = Path(__file__).parent / "data"
AVATARS = sorted((DATA / "avatars").glob("*.glb"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_skinned_meshes_sit_on_their_skeletons() -> None:
    for path in AVATARS:
        avatar = load_avatar(path)
        vertices, faces, weights = skinned_mesh(avatar)
        assert faces.max() < len(vertices) and weights.shape == (len(vertices),
                                                                 avatar.skeleton.joint_count)
        np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
        _, joints = forward_kinematics(avatar.skeleton.parents, avatar.rest_rotations,
                                       avatar.skeleton.offsets)
        # Each vertex is near the joint that moves it most (within the body's size).
        main = joints[np.argmax(weights, axis=-1)]
        height = np.ptp(joints[:, 1])
        assert np.median(np.linalg.norm(vertices - main, axis=-1)) < 0.25 * height


def test_view_shows_a_replayed_stream(tmp_path: Path) -> None:
    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    loop = LiveLoop(ReplaySource(clip), [load_target(p) for p in AVATARS],
                    settings_folder=tmp_path)
    view = LiveView(port=_free_port())
    loop.views.append(view)
    try:
        run_until(loop, frames=5, timeout=20.0)
        names = list(loop.characters())
        assert all(isinstance(view._handles[n], viser.MeshSkinnedHandle) for n in names)
        assert "streaming" in view._status.content and "Hz" in view._status.content
        assert "Z-up" not in view._status.content
        loop.source.status.up = "z"  # a stream the source turned to Y up says so
        view._next = 0.0
        view.update(loop, loop.source_frame())
        assert "stream is Z-up; turned to Y up" in view._status.content
        view._next = 0.0
        loop.stats.waiting = True
        view.update(loop, None)
        assert "waiting" in view._status.content and "대기" in view._status.content
        time.sleep(0.05)
    finally:
        view.close()
