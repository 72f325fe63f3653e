"""The child process that reads an FBX file with ufbx and hands back plain arrays.

Run as ``python -m footfall.fbx.worker MODE FILE OUT [TAKE]`` (MODE ``takes``,
``clip`` or ``avatar``) writes ``OUT`` (an ``.npz`` without pickles) or prints one line to
stderr and exits 3. The ufbx binding can crash the interpreter (a use-after-free in its object
cache, see :mod:`footfall.fbx.scene_graph`), so :mod:`footfall.fbx.isolate` runs this module in
a child process and turns a crash into an :class:`~footfall.errors.FBXError`. The child starts
fast: ``footfall.fbx`` loads its modules lazily, and numpy (with :mod:`footfall.fbx.sampling`)
is imported only once ufbx has parsed the file — most damaged files are refused before.

What comes back, in footfall's space (metres, Y up, +Z front, as ufbx converts the file's unit
and axes into the root node's transform):

- every mode: ``takes`` (names), ``take_ranges (T, 2)`` seconds, ``fps``, ``unit`` (the file's
  metres per unit), ``up`` (the file's up axis, e.g. ``+Y``), ``version``;
- ``clip`` / ``avatar``: the skeleton ``names (J,)``, ``parents (J,)``, ``rest (J, 4, 4)`` world
  matrices of the rest pose (the bind pose where skinned, else the file's static pose);
- ``clip``: ``times (F,)`` and ``world (F, J, 4, 4)`` per frame of the take;
- ``avatar``: the skinned meshes as ``vertices (V, 3)`` world at bind, ``triangles (T, 3)``,
  ``skin_joints (V, 4)`` skeleton joint indices and ``skin_weights (V, 4)``.
"""

from __future__ import annotations

import os
import resource
import sys
from typing import Any

import ufbx

from footfall.fbx.child_state import Refused, held

#: Address-space limit of the child, bytes: a hostile file fails with "out of memory" here
#: instead of taking the machine's memory.
MEMORY_LIMIT = 8 << 30
#: Deepest node hierarchy read (a humanoid with fingers is about 15 deep): walking up from
#: every node stays cheap, and a hostile file's endless chain is refused by ufbx.
MAX_NODE_DEPTH = 1024


def load(path: str) -> Any:
    """The scene of ``path`` in footfall's space, or :class:`Refused` naming ufbx's error."""
    axes = ufbx.CoordinateAxes(ufbx.CoordinateAxis.POSITIVE_X, ufbx.CoordinateAxis.POSITIVE_Y,
                               ufbx.CoordinateAxis.POSITIVE_Z)
    try:
        scene = ufbx.load_file(path, target_axes=axes, target_unit_meters=1.0,
                               space_conversion=ufbx.SpaceConversion.TRANSFORM_ROOT,
                               ignore_embedded=True, load_external_files=False,
                               node_depth_limit=MAX_NODE_DEPTH)
    except ufbx.UfbxError as error:
        raise Refused(ufbx_message(error)) from None
    return held(scene)


def ufbx_message(error: Exception) -> str:
    """One line for ufbx's error."""
    text = " ".join(str(error).split()) or type(error).__name__
    return f"not a readable FBX file (ufbx: {text})"


def main(argv: list[str]) -> int:
    """Entry point of the child: 0 and the .npz written, or 3 and one line on stderr."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    mode, path, out = argv[1], argv[2], argv[3]
    take = argv[4] if len(argv) > 4 else ""
    try:
        scene = load(path)
        from footfall.fbx.sampling import run_scene

        run_scene(scene, mode, out, take)
    except Refused as refusal:
        print(refusal, file=sys.stderr)
        return 3
    except MemoryError:
        print("out of memory reading it", file=sys.stderr)
        return 3
    except ufbx.UfbxError as error:
        print(ufbx_message(error), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # The binding can crash while the interpreter frees its wrappers at exit: leave at once.
    os._exit(code)
