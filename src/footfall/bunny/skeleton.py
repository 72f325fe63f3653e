"""The bunny rig of seed 000: a small two-legged character built from code.

Joint names are the canonical humanoid names (:mod:`footfall.humanoid`) wherever a bunny part
has a human counterpart, so everything that works on a humanoid works on the bunny. The rest
pose stands on y = 0 with straight legs, facing +Z (left is +X); measures in
:class:`BunnyProportions`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from footfall.skeleton import Skeleton


@dataclass(frozen=True)
class BunnyProportions:
    """Seed 000's bunny measures in metres."""

    thigh: float = 0.19
    shin: float = 0.18
    hip_drop: float = 0.08  # hips joint to hip joint, straight down
    hip_width: float = 0.09  # hips centre to each hip joint, sideways
    ankle_height: float = 0.10  # ankle joint above the sole
    foot_forward: float = 0.13  # ankle to toe tip along +Z
    heel_back: float = 0.04  # ankle to heel along −Z
    walk_hips_height: float = 0.53  # seed 000: hips = ground + 0.53 while walking
    step_length: float = 0.62  # seed 000: S = 0.62

    @property
    def leg_length(self) -> float:
        """Thigh plus shin, metres (0.37 in seed 000)."""
        return self.thigh + self.shin

    @property
    def rest_hips_height(self) -> float:
        """Hips height with straight legs and the sole on y = 0, metres."""
        return self.hip_drop + self.leg_length + self.ankle_height


PROPORTIONS = BunnyProportions()

# (name, parent name, offset from parent) — offsets are computed from PROPORTIONS below.
def _joint_table(p: BunnyProportions) -> list[tuple[str, str | None, tuple[float, float, float]]]:
    return [
        ("Hips", None, (0.0, p.rest_hips_height, 0.0)),
        ("Spine", "Hips", (0.0, 0.12, 0.0)),
        ("Head", "Spine", (0.0, 0.30, 0.03)),
        ("LeftEar", "Head", (0.05, 0.14, -0.01)),
        ("LeftEarTip", "LeftEar", (0.02, 0.22, -0.02)),
        ("RightEar", "Head", (-0.05, 0.14, -0.01)),
        ("RightEarTip", "RightEar", (-0.02, 0.22, -0.02)),
        ("Tail", "Hips", (0.0, 0.02, -0.19)),
        ("LeftUpperArm", "Spine", (0.14, 0.12, 0.02)),
        ("LeftLowerArm", "LeftUpperArm", (0.02, -0.09, 0.0)),
        ("LeftHand", "LeftLowerArm", (0.0, -0.07, 0.01)),
        ("RightUpperArm", "Spine", (-0.14, 0.12, 0.02)),
        ("RightLowerArm", "RightUpperArm", (-0.02, -0.09, 0.0)),
        ("RightHand", "RightLowerArm", (0.0, -0.07, 0.01)),
        ("LeftUpperLeg", "Hips", (p.hip_width, -p.hip_drop, 0.0)),
        ("LeftLowerLeg", "LeftUpperLeg", (0.0, -p.thigh, 0.0)),
        ("LeftFoot", "LeftLowerLeg", (0.0, -p.shin, 0.0)),
        ("LeftToes", "LeftFoot", (0.0, -p.ankle_height, p.foot_forward)),
        ("RightUpperLeg", "Hips", (-p.hip_width, -p.hip_drop, 0.0)),
        ("RightLowerLeg", "RightUpperLeg", (0.0, -p.thigh, 0.0)),
        ("RightFoot", "RightLowerLeg", (0.0, -p.shin, 0.0)),
        ("RightToes", "RightFoot", (0.0, -p.ankle_height, p.foot_forward)),
    ]


def bunny_skeleton(proportions: BunnyProportions = PROPORTIONS) -> Skeleton:
    """The bunny's joint hierarchy in its rest pose (22 joints, metres, facing +Z)."""
    table = _joint_table(proportions)
    names = [name for name, _, _ in table]
    parents = np.array([-1 if parent is None else names.index(parent) for _, parent, _ in table])
    offsets = np.array([offset for _, _, offset in table], dtype=np.float64)
    return Skeleton(names, parents, offsets)


def sole_points(proportions: BunnyProportions = PROPORTIONS, spacing: float = 0.01) -> np.ndarray:
    """Sole points ``(S, 3)`` metres in the foot's frame (ankle at the origin): one every
    ``spacing`` metres from heel to toe tip, at y = −ankle height."""
    length = proportions.heel_back + proportions.foot_forward
    count = int(np.floor(length / spacing + 1e-9)) + 1
    z = np.linspace(-proportions.heel_back, proportions.foot_forward, count)
    return np.stack([np.zeros(count), np.full(count, -proportions.ankle_height), z], axis=-1)
