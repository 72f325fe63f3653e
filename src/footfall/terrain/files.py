"""Terrain from files: triangle meshes (OBJ/PLY/GLB/STL… via trimesh) and greyscale heightmaps
(PNG/JPEG… via Pillow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.mesh import MeshTerrain


def load_mesh(path: str | Path, *, cell_size: float | None = None) -> MeshTerrain:
    """Load a mesh file (metres, Y up) as a :class:`MeshTerrain` (scenes flattened to one mesh).

    Raises TerrainError naming the file when it is missing, unreadable or holds no triangles.
    """
    import trimesh

    path = Path(path)
    if not path.is_file():
        raise TerrainError(f"{path}: mesh file not found")
    if path.stat().st_size == 0:
        raise TerrainError(f"{path}: mesh file is empty")
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as error:  # trimesh raises many types for corrupt files
        raise TerrainError(f"{path}: cannot read mesh ({type(error).__name__}: {error})") from error
    vertices = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=np.float64)
    faces = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))))
    if vertices.ndim != 2 or len(vertices) == 0 or faces.ndim != 2 or len(faces) == 0:
        raise TerrainError(f"{path}: mesh file holds no triangles")
    colors = None
    visual = getattr(loaded, "visual", None)
    if getattr(visual, "kind", None) == "vertex":
        rgba = np.asarray(visual.vertex_colors)
        if rgba.shape == (len(vertices), 4):
            colors = rgba[:, :3] / 255.0
    return MeshTerrain(
        vertices,
        faces.astype(np.int64),
        name=path.stem,
        params={"path": str(path)},
        vertex_colors=colors,
        cell_size=cell_size,
    )


def load_heightmap(
    path: str | Path,
    size_xz: tuple[float, float],
    height_range: tuple[float, float],
    *,
    origin_xz: tuple[float, float] = (0.0, 0.0),
) -> HeightfieldTerrain:
    """A greyscale image as a bilinear :class:`HeightfieldTerrain`.

    size_xz: (size_x, size_z) metres the image covers; origin_xz: world (x_min, z_min) of its
    first pixel; height_range: (y of black, y of white) metres. Image columns run along +x and
    rows (top to bottom) along +z; pixel centres are the grid samples. 8- and 16-bit greyscale
    and colour images (converted to luminance) are accepted.
    """
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    size = np.asarray(size_xz, dtype=np.float64)
    low, high = (float(v) for v in height_range)
    if size.shape != (2,) or not (np.isfinite(size).all() and (size > 0).all()):
        raise TerrainError(f"{path}: size_xz must be two positive metres; got {size_xz}")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise TerrainError(f"{path}: height_range must be finite; got {height_range}")
    if not path.is_file():
        raise TerrainError(f"{path}: heightmap image not found")
    try:
        with Image.open(path) as image:
            image.load()
            if image.mode in ("I;16", "I;16B", "I;16L", "I"):
                pixels = np.asarray(image, dtype=np.float64)
                peak = 65535.0 if image.mode.startswith("I;16") or pixels.max() > 255 else 255.0
            elif image.mode == "F":
                pixels = np.asarray(image, dtype=np.float64)
                peak = max(float(pixels.max()), 1e-12)
            else:
                pixels = np.asarray(image.convert("L"), dtype=np.float64)
                peak = 255.0
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise TerrainError(f"{path}: cannot read heightmap image ({error})") from error
    if pixels.ndim != 2 or min(pixels.shape) < 2:
        raise TerrainError(f"{path}: heightmap must be at least 2×2 pixels; got {pixels.shape}")
    heights = low + (high - low) * (pixels / peak)
    x_min, z_min = (float(v) for v in origin_xz)
    bounds = ((x_min, z_min), (x_min + size[0], z_min + size[1]))
    return HeightfieldTerrain.from_grid(
        heights,
        bounds,
        name=path.stem,
        params={
            "path": str(path),
            "size_xz": size.tolist(),
            "height_range": [low, high],
            "origin_xz": [x_min, z_min],
            "pixels": list(pixels.shape),
        },
    )
