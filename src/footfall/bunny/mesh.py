"""The bunny's body built from code: ellipsoid parts riding on the bunny rig's joints.

Every part is one unit sphere scaled into an ellipsoid on a joint of
:func:`footfall.bunny.bunny_skeleton`, so both bunnies draw as ONE batched mesh. Parts that
follow a bone (thigh, shin, ear, arm) lie along the rest offset to the child joint.

▶ REAL MODEL FILE: load a real bunny in :func:`load_model_file` (a skinned GLB through viser's
``add_mesh_skinned`` with ``bunny_skeleton()``'s bone names); everything else stays the same.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import trimesh

from footfall import quat
from footfall.skeleton import Skeleton

# Soft pastel palette (RGB 0–255).
FUR = {
    "left": (250, 232, 220),  # peach cream
    "right": (212, 198, 240),  # lilac
}
BELLY = (255, 253, 250)
INNER_EAR = (255, 184, 200)
EYE = (58, 48, 72)
NOSE = (255, 128, 150)
BLUSH = (255, 196, 206)
TAIL = (255, 255, 255)
FOOT_PAD = (255, 214, 222)


@dataclass(frozen=True)
class BunnyPart:
    """One ellipsoid of the bunny, fixed in a joint's frame.

    ``centre`` (3,) metres in the joint frame; ``radii`` (3,) metres along the part's own axes;
    ``along`` names a child joint: the part's y axis then points along the bone to that child;
    ``color`` is an RGB tuple, or ``None`` for the bunny's fur colour.
    """

    joint: str
    centre: tuple[float, float, float]
    radii: tuple[float, float, float]
    color: tuple[int, int, int] | None = None
    along: str | None = None


def _mirror(parts: list[BunnyPart]) -> list[BunnyPart]:
    """The same parts on the right side (joint names Left→Right, x negated)."""
    return [replace(p, joint=p.joint.replace("Left", "Right"), centre=(-p.centre[0], *p.centre[1:]),
                    along=None if p.along is None else p.along.replace("Left", "Right"))
            for p in parts]


def build_bunny_parts() -> list[BunnyPart]:
    """The placeholder bunny (body, head, ears, tail, arms, legs, face) in metres."""
    left = [
        # long ear along the ear bone, with a pink inside facing forward
        BunnyPart("LeftEar", (0.0, 0.0, 0.0), (0.048, 0.16, 0.028), along="LeftEarTip"),
        BunnyPart("LeftEar", (0.0, 0.0, 0.014), (0.028, 0.12, 0.02), INNER_EAR, "LeftEarTip"),
        BunnyPart("Head", (0.055, 0.035, 0.112), (0.02, 0.027, 0.013), EYE),
        BunnyPart("Head", (0.088, -0.025, 0.098), (0.026, 0.016, 0.012), BLUSH),
        BunnyPart("LeftUpperArm", (0.0, 0.0, 0.0), (0.036, 0.07, 0.036), along="LeftLowerArm"),
        BunnyPart("LeftLowerArm", (0.0, 0.0, 0.0), (0.032, 0.065, 0.032), along="LeftHand"),
        BunnyPart("LeftHand", (0.0, -0.01, 0.0), (0.036, 0.034, 0.036), BELLY),
        # legs: chubby thigh, slimmer shin, long flat bunny foot with a pink pad
        BunnyPart("LeftUpperLeg", (0.0, 0.0, 0.0), (0.066, 0.115, 0.07), along="LeftLowerLeg"),
        BunnyPart("LeftLowerLeg", (0.0, 0.0, 0.0), (0.042, 0.1, 0.042), along="LeftFoot"),
        BunnyPart("LeftFoot", (0.0, -0.066, 0.045), (0.052, 0.034, 0.092)),
        BunnyPart("LeftFoot", (0.0, -0.088, 0.06), (0.032, 0.012, 0.055), FOOT_PAD),
    ]
    centre = [
        BunnyPart("Spine", (0.0, 0.0, 0.0), (0.165, 0.21, 0.155)),  # round body
        BunnyPart("Spine", (0.0, -0.03, 0.07), (0.12, 0.15, 0.1), BELLY),
        BunnyPart("Head", (0.0, 0.03, 0.01), (0.142, 0.13, 0.13)),
        BunnyPart("Head", (0.0, -0.03, 0.105), (0.062, 0.044, 0.04), BELLY),  # muzzle
        BunnyPart("Head", (0.0, -0.006, 0.138), (0.018, 0.014, 0.012), NOSE),
        BunnyPart("Tail", (0.0, 0.0, 0.0), (0.065, 0.065, 0.065), TAIL),
    ]
    return centre + left + _mirror(left)


def load_model_file(path: str | Path) -> list[BunnyPart]:
    """▶ The place to load a real bunny model instead of the code-built placeholder (not wired
    yet: the demo always draws :func:`build_bunny_parts`)."""
    raise NotImplementedError(
        f"loading a bunny model from {path} is not implemented; "
        "replace build_bunny_parts() here with the parts of your model"
    )


def unit_sphere(subdivisions: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A unit icosphere: vertices ``(V, 3)`` and triangle faces ``(F, 3)``."""
    mesh = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0)
    return np.asarray(mesh.vertices, np.float32), np.asarray(mesh.faces, np.uint32)


