"""Automatic IK weights per limb, in layers (seed 001's LimbWeightController).

Each limb's goal weight is built from layers, each a linear ramp of one distance:

| limb | layer 0                                     | layer 1                    | combined |
|------|---------------------------------------------|----------------------------|----------|
| arms | hands close together (clap, handshake)      | hand close to a prop       | max      |
| legs | seated: foot far from the hips horizontally | foot low (near the floor)  | min      |
| hips | far from every chair                        | hips high, or a knee low   | min      |

The hips weight scales the hips-height correction (seated avatars keep the source's hip height).
Hips low over a knee on the floor (a leg kneeling, :mod:`footfall.footing.kneeling`) are
carried by the legs, not by a seat: a kneeling body's hips keep their height scaled by the legs
(hips weight 1), as a standing body's. Taken for a seat (the performer's hips height kept, not
scaled), mocapbank_zxy_cm's kneel left CesiumMan's hip joints 0.55 leg lengths up where the
performer's were at 0.43 (its kneeling knee 20 cm off the floor, its front knee 39° less bent).
Goals are smoothed exponentially, ``w += (goal − w)·(1 − exp(−speed·dt))``: batched over frames
in closed form (:func:`smooth_series`), or one frame at a time by :class:`WeightSmoother`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray, IntArray, kernel_rows
from footfall.footing.kneeling import kneeling_s
from footfall.jit import helper, kernel
from footfall.ramps import ramp_s


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

    #: The settings (``retarget.settings``) each threshold comes from.
    SETTINGS: ClassVar[dict[str, str]] = {
        "hands_near": "hands_distance_near", "hands_far": "hands_distance_far",
        "prop_near": "prop_distance_near", "prop_far": "prop_distance_far",
        "foot_low": "foot_height_low", "foot_high": "foot_height_high",
        "chair_near": "chair_distance_near", "chair_far": "chair_distance_far",
        "sit_ratio_low": "sit_hips_ratio_low", "sit_ratio_high": "sit_hips_ratio_high",
    }

    @classmethod
    def from_settings(cls, values: Mapping[str, Any]) -> WeightThresholds:
        """Thresholds from a settings ``values`` mapping (see ``retarget.settings``)."""
        return cls(**{field: values[name] for field, name in cls.SETTINGS.items()})

    @cached_property
    def as_array(self) -> FloatArray:
        """The thresholds ``(14,)`` in field order (what the kernel reads)."""
        return np.array([getattr(self, f.name) for f in fields(self)], dtype=np.float64)


@dataclass
class LimbWeights:
    """IK weights: ``arms (..., 2)`` and ``legs (..., 2)`` (left, right), ``hips (...)``."""

    arms: FloatArray
    legs: FloatArray
    hips: FloatArray

    def parts(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(arms, legs, hips)``."""
        return self.arms, self.legs, self.hips


@helper
def _nearest(x: float, y: float, z: float, others: FloatArray) -> float:
    """Distance from ``(x, y, z)`` to the nearest of ``others (P, 3)`` (inf when P = 0)."""
    best = math.inf
    for k in range(others.shape[0]):
        dx, dy, dz = others[k, 0] - x, others[k, 1] - y, others[k, 2] - z
        best = min(best, math.sqrt(dx * dx + dy * dy + dz * dz))
    return best


