"""Scenes built from a side profile (x, y) extruded along z: the stairs of seed 002 and the demo
course of seed 000. Risers are vertical faces, so these are meshes, never heightfields.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.layout import X_START, check_positive, scene_bounds
from footfall.terrain.mesh import MeshTerrain


def stair_profile(
    start: float, steps: int, step_height: float, tread_depth: float, landing: float
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Side profile of stairs up ``steps`` risers, a landing, down ``steps`` risers.

    Returns the corner points x ``(P,)``, y ``(P,)`` (risers appear as two points with the same
    x) and the feature positions: riser_x, stairs_start, landing_start, landing_end, stairs_end,
    top_height. Up risers stand at x = start + i·tread_depth (i = 0…steps−1) and lift to
    (i + 1)·step_height; the landing is the top level, ``landing`` long after the last up riser;
    down risers follow every tread_depth, the last one back to y = 0.
    """
    if int(steps) != steps or steps < 1:
        raise TerrainError(f"stairs: steps must be a positive integer; got {steps}")
    steps = int(steps)
    check_positive("stairs", step_height=step_height, tread_depth=tread_depth, landing=landing)
    up = start + tread_depth * np.arange(steps)
    landing_end = up[-1] + landing
    down = landing_end + tread_depth * np.arange(steps)
    risers = np.concatenate([up, down])
    before = step_height * np.concatenate([np.arange(steps), steps - np.arange(steps)])
    after = step_height * np.concatenate([np.arange(1, steps + 1), steps - 1 - np.arange(steps)])
    x = np.repeat(risers, 2)
    y = np.stack([before, after], axis=1).ravel()
    features = {
        "riser_x": risers.tolist(),
        "stairs_start": float(up[0]),
        "landing_start": float(up[-1]),
        "landing_end": float(landing_end),
        "stairs_end": float(down[-1]),
        "top_height": float(steps * step_height),
    }
    return x, y, features


def profile_terrain(
    x: np.ndarray,
    y: np.ndarray,
    width: float,
    z_segments: int,
    name: str,
    params: dict[str, Any],
    cell_size: float | None = None,
) -> MeshTerrain:
    """Extrude a side profile (points ``(P,)`` in x, y; repeated x = vertical face) along z
    across ``width`` as a mesh: each segment its own strip of ``z_segments`` quads (vertices
    not shared, so every face has its own colour); zero-length segments are dropped."""
    keep = np.hypot(np.diff(x), np.diff(y)) > 1e-12
    a = np.stack([x[:-1], y[:-1]], 1)[keep]
    b = np.stack([x[1:], y[1:]], 1)[keep]
    zs = np.linspace(-width / 2, width / 2, z_segments + 1)
    count = len(a)
    # vertices per segment: (z_segments + 1) at a then at b
    shape = (count, 2, z_segments + 1)
    ends = np.stack([a, b], axis=1)[:, :, None, :]  # (segment, a / b, 1, (x, y))
    vertices = np.concatenate(
        [np.broadcast_to(ends, (*shape, 2)), np.broadcast_to(zs[:, None], (*shape, 1))], axis=-1
    ).reshape(-1, 3)
    per = 2 * (z_segments + 1)
    base = (np.arange(count) * per)[:, None] + np.arange(z_segments)
    p0, p1 = base, base + 1  # at a, z_k and z_k+1
    q0, q1 = base + z_segments + 1, base + z_segments + 2  # at b
    faces = np.concatenate(
        [np.stack([p0, p1, q0], -1).reshape(-1, 3), np.stack([q0, p1, q1], -1).reshape(-1, 3)]
    )
    return MeshTerrain(vertices, faces.astype(np.int64), name=name, params=params,
                       cell_size=cell_size)


