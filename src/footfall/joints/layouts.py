"""Joint layouts of motion-generation data: which row of a ``(T, J, 3)`` array is which joint.

A :class:`Layout` names the joints (SMPL's own names, which :mod:`footfall.humanoid` maps onto
the canonical bones), their parents, the file's up axis and its default frame rate, and the
parts the rotation solver needs: the two-bone limbs, the joints whose frame comes from three
children (pelvis, upper chest) and the toe joints GMD's foot-skate ratio follows.

- ``humanml3d``: HumanML3D's 22 SMPL body joints (``new_joints/*.npy``; MDM, T2M-GPT, GMD and
  most text-to-motion models), Y up, 20 fps, metres.
- ``smpl24``: the SMPL body model's 24 joints (the 22 and the two hands), Y up (the model's own
  frame; AMASS world coordinates are Z up: ``--up z``), 30 fps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import JointsError

#: SMPL's joints in its own order (the first 22 are HumanML3D's).
SMPL_JOINTS = (
    "pelvis", "left_hip", "right_hip", "spine1", "left_knee", "right_knee", "spine2",
    "left_ankle", "right_ankle", "spine3", "left_foot", "right_foot", "neck", "left_collar",
    "right_collar", "head", "left_shoulder", "right_shoulder", "left_elbow", "right_elbow",
    "left_wrist", "right_wrist", "left_hand", "right_hand",
)
#: SMPL's kinematic tree: the parent of each joint of :data:`SMPL_JOINTS` (−1: the root).
SMPL_PARENTS = (-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 12, 13, 14, 16, 17, 18, 19, 20, 21)


@dataclass(frozen=True)
class Limb:
    """A two-bone limb by joint name, and the normal of its bending plane in the rest pose
    (T-pose, facing +Z): ``(mid − root) × (tip − mid)`` of a bent limb, unit."""

    root: str
    mid: str
    tip: str
    rest_normal: tuple[float, float, float]


@dataclass(frozen=True)
class TorsoFrame:
    """A joint whose world frame comes from three of its children: ``x`` from ``right`` to
    ``left`` (the character's left, +X at rest), ``y`` from the joint toward ``up``."""

    joint: str
    left: str
    right: str
    up: str


@dataclass(frozen=True)
class Layout:
    """What the rows of a joint-position array are.

    Attributes:
        name: the ``--layout`` name.
        joints: joint names, one per row; parents: ``(J,)`` parent rows (−1 for the root),
            parents before children.
        up: the file's up axis, ``"y"`` or ``"z"``; fps: its default frame rate.
        limbs: the two-bone legs and arms; frames: the joints with a frame from children;
        toes: the (left, right) joints GMD's foot-skate ratio follows.
    """

    name: str
    joints: tuple[str, ...]
    parents: tuple[int, ...]
    up: str
    fps: float
    limbs: tuple[Limb, ...]
    frames: tuple[TorsoFrame, ...]
    toes: tuple[str, str]
    description: str

    @property
    def joint_count(self) -> int:
        """Number of joints J."""
        return len(self.joints)

    def index(self, name: str) -> int:
        """Row of the joint called ``name``."""
        return self.joints.index(name)


_LEGS = tuple(Limb(f"{side}_hip", f"{side}_knee", f"{side}_ankle", (1.0, 0.0, 0.0))
              for side in ("left", "right"))
# A T-pose arm bends its elbow forward (+Z): left arm along +X → −Y, right along −X → +Y.
_ARMS = (Limb("left_shoulder", "left_elbow", "left_wrist", (0.0, -1.0, 0.0)),
         Limb("right_shoulder", "right_elbow", "right_wrist", (0.0, 1.0, 0.0)))
_FRAMES = (TorsoFrame("pelvis", "left_hip", "right_hip", "spine1"),
           TorsoFrame("spine3", "left_collar", "right_collar", "neck"))

LAYOUTS: dict[str, Layout] = {
    "humanml3d": Layout(
        "humanml3d", SMPL_JOINTS[:22], SMPL_PARENTS[:22], "y", 20.0, _LEGS + _ARMS, _FRAMES,
        ("left_foot", "right_foot"),
        "HumanML3D's 22 SMPL joints (T, 22, 3), Y up, 20 fps (MDM, T2M-GPT, GMD outputs)"),
    "smpl24": Layout(
        "smpl24", SMPL_JOINTS, SMPL_PARENTS, "y", 30.0, _LEGS + _ARMS, _FRAMES,
        ("left_foot", "right_foot"),
        "the SMPL body model's 24 joints (T, 24, 3), Y up (--up z for AMASS world), 30 fps"),
}


def get_layout(name: str) -> Layout:
    """The layout called ``name``; raises :class:`JointsError` listing the known ones."""
    try:
        return LAYOUTS[name]
    except KeyError:
        raise JointsError(f"unknown layout {name!r}; known: {', '.join(LAYOUTS)}") from None


def layout_for(joint_count: int, name: str | None = None, where: str = "joints") -> Layout:
    """The layout ``name`` (checked against ``joint_count``), or the one with that many joints
    when ``name`` is None or ``"auto"``; raises :class:`JointsError` naming ``where``."""
    if name is None or name == "auto":
        found = [layout for layout in LAYOUTS.values() if layout.joint_count == joint_count]
        if not found:
            counts = ", ".join(f"{n} ({layout.joint_count})" for n, layout in LAYOUTS.items())
            raise JointsError(f"{where}: {joint_count} joints match no layout ({counts}); "
                              "name one with --layout")
        return found[0]
    layout = get_layout(name)
    if layout.joint_count != joint_count:
        raise JointsError(f"{where}: {joint_count} joints, but layout {layout.name!r} has "
                          f"{layout.joint_count}")
    return layout


#: The turn taking a Z-up file into footfall's Y-up world (−90° about X: z → y, y → −z).
Z_UP_TO_Y_UP = quat.from_axis_angle(np.array([1.0, 0.0, 0.0]), -np.pi / 2)


def up_turn(up: str) -> FloatArray:
    """The rotation ``(4,)`` taking a file with ``up`` (``"y"`` / ``"z"``) into Y up."""
    if up == "y":
        return quat.identity()
    if up == "z":
        return Z_UP_TO_Y_UP
    raise JointsError(f"up axis must be 'y' or 'z', got {up!r}")


def to_y_up(positions: ArrayLike, up: str) -> FloatArray:
    """Positions ``(..., 3)`` of a file with ``up`` axis in footfall's Y-up world."""
    positions = np.asarray(positions, dtype=np.float64)
    return positions.copy() if up == "y" else quat.rotate(up_turn(up), positions)


def from_y_up(positions: ArrayLike, up: str) -> FloatArray:
    """Y-up positions ``(..., 3)`` back in a file's ``up`` axis (inverse of :func:`to_y_up`)."""
    positions = np.asarray(positions, dtype=np.float64)
    return positions.copy() if up == "y" else quat.inv_rotate(up_turn(up), positions)
