"""One frame of the per-frame grounding pipeline: what the animation intends each foot to do
(:class:`FootPlan`) and the grounded frame with what each stage saw (:class:`GroundedFrame`),
for K characters; batches of T frames carry a leading frame axis (:func:`with_frame_axis`,
:func:`frame_at`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from footfall.arrays import BoolArray, FloatArray


@dataclass(frozen=True)
class FootPlan:
    """What the animation intends each foot to do this frame; ``(K, 2)`` = (character, foot).

    stance: planted. swing: swing progress q ∈ [0, 1] (ignored while planted).
    plant_xz, next_plant_xz: ``(K, 2, 2)`` world (x, z) of the ankle at the current (or last)
    and the next footstep.
    lock_xz, lock_weight: optional foot locks (post-processing): ``(K, 2, 2)`` world (x, z) the
    ankle is held at and ``(K, 2)`` how much (0 = animated, 1 = locked).
    lock_turn: optional ``(K, 2)`` radians about +Y that turn the foot to its locked heading
    (applied with ``lock_weight``).
    """

    stance: BoolArray
    swing: FloatArray
    plant_xz: FloatArray
    next_plant_xz: FloatArray
    lock_xz: FloatArray | None = None
    lock_weight: FloatArray | None = None
    lock_turn: FloatArray | None = None


@dataclass(frozen=True)
class GroundedFrame:
    """One grounded frame for K characters (left foot first on the foot axis).

    rotations, positions: ``(K, J, 4)``, ``(K, J, 3)`` local pose. global_rotations,
    global_positions: the same after FK. Per foot ``(K, 2)``: stance, ground_height (ground under
    the sole below the ankle), sole_gap (that sole point − ground: + floating, − sinking),
    sole_pitch, sole_roll (radians, as applied), clamped (leg stretched to its limit),
    fallback (ground missing or out of reach: the animated foot was kept). ray_origin,
    ray_hit, ankle_target: ``(K, 2, 3)``. hips_height, hips_offset: ``(K,)`` metres.
    """

    rotations: FloatArray
    positions: FloatArray
    global_rotations: FloatArray
    global_positions: FloatArray
    stance: BoolArray
    ground_height: FloatArray
    sole_gap: FloatArray
    sole_pitch: FloatArray
    sole_roll: FloatArray
    clamped: BoolArray
    fallback: BoolArray
    ray_origin: FloatArray
    ray_hit: FloatArray
    ankle_target: FloatArray
    hips_height: FloatArray
    hips_offset: FloatArray


def with_frame_axis(frame: Any) -> Any:
    """``frame`` (a FootPlan, GroundedFrame or subclass) as a batch of one frame: a leading
    axis of length 1 in front of every array field (None stays None); :func:`frame_at` undoes
    it."""
    return type(frame)(**{name: None if value is None else np.asarray(value)[None]
                          for name, value in vars(frame).items()})


def frame_at(frames: Any, index: int) -> Any:
    """Frame ``index`` of a batch from
    :meth:`~footfall.grounding.pipeline.GroundingPipeline.step_frames`: every array field of the
    (GroundedFrame or subclass) dataclass indexed on its leading frame axis."""
    return type(frames)(**{name: value[index] if isinstance(value, np.ndarray) else value
                           for name, value in vars(frames).items()})
