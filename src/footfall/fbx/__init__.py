"""FBX files as motion sources and retarget targets, read with ufbx.

:func:`load_fbx` gives a take as a :class:`~footfall.skeleton.Clip` (metres, Y up; pre/post
rotations, pivots, the file's unit and axes honoured), :func:`list_takes` / :func:`fbx_info`
what the file holds, :func:`load_fbx_avatar` a skinned FBX character as the
:class:`~footfall.gltf.Avatar` a retarget writes onto (its sole measured from its skin, as a
GLB's). ufbx (by Samuli Raivio, MIT or Unlicense; the ``ufbx`` package on PyPI) does the
parsing in a child process (:mod:`.isolate`, :mod:`.worker`): a file that crashes the native
library gives an :class:`~footfall.errors.FBXError`, never a dead process. footfall writes no
FBX: glTF/GLB and VRMA are the exchange formats out.
"""

from footfall.errors import FBXError
from footfall.fbx.avatar import load_fbx_avatar
from footfall.fbx.clip import FBXInfo, fbx_info, list_takes, load_fbx

#: Suffix of the files this package reads.
FBX_SUFFIX = ".fbx"

__all__ = ["FBX_SUFFIX", "FBXError", "FBXInfo", "fbx_info", "list_takes", "load_fbx",
           "load_fbx_avatar"]
