"""glTF/GLB avatars: read the skeleton and rest pose, write an animation back, read one again.

``load_avatar(path)`` returns an :class:`Avatar`: a skin's joints as a :class:`Skeleton` in
world metres, Y up, everything above the skeleton root (a Z-up armature node, a ×100 armature
scale) folded into the root, uniform node scales into the offsets, and the rest pose as local
rotations (glTF bind poses are rarely identity). ``save_animation(avatar, clip, path)`` writes
the original file with its animations replaced by one sampling every joint, converted back
through the same folded transforms; ``load_animation(path)`` samples an animation as a clip.
pygltflib does the container. Modules: :mod:`.document` (reading and checking the container),
:mod:`.nodes` (node transforms and hierarchy), :mod:`.avatar`, :mod:`.writer`, :mod:`.animation`.
"""

from footfall.errors import GLTFError
from footfall.gltf.animation import MAX_ANIMATION_SECONDS, MAX_SAMPLE_FPS, load_animation
from footfall.gltf.avatar import Avatar, PathArg, load_avatar
from footfall.gltf.document import MAX_NODES, accessor_values
from footfall.gltf.nodes import MAX_TRANSFORM_VALUE, node_matrix, world_matrices
from footfall.gltf.writer import save_animation

# The names these helpers had when footfall.gltf was one module (live/view.py and tests use them).
_accessor_values = accessor_values
_node_matrix = node_matrix
_world_matrices = world_matrices

__all__ = [
    "MAX_ANIMATION_SECONDS", "MAX_NODES", "MAX_SAMPLE_FPS", "MAX_TRANSFORM_VALUE", "Avatar",
    "GLTFError", "PathArg", "accessor_values", "load_animation", "load_avatar", "node_matrix",
    "save_animation", "world_matrices",
]
