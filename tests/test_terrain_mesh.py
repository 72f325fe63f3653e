"""The chunked mesh path answers exactly what a brute-force test of every triangle answers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footfall.errors import TerrainError
from footfall.terrain import MeshTerrain, scene
from footfall.terrain.heightfield import grid_faces


def brute_force(vertices, faces, origins, directions):
    """Nearest hit of each ray over ALL triangles, by solving o + t·d = v0 + u·e1 + v·e2 with
    Cramer's rule on the full (K, T) table. Returns t (K,) (inf: miss) and the triangle (K,)."""
    v0, v1, v2 = (vertices[faces[:, i]] for i in range(3))
    e1, e2 = v1 - v0, v2 - v0
    d = directions[:, None, :] / np.linalg.norm(directions, axis=1)[:, None, None]
    rhs = origins[:, None, :] - v0[None]
    columns = np.stack(np.broadcast_arrays(-d, e1[None], e2[None]), axis=-1)  # (K, T, 3, 3)
    det = np.linalg.det(columns)
    good = np.abs(det) > 1e-14
    safe = np.where(good[..., None, None], columns, np.eye(3))
    t, u, v = np.moveaxis(np.linalg.solve(safe, rhs[..., None])[..., 0], -1, 0)
    tol = 1e-9
    hit = good & (u >= -tol) & (v >= -tol) & (u + v <= 1 + tol) & (t >= 0)
    t = np.where(hit, t, np.inf)
    return t.min(axis=1), t.argmin(axis=1)


def rough_mesh(seed: int, nx: int = 13, nz: int = 7, walls: bool = True):
    """A bumpy grid mesh over [0, 6] × [−1.5, 1.5] with a vertical wall strip (a riser)."""
    rng = np.random.default_rng(seed)
    x, z = np.meshgrid(np.linspace(0, 6, nx), np.linspace(-1.5, 1.5, nz))
    y = rng.uniform(0, 0.3, x.shape)
    y[:, x[0] >= 3.0] += 0.4  # a step up at x = 3 between two columns: filled by a wall below
    vertices = np.stack([x.ravel(), y.ravel(), z.ravel()], 1)
    faces = grid_faces(nx, nz)
    if walls:
        base = len(vertices)
        wall = np.array([[2.75, 0.0, -1.5], [2.75, 0.8, -1.5], [2.75, 0.0, 1.5], [2.75, 0.8, 1.5]])
        vertices = np.vstack([vertices, wall])
        faces = np.vstack([faces, [[base, base + 1, base + 2], [base + 2, base + 1, base + 3]]])
    return vertices, faces


@pytest.mark.parametrize("cell_size", [None, 0.25, 0.5, 0.37, 10.0])
def test_downward_chunks_match_brute_force_including_cell_borders(cell_size) -> None:
    vertices, faces = rough_mesh(3)
    terrain = MeshTerrain(vertices, faces, cell_size=cell_size)
    (x0, z0), (x1, z1) = terrain.bounds
    cx, cz = terrain.cell_size
    rng = np.random.default_rng(0)
    border_x = x0 + cx * np.arange(1, terrain.cell_count[0])
    border_z = z0 + cz * np.arange(1, terrain.cell_count[1])
    points = np.concatenate(
        [
            np.stack([rng.uniform(x0, x1, 400), rng.uniform(z0, z1, 400)], 1),
            np.stack(
                [
                    rng.choice(border_x, 100) if len(border_x) else rng.uniform(x0, x1, 100),
                    rng.uniform(z0, z1, 100),
                ],
                1,
            ),
            np.stack(
                [
                    rng.uniform(x0, x1, 100),
                    rng.choice(border_z, 100) if len(border_z) else rng.uniform(z0, z1, 100),
                ],
                1,
            ),
            vertices[:, [0, 2]],  # every vertex: several triangles meet there
        ]
    )
    hits = terrain.raycast_down(points)
    top = terrain.ray_start_height
    origins = np.column_stack([points[:, 0], np.full(len(points), top), points[:, 1]])
    t, _ = brute_force(vertices, faces, origins, np.tile([0.0, -1.0, 0.0], (len(points), 1)))
    assert np.isfinite(t).all() and hits.hit.all()
    np.testing.assert_allclose(hits.height, top - t, atol=1e-9)
    np.testing.assert_allclose(hits.distance, t, atol=1e-9)
    assert (hits.normal[:, 1] > 0).all()


