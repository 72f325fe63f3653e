"""Built-in scenes: rays land on the analytic ground, normals follow its slope, params locate
features, and bad input gets a clear TerrainError."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.errors import TerrainError
from footfall.terrain import (
    SCENES,
    HeightfieldTerrain,
    RayHits,
    Terrain,
    course_profile,
    scene,
)


def ripples_height(x, z, amplitude=0.05, wavelength=1.2):
    k = 2 * np.pi / wavelength
    return amplitude * (0.7 * np.sin(k * x) + 0.3 * np.sin(k * z + 0.5 * k * x))


def hills_height(x, z, height=0.35, radius=1.2, spacing=5.0, first=3.0, width=4.0):
    total = np.zeros_like(x)
    for i, cx in enumerate(np.arange(first, 30.0 + 1e-9, spacing)):
        cz = (0.1 if i % 2 == 0 else -0.1) * width
        total += height * np.exp(-((x - cx) ** 2 + (z - cz) ** 2) / (2 * radius**2))
    return total


def slope_height(x, z, angle_deg=8.0):
    return np.tan(np.radians(angle_deg)) * np.maximum(x, 0.0)


def topmost_profile_height(x, px, py):
    """Topmost y of a side profile polyline (vertical risers included) above each x."""
    a, b = px[:-1], px[1:]
    within = (x[:, None] >= np.minimum(a, b) - 1e-12) & (x[:, None] <= np.maximum(a, b) + 1e-12)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.clip((x[:, None] - a) / (b - a), 0, 1)
    y = np.where(b == a, np.maximum(py[:-1], py[1:]), py[:-1] + s * (py[1:] - py[:-1]))
    return np.where(within, y, -np.inf).max(axis=1)


def stairs_height(x, step_height=0.15):
    up = 1.0 + 0.3 * np.arange(5)
    down = 3.4 + 0.3 * np.arange(5)
    return step_height * ((x[:, None] >= up).sum(1) - (x[:, None] > down).sum(1))


def rocks_height(x, z, seed=0, count=120):
    """Rocks drawn in the documented order: radii, height factors, centre x, centre z."""
    rng = np.random.default_rng(seed)
    radius = rng.uniform(0.08, 0.35, count)
    tall = 0.5 * radius * rng.uniform(0.6, 1.4, count)
    cx, cz = rng.uniform(0.0, 28.0, count), rng.uniform(-2.0, 2.0, count)
    r = np.hypot(x[:, None] - cx, z[:, None] - cz)
    bell = np.where(r < radius, 0.5 + 0.5 * np.cos(np.pi * np.minimum(r / radius, 1)), 0.0)
    return (tall * bell**2).sum(axis=1)


REFERENCE = {
    "rocks": rocks_height,
    "flat": lambda x, z: np.zeros_like(x),
    "ripples": ripples_height,
    "hills": hills_height,
    "slope": slope_height,
    "stairs": lambda x, z: stairs_height(x),
}

SCENE_CACHE: dict[str, Terrain] = {}


def cached(name: str) -> Terrain:
    if name not in SCENE_CACHE:
        SCENE_CACHE[name] = scene(name)
    return SCENE_CACHE[name]


points = st.lists(
    st.tuples(st.floats(-2.0, 30.0), st.floats(-2.0, 2.0)), min_size=1, max_size=30
).map(np.array)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(REFERENCE)), xz=points)
def test_downward_rays_match_the_analytic_height(name: str, xz: np.ndarray) -> None:
    hits = cached(name).raycast_down(xz)
    assert hits.hit.all()
    np.testing.assert_allclose(hits.height, REFERENCE[name](xz[:, 0], xz[:, 1]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(hits.normal, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(cached(name).height(xz), hits.height, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(xz=points)
def test_course_rays_match_its_profile(xz: np.ndarray) -> None:
    terrain = cached("course")
    px, py, _ = course_profile()
    np.testing.assert_allclose(
        terrain.raycast_down(xz).height, topmost_profile_height(xz[:, 0], px, py), atol=1e-6
    )


def test_course_profile_follows_its_formulas_and_layout() -> None:
    px, py, features = course_profile(ripple_height=0.06, hill_height=0.35, step_height=0.1)
    ripple = (px > 2) & (px < 8)
    np.testing.assert_allclose(
        py[ripple], 0.03 * (1 - np.cos(2 * np.pi * (px[ripple] - 2))), atol=1e-12
    )
    hill = (px > 9) & (px < 15)
    np.testing.assert_allclose(
        py[hill], 0.175 * (1 - np.cos(2 * np.pi * (px[hill] - 9) / 6)), atol=1e-12
    )
    terrain = scene("course", step_height=0.12)
    params = terrain.params
    assert params["ripples"] == [2.0, 8.0] and params["hill"] == [9.0, 15.0]
    landing = np.array([[0.5 * (params["landing_start"] + params["landing_end"]), 0.0]])
    np.testing.assert_allclose(terrain.height(landing), [0.6], atol=1e-12)
    np.testing.assert_allclose(params["top_height"], 0.6)
    top_of_hill = terrain.raycast_down(np.array([[12.0, 0.3]]))
    np.testing.assert_allclose(top_of_hill.height, [0.35], atol=1e-9)
    after = terrain.raycast_down(np.array([[params["stairs_end"] + 0.01, 0.0], [29.9, 1.0]]))
    np.testing.assert_allclose(after.height, 0.0, atol=1e-12)


@pytest.mark.parametrize("name", ["ripples", "hills", "slope", "rocks"])
def test_normals_follow_the_height_gradient(name: str) -> None:
    terrain = cached(name)
    rng = np.random.default_rng(2)
    xz = np.column_stack([rng.uniform(-1.5, 29.5, 300), rng.uniform(-1.5, 1.5, 300)])
    xz = xz[np.abs(xz[:, 0]) > 1e-3]  # the slope's kink at x = 0 has no single gradient
    step = 1e-6
    dx = (terrain.height(xz + [step, 0]) - terrain.height(xz - [step, 0])) / (2 * step)
    dz = (terrain.height(xz + [0, step]) - terrain.height(xz - [0, step])) / (2 * step)
    expected = np.column_stack([-dx, np.ones_like(dx), -dz])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(terrain.raycast_down(xz).normal, expected, atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(SCENES)), seed=st.integers(0, 1000))
def test_general_rays_land_on_the_surface_first(name: str, seed: int) -> None:
    terrain = cached(name)
    rng = np.random.default_rng(seed)
    count = 12
    # Steep enough to reach the ground before leaving the scene's sides.
    origins = np.column_stack(
        [rng.uniform(1, 27, count), np.zeros(count), rng.uniform(-1, 1, count)]
    )
    origins[:, 1] = terrain.height(origins[:, [0, 2]]) + rng.uniform(0.3, 1.0, count)
    directions = np.column_stack(
        [rng.uniform(-1, 1, count), -np.ones(count), rng.uniform(-0.4, 0.4, count)]
    )
    hits = terrain.raycast(origins, directions)
    assert hits.hit.all()
    ground = terrain.height(hits.point[:, [0, 2]])
    flat = ~hits.steep
    np.testing.assert_allclose(hits.height[flat], ground[flat], atol=1e-6)
    # A riser is hit between the tread heights just before and after it.
    side = np.column_stack([directions[:, 0], directions[:, 2]])[hits.steep] * 1e-6
    lower = terrain.height(hits.point[hits.steep][:, [0, 2]] - side)
    upper = terrain.height(hits.point[hits.steep][:, [0, 2]] + side)
    y = hits.height[hits.steep]
    assert ((y >= np.minimum(lower, upper) - 1e-9) & (y <= np.maximum(lower, upper) + 1e-9)).all()
    # Nothing was stepped over: samples along the ray before the hit are above the ground.
    unit = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    fractions = np.linspace(0, 1, 200, endpoint=False)
    before = origins[:, None] + unit[:, None] * (hits.distance[:, None, None] * fractions[:, None])
    inside = terrain.contains(before[..., [0, 2]])
    below = np.where(
        inside, terrain.height(np.clip(before[..., [0, 2]], [-2, -2], [30, 2])), -np.inf
    )
    assert (before[..., 1] >= below - 1e-9).all()


def test_general_rays_respect_max_distance_and_miss_cleanly() -> None:
    terrain = cached("hills")
    origins = np.array([[5.0, 3.0, 0.0], [5.0, 3.0, 0.0], [5.0, 3.0, 0.0], [40.0, 1.0, 0.0]])
    directions = np.array([[0, -1.0, 0], [0, -1.0, 0], [0, 1.0, 0], [0, -1.0, 0]])
    far = terrain.raycast(origins, directions)
    near = terrain.raycast(origins, directions, max_distance=1.0)
    np.testing.assert_array_equal(far.hit, [True, True, False, False])
    assert not near.hit.any()
    ground = terrain.height(np.array([[5.0, 0.0]]))[0]
    np.testing.assert_allclose(far.distance[:2], 3.0 - ground, atol=1e-9)
    assert np.isnan(near.height).all() and np.isinf(near.distance).all()
    np.testing.assert_array_equal(near.normal, np.tile([0.0, 1.0, 0.0], (4, 1)))
    assert not near.steep.any()


@pytest.mark.parametrize("name", sorted(SCENES))
def test_every_scene_spans_the_walk_and_has_a_drawing(name: str) -> None:
    terrain = cached(name)
    assert terrain.name == name
    assert terrain.bounds == ((-2.0, -2.0), (30.0, 2.0))
    assert terrain.vertices.ndim == 2 and terrain.vertices.shape[1] == 3
    assert terrain.faces.min() >= 0 and terrain.faces.max() < len(terrain.vertices)
    colors = terrain.vertex_colors
    assert colors is not None and colors.shape == terrain.vertices.shape
    assert colors.min() >= 0 and colors.max() <= 1
    # The drawing lies on the ground the rays see.
    on_ground = np.isclose(
        terrain.height(terrain.vertices[:, [0, 2]]), terrain.vertices[:, 1], atol=1e-9
    )
    # Heightfield drawings sample the surface; mesh vertices too, except riser bottoms.
    assert on_ground.all() if isinstance(terrain, HeightfieldTerrain) else on_ground.mean() > 0.45
    assert not np.isnan(terrain.height(np.array([[10.0, 0.5]]))).any()
    assert np.isnan(terrain.height(np.array([[30.5, 0.0], [10.0, -2.5]]))).all()


def test_scene_sizes_and_humanoid_stairs() -> None:
    terrain = scene(
        "stairs",
        step_height=0.25,
        tread_depth=0.35,
        steps=5,
        landing=2.0,
        start=2.0,
        length=40.0,
        width=6.0,
    )
    assert terrain.bounds == ((-2.0, -3.0), (38.0, 3.0))
    params = terrain.params
    assert params["top_height"] == pytest.approx(1.25)
    assert params["stairs_start"] == 2.0 and params["landing_end"] == pytest.approx(5.4)
    assert params["stairs_end"] == pytest.approx(6.8)
    middle = 0.5 * (params["landing_start"] + params["landing_end"])
    np.testing.assert_allclose(terrain.height(np.array([[middle, 2.9]])), [1.25])


def test_slope_sideways_and_rocks_are_seeded() -> None:
    side = scene("slope", angle_deg=10.0, sideways=True)
    xz = np.array([[3.0, -1.0], [20.0, 1.5]])
    np.testing.assert_allclose(side.height(xz), np.tan(np.radians(10)) * xz[:, 1], atol=1e-12)
    np.testing.assert_allclose(side.raycast_down(xz).normal[:, 0], 0.0, atol=1e-12)
    a, b, c = scene("rocks", seed=4), scene("rocks", seed=4), scene("rocks", seed=5)
    grid = np.stack(np.meshgrid(np.linspace(0, 28, 200), np.linspace(-2, 2, 30)), -1).reshape(-1, 2)
    np.testing.assert_array_equal(a.height(grid), b.height(grid))
    assert not np.allclose(a.height(grid), c.height(grid))
    heights = a.height(grid)
    assert heights.min() >= 0.0 and 0.02 < heights.max() < 0.6
    assert (heights > 0.01).mean() > 0.05  # rocks cover some of the ground, not all
    assert (heights == 0).mean() > 0.3


def test_batch_shapes_are_kept() -> None:
    terrain = cached("stairs")
    xz = np.zeros((2, 3, 2))
    hits = terrain.raycast_down(xz)
    assert isinstance(hits, RayHits)
    assert hits.height.shape == (2, 3) and hits.normal.shape == (2, 3, 3)
    assert hits.point.shape == (2, 3, 3) and hits.steep.shape == (2, 3)
    single = cached("ripples").raycast_down(np.array([1.0, 0.0]))
    assert single.height.shape == () and single.normal.shape == (3,)
    general = terrain.raycast(np.zeros((4, 1, 3)) + [0, 1, 0], np.array([0.0, -1.0, 0.0]))
    assert general.hit.shape == (4, 1)


def test_unknown_scene_and_bad_parameters_are_terrain_errors() -> None:
    with pytest.raises(TerrainError, match="valid scenes: flat, ripples, hills, stairs"):
        scene("nope")
    with pytest.raises(TerrainError, match="step_hieght"):
        scene("stairs", step_hieght=0.1)
    with pytest.raises(TerrainError, match="step_height must be positive"):
        scene("stairs", step_height=-0.1)
    with pytest.raises(TerrainError, match="steps must be a positive integer"):
        scene("stairs", steps=0)
    with pytest.raises(TerrainError, match="outside the scene"):
        scene("stairs", start=29.0)
    with pytest.raises(TerrainError, match="length"):
        scene("course", length=10.0)
    with pytest.raises(TerrainError, match="angle_deg"):
        scene("slope", angle_deg=90.0)


@pytest.mark.parametrize("name", ["stairs", "ripples"])
def test_non_finite_rays_are_rejected_naming_the_ray(name: str) -> None:
    terrain = cached(name)
    xz = np.zeros((5, 2))
    xz[3, 1] = np.nan
    with pytest.raises(TerrainError, match="ray 3"):
        terrain.raycast_down(xz)
    with pytest.raises(TerrainError, match="ray 3"):
        terrain.height(xz)
    origins, directions = np.zeros((4, 3)), np.tile([0.0, -1.0, 0.0], (4, 1))
    origins[2, 0] = np.inf
    with pytest.raises(TerrainError, match="ray 2 has infinite origin"):
        terrain.raycast(origins, directions)
    directions[1] = np.nan
    with pytest.raises(TerrainError, match="ray 1 has NaN direction"):
        terrain.raycast(np.zeros((4, 3)), directions)
    with pytest.raises(TerrainError, match="ray 0 has a zero direction"):
        terrain.raycast(np.zeros((1, 3)), np.zeros((1, 3)))
    with pytest.raises(TerrainError, match="shape"):
        terrain.raycast_down(np.zeros((4, 3)))
    with pytest.raises(TerrainError, match="max_distance"):
        terrain.raycast(np.zeros((1, 3)), np.array([[0, -1.0, 0]]), max_distance=-1.0)
