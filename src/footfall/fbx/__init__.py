"""FBX files as motion sources and retarget targets, read with ufbx.

:func:`load_fbx` gives a take as a :class:`~footfall.skeleton.Clip` (metres, Y up; pre/post
rotations, pivots, the file's unit and axes honoured; :func:`load_fbx_take` with the file's
takes, unit and up axis, for :func:`footfall.motion_io.load_motion`), :func:`list_takes` /
:func:`fbx_info`
what the file holds, :func:`load_fbx_avatar` a skinned FBX character as the
:class:`~footfall.gltf.Avatar` a retarget writes onto (its sole measured from its skin, as a
GLB's). ufbx (by Samuli Raivio, MIT or Unlicense; the ``ufbx`` package on PyPI) does the
parsing in a child process (:mod:`.isolate` runs :mod:`.worker`, which reads the scene graph
with :mod:`.scene_graph`): a file that crashes the native library gives an
:class:`~footfall.errors.FBXError`, never a dead process. Reading a clip: :mod:`.clip`; an
avatar: :mod:`.avatar`. footfall writes no FBX: glTF/GLB and VRMA are the exchange formats out.

The names below are loaded on first use, so that the child process, which imports
:mod:`.worker` from this package, does not load footfall's kinematics (and numba).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from footfall.errors import FBXError

if TYPE_CHECKING:
    from footfall.fbx.avatar import load_fbx_avatar
    from footfall.fbx.clip import FBXInfo, FBXTake, fbx_info, list_takes, load_fbx, load_fbx_take

#: Suffix of the files this package reads.
FBX_SUFFIX = ".fbx"

_LAZY = {"load_fbx_avatar": "footfall.fbx.avatar", "FBXInfo": "footfall.fbx.clip",
         "FBXTake": "footfall.fbx.clip", "fbx_info": "footfall.fbx.clip",
         "list_takes": "footfall.fbx.clip", "load_fbx": "footfall.fbx.clip",
         "load_fbx_take": "footfall.fbx.clip"}

__all__ = ["FBX_SUFFIX", "FBXError", "FBXInfo", "FBXTake", "fbx_info", "list_takes",
           "load_fbx", "load_fbx_avatar", "load_fbx_take"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'footfall.fbx' has no attribute {name!r}")
