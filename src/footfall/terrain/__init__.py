"""Terrain and rays: the ground feet stand on.

A :class:`Terrain` answers downward rays (``raycast_down(xz)``) and general rays (``raycast``)
with :class:`RayHits`: heightfields exactly, meshes through a grid of triangle lists.
``scene(name, **params)`` builds the built-in :data:`SCENES`; ``load_mesh`` and
``load_heightmap`` read files; :func:`from_spec` is the one door from a ``--terrain`` name to
any of them (and to :class:`LevelGround`). :class:`RaySource` is what the rest of footfall asks
of any ground (:class:`BoundedRaySource` adds ``bounds`` and ``focus_x`` for placing a clip).
:class:`LaneTerrain` sets terrains side by side.
"""

from footfall.terrain.base import BoundedRaySource, RaySource, Terrain
from footfall.terrain.files import load_heightmap, load_mesh
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.hits import STEEP_NORMAL_Y, RayHits
from footfall.terrain.lanes import LaneTerrain
from footfall.terrain.level import LevelGround
from footfall.terrain.mesh import MeshTerrain
from footfall.terrain.profiles import course_profile, stair_profile
from footfall.terrain.scenes import SCENES, scene
from footfall.terrain.spec import from_spec

__all__ = [
    "SCENES",
    "BoundedRaySource",
    "STEEP_NORMAL_Y",
    "HeightfieldTerrain",
    "LaneTerrain",
    "LevelGround",
    "MeshTerrain",
    "RayHits",
    "RaySource",
    "Terrain",
    "course_profile",
    "from_spec",
    "load_heightmap",
    "load_mesh",
    "scene",
    "stair_profile",
]
