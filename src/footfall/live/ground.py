"""``--terrain``: each avatar's retargeted pose grounded live with the grounding pipeline.

The live stream has no footstep plan, so each frame's plan comes from the pose itself: a foot
is planted when the retargeter found the source's foot planted in this frame (the one contact
rule, :mod:`footfall.footing`: the same contacts offline and live); its footstep is where it
is now (the ground is read under the foot, not at a predicted landing, so footsteps are not
snapped to treads: a snap at touchdown would jump). A planted foot is set on the ground under
its sole, wherever the retargeter's floor put it: moved straight up or down until its sole
touches (on stairs, a foot whose toes reach over the next tread rests on it instead of sinking
into the riser; toes over a drop rest on the edge). A swinging foot keeps its lift above its
last stance, never below the ground. The pipeline keeps its smoothing state between frames
(hips, sole angles).

A skinned avatar's soles are its mesh's: the foot model from the sole points the retargeter
stands on its floor (:func:`footfall.skinning.sole_foot_models`: the bones of a glTF avatar
seldom tell where the sole is) and, frame by frame, its skinned foot vertices
(:class:`footfall.skinning.FootVertices`); other rigs use the pipeline's foot model. Feet hung
from the root by an IK rig are hung below their shins for the grounding
(:class:`~footfall.grounding.hung_feet.HungFeet`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import FootfallError
from footfall.footing.foot_model import Leg
from footfall.grounding.hung_feet import HungFeet
from footfall.grounding.params import DEFAULT_PARAMS
from footfall.grounding.pipeline import FootPlan, GroundingPipeline
from footfall.skeleton import forward_kinematics
from footfall.skinning import FootVertices, sole_foot_models

if TYPE_CHECKING:
    from footfall.terrain.base import RaySource

SIDES = ("Left", "Right")
LEG_PARTS = ("UpperLeg", "LowerLeg", "Foot")
#: Live footsteps are where the feet are: nothing to snap to a tread ahead of time.
LIVE_PARAMS = DEFAULT_PARAMS.without("tread_snap")


@dataclass
class _Grounded:
    """One avatar's grounding: its pipeline, hung feet (None: legs the pipeline found), the
    avatar scale they were built at, its skinned feet (None: the pipeline's foot models are its
    soles), and the state between frames: each foot's lift at its last stance ``(2,)``."""

    pipe: GroundingPipeline
    hung: HungFeet | None
    scale: float
    mesh: FootVertices | None = None
    held: FloatArray = field(default_factory=lambda: np.zeros(2))

    def soles(self, world: FloatArray, positions: FloatArray) -> list[FloatArray]:
        """Points of each sole ``(K_i, 3)`` in the pose of world rotations ``(J, 4)`` and
        positions ``(J, 3)`` (the pipeline's skeleton), metres."""
        if self.mesh is not None:
            order = slice(None) if self.hung is None else self.hung.index
            return self.mesh.posed(world[order], positions[order])
        return [positions[leg.foot] + quat.rotate(world[leg.foot], foot.sole)
                for leg, foot in zip(self.pipe.legs, self.pipe.feet, strict=True)]


