"""The one front door from a name on the command line to a terrain (:func:`from_spec`): a
built-in scene, level ground, a greyscale heightmap image or a mesh file."""

from __future__ import annotations

from pathlib import Path

from footfall.errors import TerrainError
from footfall.terrain.base import BoundedRaySource
from footfall.terrain.files import load_heightmap, load_mesh
from footfall.terrain.level import LevelGround
from footfall.terrain.scenes import SCENES, scene

#: File suffixes read as heightmap images (anything else is read as a mesh).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".pgm", ".gif", ".webp")
#: The area a heightmap image covers when no size is given, metres (x, z), centred on 0.
IMAGE_SIZE = (20.0, 20.0)


def from_spec(text: str, size: tuple[float, float] | None = None,
              height_range: tuple[float, float] = (0.0, 1.0),
              level_height: float | None = None) -> BoundedRaySource:
    """The terrain ``text`` names (``--terrain``).

    - a built-in scene (:data:`SCENES`): ``size`` (length along x, width along z, metres) or
      its own default size;
    - ``"level"`` when ``level_height`` is given (metres): endless level ground at that height
      (:class:`LevelGround`, a clip's own floor);
    - an image file (:data:`IMAGE_SUFFIXES`): a heightmap covering ``size`` (default
      :data:`IMAGE_SIZE`) centred on the origin, black and white at ``height_range`` metres;
    - any other file: a mesh (:func:`load_mesh`).

    Raises :class:`TerrainError` naming ``text`` when it is none of those.
    """
    if text == LevelGround.name and level_height is not None:
        return LevelGround(level_height)
    if text in SCENES:
        return scene(text) if size is None else scene(text, length=size[0], width=size[1])
    path = Path(text)
    if not path.is_file():
        raise TerrainError(
            f"--terrain {text!r} is neither a scene ({', '.join(sorted(SCENES))}), "
            f"{LevelGround.name!r} nor a file"
        )
    if path.suffix.lower() in IMAGE_SUFFIXES:
        size = IMAGE_SIZE if size is None else size
        origin = (-size[0] / 2, -size[1] / 2)
        return load_heightmap(path, (size[0], size[1]), (height_range[0], height_range[1]),
                              origin_xz=origin)
    return load_mesh(path)
