"""Built-in scenes: flat, ripples, hills, stairs, slope, rocks and the demo course (seed 000).

Every scene spans x ∈ [−2, −2 + length] and z ∈ [−width/2, width/2] (:mod:`.layout`). Defaults
are bunny scale (leg 0.37 m); every size is a parameter so the scenes serve a humanoid too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from footfall.errors import TerrainError
from footfall.terrain.base import Terrain
from footfall.terrain.profiles import course, stairs
from footfall.terrain.smooth import flat, hills, ripples, rocks, slope

SCENES: dict[str, Callable[..., Terrain]] = {
    "flat": flat,
    "ripples": ripples,
    "hills": hills,
    "stairs": stairs,
    "slope": slope,
    "rocks": rocks,
    "course": course,
}


def scene(name: str, **params: Any) -> Terrain:
    """Build the built-in scene ``name`` (see :data:`SCENES`) with optional parameters."""
    if name not in SCENES:
        raise TerrainError(f"unknown scene {name!r}; valid scenes: {', '.join(SCENES)}")
    builder = SCENES[name]
    try:
        inspect.signature(builder).bind(**params)
    except TypeError as error:
        valid = ", ".join(inspect.signature(builder).parameters)
        raise TerrainError(f"scene {name!r}: {error}; valid parameters: {valid}") from error
    return builder(**params)
