"""Every tunable of the grounding pipeline, with seed 000's defaults and a switch per stage.

:class:`GroundingParams` is one frozen set of values. The pipeline runs K characters at once and
each may use its own set (the experiment runs every ablation side by side), so
:func:`stack_params` turns K sets into :class:`ParamArrays`: one ``(K,)`` array per field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from types import SimpleNamespace

import numpy as np

from footfall.errors import SettingsError


@dataclass(frozen=True)
class GroundingParams:
    """Switches and tunables of the per-frame foot placement (metres, seconds, radians).

    Stage switches (for ablations): ``ik`` (legs solved to the ground; off means the body
    follows the ground under it and the legs play the flat animation), ``hips`` (hips lowered
    so the lower foot reaches), ``tread_snap`` (feet landing near a tread edge move to the tread
    centre), ``foot_align`` (sole pitch and roll from the ground normal), ``smoothing`` (hips
    and sole angles followed exponentially instead of jumping).
    """

    ik: bool = True
    hips: bool = True
    tread_snap: bool = True
    foot_align: bool = True
    smoothing: bool = True
    # Swing curve (seed 000): top = max(two plant heights) + clearance, plus lift·sin(πq).
    swing_clearance: float = 0.02
    swing_lift: float = 0.09
    # Hips (seed 000): reach 0.98 of the leg, followed at 16/s, snapped past 0.4 m.
    reach_ratio: float = 0.98
    hips_rate: float = 16.0
    hips_snap: float = 0.4
    # Leg IK: the solver never stretches past this share of thigh + shin.
    max_reach: float = 0.999
    # Foot alignment (seed 000 / seed 004's NormalToRotator + RInterpTo).
    steep_normal_y: float = 0.5
    max_slope: float = 0.45
    align_rate: float = 13.0
    # Tread snapping (seed 002): a foot closer than the margin to a tread edge is centred.
    tread_margin: float = 0.03
    tread_search: float = 0.5
    tread_tolerance: float = 0.01
    tread_spacing: float = 0.01
    # Unreachable ground: a foot whose ground differs from the body's by more than this share of
    # the leg length (cliff, hole) falls back to the animated foot.
    max_step_ratio: float = 1.2

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.type in ("bool", bool):
                if not isinstance(value, bool | np.bool_):
                    raise SettingsError(f"grounding parameter {spec.name}={value!r} must be a bool")
            elif not np.isfinite(value) or value < 0:
                raise SettingsError(
                    f"grounding parameter {spec.name}={value!r} must be a finite number ≥ 0"
                )
        if not 0.0 < self.max_reach <= 1.0:
            raise SettingsError(f"grounding parameter max_reach={self.max_reach} must be in (0, 1]")
        if self.tread_spacing <= 0:
            raise SettingsError("grounding parameter tread_spacing must be > 0")

    def without(self, *stages: str) -> GroundingParams:
        """A copy with the named stage switches turned off (``"hips"``, ``"tread_snap"``…)."""
        names = {f.name for f in fields(self) if f.type in ("bool", bool)}
        unknown = set(stages) - names
        if unknown:
            raise SettingsError(
                f"unknown grounding stage(s) {sorted(unknown)}; known: {sorted(names)}"
            )
        return replace(self, **{name: False for name in stages})


#: The seed defaults, shared (frozen) — use instead of calling GroundingParams() in defaults.
DEFAULT_PARAMS = GroundingParams()


class ParamArrays(SimpleNamespace):
    """K parameter sets as one ``(K,)`` array per :class:`GroundingParams` field (attributes)."""

    @property
    def count(self) -> int:
        """Number of characters K."""
        return int(next(iter(vars(self).values())).shape[0])


def stack_params(
    params: GroundingParams | Sequence[GroundingParams], count: int
) -> ParamArrays:
    """One set shared by ``count`` characters, or one set per character, as ``(K,)`` arrays."""
    if isinstance(params, GroundingParams):
        params = [params] * count
    params = list(params)
    if len(params) != count:
        raise SettingsError(f"got {len(params)} grounding parameter sets for {count} characters")
    for p in params:
        if not isinstance(p, GroundingParams):
            raise SettingsError(f"expected GroundingParams, got {type(p).__name__}")
    return ParamArrays(**{
        spec.name: np.array([getattr(p, spec.name) for p in params],
                            dtype=bool if spec.type in ("bool", bool) else np.float64)
        for spec in fields(GroundingParams)})
