"""The compiled mesh ray kernels (footfall.terrain.grid_rays) against brute force over every
triangle, on random meshes and rays: cell borders, shared edges and vertices, rays off the grid,
degenerate and vertical triangles, and malformed input. Plus the RaySource protocol."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.errors import TerrainError
from footfall.terrain import (
    BoundedRaySource,
    LaneTerrain,
    LevelGround,
    MeshTerrain,
    RaySource,
    grid_rays,
    scene,
)
from footfall.terrain.heightfield import grid_faces

SLACK = 1e-9  # barycentric slack: points on an edge or vertex belong to the triangle


def bumpy_grid(rng: np.random.Generator, nx: int, nz: int) -> tuple[np.ndarray, np.ndarray]:
    """A connected grid mesh over [0, 3] × [−1, 1] with random heights and jittered columns."""
    x = np.linspace(0.0, 3.0, nx)
    x[1:-1] += rng.uniform(-0.3, 0.3, nx - 2) * (x[1] - x[0])
    xs, zs = np.meshgrid(x, np.linspace(-1.0, 1.0, nz))
    ys = rng.uniform(0.0, 0.5, xs.shape)
    return np.stack([xs.ravel(), ys.ravel(), zs.ravel()], 1), grid_faces(nx, nz)


def with_soup(rng: np.random.Generator, vertices: np.ndarray, faces: np.ndarray, count: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Add ``count`` random free triangles (overlapping, any winding), a vertical one and two
    degenerate ones (a repeated vertex, three collinear vertices)."""
    soup = np.column_stack([rng.uniform(-0.2, 3.2, 3 * count), rng.uniform(-0.5, 1.5, 3 * count),
                            rng.uniform(-1.2, 1.2, 3 * count)])
    special = np.array([
        [1.0, 0.0, -0.5], [1.0, 1.5, -0.5], [1.0, 0.0, 0.5],  # vertical (a riser)
        [2.0, 2.0, 0.0], [2.0, 2.0, 0.0], [2.5, 2.0, 0.3],  # repeated vertex: no area
        [0.5, 2.0, 0.0], [1.0, 2.5, 0.2], [1.5, 3.0, 0.4],  # collinear: no area
    ])
    base = len(vertices)
    extra = np.arange(3 * count + len(special)).reshape(-1, 3) + base
    return np.vstack([vertices, soup, special]), np.vstack([faces, extra])


