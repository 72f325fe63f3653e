"""``--record OUT.bvh|.glb``: keep every avatar's live poses, write one file per avatar when
recording stops (atomically, as ``bvh.save`` and ``gltf.save_animation`` write)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from footfall.errors import FootfallError
from footfall.skeleton import Clip


def output_paths(out: Path, names: list[str]) -> dict[str, Path]:
    """One path per avatar: ``out`` itself for one avatar, ``<stem>-<avatar><suffix>`` else."""
    if len(names) == 1:
        return {names[0]: out}
    return {name: out.with_name(f"{out.stem}-{name}{out.suffix}") for name in names}


class Recorder:
    """Collects the loop's avatar poses per frame; :meth:`finish` writes them."""

    def __init__(self, out: str | Path) -> None:
        self.out = Path(out)
        if self.out.suffix.lower() not in (".bvh", ".glb", ".gltf", ".vrm", ".vrma"):
            raise FootfallError(f"--record {self.out}: write .bvh, .glb or .gltf (.vrm or "
                                ".vrma for VRM avatars)")
        self.frames: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        self.times: list[float] = []
        self._characters: dict[str, Any] = {}

    def rebuild(self, loop: Any) -> None:
        """A new source skeleton: the recording restarts (poses of another skeleton differ)."""
        self._characters = dict(loop._characters)
        self.frames = {name: [] for name in self._characters}
        self.times = []

    def add(self, loop: Any, frame: Any) -> None:
        """Keep this frame's avatar poses."""
        self.times.append(frame.seconds)
        for name, character in self._characters.items():
            if character.pose is not None:
                self.frames[name].append((character.pose[0].copy(), character.pose[1].copy()))

    def finish(self) -> list[Path]:
        """Write one file per avatar; returns the paths written."""
        if not self.times:
            return []
        from footfall import bvh
        from footfall.gltf import check_motion_output, save_motion

        steps = np.diff(self.times)
        steps = steps[steps > 0]
        fps = float(1.0 / np.median(steps)) if len(steps) else 30.0
        written = []
        for name, path in output_paths(self.out, list(self._characters)).items():
            poses = self.frames.get(name) or []
            if not poses:
                continue
            character = self._characters[name]
            retargeter = character.retargeter
            clip = Clip(retargeter.output_skeleton(), np.stack([p[0] for p in poses]),
                        np.stack([p[1] for p in poses]), fps)
            if path.suffix.lower() == ".bvh":
                bvh.save(clip, path)
            else:
                avatar = character.spec.avatar
                if avatar is None:
                    raise FootfallError(f"--record {path}: a glTF recording needs a "
                                        f".glb/.gltf avatar, {name} is a BVH skeleton")
                check_motion_output(path, avatar, "--record")
                save_motion(avatar, clip, path, joint_scales=retargeter.joint_scales(),
                            root_scale=retargeter.avatar_scale)
            written.append(path)
        return written
