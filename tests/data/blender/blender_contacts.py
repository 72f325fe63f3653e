"""Run once in Blender 3.4 (Debian's ``blender``) to record what its glTF importer makes of
footfall's contact curves; the output is kept beside it as ``contacts_blender34.json`` so CI
needs no Blender:

    blender -b --factory-startup --python tests/data/blender/blender_contacts.py -- \
        tests/data/blender/contacts.glb tests/data/blender/contacts_blender34.json

Records the shape keys of the ``footfall_contacts`` object, the keyframes of their action
(``key_blocks["…"].value``, frame → seconds by the scene's frame rate), each curve evaluated at
every source frame, and the object's custom properties (from the node's extras).
"""

import json
import sys

import bpy  # type: ignore[import-not-found]
import numpy

# Debian's Blender 3.4 runs on Debian's NumPy 1.24, where the alias np.bool that the glTF
# importer's mesh code still uses is gone: every mesh import fails without it.
if not hasattr(numpy, "bool") or "bool" in getattr(numpy, "__former_attrs__", {}):
    numpy.bool = bool

source, target = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=source)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base
obj = bpy.data.objects["footfall_contacts"]
keys = obj.data.shape_keys
action = keys.animation_data.action
curves = {}
for fcurve in action.fcurves:
    name = fcurve.data_path.split('"')[1]
    points = [(p.co[0] / fps, p.co[1]) for p in fcurve.keyframe_points]
    curves[name] = {
        "data_path": fcurve.data_path,
        "interpolation": sorted({p.interpolation for p in fcurve.keyframe_points}),
        "times": [round(t, 6) for t, _ in points],
        "values": [round(v, 6) for _, v in points],
    }
# The curves as Blender plays them: evaluated at each key's time.
for curve in curves.values():
    fcurve = action.fcurves.find(curve["data_path"])
    curve["evaluated"] = [round(fcurve.evaluate(t * fps), 6) for t in curve["times"]]
properties = {}
for key in obj.keys():
    value = obj[key]
    properties[key] = value.to_list() if hasattr(value, "to_list") else value
out = {
    "blender": bpy.app.version_string,
    "importer": ".".join(str(v) for v in __import__("addon_utils").module_bl_info(
        __import__("io_scene_gltf2"))["version"]),
    "object": obj.name,
    "shape_keys": [block.name for block in keys.key_blocks],
    "action": action.name,
    "curves": curves,
    "custom_properties": properties,
}
with open(target, "w") as handle:
    json.dump(out, handle, indent=1)
print(f"wrote {target}")