@pytest.mark.parametrize("cell_size", [None, 0.3, 0.5])
def test_general_rays_walk_cells_like_brute_force(cell_size) -> None:
    vertices, faces = rough_mesh(5)
    terrain = MeshTerrain(vertices, faces, cell_size=cell_size)
    rng = np.random.default_rng(1)
    count = 300
    origins = np.column_stack(
        [rng.uniform(-1, 7, count), rng.uniform(0.0, 1.5, count), rng.uniform(-2, 2, count)]
    )
    directions = rng.normal(size=(count, 3))
    directions[: count // 3, 1] = -np.abs(directions[: count // 3, 1])  # many hit the ground
    directions[count // 3 : count // 2, 1] = 0.0  # horizontal rays: the wall and bump sides
    directions[count // 2 : count // 2 + 10] = [0.0, -1.0, 0.0]  # straight down
    hits = terrain.raycast(origins, directions)
    t, triangle = brute_force(vertices, faces, origins, directions)
    np.testing.assert_array_equal(hits.hit, np.isfinite(t))
    assert hits.hit.sum() > count // 4
    np.testing.assert_allclose(hits.distance[hits.hit], t[hits.hit], atol=1e-9)
    unit = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    expected_point = origins[hits.hit] + unit[hits.hit] * t[hits.hit, None]
    np.testing.assert_allclose(hits.point[hits.hit], expected_point, atol=1e-9)
    # Normal: the hit triangle's, turned against the ray.
    corners = vertices[faces[triangle[hits.hit]]]
    normal = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    normal *= -np.sign(np.einsum("ij,ij->i", normal, unit[hits.hit]))[:, None]
    np.testing.assert_allclose(hits.normal[hits.hit], normal, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    cell=st.floats(0.2, 2.0),
    max_distance=st.floats(0.05, 5.0),
)
def test_general_rays_property(seed: int, cell: float, max_distance: float) -> None:
    vertices, faces = rough_mesh(seed, nx=7, nz=5)
    terrain = MeshTerrain(vertices, faces, cell_size=cell)
    rng = np.random.default_rng(seed)
    origins = np.column_stack(
        [rng.uniform(-1, 7, 40), rng.uniform(-0.2, 1.2, 40), rng.uniform(-2, 2, 40)]
    )
    directions = rng.normal(size=(40, 3))
    hits = terrain.raycast(origins, directions, max_distance=max_distance)
    t, _ = brute_force(vertices, faces, origins, directions)
    t = np.where(t <= max_distance, t, np.inf)
    np.testing.assert_array_equal(hits.hit, np.isfinite(t))
    np.testing.assert_allclose(hits.distance[hits.hit], t[hits.hit], atol=1e-9)
    assert np.isinf(hits.distance[~hits.hit]).all()


def test_course_mesh_chunks_match_brute_force() -> None:
    terrain = scene("course", resolution=0.1, z_segments=3)
    rng = np.random.default_rng(7)
    points = np.column_stack([rng.uniform(-2, 30, 500), rng.uniform(-2, 2, 500)])
    top = terrain.ray_start_height
    origins = np.column_stack([points[:, 0], np.full(500, top), points[:, 1]])
    t, _ = brute_force(terrain.vertices, terrain.faces, origins, np.tile([0, -1.0, 0], (500, 1)))
    np.testing.assert_allclose(terrain.raycast_down(points).height, top - t, atol=1e-9)


def test_each_ray_tests_only_its_cell() -> None:
    terrain = scene("course", resolution=0.02, z_segments=8)
    assert len(terrain.faces) > 9_000
    # A ray tests one padded cell: a small fraction of the mesh.
    assert terrain.cell_capacity * 50 < len(terrain.faces)


def test_mesh_misses_and_outside_points() -> None:
    vertices, faces = rough_mesh(0, walls=False)
    terrain = MeshTerrain(vertices, faces)
    hits = terrain.raycast_down(np.array([[-0.5, 0.0], [3.0, 1.6], [6.01, 0.0]]))
    assert not hits.hit.any()
    assert np.isnan(hits.height).all() and np.isinf(hits.distance).all()
    np.testing.assert_array_equal(hits.normal, np.tile([0.0, 1.0, 0.0], (3, 1)))
    assert np.isnan(terrain.height(np.array([[7.0, 0.0]]))).all()
    up = terrain.raycast(np.array([[3.0, 2.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
    assert not up.hit[0]


def test_mesh_construction_errors_name_the_problem() -> None:
    vertices, faces = rough_mesh(0)
    with pytest.raises(TerrainError, match="face indices"):
        MeshTerrain(vertices, faces + len(vertices))
    with pytest.raises(TerrainError, match="shape"):
        MeshTerrain(vertices[:, :2], faces)
    with pytest.raises(TerrainError, match="T > 0"):
        MeshTerrain(vertices, np.zeros((0, 3), int))
    bad = vertices.copy()
    bad[4, 1] = np.nan
    with pytest.raises(TerrainError, match="vertex 4"):
        MeshTerrain(bad, faces)
    with pytest.raises(TerrainError, match="cell_size"):
        MeshTerrain(vertices, faces, cell_size=-1.0)
    with pytest.raises(TerrainError, match="vertex_colors"):
        MeshTerrain(vertices, faces, vertex_colors=np.zeros((3, 3)))