def stairs(
    *,
    length: float = 32.0,
    width: float = 4.0,
    step_height: float = 0.15,
    tread_depth: float = 0.30,
    steps: int = 5,
    landing: float = 1.2,
    start: float = 1.0,
    z_segments: int = 1,
) -> MeshTerrain:
    """Seed 002's stairs as a mesh with vertical risers on flat ground (y = 0), laid out by
    :func:`stair_profile`, whose features ``params`` adds. Defaults: risers up at 1.0…2.2,
    landing 2.2…3.4 at 0.75 m, risers down at 3.4…4.6."""
    (x_lo, _), (x_hi, _) = scene_bounds(length, width, "stairs")
    x, y, features = stair_profile(start, steps, step_height, tread_depth, landing)
    if x[0] <= x_lo or x[-1] >= x_hi:
        raise TerrainError(
            f"scene 'stairs': the stairs span x {x[0]:g}..{x[-1]:g}, outside the scene "
            f"({x_lo:g}..{x_hi:g}); change start or length"
        )
    x = np.concatenate([[x_lo], x, [x_hi]])
    y = np.concatenate([[0.0], y, [0.0]])
    params = {
        "length": length,
        "width": width,
        "step_height": step_height,
        "tread_depth": tread_depth,
        "steps": steps,
        "landing": landing,
        "start": start,
        **features,
    }
    return profile_terrain(x, y, width, z_segments, "stairs", params)


# ---------------------------------------------------------------------------------- course
def course_profile(
    *,
    length: float = 32.0,
    step_height: float = 0.1,
    ripple_height: float = 0.06,
    hill_height: float = 0.35,
    resolution: float = 0.05,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Side profile of the demo course: points x ``(P,)``, y ``(P,)`` and feature x ranges.

    Layout along x: flat −2…2; ripples 2…8 (six waves, ``ripple_height`` peak to trough);
    flat 8…9; hill 9…15 (raised cosine ``hill_height`` tall); flat 15…17; stairs from 17 (5
    risers up 0.3 m apart, 1.2 m landing, 5 down, ``step_height`` each, ending at 20.6);
    flat to the end. Smooth parts are sampled every ``resolution`` metres.
    """
    check_positive("course", resolution=resolution)
    end = X_START + length
    features: dict[str, Any] = {
        "flat_start": [X_START, 2.0],
        "ripples": [2.0, 8.0],
        "hill": [9.0, 15.0],
    }
    stair_x, stair_y, stair = stair_profile(17.0, 5, step_height, 0.3, 1.2)
    if end <= stair["stairs_end"] + 0.5:
        raise TerrainError(
            f"scene 'course': length {length} too short; the stairs end at "
            f"x = {stair['stairs_end']:g} (need length > {stair['stairs_end'] + 2.5:g})"
        )
    features["stairs"] = [stair["stairs_start"], stair["stairs_end"]]
    features["flat_end"] = [stair["stairs_end"], end]
    features.update(stair)

    def samples(lo: float, hi: float) -> np.ndarray:
        return np.linspace(lo, hi, int(np.ceil((hi - lo) / resolution)) + 1)

    ripple_x = samples(2.0, 8.0)
    ripple_y = ripple_height * 0.5 * (1 - np.cos(2 * np.pi * (ripple_x - 2.0)))
    hill_x = samples(9.0, 15.0)
    hill_y = hill_height * 0.5 * (1 - np.cos(2 * np.pi * (hill_x - 9.0) / 6.0))
    x = np.concatenate([[X_START], ripple_x, hill_x, stair_x, [end]])
    y = np.concatenate([[0.0], ripple_y, hill_y, stair_y, [0.0]])
    return x, y, features


def course(
    *,
    length: float = 32.0,
    width: float = 4.0,
    step_height: float = 0.1,
    ripple_height: float = 0.06,
    hill_height: float = 0.35,
    resolution: float = 0.05,
    z_segments: int = 4,
    cell_size: float | None = None,
) -> MeshTerrain:
    """Seed 000's demo course as one mesh: flat start, ripples, a hill, stairs up and down, flat
    end (layout in :func:`course_profile`; ``params`` holds each feature's [x_start, x_end] and
    the stairs' riser_x, landing_start, landing_end, top_height)."""
    scene_bounds(length, width, "course")
    x, y, features = course_profile(
        length=length,
        step_height=step_height,
        ripple_height=ripple_height,
        hill_height=hill_height,
        resolution=resolution,
    )
    params = {
        "length": length,
        "width": width,
        "step_height": step_height,
        "ripple_height": ripple_height,
        "hill_height": hill_height,
        "resolution": resolution,
        "z_segments": z_segments,
        **features,
    }
    return profile_terrain(x, y, width, z_segments, "course", params, cell_size)
