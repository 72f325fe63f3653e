"""Terrain and rays: the ground feet stand on.

A :class:`Terrain` answers downward rays (``raycast_down(xz)``) and general rays (``raycast``)
with :class:`RayHits`: heightfields exactly, meshes through a grid of triangle lists.
``scene(name, **params)`` builds the built-in :data:`SCENES`; ``load_mesh`` and
``load_heightmap`` read files. :class:`RaySource` is what the rest of footfall asks of any
ground (:class:`BoundedRaySource` adds ``bounds``).
"""

from footfall.terrain.base import BoundedRaySource, RaySource, Terrain
from footfall.terrain.files import load_heightmap, load_mesh
from footfall.terrain.heightfield import HeightfieldTerrain
from footfall.terrain.hits import STEEP_NORMAL_Y, RayHits
from footfall.terrain.mesh import MeshTerrain
from footfall.terrain.profiles import course_profile, stair_profile
from footfall.terrain.scenes import SCENES, scene

__all__ = [
    "SCENES",
    "BoundedRaySource",
    "STEEP_NORMAL_Y",
    "HeightfieldTerrain",
    "MeshTerrain",
    "RayHits",
    "RaySource",
    "Terrain",
    "course_profile",
    "load_heightmap",
    "load_mesh",
    "scene",
    "stair_profile",
]