class LiveGrounder:
    """Grounds every avatar of a loop on ``terrain``, one frame at a time."""

    def __init__(self, terrain: RaySource) -> None:
        self.terrain = terrain
        self._avatars: dict[str, _Grounded] = {}

    def rebuild(self, loop: Any) -> None:
        """One pipeline per avatar (its skeleton at the current avatar scale, its feet from its
        mesh when it has one); an avatar whose feet the pipeline cannot use is reported and
        left ungrounded."""
        self._avatars = {}
        for name, character in loop._characters.items():
            try:
                self._avatars[name] = self._grounded(character)
            except FootfallError as error:
                loop.report(f"live: {name} is not grounded on the terrain ({error})")

    def _grounded(self, character: Any) -> _Grounded:
        """The grounding of one avatar."""
        retargeter = character.retargeter
        skeleton = retargeter.output_skeleton()
        bones = retargeter.target_map
        if not all(f"{side}{part}" in bones for side in SIDES for part in LEG_PARTS):
            return _Grounded(GroundingPipeline(skeleton, self.terrain, params=LIVE_PARAMS), None,
                             retargeter.avatar_scale)
        chains = [tuple(skeleton.index(bones[f"{side}{part}"]) for part in LEG_PARTS)
                  for side in SIDES]
        hung = HungFeet(skeleton, chains, retargeter.target_rest)
        legs = {side.lower(): Leg(*(int(hung.index[j]) for j in chain))
                for side, chain in zip(SIDES, chains, strict=True)}
        sole, avatar = character.spec.feet, character.spec.avatar
        mesh = None
        feet = None
        scale = retargeter.avatar_scale
        if sole is not None and sole.from_mesh and avatar is not None:
            feet = sole_foot_models(retargeter.target, bones, retargeter.target_rest, sole, scale)
            mesh = FootVertices.of(avatar, bones, scale)
        pipe = GroundingPipeline(hung.skeleton, self.terrain, params=LIVE_PARAMS, legs=legs,
                                 feet=feet)
        return _Grounded(pipe, hung, scale, mesh)

    def ground(self, character: Any, rotations: np.ndarray, translations: np.ndarray,
               dt: float) -> tuple[np.ndarray, np.ndarray]:
        """The grounded local pose ``(Jt, 4)``, ``(Jt, 3)`` of one avatar's frame."""
        avatar = self._avatars.get(character.name)
        if avatar is None:
            return rotations, translations
        if avatar.scale != character.retargeter.avatar_scale:  # resized: feet and legs anew
            try:
                avatar = self._avatars[character.name] = self._grounded(character)
            except FootfallError:
                del self._avatars[character.name]
                return rotations, translations
        pipe, hung = avatar.pipe, avatar.hung
        if hung is not None:
            rotations, translations = hung.hang(rotations, translations)
        world, positions = forward_kinematics(pipe.skeleton.parents, rotations, translations)
        ankles = positions[[leg.foot for leg in pipe.legs]][:, [0, 2]]  # (2, 2)
        soles = avatar.soles(world, positions)
        sole = np.array([points[:, 1].min() for points in soles])  # above y = 0
        stance = character.retargeter.live.planted
        touch = self._touch(soles, sole, ankles, float(pipe.params.steep_normal_y[0]))
        lift = np.where(stance, touch, np.maximum(avatar.held, touch))
        avatar.held = np.where(stance, -sole, avatar.held)
        plan = FootPlan(stance[None], np.where(stance, 0.0, 0.5)[None], ankles[None],
                        ankles[None])
        frame = pipe.step(rotations[None], translations[None], plan, dt, foot_lift=lift[None])
        if hung is None:
            return frame.rotations[0], frame.positions[0]
        return hung.unhang(frame.global_rotations[0], frame.global_positions[0],
                           frame.rotations[0], frame.positions[0])

    def _touch(self, soles: list[FloatArray], sole: FloatArray, ankles: FloatArray,
               steep_normal_y: float) -> FloatArray:
        """The lift ``(2,)`` (``GroundingPipeline.step``'s ``foot_lift``) that sets each foot,
        moved straight up or down, on the ground under its sole points ``(K_i, 3)`` (lowest
        ``sole (2,)``, above y = 0): on level ground ``−sole``; a stair's next tread under the
        toes lifts it, toes over a drop lower it until another point touches. Measured from
        the ground plane under its ankle ``(2, 2)`` (x, z) that the pipeline stands and tilts
        it on (level where the ground is steeper than ``steep_normal_y``), metres."""
        counts = [len(points) for points in soles]
        hits = self.terrain.raycast_down(
            np.concatenate([ankles, *(points[:, [0, 2]] for points in soles)]))
        heights = hits.height
        out = -sole
        start = 2
        for side, points in enumerate(soles):
            under = heights[start:start + counts[side]]
            start += counts[side]
            if not hits.hit[side] or not np.isfinite(under).any():
                continue
            normal = hits.normal[side]
            tilt = (normal[[0, 2]] / normal[1] if normal[1] >= steep_normal_y else np.zeros(2))
            plane = heights[side] - (points[:, [0, 2]] - ankles[side]) @ tilt
            out[side] = float(np.nanmax(under - plane - points[:, 1]))
        return out
