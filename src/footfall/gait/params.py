"""Walk-cycle parameters with seed 004's defaults.

Angles are degrees here, the user-facing edge (the maths takes radians). Lengths are in
``leg_length``'s unit (seed px or rig metres); ``None`` means "measure it on the rig".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

from footfall.errors import SettingsError

# Seed 004's swing clearance is 20 px for a 90 px leg; it scales with the leg.
ARC_MIN_SHARE = 20.0 / 90.0


@dataclass(frozen=True)
class GaitParams:
    """Everything that shapes the procedural walk (frozen; use :meth:`with_` to vary).

    Attributes:
        step_rate_hz: steps per second on level ground (seed ``STEP_HZ``).
        stride_deg: half-angle between the legs at full stride (seed ``STRIDE_DEG``).
        leg_length: hip-to-ankle length in the caller's unit, or None to measure the rig.
        leg_ratio: shin / thigh length ratio (seed ``LEG_RATIO``); scales the elbow bend.
        stance_share: share of a step the foot is on the ground (seed ``CONTACT_SHARE``).
        head_compensation: share of the hip bob the neck cancels (0.82).
        gaze_lead_s, turn_s: the gaze's lead before a turn, the body's turn time, seconds.
        arm_swing_share: shoulder swing amplitude as a share of the stride angle (0.6).
        elbow_bend_deg: elbow bend scale, times (0.4 + leg_ratio) (70°).
        arm_spread_deg: arms held this far out from the body's side, degrees.
        twist_deg: hips twist amplitude at 1.6 Hz (6°), grows with the step rate.
        shoulder_twist_ratio: shoulders turn this many times the hips, the other way (1.2).
        downhill_lean, uphill_lean: lean forward per degree of downhill, back per degree uphill.
        rate_per_lean_hz: extra step rate per degree of forward lean (0.06 Hz).
        rate_min_hz, rate_max_hz: clamp of the adapted step rate (0.8–2.8 Hz).
        arc_min_share: swing clearance at 1.6 Hz as a share of the leg (20 px / 90 px).
        arc_hold: swing progress up to which the clearance is held (k = 0.85).
        arc_rise: swing progress over which the clearance rises from 0 (seed 004: 0, a jump).
        speed_wobble, wobble_rad_s: share (0 = steady) and rad/s of a body speed oscillation.
        reduced_motion: when True the walker shows one resting pose and never moves.
    """

    step_rate_hz: float = 1.6
    stride_deg: float = 28.0
    leg_length: float | None = None
    leg_ratio: float = 0.48
    stance_share: float = 0.6
    head_compensation: float = 0.82
    gaze_lead_s: float = 0.4
    turn_s: float = 0.5
    arm_swing_share: float = 0.6
    elbow_bend_deg: float = 70.0
    arm_spread_deg: float = 8.0
    twist_deg: float = 6.0
    shoulder_twist_ratio: float = 1.2
    downhill_lean: float = 0.5
    uphill_lean: float = 0.25
    rate_per_lean_hz: float = 0.06
    rate_min_hz: float = 0.8
    rate_max_hz: float = 2.8
    arc_min_share: float = ARC_MIN_SHARE
    arc_hold: float = 0.85
    arc_rise: float = 0.15
    speed_wobble: float = 0.0
    wobble_rad_s: float = 3.1
    reduced_motion: bool = False

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name == "reduced_motion":
                if not isinstance(value, bool):
                    raise SettingsError(f"GaitParams.reduced_motion must be a bool, got {value!r}")
                continue
            if value is None and spec.name == "leg_length":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SettingsError(f"GaitParams.{spec.name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise SettingsError(f"GaitParams.{spec.name} must be finite, got {value!r}")
        _check_range("step_rate_hz", self.step_rate_hz, 0.05, 10.0)
        _check_range("stride_deg", self.stride_deg, 0.0, 80.0)
        if self.leg_length is not None:
            _check_range("leg_length", self.leg_length, 1e-6, math.inf)
        _check_range("leg_ratio", self.leg_ratio, 0.05, 5.0)
        _check_range("stance_share", self.stance_share, 0.5, 0.95)
        _check_range("head_compensation", self.head_compensation, 0.0, 1.0)
        _check_range("gaze_lead_s", self.gaze_lead_s, 0.0, 5.0)
        _check_range("turn_s", self.turn_s, 0.0, 10.0)
        _check_range("arc_hold", self.arc_hold, 0.05, 1.0)
        _check_range("arc_rise", self.arc_rise, 0.0, min(0.5, self.arc_hold))
        _check_range("speed_wobble", self.speed_wobble, 0.0, 0.5)
        _check_range("rate_min_hz", self.rate_min_hz, 0.05, self.rate_max_hz)
        for name in ("arc_min_share", "elbow_bend_deg", "twist_deg", "arm_swing_share",
                     "downhill_lean", "uphill_lean", "rate_per_lean_hz", "arm_spread_deg",
                     "shoulder_twist_ratio", "wobble_rad_s"):
            _check_range(name, getattr(self, name), 0.0, math.inf)

    def with_(self, **changes: Any) -> GaitParams:
        """A copy with some fields changed (validated again)."""
        try:
            return replace(self, **changes)
        except TypeError as error:
            raise SettingsError(f"GaitParams: {error}") from None

    @property
    def stride(self) -> float:
        """Stride half-angle in radians."""
        return math.radians(self.stride_deg)


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise SettingsError(f"GaitParams.{name} = {value!r} is outside [{low}, {high}]")
