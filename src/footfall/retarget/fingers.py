"""Finger poses: curl (all three joints) and spread per finger, −1…1, for both hands.

Seed 001 drives Unity's finger muscles; here the same controls act directly on the finger
joints of the target skeleton. Axes come from the hand's geometry in the calibration pose:
the palm normal from the knuckle line and the hand's forward direction; curling turns each
finger joint toward the palm, spreading turns the first joint about the palm normal. Only finger
joints change, so the body is untouched by construction.

Curl +1 is a fist (proximal 80°, intermediate 100°, distal 70°), 0 the calibration pose, −1
bends the fingers back (−20°, −10°, −10°). Spread +1 opens the finger 20° away from its
neighbours (thumb 30°).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import MappingError, SettingsError
from footfall.humanoid import bones
from footfall.skeleton import Skeleton, forward_kinematics

FINGERS = ("thumb", "index", "middle", "ring", "pinky")  # the order of ``bones.FINGERS``
HANDS = ("left", "right")
CURL_DEG = np.array([80.0, 100.0, 70.0])
EXTEND_DEG = np.array([20.0, 10.0, 10.0])
SPREAD_DEG = np.array([30.0, 20.0, 20.0, 20.0, 20.0])
# Spread +1 moves index and thumb toward the thumb side, ring and little away from it.
_SPREAD_SIGN = np.array([1.0, 1.0, 0.25, -0.6, -1.0])

# (curl per finger, spread per finger) in FINGERS order.
PRESETS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "rock": ((0.7, 1.0, 1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 0.0, 0.0)),
    "paper": ((0.0, 0.0, 0.0, 0.0, 0.0), (0.6, 0.6, 0.6, 0.6, 0.6)),
    "scissors": ((0.0, 0.0, 1.0, 1.0, 1.0), (0.8, 0.3, 0.0, 0.0, 0.0)),
    "v": ((0.8, 0.0, 0.0, 1.0, 1.0), (0.0, 1.0, -1.0, 0.0, 0.0)),
    "index": ((0.8, 0.0, 1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 0.0, 0.0)),
    "reset": ((0.0,) * 5, (0.0,) * 5),
}
# Seed 001's preset names (가위 바위 보 브이 검지 초기화).
PRESET_ALIASES = {"가위": "scissors", "바위": "rock", "보": "paper", "브이": "v", "검지": "index",
                  "초기화": "reset"}


def preset(name: str) -> tuple[FloatArray, FloatArray]:
    """``(curl (2, 5), spread (2, 5))`` of a named preset, the same on both hands."""
    key = PRESET_ALIASES.get(name, name.lower() if isinstance(name, str) else name)
    if key not in PRESETS:
        raise SettingsError(
            f"unknown hand pose preset {name!r}; choose one of {sorted(PRESETS)}"
        )
    curl, spread = PRESETS[key]
    return np.tile(np.array(curl), (2, 1)), np.tile(np.array(spread), (2, 1))


@dataclass(frozen=True)
class FingerRig:
    """Finger joints of one skeleton and their axes in the calibration pose.

    Attributes:
        joints: ``(2, 5, 3)`` joint index per hand, finger, segment; −1 where missing.
        rest_local: ``(2, 5, 3, 4)`` calibration local rotations of those joints.
        curl_axes: ``(2, 5, 3, 3)`` curl axis of each joint in its own frame.
        spread_axes: ``(2, 5, 3)`` spread axis of each proximal joint in its own frame.
    """

    joints: NDArray[np.int64]
    rest_local: FloatArray
    curl_axes: FloatArray
    spread_axes: FloatArray

    @classmethod
    def build(
        cls,
        skeleton: Skeleton,
        mapping: Mapping[str, str],
        calibration_rotations: ArrayLike | None = None,
    ) -> FingerRig:
        """Find finger joints through ``mapping`` ({canonical: joint name}) and their axes in
        the calibration pose ``calibration_rotations (J, 4)`` (local; default: identity)."""
        local = (quat.identity((skeleton.joint_count,)) if calibration_rotations is None
                 else np.asarray(calibration_rotations, dtype=np.float64))
        grot, gpos = forward_kinematics(skeleton.parents, local, skeleton.offsets)
        joints = np.full((2, 5, 3), -1, dtype=np.int64)
        for h, f, s in np.ndindex(joints.shape):
            bone = f"{HANDS[h].capitalize()}{bones.FINGERS[f]}{bones.FINGER_SEGMENTS[s]}"
            name = mapping.get(bone)
            if name is not None:
                if name not in skeleton.names:
                    raise MappingError(f"finger bone {bone} maps to {name!r}, which the "
                                       "skeleton lacks")
                joints[h, f, s] = skeleton.index(name)
        rest_local = np.tile(quat.identity(), (2, 5, 3, 1))
        curl_axes = np.zeros((2, 5, 3, 3))
        spread_axes = np.zeros((2, 5, 3))
        for h, hand in enumerate(HANDS):
            hand_name = mapping.get(f"{hand.capitalize()}Hand")
            if hand_name is None or not np.any(joints[h] >= 0):
                continue
            wrist = gpos[skeleton.index(hand_name)]
            proximal = [joints[h, f, 0] for f in range(5) if joints[h, f, 0] >= 0]
            forward = _unit(np.mean(gpos[proximal], axis=0) - wrist, fallback=(1, 0, 0))
            front = joints[h, 1, 0] if joints[h, 1, 0] >= 0 else joints[h, 0, 0]
            back = next((joints[h, f, 0] for f in (4, 3, 2) if joints[h, f, 0] >= 0), -1)
            across = gpos[front] - gpos[back] if back >= 0 and front >= 0 else np.array(
                [0.0, 0.0, 1.0])
            across = _unit(across - np.dot(across, forward) * forward, fallback=(0, 0, 1))
            palm = np.cross(forward, across) if hand == "left" else np.cross(across, forward)
            mirror = 1.0 if hand == "left" else -1.0
            for f, s in np.ndindex(5, 3):
                j = joints[h, f, s]
                if j < 0:
                    continue
                rest_local[h, f, s] = local[j]
                child = joints[h, f, s + 1] if s < 2 else -1
                if child >= 0:
                    direction = gpos[child] - gpos[j]
                elif s > 0 and joints[h, f, s - 1] >= 0:
                    direction = gpos[j] - gpos[joints[h, f, s - 1]]
                else:
                    direction = forward
                direction = _unit(direction, fallback=forward)
                curl_world = _unit(np.cross(direction, palm), fallback=across)
                curl_axes[h, f, s] = quat.inv_rotate(grot[j], curl_world)
                if s == 0:
                    spread_axes[h, f] = quat.inv_rotate(grot[j], mirror * palm)
        return cls(joints, rest_local, curl_axes, spread_axes)

    @property
    def present(self) -> bool:
        """Whether the skeleton has any finger joint."""
        return bool(np.any(self.joints >= 0))

    def apply(
        self,
        rotations: ArrayLike,
        curl: ArrayLike,
        spread: ArrayLike,
        hands: ArrayLike = (True, True),
    ) -> FloatArray:
        """Local rotations ``(..., J, 4)`` with the finger joints set from curl and spread.

        ``curl`` and ``spread`` are ``(2, 5)`` (hand, finger) in −1…1, or ``(..., 2, 5)`` per
        frame; ``hands`` ``(2,)`` bool selects which hands change. Non-finger joints are
        returned unchanged.
        """
        out = np.array(rotations, dtype=np.float64, copy=True)
        curl = np.asarray(curl, dtype=np.float64)
        spread = np.asarray(spread, dtype=np.float64)
        if curl.shape[-2:] != (2, 5) or spread.shape[-2:] != (2, 5):
            raise SettingsError(
                f"curl and spread must be (2, 5) (hand, finger), got {curl.shape}, {spread.shape}"
            )
        if not (np.all(np.abs(curl) <= 1.0) and np.all(np.abs(spread) <= 1.0)):
            raise SettingsError("finger curl and spread values must lie in −1…1")
        enabled = np.asarray(hands, dtype=bool).reshape(2, 1, 1) & (self.joints >= 0)
        if not np.any(enabled):
            return out
        curl_deg = np.where(curl[..., None] >= 0, curl[..., None] * CURL_DEG,
                            curl[..., None] * EXTEND_DEG)  # (..., 2, 5, 3)
        rotation = quat.from_axis_angle(self.curl_axes, np.radians(curl_deg))
        spread_rad = np.radians(spread * SPREAD_DEG * _SPREAD_SIGN)  # (..., 2, 5)
        spread_rot = quat.from_axis_angle(self.spread_axes, spread_rad)
        rotation[..., 0, :] = quat.mul(spread_rot, rotation[..., 0, :])
        new_local = quat.mul(self.rest_local, rotation)  # (..., 2, 5, 3, 4)
        index = self.joints[enabled]
        out[..., index, :] = new_local[..., enabled, :]
        return out

    def measure(self, rotations: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Curl and spread ``(..., 2, 5)`` (−1…1) of the fingers in local rotations
        ``(..., J, 4)``: the inverse of :meth:`apply`, read from each joint's turn away from the
        calibration pose about its curl axis (mean over the finger's joints) and the first
        joint's turn about the spread axis. Exact for what :meth:`apply` made of pure curls or
        pure spreads, close for both at once; 0 where a finger is missing."""
        rotations = np.asarray(rotations, dtype=np.float64)
        present = self.joints >= 0  # (2, 5, 3)
        local = rotations[..., np.where(present, self.joints, 0), :]  # (..., 2, 5, 3, 4)
        turn = quat.inv_mul(self.rest_local, local)
        curl_angle = np.degrees(_twist_angle(turn, self.curl_axes))
        value = np.where(curl_angle >= 0, curl_angle / CURL_DEG, curl_angle / EXTEND_DEG)
        value = np.where(present, value, 0.0)
        count = present.sum(axis=-1)
        curl = np.where(count > 0, value.sum(axis=-1) / np.maximum(count, 1), 0.0)
        spread_angle = np.degrees(_twist_angle(turn[..., 0, :], self.spread_axes))
        spread = np.where(present[..., 0], spread_angle / (SPREAD_DEG * _SPREAD_SIGN), 0.0)
        return np.clip(curl, -1.0, 1.0), np.clip(spread, -1.0, 1.0)


def _twist_angle(rotation: FloatArray, axis: FloatArray) -> FloatArray:
    """Signed angle (radians) of the twist of ``rotation (..., 4)`` about unit ``axis (..., 3)``
    (swing–twist split); 0 for a zero axis."""
    along = np.sum(rotation[..., 1:] * axis, axis=-1)
    return 2.0 * np.arctan2(along, rotation[..., 0])


def _unit(v: ArrayLike, fallback: ArrayLike) -> FloatArray:
    v = np.asarray(v, dtype=np.float64)
    norm = float(np.linalg.norm(v))
    if norm < 1e-9:
        return np.asarray(fallback, dtype=np.float64)
    return v / norm
