"""Open BVH and glTF/GLB files in Blender and print what it imported (a manual check).

Run inside Blender, not in the project's venv::

    blender -b --factory-startup --python tools/blender_open_check.py -- out.bvh avatar.glb

Prints one ``BLENDER-CHECK`` line per file: the operator result, armatures, bone count and the
imported actions with their frame ranges. Debian 12's Blender 3.4 needs two shims, applied
below, that work around bugs of that package (not of the files): its BVH importer opens files
with mode "rU" (removed in Python 3.11) and its glTF importer uses ``numpy.bool`` (removed in
NumPy 1.24); the glTF importer also needs Debian's ``python3-numpy``.
"""

import builtins
import sys

import bpy  # provided by Blender
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

_open = builtins.open


def _open_without_universal_newlines(file, mode="r", *args, **kwargs):
    return _open(file, mode.replace("U", ""), *args, **kwargs)


builtins.open = _open_without_universal_newlines

for path in sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if path.lower().endswith(".bvh"):
        result = bpy.ops.import_anim.bvh(filepath=path)
    else:
        result = bpy.ops.import_scene.gltf(filepath=path)
    armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    bones = sum(len(a.data.bones) for a in armatures)
    actions = [(a.name, tuple(round(v) for v in a.frame_range)) for a in bpy.data.actions]
    print(f"BLENDER-CHECK {path}: {result} armatures={len(armatures)} bones={bones} "
          f"actions={actions}")
