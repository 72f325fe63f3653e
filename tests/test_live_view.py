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


def test_the_view_stands_up_on_its_terrain(tmp_path: Path, browser) -> None:
    """In a real browser the scene is Y up, as footfall is: the floor is seen from above and the
    sky above it is empty (viser's default Z up stood the floor grid as a wall across the whole
    picture, the avatars lying on their backs); a grounded avatar stands on the terrain, drawn
    in its frame; each avatar's name floats over its head as it walks."""
    import io
    import threading

    from PIL import Image

    from conftest import ARTIFACTS
    from footfall.live.ground import LiveGrounder
    from footfall.terrain import from_spec
    from test_browser_demo import _CLOSE_NOTICE

    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    loop = LiveLoop(ReplaySource(clip), [load_target(DATA / "avatars" / "CesiumMan.glb")],
                    settings_folder=tmp_path, calibrate_on=clip)
    loop.grounder = LiveGrounder(from_spec("stairs"))
    view = LiveView(port=_free_port())
    loop.views.append(view)
    thread = threading.Thread(target=loop.run, kwargs={"duration": 120.0}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60.0
        while loop.stats.frames < 30 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert loop.stats.frames >= 30
        terrain = view._handles["terrain0"]
        assert len(terrain.vertices) == len(loop.grounder.terrain.vertices)
        page = browser.new_page(viewport={"width": 900, "height": 600})
        page.set_default_timeout(120_000)
        page.goto(view.url)
        page.evaluate(_CLOSE_NOTICE, 120_000)
        time.sleep(2.0)
        image = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"), float)
        Image.fromarray(image.astype(np.uint8)).save(ARTIFACTS / "live_view_terrain.png")
        height, width = image.shape[:2]
        sky = image[: height // 6, width // 10: width // 2]  # left of the status panel
        ground = image[height // 2:]
        assert np.ptp(sky, axis=(0, 1)).max() < 4  # nothing but background above the floor
        assert np.ptp(ground, axis=(0, 1)).max() > 60  # grid, terrain and avatar below
        # the label over the head, wherever the avatar has walked
        character = next(iter(loop._characters.values()))
        target = character.retargeter.target
        view._next = 0.0
        view.update(loop, loop.source_frame())
        _, pos = forward_kinematics(target.parents, *character.pose)
        label = np.asarray(view._handles["label0"].position)
        head = pos[view._heads[character.name]]
        place = np.asarray(view._handles["frame0"].position)  # the avatar's frame
        np.testing.assert_allclose(label, place + head + (0.0, 0.25, 0.0), atol=0.05)
        assert np.linalg.norm(head[[0, 2]] - pos[0, [0, 2]]) < 0.5  # over the body, not behind
    finally:
        loop.stop()
        thread.join(timeout=10)
        view.close()
