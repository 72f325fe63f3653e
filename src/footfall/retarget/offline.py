"""Retargeting a whole clip: :func:`retarget_clip`, a function of the rig, a calibration and
the clip (batched over frames; nothing is kept between calls).

The source's contacts and stance levels are tracked by the one rule of ``footfall.footing``
frame after frame, as a live stream of the clip would have them (:mod:`.live_state` fed the
clip gives the same), and handed to the solve (:mod:`.solve`) explicitly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.filters import OneEuroFilter
from footfall.retarget.limb_stream import LimbStream
from footfall.retarget.rig import CalibratedRig, RetargetRig
from footfall.retarget.saved_calibration import Calibration
from footfall.retarget.solve import goal_weights, solve_frames
from footfall.retarget.weights import LimbWeights, smooth_weights
from footfall.skeleton import Clip, Skeleton


@dataclass(frozen=True)
class RetargetResult:
    """A retargeted clip and the source's feet it was solved with.

    Attributes:
        clip: the target's motion (its skeleton at the avatar scale).
        planted: ``(F, 2)`` whether the source's left / right foot was planted.
        stance_levels: ``(F, 2)`` each source foot's stance level, metres (what was taken off
            its heights: the capture's floor).
    """

    clip: Clip
    planted: NDArray[np.bool_]
    stance_levels: FloatArray


def retarget_clip(
    rig: RetargetRig,
    calibration: Calibration,
    clip: Clip,
    *,
    props: ArrayLike | None = None,
    chairs: ArrayLike | None = None,
    chunk: int = 4096,
    progress: Callable[[int], None] | None = None,
    stance_level: ArrayLike | None = None,
) -> RetargetResult:
    """Retarget a whole clip onto ``rig``'s target with ``calibration`` (its poses and
    settings).

    Args:
        clip: source motion (its skeleton must have the source's joint names).
        props: ``(P, 3)`` prop positions in the target's world for the arm weights.
        chairs: ``(C, 3)`` chair positions for the hips and leg weights.
        chunk: frames solved per batch (bounds memory).
        progress: called with the number of frames done after each batch.
        stance_level: ``(2,)`` how high each source foot stands when planted, metres: a
            known floor of the capture (default: learned from the clip by
            ``footfall.footing``, frame after frame).
    """
    cal = rig.calibrated(calibration)
    values = calibration.values
    srot_all, spos_all = source_series(cal, values, clip,
                                       check_finite=True)
    fixed = (np.zeros(2) if stance_level is None
             else np.asarray(stance_level, dtype=np.float64).reshape(2))
    limbs = cal.limbs
    planted, series, _ = limbs.track_series(
        srot_all, spos_all, clip.fps, cal.sizes(values, fixed), fixed,
        plant=bool(values["plant_feet"]))
    goals = goal_weights(cal, values, spos_all, props, chairs)
    stream = LimbStream(live=False)  # the clip's frames in order, as a live stream's
    stream.set_dt(1.0 / clip.fps)
    shift = limbs.held_shift_series(stream, srot_all, cal.sizes(values, fixed), planted)
    weights = smooth_weights(goals, values["weight_smooth_speed"], 1.0 / clip.fps)
    parts_rot, parts_pos = [], []
    for start in range(0, clip.frame_count, chunk):
        part = slice(start, start + chunk)
        w = LimbWeights(weights.arms[part], weights.legs[part], weights.hips[part])
        rot, pos = solve_frames(cal, values, clip.rotations[part], clip.positions[part], w,
                                shift[part], series[part], (srot_all[part], spos_all[part]),
                                stream)
        parts_rot.append(rot)
        parts_pos.append(pos)
        if progress is not None:
            progress(min(start + chunk, clip.frame_count))
    # One chunk: keep the solver's (joint-major) arrays as they are, no copy.
    out_rot = parts_rot[0] if len(parts_rot) == 1 else np.concatenate(parts_rot)
    out_pos = parts_pos[0] if len(parts_pos) == 1 else np.concatenate(parts_pos)
    skeleton = scaled_skeleton(rig.target, float(values["avatar_scale"]))
    return RetargetResult(Clip(skeleton, out_rot, out_pos, clip.fps), planted, series)


def track_clip(rig: RetargetRig, calibration: Calibration, clip: Clip
               ) -> tuple[NDArray[np.bool_], FloatArray, FloatArray]:
    """``clip``'s source contacts, stance levels and lowest points ``(F, 2)``, as
    :func:`retarget_clip` tracks them with its default stance level."""
    cal = rig.calibrated(calibration)
    values = calibration.values
    srot, spos = source_series(cal, values, clip)
    return cal.limbs.track_series(srot, spos, clip.fps, cal.sizes(values, np.zeros(2)),
                                  np.zeros(2), plant=bool(values["plant_feet"]))


def clip_limb_weights(rig: RetargetRig, calibration: Calibration, clip: Clip, *,
                      props: ArrayLike | None = None, chairs: ArrayLike | None = None
                      ) -> LimbWeights:
    """The smoothed IK weights :func:`retarget_clip` uses for ``clip``: arms ``(F, A)``, legs
    ``(F, 2)`` (1 = IK on), hips ``(F,)``."""
    cal = rig.calibrated(calibration)
    values = calibration.values
    spos = source_series(cal, values, clip)[1]
    goals = goal_weights(cal, values, spos, props, chairs)
    return smooth_weights(goals, values["weight_smooth_speed"], 1.0 / clip.fps)


def source_series(cal: CalibratedRig, values: Mapping[str, Any], clip: Clip,
                  check_finite: bool = False) -> tuple[FloatArray, FloatArray]:
    """Source world rotations and raw positions ``(F, Js, ·)`` of ``clip`` (the positions
    One Euro filtered when the settings ``values`` say ``filter_enabled``)."""
    rig = cal.rig
    if clip.skeleton.names != rig.source.names:
        raise SkeletonError("clip skeleton does not match the retargeter's source skeleton")
    # One sum is finite exactly when every value is (or overflows: then look closely).
    if check_finite and not (np.isfinite(np.sum(clip.rotations))
                             and np.isfinite(np.sum(clip.positions))):
        clip.check_finite()
    srot = rig.source_fk.rotations(clip.rotations)
    spos = cal.limbs.source_position_fk.positions(srot, clip.positions)
    if values["filter_enabled"]:
        read = cal.limbs.source_position_fk.joints
        filt = OneEuroFilter(clip.fps, values["filter_min_cutoff"], values["filter_beta"])
        spos[:, read] = filt.filter_series(spos[:, read])
    return srot, spos


def scaled_skeleton(skeleton: Skeleton, scale: float) -> Skeleton:
    """``skeleton`` at a uniform ``scale`` (itself at 1)."""
    if scale == 1.0:
        return skeleton
    return Skeleton(skeleton.names, skeleton.parents, skeleton.offsets * scale,
                    {j: v * scale for j, v in skeleton.end_sites.items()})
