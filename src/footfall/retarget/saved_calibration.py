"""What is saved and loaded per avatar: a :class:`Calibration` (a value object).

A calibration is the two calibration poses (the source's, and the target's standing pose before
its limbs are turned to the source's directions) and every setting's value — the avatar scale,
the floor height, the head offset, the hand pose (finger curls and spreads) and the rest of
:data:`~footfall.retarget.settings.PARAMETERS`. It is what ``Retargeter.save`` writes
(:meth:`Calibration.to_json`, the settings file's format) and ``Retargeter.load`` reads, and
what :func:`~footfall.retarget.offline.retarget_clip` retargets a clip with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from footfall.arrays import FloatArray
from footfall.retarget.settings import PARAMETERS, RetargetSettings


def _defaults() -> Mapping[str, Any]:
    return MappingProxyType({name: p.default for name, p in PARAMETERS.items()})


@dataclass(frozen=True, eq=False)
class Calibration:
    """The calibration poses and settings of one source onto one avatar.

    Attributes:
        source_pose: ``(Js, 4)`` source local rotations (unit quaternions) in the calibration
            (T- or I-) pose;
            None: the rest pose, turned upright (``footfall.humanoid.upright``).
        target_pose: ``(Jt, 4)`` target local rotations standing (before its arms and legs
            are turned to the source's); None: the target's rest pose, upright.
        match_directions: turn the target's arms and legs to the source's directions.
        values: ``{setting: value}`` for every parameter (read-only; see
            :meth:`with_values`).
    """

    source_pose: FloatArray | None = None
    target_pose: FloatArray | None = None
    match_directions: bool = True
    values: Mapping[str, Any] = field(default_factory=_defaults)

    def __post_init__(self) -> None:
        for name in ("source_pose", "target_pose"):
            pose = getattr(self, name)
            if pose is not None and not (isinstance(pose, np.ndarray) and not pose.flags.writeable
                                         and pose.dtype == np.float64):
                pose = np.array(pose, dtype=np.float64)  # a copy no one else can change
                pose.flags.writeable = False
                object.__setattr__(self, name, pose)
        if not isinstance(self.values, MappingProxyType):
            object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    def __eq__(self, other: object) -> bool:
        """The same poses (exactly), directions rule and values."""
        if not isinstance(other, Calibration):
            return NotImplemented
        return (_same_pose(self.source_pose, other.source_pose)
                and _same_pose(self.target_pose, other.target_pose)
                and self.match_directions == other.match_directions
                and dict(self.values) == dict(other.values))

    __hash__ = None  # type: ignore[assignment]  # arrays: equal by value, not hashable

    def with_values(self, changes: Mapping[str, Any]) -> Calibration:
        """The same calibration with some settings changed (all validated first; raises
        :class:`~footfall.errors.SettingsError` for an unknown name or a bad value)."""
        settings = self.settings()
        settings.update(changes)
        return replace(self, values=settings.values)

    def settings(self) -> RetargetSettings:
        """The mutable settings of these values (a copy) with the poses as their JSON-ready
        calibration cache."""
        return RetargetSettings(dict(self.values), self._poses_json())

    @classmethod
    def of_settings(cls, settings: RetargetSettings) -> Calibration:
        """The calibration ``settings`` hold: their values, and the poses of their
        calibration cache (a pose that is missing or not an array of numbers: the rest pose)."""
        stored = settings.calibration
        return cls(_pose(stored.get("source_pose")), _pose(stored.get("target_pose")),
                   bool(stored.get("match_directions", True)), dict(settings.values))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form: the settings file's (``RetargetSettings.to_dict``)."""
        return self.settings().to_dict()

    @classmethod
    def from_json(cls, data: Any, where: str = "calibration") -> Calibration:
        """A calibration from :meth:`to_json` output (or a settings file of any earlier save);
        raises :class:`~footfall.errors.SettingsError` naming ``where`` for invalid values."""
        return cls.of_settings(RetargetSettings.from_dict(data, where))

    def _poses_json(self) -> dict[str, Any]:
        if self.source_pose is None or self.target_pose is None:
            return {}
        return {"source_pose": self.source_pose.tolist(),
                "target_pose": self.target_pose.tolist(),
                "match_directions": bool(self.match_directions)}


def _same_pose(a: FloatArray | None, b: FloatArray | None) -> bool:
    return a is b or (a is not None and b is not None and a.shape == b.shape
                      and bool(np.array_equal(a, b)))


def _pose(value: Any) -> FloatArray | None:
    """A stored pose as a float array, or None when it is not one."""
    if value is None:
        return None
    try:
        pose = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return pose if pose.ndim == 2 else None