@dataclass(frozen=True)
class PartTable:
    """The bunny parts as arrays for batched posing.

    ``joints`` (P,) joint indices; ``local_rot`` (P, 4) part frame in the joint frame;
    ``local_pos`` (P, 3) metres; ``radii`` (P, 3) metres; ``colors`` (P, 3) uint8 with the fur
    parts marked by ``is_fur`` (P,) so each bunny can wear its own fur colour.
    """

    joints: np.ndarray
    local_rot: np.ndarray
    local_pos: np.ndarray
    radii: np.ndarray
    colors: np.ndarray
    is_fur: np.ndarray

    @property
    def count(self) -> int:
        """Number of parts per bunny."""
        return len(self.joints)

    def colors_for(self, furs: list[tuple[int, int, int]]) -> np.ndarray:
        """Per-instance colours ``(K·P, 3)`` uint8 for K bunnies wearing ``furs``."""
        out = np.where(self.is_fur[:, None], np.asarray(furs)[:, None], self.colors)  # (K, P, 3)
        return out.reshape(-1, 3).astype(np.uint8)

    def scales(self, bunnies: int) -> np.ndarray:
        """Per-instance ellipsoid radii ``(K·P, 3)`` for K bunnies."""
        return np.tile(self.radii, (bunnies, 1)).astype(np.float32)

    def pose(self, global_rot: np.ndarray, global_pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World frames of every part of every bunny: ``global_rot`` (K, J, 4) and
        ``global_pos`` (K, J, 3) metres → ``wxyz`` (K·P, 4) and ``position`` (K·P, 3), float32."""
        joint_rot = global_rot[:, self.joints]
        rot = quat.mul(joint_rot, self.local_rot)
        pos = global_pos[:, self.joints] + quat.rotate(joint_rot, self.local_pos)
        return rot.reshape(-1, 4).astype(np.float32), pos.reshape(-1, 3).astype(np.float32)


def part_table(skeleton: Skeleton, parts: list[BunnyPart] | None = None) -> PartTable:
    """Resolve ``parts`` (default :func:`build_bunny_parts`) against ``skeleton``'s joints; a
    part with ``along`` is centred halfway along its bone, its y axis following the bone."""
    parts = build_bunny_parts() if parts is None else parts
    rots, poss = [], []
    for part in parts:
        centre = np.asarray(part.centre, np.float64)
        rot = quat.identity()
        if part.along is not None:
            bone = skeleton.offsets[skeleton.index(part.along)]
            rot = quat.between(np.array([0.0, 1.0, 0.0]), bone)
            centre = centre + bone / 2.0
        rots.append(rot)
        poss.append(centre)
    return PartTable(
        np.array([skeleton.index(part.joint) for part in parts]), np.array(rots), np.array(poss),
        np.array([part.radii for part in parts], np.float64),
        np.array([(0, 0, 0) if part.color is None else part.color for part in parts], np.uint8),
        np.array([part.color is None for part in parts]),
    )
