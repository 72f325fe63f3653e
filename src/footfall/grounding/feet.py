"""Legs and soles of a skeleton: which joints the grounding moves and where the sole lies.

Legs come from :func:`footfall.humanoid.find_legs` (any humanoid BVH) or are given explicitly.
The sole is measured from the rest pose: the toe tip (toe end site, or the toe joint) marks the
sole level and the foot's forward direction; the heel lies ``HEEL_RATIO`` of the toe reach behind
the ankle (seed 000's bunny: heel 0.04 behind, toe tip 0.13 ahead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from footfall.errors import SkeletonError
from footfall.skeleton import Skeleton

FloatArray = NDArray[np.float64]

HEEL_RATIO = 0.04 / 0.13
SIDES = ("left", "right")


@dataclass(frozen=True)
class Leg:
    """Joint indices of one leg: hip (upper), knee (lower), ankle (foot), toes or None."""

    upper: int
    lower: int
    foot: int
    toes: int | None = None


@dataclass(frozen=True)
class FootModel:
    """Sole of one foot in the ankle's rest (world-aligned) frame, metres.

    sole: ``(S, 3)`` samples from heel to toe tip at the sole level, ankle at the origin.
    ankle_height: ankle above the sole. heel_back / toe_forward: sole extent along ``forward``.
    forward: ``(3,)`` unit horizontal direction the foot points in at rest.
    """

    sole: FloatArray
    ankle_height: float
    heel_back: float
    toe_forward: float
    forward: FloatArray

    @property
    def below_ankle(self) -> FloatArray:
        """``(3,)`` the sole point straight under the ankle."""
        return np.array([0.0, -self.ankle_height, 0.0])


def legs_of(skeleton: Skeleton, legs: Any = None) -> tuple[Leg, Leg]:
    """(left, right) :class:`Leg` of ``skeleton``; ``legs`` overrides the automatic search.

    ``legs`` may be a mapping ``{"left": chain, "right": chain}`` or a pair of chains, each with
    ``upper, lower, foot`` (and optional ``toes``) joint indices, as
    :func:`footfall.humanoid.find_legs` returns.
    """
    if legs is None:
        from footfall.humanoid import find_legs  # deferred: humanoid imports skeleton tools

        legs = find_legs(skeleton)
    if isinstance(legs, dict):
        try:
            legs = (legs["left"], legs["right"])
        except KeyError as missing:
            raise SkeletonError(f"legs mapping lacks the {missing} leg") from None
    pair = []
    for side, chain in zip(SIDES, legs, strict=True):
        leg = Leg(int(chain.upper), int(chain.lower), int(chain.foot),
                  None if getattr(chain, "toes", None) is None else int(chain.toes))
        for name in ("upper", "lower", "foot"):
            index = getattr(leg, name)
            if not 0 <= index < skeleton.joint_count:
                raise SkeletonError(f"{side} leg {name} joint {index} is not in the skeleton")
        if skeleton.parents[leg.lower] != leg.upper or skeleton.parents[leg.foot] != leg.lower:
            raise SkeletonError(
                f"{side} leg joints {skeleton.names[leg.upper]!r} → {skeleton.names[leg.lower]!r}"
                f" → {skeleton.names[leg.foot]!r} are not a parent chain"
            )
        pair.append(leg)
    return pair[0], pair[1]


def leg_lengths(skeleton: Skeleton, leg: Leg) -> tuple[float, float]:
    """(thigh, shin) bone lengths of ``leg``, metres."""
    lengths = skeleton.bone_lengths()
    return float(lengths[leg.lower]), float(lengths[leg.foot])


def foot_model(skeleton: Skeleton, leg: Leg, spacing: float = 0.01) -> FootModel:
    """The sole of ``leg`` measured on the rest pose (see the module docstring)."""
    rest = skeleton.rest_positions()
    ankle = rest[leg.foot]
    tips = []
    if leg.toes is not None:
        tips.append(rest[leg.toes])
        if leg.toes in skeleton.end_sites:
            tips.append(rest[leg.toes] + skeleton.end_sites[leg.toes])
        tips.extend(rest[c] for c in skeleton.children(leg.toes))
    elif leg.foot in skeleton.end_sites:
        tips.append(ankle + skeleton.end_sites[leg.foot])
    else:
        tips.extend(rest[c] for c in skeleton.children(leg.foot))
    if not tips:
        raise SkeletonError(
            f"foot {skeleton.names[leg.foot]!r} has no toe joint or end site to measure the sole"
        )
    tips = np.array(tips)
    reach = tips - ankle
    horizontal = np.hypot(reach[:, 0], reach[:, 2])
    tip = reach[int(np.argmax(horizontal))]
    toe_forward = float(horizontal.max())
    if toe_forward < 1e-6:
        raise SkeletonError(f"foot {skeleton.names[leg.foot]!r} has no forward extent at rest")
    forward = np.array([tip[0], 0.0, tip[2]]) / toe_forward
    ankle_height = float(-reach[:, 1].min())
    if ankle_height <= 0:
        raise SkeletonError(f"foot {skeleton.names[leg.foot]!r}: the toes are not below the ankle")
    heel_back = HEEL_RATIO * toe_forward
    count = int(np.floor((heel_back + toe_forward) / spacing + 1e-9)) + 1
    along = np.linspace(-heel_back, toe_forward, count)
    sole = along[:, None] * forward + np.array([0.0, -ankle_height, 0.0])
    return FootModel(sole, ankle_height, heel_back, toe_forward, forward)
