"""Built-in scenes: flat, ripples, hills, stairs, slope, rocks and the demo course (seed 000).

Every scene spans the walking direction x ∈ [−2, −2 + length] (length 32: x up to 30) and
z ∈ [−width/2, width/2] (width 4). Defaults are bunny scale (leg 0.37 m); every size is a
parameter so the same scenes serve a humanoid (leg 0.9 m). Smooth scenes are analytic
heightfields; scenes with stairs are meshes with vertical risers.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.base import Terrain
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.mesh import MeshTerrain
from footfall.terrain.palette import ground_colors

X_START = -2.0


def _extent(
    length: float, width: float, name: str
) -> tuple[tuple[float, float], tuple[float, float]]:
    if not (np.isfinite(length) and np.isfinite(width) and length > 0 and width > 0):
        raise TerrainError(
            f"scene {name!r}: length and width must be positive; got {length}, {width}"
        )
    return ((X_START, -width / 2), (X_START + length, width / 2))


def _positive(name: str, **values: float) -> None:
    for key, value in values.items():
        if not (np.isfinite(value) and value > 0):
            raise TerrainError(f"scene {name!r}: {key} must be positive; got {value}")


def flat(*, length: float = 32.0, width: float = 4.0, height: float = 0.0) -> HeightfieldTerrain:
    """Level ground at y = ``height`` everywhere."""
    bounds = _extent(length, width, "flat")
    return HeightfieldTerrain(
        lambda x, z: np.full(np.shape(x), float(height)),
        lambda x, z: (np.zeros(np.shape(x)), np.zeros(np.shape(x))),
        bounds,
        name="flat",
        params={"length": length, "width": width, "height": height},
        height_range=(height, height),
        draw_spacing=0.25,
    )


def ripples(
    *, length: float = 32.0, width: float = 4.0, amplitude: float = 0.05, wavelength: float = 1.2
) -> HeightfieldTerrain:
    """Small waves over the whole scene, mostly along x with a gentle cross ripple in z.

    y = amplitude·(0.7·sin(k x) + 0.3·sin(k z + 0.5 k x)), k = 2π/wavelength.
    """
    _positive("ripples", wavelength=wavelength)
    k = 2 * np.pi / wavelength

    def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return amplitude * (0.7 * np.sin(k * x) + 0.3 * np.sin(k * z + 0.5 * k * x))

    def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cross = np.cos(k * z + 0.5 * k * x)
        return amplitude * k * (0.7 * np.cos(k * x) + 0.15 * cross), amplitude * k * 0.3 * cross

    return HeightfieldTerrain(
        height,
        gradient,
        _extent(length, width, "ripples"),
        name="ripples",
        params={"length": length, "width": width, "amplitude": amplitude, "wavelength": wavelength},
        height_range=(-abs(amplitude), abs(amplitude)),
    )


def hills(
    *,
    length: float = 32.0,
    width: float = 4.0,
    height: float = 0.35,
    radius: float = 1.2,
    spacing: float = 5.0,
    first: float = 3.0,
) -> HeightfieldTerrain:
    """Round Gaussian hills: centres at x = first, first + spacing, … (inside the scene),
    z alternating +0.4·width/4 and −0.4·width/4; each ``height`` tall with std ``radius``."""
    _positive("hills", radius=radius, spacing=spacing)
    bounds = _extent(length, width, "hills")
    centres_x = np.arange(first, bounds[1][0] + 1e-9, spacing)
    centres_z = np.where(np.arange(len(centres_x)) % 2 == 0, 0.1, -0.1) * width
    scale = 1.0 / (2 * radius**2)

    def bumps(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dx = np.asarray(x)[..., None] - centres_x
        dz = np.asarray(z)[..., None] - centres_z
        return height * np.exp(-(dx**2 + dz**2) * scale), dx, dz

    def value(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return bumps(x, z)[0].sum(axis=-1)

    def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b, dx, dz = bumps(x, z)
        return (-2 * scale * b * dx).sum(axis=-1), (-2 * scale * b * dz).sum(axis=-1)

    return HeightfieldTerrain(
        value,
        gradient,
        bounds,
        name="hills",
        params={
            "length": length,
            "width": width,
            "height": height,
            "radius": radius,
            "spacing": spacing,
            "first": first,
            "centres_x": centres_x.tolist(),
        },
        height_range=(min(0.0, height * len(centres_x)), max(0.0, height * 1.05)),
    )


def slope(
    *,
    length: float = 32.0,
    width: float = 4.0,
    angle_deg: float = 8.0,
    sideways: bool = False,
    start: float = 0.0,
) -> HeightfieldTerrain:
    """A plane tilted by ``angle_deg``.

    sideways False: flat (y = 0) for x < start, then rising along +x: y = tan(angle)·(x − start).
    sideways True: tilted across the walking direction everywhere: y = tan(angle)·z.
    """
    if not (np.isfinite(angle_deg) and -80 < angle_deg < 80):
        raise TerrainError(f"scene 'slope': angle_deg must lie in (-80, 80); got {angle_deg}")
    bounds = _extent(length, width, "slope")
    rise = float(np.tan(np.radians(angle_deg)))
    if sideways:

        def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
            return rise * np.asarray(z, float) + 0 * np.asarray(x, float)

        def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.zeros(np.shape(x)), np.full(np.shape(x), rise)

        ends = (rise * bounds[0][1], rise * bounds[1][1])
    else:

        def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
            return rise * np.maximum(np.asarray(x, float) - start, 0.0)

        def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.where(np.asarray(x) >= start, rise, 0.0), np.zeros(np.shape(x))

        ends = (0.0, rise * max(bounds[1][0] - start, 0.0))
    return HeightfieldTerrain(
        height,
        gradient,
        bounds,
        name="slope",
        params={
            "length": length,
            "width": width,
            "angle_deg": angle_deg,
            "sideways": sideways,
            "start": start,
        },
        height_range=(min(ends), max(ends)),
    )


def rocks(
    *,
    length: float = 32.0,
    width: float = 4.0,
    seed: int = 0,
    count: int = 120,
    min_radius: float = 0.08,
    max_radius: float = 0.35,
    flatness: float = 0.5,
) -> HeightfieldTerrain:
    """Seeded random smooth boulders scattered over x ∈ [0, end − 2] on flat ground.

    Each rock is a raised-cosine cap of radius R ∈ [min_radius, max_radius] and height
    flatness·R·U(0.6, 1.4); rocks add where they overlap. Same seed, same rocks.
    """
    _positive("rocks", min_radius=min_radius, max_radius=max_radius, flatness=flatness)
    if count < 0 or max_radius < min_radius:
        raise TerrainError("scene 'rocks': need count ≥ 0 and max_radius ≥ min_radius")
    bounds = _extent(length, width, "rocks")
    rng = np.random.default_rng(seed)
    radius = rng.uniform(min_radius, max_radius, count)
    tall = flatness * radius * rng.uniform(0.6, 1.4, count)
    centre_x = rng.uniform(0.0, max(bounds[1][0] - 2.0, 0.0), count)
    centre_z = rng.uniform(bounds[0][1], bounds[1][1], count)
    # Rocks sorted by x: a point only looks at the window of rocks within max_radius in x.
    order = np.argsort(centre_x)
    sorted_x = centre_x[order]
    rock = np.stack([centre_x, centre_z, radius, tall], axis=1)[order]
    rock = np.vstack([rock, [np.inf, np.inf, 1.0, 0.0]])  # padding rock, never touched

    def caps(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        x, z = np.asarray(x, float), np.asarray(z, float)
        first = np.searchsorted(sorted_x, x - max_radius, side="left")
        last = np.searchsorted(sorted_x, x + max_radius, side="right")
        window = int((last - first).max(initial=0))
        index = first[..., None] + np.arange(window)
        near = rock[np.where(index < last[..., None], index, count)]  # (..., W, 4)
        dx, dz = x[..., None] - near[..., 0], z[..., None] - near[..., 1]
        size, peak = near[..., 2], near[..., 3]
        with np.errstate(invalid="ignore"):
            r = np.sqrt(dx**2 + dz**2)
        inside = r < size
        phase = np.pi * np.minimum(r / size, 1.0)
        bell = np.where(inside, 0.5 + 0.5 * np.cos(phase), 0.0)
        # d/dr of peak·bell²; divided by r to turn (dx, dz) into the gradient (finite at r → 0).
        sinc_term = np.where(inside & (r > 1e-12), np.sin(phase) / np.maximum(r, 1e-12), 0.0)
        per_r = -peak * bell * sinc_term * np.pi / size
        dx, dz = np.where(inside, dx, 0.0), np.where(inside, dz, 0.0)
        return peak * bell**2, per_r, dx, dz

    def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return caps(x, z)[0].sum(axis=-1)

    def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, per_r, dx, dz = caps(x, z)
        return (per_r * dx).sum(axis=-1), (per_r * dz).sum(axis=-1)

    return HeightfieldTerrain(
        height,
        gradient,
        bounds,
        name="rocks",
        params={
            "length": length,
            "width": width,
            "seed": seed,
            "count": count,
            "min_radius": min_radius,
            "max_radius": max_radius,
            "flatness": flatness,
        },
        height_range=(0.0, _stack_bound(centre_x, centre_z, radius, tall)),
        march_step=0.005,
    )


def _stack_bound(x: np.ndarray, z: np.ndarray, radius: np.ndarray, tall: np.ndarray) -> float:
    """Upper bound of summed caps: inside rock i only rocks overlapping it add (metres)."""
    if len(x) == 0:
        return 0.0
    gap = np.hypot(x[:, None] - x, z[:, None] - z)
    overlapping = gap < radius[:, None] + radius
    return float((overlapping * tall).sum(axis=1).max())


# --------------------------------------------------------------------------- stairs (meshes)
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
    _positive("stairs", step_height=step_height, tread_depth=tread_depth, landing=landing)
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


def profile_mesh(
    x: np.ndarray, y: np.ndarray, z_min: float, z_max: float, z_segments: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Extrude a side profile (points ``(P,)`` in x, y; repeated x = vertical face) along z.

    Each profile segment becomes its own strip of ``z_segments`` quads (vertices not shared, so
    every face can have its own colour). Zero-length segments are dropped.
    Returns vertices ``(V, 3)`` and faces ``(T, 3)``.
    """
    keep = np.hypot(np.diff(x), np.diff(y)) > 1e-12
    a = np.stack([x[:-1], y[:-1]], 1)[keep]
    b = np.stack([x[1:], y[1:]], 1)[keep]
    zs = np.linspace(z_min, z_max, z_segments + 1)
    count = len(a)
    # vertices per segment: (z_segments + 1) at a then at b
    start = np.repeat(a[:, None, :], z_segments + 1, 1)
    end = np.repeat(b[:, None, :], z_segments + 1, 1)
    zz = np.broadcast_to(zs, (count, z_segments + 1))
    va = np.stack([start[..., 0], start[..., 1], zz], -1)
    vb = np.stack([end[..., 0], end[..., 1], zz], -1)
    vertices = np.concatenate([va, vb], axis=1).reshape(-1, 3)
    per = 2 * (z_segments + 1)
    base = (np.arange(count) * per)[:, None] + np.arange(z_segments)
    p0, p1 = base, base + 1  # at a, z_k and z_k+1
    q0, q1 = base + z_segments + 1, base + z_segments + 2  # at b
    faces = np.concatenate(
        [np.stack([p0, p1, q0], -1).reshape(-1, 3), np.stack([q0, p1, q1], -1).reshape(-1, 3)]
    )
    return vertices, faces.astype(np.int64)


