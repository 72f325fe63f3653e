"""Terrain from files: triangle meshes (OBJ/PLY/GLB/STL… via trimesh) and greyscale heightmaps
(PNG/JPEG… via Pillow).

Every fault of either library becomes one :class:`TerrainError` naming the file, their warnings
are silenced (what they warn about is checked here), and sizes are limited explicitly.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from footfall.errors import TerrainError
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.mesh import MAX_COORDINATE, MeshTerrain

#: Most pixels a heightmap may have (a 69-byte PNG can declare 100,000 × 100,000).
MAX_HEIGHTMAP_PIXELS = 25_000_000
#: Most triangles a mesh file may hold.
MAX_MESH_FACES = 20_000_000


@contextmanager
def _quiet() -> Iterator[None]:
    """Library warnings and log lines off while a file is read (their faults are checked)."""
    logger = logging.getLogger("trimesh")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def load_mesh(path: str | Path, *, cell_size: float | None = None) -> MeshTerrain:
    """Load a mesh file (metres, Y up) as a :class:`MeshTerrain` (scenes flattened to one mesh);
    TerrainError naming the file when it is missing, unreadable or holds no triangles."""
    import trimesh

    path = Path(path)
    if not path.is_file():
        raise TerrainError(f"{path}: mesh file not found")
    if path.stat().st_size == 0:
        raise TerrainError(f"{path}: mesh file is empty")
    try:
        with _quiet():
            loaded = trimesh.load(str(path), force="mesh", process=False)
            vertices = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))),
                                  dtype=np.float64)
            faces = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))))
    except Exception as error:  # trimesh raises many types for corrupt files
        message = str(error).splitlines()[0][:200] if str(error) else ""
        raise TerrainError(f"{path}: cannot read mesh ({type(error).__name__}: {message})"
                           ) from None
    if vertices.ndim != 2 or len(vertices) == 0 or faces.ndim != 2 or len(faces) == 0:
        raise TerrainError(f"{path}: mesh file holds no triangles")
    if len(faces) > MAX_MESH_FACES:
        raise TerrainError(f"{path}: {len(faces):,} triangles; more than {MAX_MESH_FACES:,} "
                           "is refused")
    far = ~(np.abs(vertices) <= MAX_COORDINATE).all(axis=1)  # NaN counts as far
    if far.any():
        index = int(np.flatnonzero(far)[0])
        raise TerrainError(f"{path}: vertex {index} {vertices[index].tolist()} is not finite "
                           f"or beyond ±{MAX_COORDINATE:g} m")
    colors = None
    visual = getattr(loaded, "visual", None)
    if visual is not None and getattr(visual, "kind", None) == "vertex":
        rgba = np.asarray(visual.vertex_colors)
        if rgba.shape == (len(vertices), 4):
            colors = rgba[:, :3] / 255.0
    try:
        return MeshTerrain(
            vertices,
            faces.astype(np.int64),
            name=path.stem,
            params={"path": str(path)},
            vertex_colors=colors,
            cell_size=cell_size,
        )
    except TerrainError as error:
        reason = str(error).removeprefix(f"{path.stem}: ")
        raise TerrainError(f"{path}: {reason}") from None


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
    origin = np.asarray(origin_xz, dtype=np.float64)
    if size.shape != (2,) or not ((size > 0).all() and (size <= MAX_COORDINATE).all()):
        raise TerrainError(f"{path}: size_xz must be two positive metres up to "
                           f"{MAX_COORDINATE:g}; got {size_xz}")
    if not (abs(low) <= MAX_COORDINATE and abs(high) <= MAX_COORDINATE):
        raise TerrainError(f"{path}: height_range must be finite metres within "
                           f"±{MAX_COORDINATE:g}; got {height_range}")
    if origin.shape != (2,) or not (np.abs(origin) <= MAX_COORDINATE).all():
        raise TerrainError(f"{path}: origin_xz must be two metres within ±{MAX_COORDINATE:g}; "
                           f"got {origin_xz}")
    if not path.is_file():
        raise TerrainError(f"{path}: heightmap image not found")
    try:
        with _quiet(), Image.open(path) as image:
            width, height = image.size
            if width * height > MAX_HEIGHTMAP_PIXELS:
                raise TerrainError(
                    f"{path}: heightmap declares {width:,} × {height:,} pixels; more than "
                    f"{MAX_HEIGHTMAP_PIXELS:,} is refused")
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
    except TerrainError:
        raise
    except Image.DecompressionBombError:  # Pillow refuses to open it at all (> 179 M pixels)
        raise TerrainError(f"{path}: heightmap declares far more than "
                           f"{MAX_HEIGHTMAP_PIXELS:,} pixels; refused") from None
    except UnidentifiedImageError:
        raise TerrainError(f"{path}: cannot read heightmap image (not an image Pillow "
                           "knows)") from None
    except Exception as error:  # Pillow raises OSError, SyntaxError, EOFError, zlib.error…
        message = str(error).splitlines()[0][:200] if str(error) else ""
        raise TerrainError(f"{path}: cannot read heightmap image ({type(error).__name__}: "
                           f"{message})") from None
    if not np.isfinite(pixels).all():
        raise TerrainError(f"{path}: heightmap holds NaN or infinite pixels")
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
