"""``--terrain``: each avatar's retargeted pose grounded live with the grounding pipeline.

The live stream has no footstep plan, so each frame's plan comes from the pose itself: a foot
is planted when its ankle is within ``PLANT_HEIGHT`` of its standing height and moves slower
than ``PLANT_SPEED`` (the same low-and-slow rule the offline contacts use), and its footstep is
where it is now (the ground is read under the foot, not at a predicted landing). The pipeline
keeps its smoothing state between frames (pelvis, sole angles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from footfall.errors import FootfallError
from footfall.grounding.feet import Leg
from footfall.grounding.pipeline import FootPlan, GroundingPipeline
from footfall.skeleton import forward_kinematics

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

PLANT_HEIGHT = 0.05  # metres above the standing ankle height
PLANT_SPEED = 0.4  # metres a second, horizontal


class LiveGrounder:
    """Grounds every avatar of a loop on ``terrain``, one frame at a time."""

    def __init__(self, terrain: RaySource) -> None:
        self.terrain = terrain
        self._pipes: dict[str, GroundingPipeline] = {}
        self._last: dict[str, np.ndarray] = {}

    def rebuild(self, loop: Any) -> None:
        """One pipeline per avatar (its skeleton at the current avatar scale); an avatar whose
        feet the pipeline cannot use is reported and left ungrounded."""
        self._pipes, self._last = {}, {}
        for name, character in loop._characters.items():
            skeleton = character.retargeter.output_skeleton()
            bones = character.retargeter.target_map
            legs = None
            if all(f"{side}{part}" in bones for side in ("Left", "Right")
                   for part in ("UpperLeg", "LowerLeg", "Foot")):
                legs = {side.lower(): Leg(*(skeleton.index(bones[f"{side}{part}"])
                                            for part in ("UpperLeg", "LowerLeg", "Foot")))
                        for side in ("Left", "Right")}
            try:
                self._pipes[name] = GroundingPipeline(skeleton, self.terrain, legs=legs)
            except FootfallError as error:
                loop.report(f"live: {name} is not grounded on the terrain ({error})")

    def ground(self, character: Any, rotations: np.ndarray, translations: np.ndarray,
               dt: float) -> tuple[np.ndarray, np.ndarray]:
        """The grounded local pose ``(Jt, 4)``, ``(Jt, 3)`` of one avatar's frame."""
        pipe = self._pipes.get(character.name)
        if pipe is None:
            return rotations, translations
        feet = [leg.foot for leg in pipe.legs]
        _, positions = forward_kinematics(pipe.skeleton.parents, rotations, translations)
        ankles = positions[feet]  # (2, 3)
        last = self._last.get(character.name)
        speed = (np.zeros(2) if last is None
                 else np.linalg.norm(ankles[:, [0, 2]] - last, axis=-1) / max(dt, 1e-6))
        self._last[character.name] = ankles[:, [0, 2]].copy()
        standing = np.array([f.ankle_height for f in pipe.feet])
        stance = (ankles[:, 1] - standing < PLANT_HEIGHT) & (speed < PLANT_SPEED)
        here = ankles[:, [0, 2]][None]
        plan = FootPlan(stance[None], np.where(stance, 0.0, 0.5)[None], here, here)
        frame = pipe.step(rotations[None], translations[None], plan, dt)
        return frame.rotations[0], frame.positions[0]