def _profile_terrain(
    x: np.ndarray,
    y: np.ndarray,
    width: float,
    z_segments: int,
    name: str,
    params: dict[str, Any],
    cell_size: float | None = None,
) -> MeshTerrain:
    vertices, faces = profile_mesh(x, y, -width / 2, width / 2, z_segments)
    corners = vertices[faces]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    vertex_normal = np.zeros_like(vertices)
    vertex_normal[faces.ravel()] = np.repeat(normal, 3, axis=0)
    colors = ground_colors(vertices, vertex_normal)
    return MeshTerrain(
        vertices, faces, name=name, params=params, vertex_colors=colors, cell_size=cell_size
    )


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
    """Seed 002's stairs as a mesh with vertical risers: flat ground (y = 0) from x = −2 to
    ``start``; ``steps`` risers up every ``tread_depth``; the top landing (``landing`` long from
    the last up riser); ``steps`` risers down; flat ground to the end.

    ``params`` adds riser_x, stairs_start, landing_start, landing_end, stairs_end, top_height.
    Defaults: risers up at 1.0…2.2, landing 2.2…3.4 at 0.75 m, risers down at 3.4…4.6.
    """
    (x_lo, _), (x_hi, _) = _extent(length, width, "stairs")
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
    return _profile_terrain(x, y, width, z_segments, "stairs", params)


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
    _positive("course", resolution=resolution)
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
    _extent(length, width, "course")
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
    return _profile_terrain(x, y, width, z_segments, "course", params, cell_size)


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
