"""Stairs are meshes with vertical risers: feet read treads, never risers."""

import numpy as np
import pytest

from footfall.terrain import MeshTerrain, scene


def expected_stair_height(x: np.ndarray, params: dict) -> np.ndarray:
    """Independent step function: +step_height past each up riser, −step_height past each down
    riser; at a riser's exact x the upper tread (the topmost surface) counts."""
    start, depth, steps = params["start"], params["tread_depth"], params["steps"]
    rise = params["step_height"]
    up = start + depth * np.arange(steps)
    down = up[-1] + params["landing"] + depth * np.arange(steps)
    level = (x[:, None] >= up - 1e-12).sum(1) - (x[:, None] > down + 1e-12).sum(1)
    return rise * level


@pytest.mark.parametrize("step_height", [0.05, 0.15, 0.25])
def test_downward_rays_read_treads_everywhere(step_height: float) -> None:
    terrain = scene("stairs", step_height=step_height)
    assert isinstance(terrain, MeshTerrain)
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-2, 30, 3000), terrain.params["riser_x"]])
    z = rng.uniform(-2, 2, len(x))
    hits = terrain.raycast_down(np.stack([x, z], 1))
    assert hits.hit.all()
    np.testing.assert_allclose(hits.height, expected_stair_height(x, terrain.params), atol=1e-9)
    np.testing.assert_allclose(hits.normal, np.tile([0.0, 1.0, 0.0], (len(x), 1)), atol=1e-12)
    assert not hits.steep.any()


def test_riser_exact_x_reports_upper_tread_consistently() -> None:
    # At a riser's x the ray grazes both treads' edges; the topmost (upper) one wins, up or down.
    terrain = scene("stairs", step_height=0.15, tread_depth=0.30, steps=5, landing=1.2, start=1.0)
    risers = np.asarray(terrain.params["riser_x"])
    for z in (-2.0, -0.37, 0.0, 1.5, 2.0):
        hits = terrain.raycast_down(np.stack([risers, np.full_like(risers, z)], 1))
        upper = np.concatenate([0.15 * np.arange(1, 6), 0.15 * np.arange(5, 0, -1)])
        np.testing.assert_allclose(hits.height, upper, atol=1e-12)
        assert (hits.normal[:, 1] == 1.0).all()


def test_horizontal_ray_into_riser_is_steep() -> None:
    terrain = scene("stairs", step_height=0.15)
    origins = np.array([[0.0, 0.07, 0.3], [6.0, 0.07, -0.5], [1.5, 0.4, 0.0]])
    directions = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    hits = terrain.raycast(origins, directions)
    assert hits.hit.all()
    np.testing.assert_allclose(hits.point[:, 0], [1.0, 4.6, 1.6], atol=1e-9)
    np.testing.assert_allclose(hits.distance, [1.0, 1.4, 0.1], atol=1e-9)
    assert hits.steep.all()
    assert (np.abs(hits.normal[:, 1]) < 0.5).all()
    # The normal faces back along the ray.
    assert (np.einsum("ij,ij->i", hits.normal, directions) < 0).all()


@pytest.mark.parametrize(("angle_deg", "steep"), [(30.0, False), (59.0, False), (61.0, True)])
def test_steep_is_normal_y_below_one_half(angle_deg: float, steep: bool) -> None:
    # A ramp mesh rising along x and the analytic slope: 60° is where normal.y crosses 0.5.
    rise = np.tan(np.radians(angle_deg))
    vertices = np.array([[0, 0, -1], [1, rise, -1], [0, 0, 1], [1, rise, 1]], dtype=float)
    ramp = MeshTerrain(vertices, np.array([[0, 1, 2], [2, 1, 3]]))
    slope = scene("slope", angle_deg=angle_deg, length=4.0)
    xz = np.array([[0.5, 0.0], [0.25, 0.5]])
    for terrain in (ramp, slope):
        hits = terrain.raycast_down(xz)
        assert hits.hit.all()
        np.testing.assert_allclose(hits.normal[:, 1], np.cos(np.radians(angle_deg)), atol=1e-9)
        np.testing.assert_array_equal(hits.steep, [steep, steep])


def test_course_risers_never_tilt_a_foot() -> None:
    terrain = scene("course", step_height=0.12)
    risers = np.asarray(terrain.params["riser_x"])
    x = np.concatenate([risers, risers - 1e-9, risers + 1e-9])
    hits = terrain.raycast_down(np.column_stack([x, np.linspace(-2, 2, len(x))]))
    np.testing.assert_allclose(hits.normal, np.tile([0.0, 1.0, 0.0], (len(x), 1)), atol=1e-12)
    assert not hits.steep.any()
