"""Pastel vertex colours for drawing terrain: grass on gentle ground, earth higher up, stone on
steep faces and stair treads."""

from __future__ import annotations

import numpy as np

GRASS = np.array([0.62, 0.82, 0.56])
EARTH = np.array([0.80, 0.69, 0.54])
RISER = np.array([0.64, 0.63, 0.70])


def ground_colors(vertices: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Colour ``(V, 3)`` 0..1 for vertices ``(V, 3)`` with unit normals ``(V, 3)``: grass fading
    to earth with height and slope; steep faces stone."""
    y = vertices[:, 1]
    span = max(float(np.ptp(y)), 1e-6) if len(y) else 1.0
    height = (y - y.min()) / span if len(y) else y
    slope = 1.0 - np.clip(np.abs(normals[:, 1]), 0.0, 1.0)
    blend = np.clip(0.6 * height + 2.0 * slope, 0.0, 1.0)[:, None]
    colors = GRASS * (1 - blend) + EARTH * blend
    return np.where((np.abs(normals[:, 1]) < 0.5)[:, None], RISER, colors)  # steep: stone
