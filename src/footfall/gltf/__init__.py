"""glTF/GLB and VRM avatars: read the skeleton and rest pose, write an animation back, read one
again, and VRM Animation files.

``load_avatar(path)`` returns an :class:`Avatar`: a skin's joints (or, for a VRM file, its
humanoid's bones) as a :class:`Skeleton` in world metres, Y up, facing +Z, everything above the
skeleton root (a Z-up armature node, a ×100 armature scale, VRM 0.x's −Z facing) folded into the
root, uniform node scales into the offsets, and the rest pose as local rotations (glTF bind
poses are rarely identity). ``save_animation(avatar, clip, path)`` writes the original file
with its animations replaced by one sampling every joint, converted back through the same
folded transforms; ``load_animation(path)`` samples an animation as a clip;
``save_vrm_animation`` / ``load_vrm_animation`` write and read .vrma files. pygltflib does the
container. Modules: :mod:`.document` (reading and checking the container), :mod:`.nodes` (node
transforms and hierarchy), :mod:`.avatar`, :mod:`.writer`, :mod:`.animation`, :mod:`.vrm` (the
VRM extension: bone map and meta), :mod:`.normalized` (VRM's normalized humanoid pose),
:mod:`.vrma` (VRM Animation), :mod:`.files` (which suffix is what).
"""

from footfall.errors import GLTFError
from footfall.gltf.animation import MAX_ANIMATION_SECONDS, MAX_SAMPLE_FPS, load_animation
from footfall.gltf.avatar import Avatar, PathArg, load_avatar
from footfall.gltf.document import MAX_NODES, accessor_values
from footfall.gltf.files import (
    AVATAR_SUFFIXES,
    MOTION_SUFFIXES,
    check_motion_output,
    is_avatar_file,
    save_motion,
)
from footfall.gltf.nodes import MAX_TRANSFORM_VALUE, node_matrix, world_matrices
from footfall.gltf.normalized import NormalizedHumanoid
from footfall.gltf.vrm import VrmInfo
from footfall.gltf.vrma import load_vrm_animation, save_vrm_animation
from footfall.gltf.writer import save_animation

# The names these helpers had when footfall.gltf was one module (live/view.py and tests use them).
_accessor_values = accessor_values
_node_matrix = node_matrix
_world_matrices = world_matrices

__all__ = [
    "AVATAR_SUFFIXES", "MAX_ANIMATION_SECONDS", "MAX_NODES", "MAX_SAMPLE_FPS",
    "MAX_TRANSFORM_VALUE", "MOTION_SUFFIXES", "Avatar", "GLTFError", "NormalizedHumanoid",
    "PathArg", "VrmInfo", "accessor_values", "check_motion_output", "is_avatar_file",
    "load_animation", "load_avatar", "load_vrm_animation", "node_matrix", "save_animation",
    "save_motion", "save_vrm_animation", "world_matrices",
]
