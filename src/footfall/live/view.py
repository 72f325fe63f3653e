"""The live browser view (viser on 127.0.0.1): the source skeleton, each avatar (its skinned
mesh when the file has one, else its bones, its name above its head) on the terrain it is
grounded on (``--terrain``), and the stream's state — connected, frame rate, dropped frames,
latency, "waiting" — in English and Korean. The scene is Y up, as footfall is (viser's own
default is Z up: the floor stood as a wall and the avatars lay on their backs).

Updates go out at most ``rate`` times a second in one atomic message block, so a 240 Hz stream
does not flood the browser. The glTF mesh comes from :mod:`footfall.skinning`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import viser

from footfall import quat
from footfall.skeleton import Skeleton, forward_kinematics
from footfall.skinning import rest_mesh as skinned_mesh

SPACING = 1.2  # metres between the source and each avatar along X, at least
#: Each avatar stands this share of the two neighbours' mean height from the one before it
#: (RobotExpressive is 4.4 m tall: at 1.2 m it stood inside its neighbour).
SPACING_SHARE = 0.6
#: The terrain's colour (RGB 0–255) under each grounded avatar.
TERRAIN_COLOR = (170, 180, 160)


def _bones(skeleton: Skeleton, positions: np.ndarray) -> np.ndarray:
    """``(B, 2, 3)`` segments from each joint's parent to the joint."""
    inner = np.nonzero(skeleton.parents >= 0)[0]
    return np.stack([positions[skeleton.parents[inner]], positions[inner]], axis=1)


class LiveView:
    """The browser view; :meth:`update` is called by the loop after each frame."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8081, rate: float = 20.0) -> None:
        self.server = viser.ViserServer(host=host, port=port, label="footfall live",
                                        verbose=False)
        self.url = f"http://{host}:{self.server.get_port()}"
        self.rate = rate
        self._next = 0.0
        self._handles: dict[str, Any] = {}
        self._status = self.server.gui.add_markdown("**waiting for the stream** · 스트림 대기 중")
        self.server.scene.set_up_direction("+y")
        self.server.initial_camera.up = (0.0, 1.0, 0.0)
        self.server.scene.add_grid("/floor", width=8.0, height=8.0, plane="xz", cell_size=0.5)
        self._heads: dict[str, int] = {}  # avatar → the joint its label floats over
        self._places: dict[str, np.ndarray] = {}  # avatar → its frame's place in the world

    def rebuild(self, loop: Any) -> None:
        """A new source skeleton or avatar set: the scene is built again."""
        for handle in self._handles.values():
            handle.remove()
        self._handles = {}
        skeleton = loop.source.skeleton
        if skeleton is None:
            return
        rest = skeleton.rest_positions()
        self._handles["source"] = self.server.scene.add_line_segments(
            "/source", _bones(skeleton, rest), (255, 140, 40), thickness=0.02)
        terrain = getattr(loop.grounder, "terrain", None)
        x, height = 0.0, float(np.ptp(rest[:, 1]))
        for i, (name, character) in enumerate(loop._characters.items()):
            target = character.retargeter.output_skeleton()
            rot, pos = forward_kinematics(target.parents, character.retargeter.target_rest,
                                          target.offsets)
            size = float(np.ptp(pos[:, 1]))
            x += max(SPACING, SPACING_SHARE * 0.5 * (height + size))
            height = size
            frame = self.server.scene.add_frame(f"/avatar{i}", show_axes=False,
                                                position=(x, 0.0, 0.0))
            self._handles[f"frame{i}"] = frame
            if terrain is not None:  # each avatar is grounded in its own frame
                self._handles[f"terrain{i}"] = self.server.scene.add_mesh_simple(
                    f"/avatar{i}/terrain", np.asarray(terrain.vertices, np.float32),
                    np.asarray(terrain.faces, np.uint32), color=TERRAIN_COLOR,
                    side="double")
            mesh = skinned_mesh(character.spec.avatar) if character.spec.avatar else None
            if mesh is not None:
                vertices, faces, weights = mesh
                self._handles[name] = self.server.scene.add_mesh_skinned(
                    f"/avatar{i}/mesh", vertices, faces, bone_wxyzs=rot, bone_positions=pos,
                    skin_weights=weights, color=(120, 190, 255))
            else:
                self._handles[name] = self.server.scene.add_line_segments(
                    f"/avatar{i}/bones", _bones(target, pos), (120, 190, 255), thickness=0.02)
            self._heads[name] = int(np.argmax(pos[:, 1]))
            # a label of its own in the world (under the avatar's frame, the browser drew it
            # without the frame's place: over the source skeleton)
            self._places[name] = np.array([x, 0.25, 0.0])
            self._handles[f"label{i}"] = self.server.scene.add_label(
                f"/label{i}", name, position=pos[self._heads[name]] + self._places[name])
        middle = 0.5 * x
        camera = self.server.initial_camera  # the row from the front, a little from above
        camera.look_at = (middle, 0.5 * height, 0.0)
        camera.position = (middle, 0.5 * height + 2.0, 4.0 + 1.5 * max(x, height))

    def update(self, loop: Any, frame: Any) -> None:
        """Show the newest poses and the state (throttled to ``rate`` a second)."""
        now = time.perf_counter()
        if frame is not None and now < self._next:
            return
        self._next = now + 1.0 / self.rate
        with self.server.atomic():
            self._status.content = self._status_text(loop)
            if frame is None or "source" not in self._handles:
                return
            skeleton = loop.source.skeleton
            if skeleton is not None and skeleton.joint_count == len(frame.rotations):
                _, spos = forward_kinematics(skeleton.parents, frame.rotations,
                                             frame.translations)
                self._handles["source"].points = _bones(skeleton, spos).astype(np.float32)
            for i, (name, character) in enumerate(loop._characters.items()):
                handle = self._handles.get(name)
                if handle is None or character.pose is None:
                    continue
                target = character.retargeter.target
                rot, pos = forward_kinematics(target.parents, *character.pose)
                label = self._handles.get(f"label{i}")
                if label is not None and name in self._heads:  # the name over the head
                    label.position = pos[self._heads[name]] + self._places[name]
                if isinstance(handle, viser.MeshSkinnedHandle):
                    for bone, q, p in zip(handle.bones, quat.normalize(rot), pos, strict=True):
                        bone.wxyz = q
                        bone.position = p
                else:
                    handle.points = _bones(target, pos).astype(np.float32)

    @staticmethod
    def _status_text(loop: Any) -> str:
        status = loop.source.status
        latency = list(loop.stats.latency)[-240:]
        median = f"{1000 * float(np.median(latency)):.2f} ms" if latency else "–"
        state = ("**waiting** · 대기 중 (holding the last pose)" if loop.waiting
                 else "**streaming** · 수신 중")
        errors = ", ".join(f"{k} {v}" for k, v in status.errors.items()) or "none · 없음"
        turned = ("stream is Z-up; turned to Y up · Z-up 스트림을 Y-up으로 회전  \n"
                  if status.up == "z" else "")
        return (f"{state}  \n"
                f"source · 소스: {status.server} (NatNet {status.version}) "
                f"{'connected · 연결됨' if status.connected else 'not connected · 연결 안 됨'}  \n"
                f"{turned}"
                f"frame rate · 프레임률: {loop.stats.rate():.1f} Hz  \n"
                f"dropped · 손실: {status.dropped} · skipped · 건너뜀: {status.overwritten}  \n"
                f"latency · 지연 (packet → VMC): {median}  \n"
                f"bad packets · 잘못된 패킷: {errors}")

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()
