"""Automatic IK weights per limb, in layers (seed 001's LimbWeightController).

Each limb's goal weight is built from layers, each a linear ramp of one distance:

| limb | layer 0                                     | layer 1                    | combined |
|------|---------------------------------------------|----------------------------|----------|
| arms | hands close together (clap, handshake)      | hand close to a prop       | max      |
| legs | seated: foot far from the hips horizontally | foot low (near the floor)  | min      |
| hips | far from every chair                        | hips high (standing)       | min      |

Arms turn IK on when any reason applies; legs and hips only when all agree. The hips weight
scales the leg-length hip correction (seated avatars keep the source's hip height). Goals are
smoothed exponentially, ``w += (goal − w)·(1 − exp(−speed·dt))`` — batched over frames in
closed form (:func:`smooth_series`), or one frame at a time by :class:`WeightSmoother`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray


@dataclass(frozen=True)
class WeightThresholds:
    """Distances (metres) and ratios at which each layer ramps between 0 and 1."""

    hands_near: float = 0.15
    hands_far: float = 0.35
    prop_near: float = 0.1
    prop_far: float = 0.3
    foot_low: float = 0.3
    foot_high: float = 0.6
    chair_near: float = 0.3
    chair_far: float = 0.8
    seated_foot_near: float = 0.1
    seated_foot_far: float = 0.4
    sit_ratio_low: float = 0.6
    sit_ratio_high: float = 0.85

    @classmethod
    def from_settings(cls, values: Mapping[str, Any]) -> WeightThresholds:
        """Thresholds from a settings ``values`` mapping (see ``retarget.settings``)."""
        return cls(
            hands_near=values["hands_distance_near"], hands_far=values["hands_distance_far"],
            prop_near=values["prop_distance_near"], prop_far=values["prop_distance_far"],
            foot_low=values["foot_height_low"], foot_high=values["foot_height_high"],
            chair_near=values["chair_distance_near"], chair_far=values["chair_distance_far"],
            sit_ratio_low=values["sit_hips_ratio_low"],
            sit_ratio_high=values["sit_hips_ratio_high"],
        )


@dataclass
class LimbWeights:
    """IK weights: ``arms (..., 2)`` and ``legs (..., 2)`` (left, right), ``hips (...)``."""

    arms: FloatArray
    legs: FloatArray
    hips: FloatArray


def ramp(value: ArrayLike, start: float, end: float) -> FloatArray:
    """0 at ``start``, 1 at ``end``, linear between, clamped (any shape)."""
    value = np.asarray(value, dtype=np.float64)
    span = end - start
    if abs(span) < 1e-12:
        return (value >= end).astype(np.float64)
    # minimum/maximum: np.clip's values (NaN included) without its per-call overhead
    return np.minimum(np.maximum((value - start) / span, 0.0), 1.0)


def _nearest(points: FloatArray, others: FloatArray | None) -> FloatArray:
    """Distance ``(...)`` from each point ``(..., 3)`` to the nearest of ``others (P, 3)``."""
    if others is None or len(others) == 0:
        return np.full(points.shape[:-1], np.inf)
    diff = points[..., None, :] - others
    return np.min(np.linalg.norm(diff, axis=-1), axis=-1)


def goal_weights(
    hands: ArrayLike,
    feet_lift: ArrayLike,
    feet: ArrayLike,
    hips: ArrayLike,
    hips_height_ratio: ArrayLike,
    props: ArrayLike | None = None,
    chairs: ArrayLike | None = None,
    thresholds: WeightThresholds = WeightThresholds(),  # noqa: B008 (frozen, immutable)
) -> LimbWeights:
    """Unsmoothed goal weights from the layers.

    Args:
        hands: ``(..., 2, 3)`` left and right hand positions, metres.
        feet_lift: ``(..., 2)`` ankle height above its standing height, metres.
        feet: ``(..., 2, 3)`` ankle positions, metres.
        hips: ``(..., 3)`` hips position, metres.
        hips_height_ratio: ``(...)`` hips height above the floor / standing hips height.
        props: ``(P, 3)`` prop positions (other characters' hands count as props), or None.
        chairs: ``(C, 3)`` chair positions, or None.
    """
    t = thresholds
    hands = np.asarray(hands, dtype=np.float64)
    feet = np.asarray(feet, dtype=np.float64)
    hips = np.asarray(hips, dtype=np.float64)
    props = None if props is None else np.asarray(props, dtype=np.float64).reshape(-1, 3)
    chairs = None if chairs is None else np.asarray(chairs, dtype=np.float64).reshape(-1, 3)
    hands_apart = np.linalg.norm(hands[..., 0, :] - hands[..., 1, :], axis=-1)
    arm_hands = 1.0 - ramp(hands_apart, t.hands_near, t.hands_far)
    arm_prop = 1.0 - ramp(_nearest(hands, props), t.prop_near, t.prop_far)
    arms = np.maximum(arm_hands[..., None], arm_prop)
    seated = 1.0 - ramp(_nearest(hips, chairs), t.chair_near, t.chair_far)
    foot_offset = feet[..., [0, 2]] - hips[..., None, [0, 2]]
    reach = ramp(np.linalg.norm(foot_offset, axis=-1), t.seated_foot_near, t.seated_foot_far)
    leg_seated = 1.0 - seated[..., None] * (1.0 - reach)
    leg_height = 1.0 - ramp(feet_lift, t.foot_low, t.foot_high)
    legs = np.minimum(leg_seated, leg_height)
    hips_weight = np.minimum(1.0 - seated, ramp(hips_height_ratio, t.sit_ratio_low,
                                                t.sit_ratio_high))
    return LimbWeights(arms, legs, hips_weight)


def smoothing_alpha(speed: float, dt: float) -> float:
    """Share of the gap closed per step: ``1 − exp(−speed·dt)`` (speed 1/s, dt s)."""
    return float(1.0 - np.exp(-max(speed, 0.0) * dt))


_BLOCK = 64  # frames per block of the closed-form smoothing below


def smooth_series(goals: ArrayLike, speed: float, dt: float,
                  initial: ArrayLike | None = None) -> FloatArray:
    """Exponentially smoothed goals ``(F, ...)`` along frames; starts at ``initial``
    (default: the first goal, so a clip does not ramp in from zero).

    ``y[n] = (1 − α) y[n−1] + α x[n]`` solved block by block in closed form: inside a block
    of ``_BLOCK`` frames ``y = T x + (1 − α)^(k+1) y_before`` with the lower-triangular
    ``T[k, j] = α (1 − α)^(k−j)`` (all powers ≤ 1, so nothing overflows); only the block ends
    are carried in a short loop.
    """
    goals = np.asarray(goals, dtype=np.float64)
    alpha = smoothing_alpha(speed, dt)
    frames = goals.shape[0]
    if alpha >= 1.0 or goals.size == 0:
        return goals.copy()
    decay = 1.0 - alpha
    start = goals[0] if initial is None else np.broadcast_to(initial, goals.shape[1:])
    flat = goals.reshape(frames, -1)
    blocks = -(-frames // _BLOCK)
    padded = np.zeros((blocks * _BLOCK, flat.shape[1]))
    padded[:frames] = flat
    lag = np.arange(_BLOCK)[:, None] - np.arange(_BLOCK)[None, :]
    transfer = np.where(lag >= 0, alpha * decay ** np.maximum(lag, 0), 0.0)
    carry = decay ** (np.arange(_BLOCK) + 1.0)  # weight of the state before the block
    local = transfer @ padded.reshape(blocks, _BLOCK, -1)  # (blocks, _BLOCK, C)
    state = np.asarray(start, dtype=np.float64).reshape(-1)
    out = np.empty_like(local)
    for b in range(blocks):
        out[b] = local[b] + carry[:, None] * state
        state = out[b, -1]
    return out.reshape(-1, flat.shape[1])[:frames].reshape(goals.shape)


def smooth_weights(goals: LimbWeights, speed: float, dt: float) -> LimbWeights:
    """:func:`smooth_series` applied to each limb's goal series (frames on axis 0)."""
    return LimbWeights(
        smooth_series(goals.arms, speed, dt),
        smooth_series(goals.legs, speed, dt),
        smooth_series(goals.hips, speed, dt),
    )


class WeightSmoother:
    """Live smoothing of goal weights, one frame at a time (same result as the batch)."""

    def __init__(self, speed: float = 10.0) -> None:
        self.speed = speed
        self.state: LimbWeights | None = None

    def reset(self) -> None:
        """Forget the state: the next goal is taken as is."""
        self.state = None

    def __call__(self, goals: LimbWeights, dt: float) -> LimbWeights:
        """Smoothed weights after one step of ``dt`` seconds."""
        if self.state is None:
            self.state = LimbWeights(np.array(goals.arms, dtype=float),
                                     np.array(goals.legs, dtype=float),
                                     np.array(goals.hips, dtype=float))
            return self.state
        alpha = smoothing_alpha(self.speed, dt)
        s = self.state
        self.state = LimbWeights(s.arms + alpha * (goals.arms - s.arms),
                                 s.legs + alpha * (goals.legs - s.legs),
                                 s.hips + alpha * (goals.hips - s.hips))
        return self.state