@helper
def _distance(a: FloatArray, b: FloatArray) -> float:
    dx, dy, dz = a[0] - b[0], a[1] - b[1], a[2] - b[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


@helper
def _layers(hands: FloatArray, lift: FloatArray, feet: FloatArray, hips: FloatArray,
            ratio: float, kneeling: float, props: FloatArray, chairs: FloatArray,
            t: FloatArray, arms: FloatArray, legs: FloatArray) -> float:
    """The layers of the module docstring for one frame: ``hands (2, 3)``, ``lift (2,)``,
    ``feet (2, 3)``, ``hips (3,)``, ``ratio`` (hips height / standing), ``kneeling`` (how
    much a leg kneels, 0–1: :func:`~footfall.footing.kneeling.kneeling_s`), ``props (P, 3)``,
    ``chairs (C, 3)``, thresholds ``t (14,)`` in :class:`WeightThresholds`' order → ``arms
    (2,)``, ``legs (2,)`` written, the hips weight returned."""
    arm_hands = 1.0 - ramp_s(_distance(hands[0], hands[1]), t[0], t[1])
    seated = 1.0 - ramp_s(_nearest(hips[0], hips[1], hips[2], chairs), t[6], t[7])
    for side in range(2):
        hand = hands[side]
        arm_prop = 1.0 - ramp_s(_nearest(hand[0], hand[1], hand[2], props), t[2], t[3])
        arms[side] = max(arm_hands, arm_prop)
        ox, oz = feet[side, 0] - hips[0], feet[side, 2] - hips[2]
        reach = ramp_s(math.sqrt(ox * ox + oz * oz), t[8], t[9])
        leg_seated = 1.0 - seated * (1.0 - reach)
        legs[side] = min(leg_seated, 1.0 - ramp_s(lift[side], t[4], t[5]))
    return min(1.0 - seated, max(ramp_s(ratio, t[10], t[11]), kneeling))


@kernel(error_model="numpy")
def _goal_kernel(hands: FloatArray, lift: FloatArray, feet: FloatArray, hips: FloatArray,
                 ratio: FloatArray, kneeling: FloatArray, props: FloatArray,
                 chairs: FloatArray, t: FloatArray, arms: FloatArray, legs: FloatArray,
                 hips_weight: FloatArray) -> None:
    """:func:`_layers` for every frame of ``hands (F, 2, 3)``, ``lift (F, 2)``, ``feet
    (F, 2, 3)``, ``hips (F, 3)``, ``ratio (F,)``, ``kneeling (F,)`` into ``arms``, ``legs
    (F, 2)``, ``hips_weight (F,)``."""
    for f in range(hands.shape[0]):
        hips_weight[f] = _layers(hands[f], lift[f], feet[f], hips[f], ratio[f], kneeling[f],
                                 props, chairs, t, arms[f], legs[f])


@kernel(error_model="numpy")
def source_goal_kernel(positions: FloatArray, tips: IntArray, knees: IntArray,
                       arm_tips: IntArray, hips_joint: int, scale: float, raise_by: float,
                       ankle: FloatArray, hips_height: float, leg_lengths: FloatArray,
                       props: FloatArray, chairs: FloatArray, t: FloatArray,
                       arms: FloatArray, legs: FloatArray, hips_weight: FloatArray) -> None:
    """:func:`_layers` for every frame of source joint positions ``positions (F, J, 3)``, as
    the retargeter maps them: feet ``tips[:2]`` scaled horizontally by ``scale`` (their lift
    above the standing ankle heights ``ankle (2,)``), the hips scaled and raised by
    ``raise_by`` m, hands ``arm_tips (2,)`` relative to the hips, scaled (no arms: two hands
    10 m apart, never "together"), the hips' height ratio over ``hips_height``, and how much
    a leg kneels: its knee ``knees (2,)`` over the floor and its length ``leg_lengths (2,)``
    (thigh + shin, metres; :func:`~footfall.footing.kneeling.kneeling_s`)."""
    hands, feet = np.empty((2, 3)), np.empty((2, 3))
    lift, hips = np.empty(2), np.empty(3)
    for f in range(positions.shape[0]):
        source_hips = positions[f, hips_joint]
        hips[0] = scale * source_hips[0]
        hips[1] = source_hips[1] + raise_by
        hips[2] = scale * source_hips[2]
        for side in range(2):
            foot = positions[f, tips[side]]
            lift[side] = foot[1] - ankle[side]
            feet[side, 0], feet[side, 1], feet[side, 2] = scale * foot[0], foot[1], scale * foot[2]
            for c in range(3):
                if arm_tips.shape[0] == 2:
                    hands[side, c] = hips[c] + scale * (positions[f, arm_tips[side], c]
                                                        - source_hips[c])
                else:
                    hands[side, c] = hips[c] + (10.0 if side == 1 and c == 0 else 0.0)
        kneeling = max(kneeling_s(positions[f, knees[0], 1], leg_lengths[0]),
                       kneeling_s(positions[f, knees[1], 1], leg_lengths[1]))
        hips_weight[f] = _layers(hands, lift, feet, hips, source_hips[1] / hips_height,
                                 kneeling, props, chairs, t, arms[f], legs[f])


_NONE = np.zeros((0, 3))


def goal_weights(
    hands: ArrayLike,
    feet_lift: ArrayLike,
    feet: ArrayLike,
    hips: ArrayLike,
    hips_height_ratio: ArrayLike,
    props: ArrayLike | None = None,
    chairs: ArrayLike | None = None,
    thresholds: WeightThresholds = WeightThresholds(),  # noqa: B008 (frozen, immutable)
    kneeling: ArrayLike = 0.0,
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
        kneeling: ``(...)`` how much a leg kneels, 0–1
            (:func:`~footfall.footing.kneeling.kneeling_s`; default: no leg kneels).
    """
    hands, lift, feet, hips, ratio, knee = (np.asarray(v, dtype=np.float64) for v in (
        hands, feet_lift, feet, hips, hips_height_ratio, kneeling))
    batch = np.broadcast_shapes(hands.shape[:-2], lift.shape[:-1], feet.shape[:-2],
                                hips.shape[:-1], ratio.shape, knee.shape)
    frames = math.prod(batch)
    arms, legs, hips_weight = np.empty((*batch, 2)), np.empty((*batch, 2)), np.empty(batch)
    _goal_kernel(kernel_rows(hands, batch, (2, 3)), kernel_rows(lift, batch, (2,)),
                 kernel_rows(feet, batch, (2, 3)), kernel_rows(hips, batch, (3,)),
                 kernel_rows(ratio, batch), kernel_rows(knee, batch),
                 points_array(props), points_array(chairs), thresholds.as_array,
                 arms.reshape(frames, 2), legs.reshape(frames, 2), hips_weight.reshape(frames))
    return LimbWeights(arms, legs, hips_weight)


def points_array(points: ArrayLike | None) -> FloatArray:
    """Props or chairs as C-ordered ``(P, 3)`` (``(0, 3)`` for None)."""
    if points is None:
        return _NONE
    return np.ascontiguousarray(np.asarray(points, dtype=np.float64).reshape(-1, 3))


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
    return LimbWeights(*(smooth_series(g, speed, dt) for g in goals.parts()))


class WeightSmoother:
    """Live smoothing of goal weights, one frame at a time (same result as the batch)."""

    def __init__(self, speed: float = 10.0) -> None:
        self.speed = speed
        self.state: LimbWeights | None = None
        self._alpha: tuple[float, float, float] | None = None  # speed, dt and their alpha

    def reset(self) -> None:
        """Forget the state: the next goal is taken as is."""
        self.state = None

    def __call__(self, goals: LimbWeights, dt: float) -> LimbWeights:
        """Smoothed weights after one step of ``dt`` seconds."""
        if self.state is None:
            self.state = LimbWeights(*(np.array(g, dtype=float) for g in goals.parts()))
            return self.state
        if self._alpha is None or self._alpha[:2] != (self.speed, dt):  # a steady stream: once
            self._alpha = (self.speed, dt, smoothing_alpha(self.speed, dt))
        alpha = self._alpha[2]
        s = self.state
        self.state = LimbWeights(s.arms + alpha * (goals.arms - s.arms),
                                 s.legs + alpha * (goals.legs - s.legs),
                                 s.hips + alpha * (goals.hips - s.hips))
        return self.state
