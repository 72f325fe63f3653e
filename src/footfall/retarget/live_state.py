"""Retargeting a live stream frame by frame: :class:`LiveRetarget`, the little a stream keeps
between frames (the One Euro filter, the weight smoother, the feet's contacts and learned
floor, the stance-width and toe holds).

Each :meth:`LiveRetarget.step` is handed what it solves with — the calibrated rig, the settings
values and the capture's stance level — and solves with :mod:`.solve`, as
:func:`~footfall.retarget.offline.retarget_clip` does a clip: fed a clip frame by frame it
plants the same feet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.errors import SettingsError, SkeletonError
from footfall.filters import OneEuroFilter
from footfall.footing import FootTracker
from footfall.retarget.limb_stream import LimbStream
from footfall.retarget.rig import CalibratedRig
from footfall.retarget.solve import goal_weights, solve_frames
from footfall.retarget.weights import WeightSmoother


class LiveRetarget:
    """The state of one live stream (one performer onto one avatar, or a batch of them
    stepped together)."""

    def __init__(self) -> None:
        self.smoother = WeightSmoother()
        #: The source feet's contacts and learned floor (``footfall.footing``).
        self.feet = FootTracker()
        #: The limbs' holds (stance width, toe pivot) from frame to frame.
        self.holds = LimbStream(live=True)
        self.filter: OneEuroFilter | None = None

    def reset(self) -> None:
        """Start again (a new calibration): the weights, feet and holds forget the frames so
        far; the One Euro filter runs on (it smooths the raw source, which did not change)."""
        self.smoother.reset()
        self.feet.reset()
        self.holds.reset()

    @property
    def planted(self) -> NDArray[np.bool_]:
        """``(2,)`` whether the source's left / right foot was planted in the last frame."""
        return np.asarray(self.feet.planted[0], dtype=bool)

    def step(
        self,
        cal: CalibratedRig,
        values: Mapping[str, Any],
        rotations: ArrayLike,
        positions: ArrayLike,
        dt: float = 1.0 / 60.0,
        *,
        stance_level: FloatArray,
        props: ArrayLike | None = None,
        chairs: ArrayLike | None = None,
        timestamp: float | None = None,
    ) -> tuple[FloatArray, FloatArray]:
        """Retarget one frame: source ``(..., Js, 4)`` local rotations and ``(..., Js, 3)``
        translations → target ``(..., Jt, 4)``, ``(..., Jt, 3)``, with the rig calibrated as
        ``cal``, the settings ``values`` and the capture's ``stance_level`` ``(2,)`` float
        array (how high each source foot stands when planted, metres; 0 for a capture
        system whose ground plane is y = 0, as Motive's). Weights are smoothed over calls
        (``dt`` seconds per step); the raw source joint positions that feet, hands and hips
        follow are One Euro filtered when ``filter_enabled``.

        Raises :class:`SkeletonError` for arrays of the wrong shape or not finite (the frame is
        skipped) and :class:`SettingsError` for a ``dt`` that is not positive."""
        rig, limbs = cal.rig, cal.limbs
        rotations = np.asarray(rotations, dtype=np.float64)
        positions = np.asarray(positions, dtype=np.float64)
        joints = rig.source.joint_count
        if (rotations.ndim < 2 or rotations.shape[-2:] != (joints, 4)
                or positions.shape != rotations.shape[:-1] + (3,)):
            raise SkeletonError(
                f"step: expected rotations (..., {joints}, 4) and translations (..., {joints}, 3)"
                f" of the source skeleton, got {rotations.shape} and {positions.shape}"
            )
        if not (np.isfinite(rotations).all() and np.isfinite(positions).all()):
            bad = ~(np.isfinite(rotations).all(-1) & np.isfinite(positions).all(-1))
            joint = int(np.argwhere(bad)[0][-1])
            raise SkeletonError(f"step: NaN or inf at joint {joint} "
                                f"({rig.source.names[joint]!r}); frame skipped")
        if not (np.isfinite(dt) and dt > 0):
            raise SettingsError(f"step: dt must be positive seconds, got {dt!r}")
        srot = rig.source_fk.rotations(rotations)
        spos = limbs.source_position_fk.positions(srot, positions)
        if values["filter_enabled"]:
            read = limbs.source_position_fk.joints
            spos[..., read, :] = self._filter(values, dt)(spos[..., read, :], timestamp)
        self.smoother.speed = values["weight_smooth_speed"]
        weights = self.smoother(goal_weights(cal, values, spos, props, chairs), dt)
        planted, levels = limbs.track_live(
            self.feet, srot, spos, dt, cal.sizes(values, stance_level), stance_level,
            plant=bool(values["plant_feet"]))
        self.holds.set_dt(dt)
        sizes = cal.sizes(values, levels)  # (made once: ~2 µs)
        shift = limbs.held_shift_live(self.holds, srot, sizes, planted)
        return solve_frames(cal, values, rotations, positions, weights, shift, levels,
                            (srot, spos), self.holds, sizes)

    def _filter(self, values: Mapping[str, Any], dt: float) -> OneEuroFilter:
        """The One Euro filter on raw source joint positions (made again when its settings
        change; its rate comes from ``dt`` unless timestamps are given)."""
        cutoff, beta = values["filter_min_cutoff"], values["filter_beta"]
        if self.filter is None or (self.filter.min_cutoff, self.filter.beta) != (cutoff, beta):
            self.filter = OneEuroFilter(1.0 / dt, cutoff, beta)
        return self.filter
