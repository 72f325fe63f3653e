"""Where every built-in scene lies and the parameter checks they share.

Scenes span the walking direction x ∈ [X_START, X_START + length] and z ∈ [−width/2, width/2].
"""

from __future__ import annotations

import numpy as np

from footfall.errors import TerrainError

X_START = -2.0


def scene_bounds(
    length: float, width: float, name: str
) -> tuple[tuple[float, float], tuple[float, float]]:
    """((x_min, z_min), (x_max, z_max)) metres of a scene ``length`` × ``width`` metres."""
    if not (np.isfinite(length) and np.isfinite(width) and length > 0 and width > 0):
        raise TerrainError(
            f"scene {name!r}: length and width must be positive; got {length}, {width}"
        )
    return ((X_START, -width / 2), (X_START + length, width / 2))


def check_positive(name: str, **values: float) -> None:
    """Raise TerrainError naming scene ``name`` and the parameter unless every value is > 0."""
    for key, value in values.items():
        if not (np.isfinite(value) and value > 0):
            raise TerrainError(f"scene {name!r}: {key} must be positive; got {value}")
