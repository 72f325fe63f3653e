"""Slope adaptation (seed 004 #07): lean into a downhill, step faster, ease off uphill.

The body leans forward ``0.5°`` per degree of downhill and back ``0.25°`` per degree of uphill;
the step rate rises ``0.06 Hz`` per degree of forward lean, clamped to 0.8–2.8 Hz.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray


def forward_lean(slope: ArrayLike, downhill: float = 0.5, uphill: float = 0.25) -> FloatArray:
    """Body lean, radians ``(...)``, positive forward, from the slope (positive uphill)."""
    slope = np.asarray(slope, dtype=np.float64)
    return -slope * np.where(slope < 0.0, downhill, uphill)


def adapted_step_rate(base_rate_hz: ArrayLike, lean: ArrayLike, per_degree_hz: float = 0.06,
                      low_hz: float = 0.8, high_hz: float = 2.8) -> FloatArray:
    """Step rate ``(...)`` Hz: base plus ``per_degree_hz`` per degree of forward ``lean``."""
    lean_deg = np.degrees(np.asarray(lean, dtype=np.float64))
    rate = np.asarray(base_rate_hz, np.float64) + per_degree_hz * np.maximum(lean_deg, 0.0)
    return np.clip(rate, low_hz, high_hz)


def slope_along(normal: ArrayLike, heading: ArrayLike) -> FloatArray:
    """Ground slope angle along a heading, radians ``(...)``, positive uphill.

    Args:
        normal: ``(..., 3)`` ground normal (Y up; need not be unit length).
        heading: ``(...)`` yaw about +Y; heading 0 faces +Z, π/2 faces +X.
    """
    normal = np.asarray(normal, dtype=np.float64)
    heading = np.asarray(heading, dtype=np.float64)
    along = normal[..., 0] * np.sin(heading) + normal[..., 2] * np.cos(heading)
    up = np.maximum(normal[..., 1], 1e-6)
    return np.arctan2(-along, up)
