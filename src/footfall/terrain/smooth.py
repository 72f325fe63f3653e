"""Smooth built-in scenes as analytic heightfields: flat, ripples, hills, slope, rocks.

Each gives its height and exact gradient as formulas, so downward rays are exact.
"""

from __future__ import annotations

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.layout import check_positive, scene_bounds


def flat(*, length: float = 32.0, width: float = 4.0, height: float = 0.0) -> HeightfieldTerrain:
    """Level ground at y = ``height`` everywhere."""
    bounds = scene_bounds(length, width, "flat")
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
    """Small waves over the whole scene, mostly along x with a gentle cross ripple in z:
    y = amplitude·(0.7·sin(k x) + 0.3·sin(k z + 0.5 k x)), k = 2π/wavelength."""
    check_positive("ripples", wavelength=wavelength)
    k = 2 * np.pi / wavelength

    def height(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        return amplitude * (0.7 * np.sin(k * x) + 0.3 * np.sin(k * z + 0.5 * k * x))

    def gradient(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cross = np.cos(k * z + 0.5 * k * x)
        return amplitude * k * (0.7 * np.cos(k * x) + 0.15 * cross), amplitude * k * 0.3 * cross

    return HeightfieldTerrain(
        height,
        gradient,
        scene_bounds(length, width, "ripples"),
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
    check_positive("hills", radius=radius, spacing=spacing)
    bounds = scene_bounds(length, width, "hills")
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
    bounds = scene_bounds(length, width, "slope")
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
    check_positive("rocks", min_radius=min_radius, max_radius=max_radius, flatness=flatness)
    if count < 0 or max_radius < min_radius:
        raise TerrainError("scene 'rocks': need count ≥ 0 and max_radius ≥ min_radius")
    bounds = scene_bounds(length, width, "rocks")
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