def down_reference(vertices: np.ndarray, faces: np.ndarray, points: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Topmost height (K,) (NaN: miss) and triangle (K,) of downward rays at ``points (K, 2)``,
    by Cramer's rule in x/z over every triangle with some area and an x/z footprint."""
    a, b, c = (vertices[faces[:, i]] for i in range(3))
    e1, e2 = b - a, c - a
    area = np.linalg.norm(np.cross(e1, e2), axis=1)
    det = e1[:, 0] * e2[:, 2] - e1[:, 2] * e2[:, 0]
    usable = (area > 1e-15) & (np.abs(det) > 1e-12)
    det = np.where(usable, det, 1.0)
    px = points[:, None, 0] - a[None, :, 0]
    pz = points[:, None, 1] - a[None, :, 2]
    u = (px * e2[:, 2] - pz * e2[:, 0]) / det
    v = (e1[:, 0] * pz - e1[:, 2] * px) / det
    inside = usable & (u >= -SLACK) & (v >= -SLACK) & (u + v <= 1 + SLACK)
    y = np.where(inside, a[:, 1] + u * e1[:, 1] + v * e2[:, 1], -np.inf)
    best = y.argmax(axis=1)
    height = y[np.arange(len(points)), best]
    return np.where(np.isfinite(height), height, np.nan), best


def ray_reference(vertices: np.ndarray, faces: np.ndarray, origins: np.ndarray,
                  directions: np.ndarray, limit: float = np.inf) -> np.ndarray:
    """Nearest ray parameter (K,) along unit directions over every triangle (inf: miss), solving
    o + t·d = a + u·e1 + v·e2 with numpy.linalg.solve."""
    a, b, c = (vertices[faces[:, i]] for i in range(3))
    e1, e2 = b - a, c - a
    d = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    columns = np.stack(np.broadcast_arrays(-d[:, None], e1[None], e2[None]), axis=-1)
    det = np.linalg.det(columns)
    good = np.abs(det) > 1e-14
    safe = np.where(good[..., None, None], columns, np.eye(3))
    rhs = origins[:, None, :] - a[None]
    t, u, v = np.moveaxis(np.linalg.solve(safe, rhs[..., None])[..., 0], -1, 0)
    hit = good & (u >= -SLACK) & (v >= -SLACK) & (u + v <= 1 + SLACK) & (t >= 0) & (t <= limit)
    return np.where(hit, t, np.inf).min(axis=1)


def border_and_edge_points(terrain: MeshTerrain, vertices: np.ndarray, faces: np.ndarray,
                           rng: np.random.Generator) -> np.ndarray:
    """Points exactly on grid-cell borders (both axes, and their crossings), on triangle edges
    (midpoints and random points along them) and on vertices."""
    (x0, z0), (x1, z1) = terrain.bounds
    cx, cz = terrain.cell_size
    nx, nz = terrain.cell_count
    border_x = x0 + cx * np.arange(nx + 1)
    border_z = z0 + cz * np.arange(nz + 1)
    corners = np.stack(np.meshgrid(border_x, border_z), -1).reshape(-1, 2)
    on_x = np.column_stack([rng.choice(border_x, 50), rng.uniform(z0, z1, 50)])
    on_z = np.column_stack([rng.uniform(x0, x1, 50), rng.choice(border_z, 50)])
    start = vertices[faces[:, 0]][:, [0, 2]]
    end = vertices[faces[:, 1]][:, [0, 2]]
    along = rng.uniform(0, 1, (len(faces), 1))
    edges = np.vstack([(start + end) / 2, start + along * (end - start)])
    return np.vstack([corners, on_x, on_z, edges, vertices[:, [0, 2]]])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    nx=st.integers(2, 9),
    nz=st.integers(2, 6),
    soup=st.integers(0, 12),
    cell=st.one_of(st.none(), st.floats(0.05, 4.0)),
)
def test_downward_kernel_matches_brute_force(seed, nx, nz, soup, cell) -> None:
    rng = np.random.default_rng(seed)
    vertices, faces = bumpy_grid(rng, nx, nz)
    vertices, faces = with_soup(rng, vertices, faces, soup)
    terrain = MeshTerrain(vertices, faces, cell_size=cell)
    (x0, z0), (x1, z1) = terrain.bounds
    scattered = np.column_stack([rng.uniform(x0 - 0.5, x1 + 0.5, 300),
                                 rng.uniform(z0 - 0.5, z1 + 0.5, 300)])
    # Exact points only on the connected grid: its neighbours agree on the height at an edge,
    # while a free triangle's edge may sit over another surface (either answer is right there).
    grid_only = MeshTerrain(*bumpy_grid(np.random.default_rng(seed), nx, nz), cell_size=cell)
    exact = border_and_edge_points(grid_only, grid_only.vertices, grid_only.faces, rng)

    for mesh, points in ((terrain, scattered), (grid_only, exact), (grid_only, scattered)):
        hits = mesh.raycast_down(points)
        height, triangle = down_reference(mesh.vertices, mesh.faces, points)
        inside = mesh.contains(points)
        expected_hit = np.isfinite(height) & inside
        np.testing.assert_array_equal(hits.hit, expected_hit)
        np.testing.assert_allclose(hits.height[hits.hit], height[hits.hit], atol=1e-9)
        np.testing.assert_allclose(hits.distance[hits.hit],
                                   mesh.ray_start_height - height[hits.hit], atol=1e-9)
        assert np.isnan(hits.point[~hits.hit]).all() and np.isinf(hits.distance[~hits.hit]).all()
        np.testing.assert_array_equal(hits.normal[~hits.hit], np.tile([0.0, 1.0, 0.0],
                                                                      ((~hits.hit).sum(), 1)))
        np.testing.assert_array_equal(hits.point[hits.hit][:, [0, 2]], points[hits.hit])
        # The normal is the (up-facing) normal of a triangle at that height under the point.
        assert (hits.normal[hits.hit, 1] >= 0).all()
        np.testing.assert_allclose(np.linalg.norm(hits.normal[hits.hit], axis=1), 1.0, atol=1e-12)
    assert exact.shape[0] > 0 and grid_only.raycast_down(exact).hit.any()


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    soup=st.integers(0, 10),
    cell=st.one_of(st.none(), st.floats(0.05, 4.0)),
    limit=st.one_of(st.just(np.inf), st.floats(0.05, 6.0)),
)
def test_general_kernel_matches_brute_force(seed, soup, cell, limit) -> None:
    rng = np.random.default_rng(seed)
    vertices, faces = with_soup(rng, *bumpy_grid(rng, 6, 4), soup)
    terrain = MeshTerrain(vertices, faces, cell_size=cell)
    count = 120
    origins = np.column_stack([rng.uniform(-1.0, 4.0, count), rng.uniform(-0.5, 3.0, count),
                               rng.uniform(-1.5, 1.5, count)])
    directions = rng.normal(size=(count, 3))
    directions[:20, [0, 2]] = 0.0  # straight up or down: no cell steps
    directions[20:40, 1] = 0.0  # horizontal: walls, risers and bump sides
    directions[40:50, 0] = 0.0  # along z only
    directions[50:60, 2] = 0.0  # along x only
    # Aimed at a grid vertex: several triangles share the point hit.
    aim = vertices[rng.integers(0, 6 * 4, 20)]
    origins[60:80] = aim + rng.uniform(-1, 1, (20, 3)) + [0.0, 1.5, 0.0]
    directions[60:80] = aim - origins[60:80]
    hits = terrain.raycast(origins, directions, max_distance=limit)
    t = ray_reference(vertices, faces, origins, directions, limit)
    np.testing.assert_array_equal(hits.hit, np.isfinite(t))
    np.testing.assert_allclose(hits.distance[hits.hit], t[hits.hit], atol=1e-9)
    assert np.isinf(hits.distance[~hits.hit]).all() and np.isnan(hits.point[~hits.hit]).all()
    unit = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    np.testing.assert_allclose(hits.point[hits.hit],
                               origins[hits.hit] + unit[hits.hit] * t[hits.hit, None], atol=1e-9)
    # Normals face against the ray.
    assert (np.einsum("ij,ij->i", hits.normal[hits.hit], unit[hits.hit]) <= 1e-12).all()
    if np.isinf(limit):
        assert hits.hit[60:80].all()  # every aimed ray reaches its vertex (nothing beyond it)


