"""FBX files written by Blender 3.4's exporter from a shared file: other axes, units and lengths.

Run with Debian's Blender 3.4 from the repository root:

    blender -b --factory-startup -P tests/data/fbx/blender_export.py -- zup SOURCE.fbx OUT.fbx
    blender -b --factory-startup -P tests/data/fbx/blender_export.py -- long SOURCE.fbx OUT.fbx
    blender -b --factory-startup -P tests/data/fbx/blender_export.py -- glb SOURCE.fbx OUT.glb

``zup``: SOURCE's armature and take written Z up (``axis_forward="-Y"``) in metres
(``kenney_zup_metres.fbx`` in this folder; the test expects the same joint positions as SOURCE).
``long``: SOURCE's armature and mesh with its take played at 120 fps and repeated for 60 s,
every frame keyed (``benchmarks/bench_fbx.py`` makes it when Blender is there; about 10 MB,
kept out of git).
``glb``: SOURCE's skinned character as Blender imports it, written as GLB without animation
(``kenney_blender.glb``: the test expects footfall's FBX avatar to have its joints and mesh).
"""

import sys

import bpy


def main():
    mode, source, target = sys.argv[sys.argv.index("--") + 1:][:3]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=source)
    scene = bpy.context.scene
    armatures = [o for o in scene.objects if o.type == "ARMATURE"]
    if mode == "glb":
        bpy.ops.export_scene.gltf(filepath=target, export_format="GLB", export_animations=False)
        return
    if mode == "zup":
        first, last = armatures[0].animation_data.action.frame_range
        scene.frame_start, scene.frame_end = int(first), int(last)
        bpy.ops.export_scene.fbx(
            filepath=target, object_types={"ARMATURE"}, axis_up="Z", axis_forward="-Y",
            apply_unit_scale=True, apply_scale_options="FBX_SCALE_UNITS", add_leaf_bones=False,
            bake_anim=True, bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False,
            bake_anim_step=1.0, bake_anim_simplify_factor=0.0)
        return
    rate, seconds = 120, 60.0
    stretch = rate / (scene.render.fps / scene.render.fps_base)
    scene.render.fps, scene.render.fps_base = rate, 1.0
    for armature in armatures:
        action = armature.animation_data.action
        for curve in action.fcurves:
            for point in curve.keyframe_points:
                for handle in (point.co, point.handle_left, point.handle_right):
                    handle[0] = 1.0 + (handle[0] - 1.0) * stretch
            curve.modifiers.new("CYCLES")
    scene.frame_start, scene.frame_end = 1, int(rate * seconds)
    bpy.ops.export_scene.fbx(
        filepath=target, object_types={"ARMATURE", "MESH"}, add_leaf_bones=False,
        bake_anim=True, bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False,
        bake_anim_step=1.0, bake_anim_simplify_factor=0.0)


main()
