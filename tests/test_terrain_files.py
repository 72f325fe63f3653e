"""Terrain from files: heightmap images and OBJ/PLY/GLB meshes, and clear errors for bad files."""

from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image

from footfall.errors import TerrainError
from footfall.terrain import HeightfieldTerrain, MeshTerrain, load_heightmap, load_mesh, scene


def test_heightmap_png_gives_bilinear_heights(tmp_path: Path) -> None:
    pixels = np.array([[0, 255, 0], [51, 102, 204]], dtype=np.uint8)  # rows along +z
    path = tmp_path / "map.png"
    Image.fromarray(pixels, mode="L").save(path)
    terrain = load_heightmap(
        path, size_xz=(4.0, 2.0), height_range=(-0.5, 0.5), origin_xz=(1.0, -1.0)
    )
    assert isinstance(terrain, HeightfieldTerrain)
    assert terrain.bounds == ((1.0, -1.0), (5.0, 1.0))
    expected = -0.5 + pixels / 255.0
    # Pixel centres are the samples: columns at x = 1, 3, 5; rows at z = −1, 1.
    corners = np.array([[1.0, -1.0], [3.0, -1.0], [5.0, -1.0], [1.0, 1.0], [3.0, 1.0], [5.0, 1.0]])
    hits = terrain.raycast_down(corners)
    np.testing.assert_allclose(hits.height, expected.ravel(), atol=1e-12)
    # Halfway between samples: the mean of the four neighbours.
    middle = terrain.height(np.array([[2.0, 0.0]]))
    np.testing.assert_allclose(middle, expected[:, :2].mean(), atol=1e-12)
    # Normal from the bilinear gradient: along x on the first row between 1 and 3 rises 1 m / 2 m.
    normal = terrain.raycast_down(np.array([[2.0, -1.0]])).normal[0]
    slope = -normal[0] / normal[1]
    np.testing.assert_allclose(slope, 0.5, atol=1e-12)
    assert np.isnan(terrain.height(np.array([[0.9, 0.0]])))[0]


def test_heightmap_16_bit(tmp_path: Path) -> None:
    pixels = np.array([[0, 65535], [32768, 16384]], dtype=np.uint16)
    path = tmp_path / "deep.png"
    Image.fromarray(pixels).save(path)
    terrain = load_heightmap(path, size_xz=(1.0, 1.0), height_range=(0.0, 2.0))
    heights = terrain.height(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    np.testing.assert_allclose(heights, 2.0 * pixels.ravel() / 65535.0, atol=1e-12)


def stairs_mesh() -> trimesh.Trimesh:
    terrain = scene("stairs", length=8.0, width=2.0, z_segments=2)
    return trimesh.Trimesh(terrain.vertices, terrain.faces, process=False)


@pytest.mark.parametrize("suffix", ["obj", "ply", "glb", "stl"])
def test_mesh_files_load_and_answer_rays(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"stairs.{suffix}"
    stairs_mesh().export(path)
    terrain = load_mesh(path)
    assert isinstance(terrain, MeshTerrain)
    assert terrain.name == "stairs"
    xz = np.array([[0.0, 0.0], [1.15, 0.5], [2.5, -0.9], [4.5, 0.0], [5.0, 0.99]])
    hits = terrain.raycast_down(xz)
    assert hits.hit.all()
    np.testing.assert_allclose(hits.height, [0.0, 0.15, 0.75, 0.15, 0.0], atol=1e-6)
    np.testing.assert_allclose(hits.normal[:, 1], 1.0, atol=1e-9)
    colors = terrain.vertex_colors  # files without colours get the pastel ground palette
    assert colors is not None and colors.shape == terrain.vertices.shape
    assert 0.0 <= colors.min() and colors.max() <= 1.0 and np.ptp(colors, axis=0).max() > 0.05
    riser = terrain.raycast(np.array([[0.0, 0.1, 0.0]]), np.array([[1.0, 0.0, 0.0]]))
    assert riser.steep[0]
    np.testing.assert_allclose(riser.point[0, 0], 1.0, atol=1e-6)


def test_mesh_vertex_colours_survive_ply(tmp_path: Path) -> None:
    mesh = stairs_mesh()
    mesh.visual.vertex_colors = np.tile([255, 0, 0, 255], (len(mesh.vertices), 1))
    path = tmp_path / "red.ply"
    mesh.export(path)
    terrain = load_mesh(path)
    assert terrain.vertex_colors is not None
    np.testing.assert_allclose(terrain.vertex_colors[0], [1.0, 0.0, 0.0])


@pytest.mark.parametrize("suffix", ["obj", "ply", "glb", "stl"])
def test_malformed_mesh_files_raise_terrain_error_naming_the_file(
    tmp_path: Path, suffix: str
) -> None:
    garbage = tmp_path / f"garbage.{suffix}"
    garbage.write_bytes(b"\x00\xffthis is not a mesh\x13\x37" * 7)
    with pytest.raises(TerrainError, match="garbage"):
        load_mesh(garbage)
    empty = tmp_path / f"empty.{suffix}"
    empty.write_bytes(b"")
    with pytest.raises(TerrainError, match="empty"):
        load_mesh(empty)


def test_missing_and_faceless_files(tmp_path: Path) -> None:
    with pytest.raises(TerrainError, match="nowhere.obj.*not found"):
        load_mesh(tmp_path / "nowhere.obj")
    points = tmp_path / "points.obj"
    points.write_text("v 0 0 0\nv 1 0 0\nv 0 0 1\n")
    with pytest.raises(TerrainError, match="points.obj"):
        load_mesh(points)
    unknown = tmp_path / "mesh.xyz123"
    unknown.write_text("v 0 0 0\n")
    with pytest.raises(TerrainError, match="mesh.xyz123"):
        load_mesh(unknown)


def test_malformed_heightmaps(tmp_path: Path) -> None:
    with pytest.raises(TerrainError, match="nowhere.png.*not found"):
        load_heightmap(tmp_path / "nowhere.png", (1.0, 1.0), (0.0, 1.0))
    garbage = tmp_path / "garbage.png"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n garbage garbage")
    with pytest.raises(TerrainError, match="garbage.png"):
        load_heightmap(garbage, (1.0, 1.0), (0.0, 1.0))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(TerrainError, match="empty.png"):
        load_heightmap(empty, (1.0, 1.0), (0.0, 1.0))
    tiny = tmp_path / "tiny.png"
    Image.fromarray(np.zeros((1, 5), np.uint8)).save(tiny)
    with pytest.raises(TerrainError, match="tiny.png.*2×2"):
        load_heightmap(tiny, (1.0, 1.0), (0.0, 1.0))
    good = tmp_path / "good.png"
    Image.fromarray(np.zeros((3, 3), np.uint8)).save(good)
    with pytest.raises(TerrainError, match="size_xz"):
        load_heightmap(good, (0.0, 1.0), (0.0, 1.0))
    with pytest.raises(TerrainError, match="height_range"):
        load_heightmap(good, (1.0, 1.0), (0.0, np.nan))