def test_nearest_hit_of_stacked_layers_and_degenerate_triangles() -> None:
    # Two square layers at y = 0 and y = 1, a vertical wall at x = 0.5 and zero-area triangles.
    square = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]], float)
    vertices = np.vstack([square, square + [0, 1, 0],
                          [[0.5, 0, 0], [0.5, 2, 0], [0.5, 0, 1]],  # wall
                          [[0.2, 3, 0.2], [0.4, 3, 0.4], [0.8, 3, 0.8]]])  # collinear, high up
    faces = np.array([[0, 2, 1], [1, 2, 3], [4, 6, 5], [5, 6, 7], [8, 9, 10], [11, 12, 13]])
    terrain = MeshTerrain(vertices, faces, cell_size=0.25)
    down = terrain.raycast_down(np.array([[0.25, 0.25], [0.5, 0.5], [0.4, 0.4]]))
    np.testing.assert_array_equal(down.height, [1.0, 1.0, 1.0])  # top layer; wall, line unseen
    up = terrain.raycast(np.array([[0.3, 0.5, 0.3]]), np.array([[0.0, 1.0, 0.0]]))
    np.testing.assert_allclose(up.point, [[0.3, 1.0, 0.3]])
    np.testing.assert_allclose(up.normal, [[0.0, -1.0, 0.0]])  # turned against the ray
    side = terrain.raycast(np.array([[0.1, 0.5, 0.5], [0.9, 0.5, 0.5]]),
                           np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(side.point, [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]])
    np.testing.assert_allclose(side.normal, [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(side.distance, [0.4, 0.4])
    # A ray along the collinear "triangle" finds nothing there.
    line = terrain.raycast(np.array([[0.0, 3.0, 0.0]]), np.array([[1.0, 0.0, 1.0]]))
    assert not line.hit[0]


def test_rays_off_the_grid_miss_and_far_points_are_safe() -> None:
    rng = np.random.default_rng(3)
    terrain = MeshTerrain(*bumpy_grid(rng, 5, 4))
    far = np.array([[-1e300, 0.0], [1e300, 0.0], [0.0, 1e300], [3.0 + 1e-9, 0.0], [-1e-9, 0.0]])
    hits = terrain.raycast_down(far)
    assert not hits.hit.any() and np.isinf(hits.distance).all()
    rays = terrain.raycast(np.array([[-5.0, 1.0, 0.0], [1.0, 10.0, 0.0], [1e300, 0.0, 0.0]]),
                           np.array([[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]))
    assert not rays.hit.any()
    edge = terrain.raycast_down(np.array([[0.0, -1.0], [3.0, 1.0]]))  # bounds corners
    assert edge.hit.all()


def test_memory_stays_at_the_outputs() -> None:
    # No (rays × triangles-per-cell) temporaries: the peak allocation of a query is a small
    # multiple of its outputs (3.5–3.9× now).
    terrain = scene("course")
    rng = np.random.default_rng(11)
    count = 100_000
    points = np.column_stack([rng.uniform(-3, 31, count), rng.uniform(-3, 3, count)])
    origins = np.column_stack([points[:, 0], rng.uniform(0, 1.5, count), points[:, 1]])
    directions = rng.normal(size=(count, 3))
    outputs = count * (3 + 3 + 1) * 8 + count  # point, normal, distance (float64), hit (bool)
    terrain.raycast_down(points[:10])
    terrain.raycast(origins[:10], directions[:10])
    for query in (lambda: terrain.raycast_down(points),
                  lambda: terrain.raycast(origins, directions)):
        tracemalloc.start()
        try:
            query()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 6 * outputs, (peak, outputs)  # the NumPy version: 45–48×


def test_a_batch_cast_in_cell_order_answers_as_rays_cast_one_by_one() -> None:
    # From grid_rays.SORT_RAYS rays a batch is cast in cell order: the same bits per ray.
    terrain = scene("course")
    rng = np.random.default_rng(5)
    count = 3 * grid_rays.SORT_RAYS
    points = np.column_stack([rng.uniform(-3, 31, count), rng.uniform(-3, 3, count)])
    batch = terrain.raycast_down(points)
    alone = [terrain.raycast_down(point[None]) for point in points[::7]]
    for field in ("point", "normal", "hit", "distance"):
        got = getattr(batch, field)[::7]
        want = np.concatenate([getattr(one, field) for one in alone])
        assert np.array_equal(got, want, equal_nan=True), field
    assert batch.hit.any() and not batch.hit.all()


def test_empty_and_single_ray_batches() -> None:
    terrain = scene("course")
    empty = terrain.raycast_down(np.zeros((0, 2)))
    assert empty.hit.shape == (0,) and empty.point.shape == (0, 3)
    assert terrain.raycast_down(np.zeros((3, 0, 2))).hit.shape == (3, 0)
    assert terrain.raycast(np.zeros((0, 3)), np.zeros((0, 3))).distance.shape == (0,)
    one = terrain.raycast_down([5.0, 0.0])
    assert one.hit.shape == () and bool(one.hit)
    batch = terrain.raycast_down(np.full((2, 3, 2), [5.0, 0.0]))
    assert batch.point.shape == (2, 3, 3)
    np.testing.assert_array_equal(batch.height, np.full((2, 3), one.height))


@pytest.mark.parametrize("name", ["course", "ripples"])
def test_malformed_rays_name_the_query_argument_and_position(name: str) -> None:
    terrain = scene(name)
    xz = np.zeros((2, 3, 2))
    xz[1, 2, 0] = np.nan
    with pytest.raises(TerrainError, match=r"raycast_down: ray 5 .*NaN.*xz\[1, 2\]"):
        terrain.raycast_down(xz)
    with pytest.raises(TerrainError, match=r"height: ray 5 .*xz\[1, 2\]"):
        terrain.height(xz)
    origins = np.zeros((2, 2, 3))
    origins[0, 1, 2] = -np.inf
    with pytest.raises(TerrainError, match=r"raycast: ray 1 has infinite origin .*origins\[0, 1\]"):
        terrain.raycast(origins, [0.0, -1.0, 0.0])
    with pytest.raises(TerrainError, match=r"ray 0 has NaN origin .*\(origins\)"):
        terrain.raycast([np.nan, 0.0, 0.0], [0.0, -1.0, 0.0])
    with pytest.raises(TerrainError, match=r"NaN direction .*directions\[1\]"):
        terrain.raycast(np.zeros((2, 3)), [[0, -1.0, 0], [np.nan, 0, 0]])
    with pytest.raises(TerrainError, match=r"zero direction \(directions\[2\]\)"):
        terrain.raycast(np.zeros((3, 3)), [[0, -1.0, 0], [1, 0, 0], [0, 0, 0]])
    with pytest.raises(TerrainError, match=r"xz must have shape \(\.\.\., 2\).*\(4, 3\)"):
        terrain.raycast_down(np.zeros((4, 3)))
    with pytest.raises(TerrainError, match=r"xz must have shape.*\(\)"):
        terrain.raycast_down(1.0)
    with pytest.raises(TerrainError, match="origins must have shape"):
        terrain.raycast(np.zeros((4, 2)), np.zeros((4, 3)))
    with pytest.raises(TerrainError, match="do not broadcast"):
        terrain.raycast(np.zeros((4, 3)), np.ones((3, 3)))
    with pytest.raises(TerrainError, match="xz must be an array of numbers"):
        terrain.raycast_down([["a", "b"]])
    with pytest.raises(TerrainError, match="xz must be an array of numbers"):
        terrain.raycast_down([[1.0, 2.0], [3.0]])
    with pytest.raises(TerrainError, match="directions must be an array of numbers"):
        terrain.raycast(np.zeros(3), object())
    for bad in (-1.0, 0.0, np.nan, "far", None):
        with pytest.raises(TerrainError, match="max_distance must be a positive number"):
            terrain.raycast(np.zeros((1, 3)), [[0, -1.0, 0]], max_distance=bad)


def test_terrains_are_ray_sources() -> None:
    mesh, field = scene("course"), scene("ripples")
    level = LevelGround(0.25)
    lanes = LaneTerrain([mesh, field])
    for ground in (mesh, field, level, lanes):
        assert isinstance(ground, RaySource)
    for ground in (mesh, field, level):
        assert isinstance(ground, BoundedRaySource)
    assert not isinstance(lanes, BoundedRaySource)  # lanes cannot be placed on: no extent
    assert not isinstance(object(), RaySource)
    points = np.array([[1.0, 0.1], [40.0, 0.0]])
    for ground in (mesh, field):
        np.testing.assert_array_equal(ground.height(points), ground.raycast_down(points).height)
    np.testing.assert_array_equal(level.height(points), [0.25, 0.25])


def test_edge_slack_reaches_across_a_cell_border() -> None:
    # Ground y = 0 over [0, 4] × [0, 1] in 1 m cells; a high triangle whose left edge lies on
    # the border x = 2. A ray 1e-11 m left of that edge is within the edge slack: it hits the
    # high triangle although it reads the cell on the other side of the border.
    vertices = np.array([[0, 0, 0], [4, 0, 0], [0, 0, 1], [4, 0, 1],
                         [2, 1, 0], [3, 1, 0], [2, 1, 1]], float)
    faces = np.array([[0, 2, 1], [1, 2, 3], [4, 6, 5]])
    terrain = MeshTerrain(vertices, faces, cell_size=1.0)
    hits = terrain.raycast_down(np.array([[2.0 - 1e-11, 0.5], [2.0 - 1e-6, 0.5], [2.0, 0.5]]))
    np.testing.assert_array_equal(hits.height, [1.0, 0.0, 1.0])
    side = terrain.raycast(np.array([[2.0 - 1e-11, 2.0, 0.5]]), np.array([[0.0, -1.0, 0.0]]))
    np.testing.assert_allclose(side.point, [[2.0 - 1e-11, 1.0, 0.5]])


def test_walk_keeps_going_when_a_hit_lies_beyond_the_cell() -> None:
    # A slanted triangle listed in cell 1 is hit at x = 2.4 (in cell 2); a wall at x = 2.2,
    # listed only in cell 2, is nearer. The walk must not stop in cell 1 with the farther hit.
    ground = [[0, -1, -1], [4, -1, -1], [0, -1, 2], [4, -1, 2]]
    slanted = [[1.4, -1, 1.5], [3.4, -1, -0.5], [2.4, 3, 0.5]]
    wall = [[2.2, -1, -1], [2.2, 3, -1], [2.2, -1, 3]]
    vertices = np.array(ground + slanted + wall, float)
    faces = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [7, 8, 9]])
    terrain = MeshTerrain(vertices, faces, cell_size=1.0)
    hits = terrain.raycast(np.array([[0.5, 0.5, 0.5]]), np.array([[1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(hits.point, [[2.2, 0.5, 0.5]])
    np.testing.assert_allclose(hits.distance, [1.7])
    without_wall = MeshTerrain(vertices, faces[:3], cell_size=1.0)
    far = without_wall.raycast(np.array([[0.5, 0.5, 0.5]]), np.array([[1.0, 0.0, 0.0]]))
    np.testing.assert_allclose(far.point, [[2.4, 0.5, 0.5]])
