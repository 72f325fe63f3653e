"""Reference joint positions of FBX files from Blender's own FBX importer (independent of ufbx).

Run with Debian's Blender 3.4 (``apt-get install blender``) from the repository root:

    blender -b --factory-startup -P tests/data/fbx/blender_positions.py -- \
        tests/data/fbx/blender_positions.json tests/data/fbx/*.fbx

For each file: a fresh scene, ``import_scene.fbx`` with its defaults (unit scale applied, the
file's axes converted to Blender's Z up), then the world position of every bone's head (the
FBX node's position) at up to six frames spread over the take, chosen among the frames where
every animation curve that changes has a key (between keys Blender interpolates its own way, not the
file's). Positions are written in footfall's convention: metres, Y up, (x, y, z) = Blender's
(x, z, −y). A frame's time is (frame − 1) / fps: Blender's importer puts FBX time t at frame
t · fps + 1 (its ``anim_offset``). A take without animation curves (the HumanIK file's) is
recorded once with time ``null``: the pose holds at every frame.
"""

import json
import sys
from pathlib import Path

import bpy

FRAMES_PER_FILE = 6


def key_frames(armature):
    """Frames (integers) where every fcurve of the armature's action has a key (a curve that
    holds one value throughout is the same everywhere and is left out)."""
    action = armature.animation_data.action if armature.animation_data else None
    if action is None or not action.fcurves:
        return []
    common = None
    for curve in action.fcurves:
        values = [point.co[1] for point in curve.keyframe_points]
        if len(values) == 0 or max(values) - min(values) < 1e-9:
            continue
        frames = {round(point.co[0], 6) for point in curve.keyframe_points}
        common = frames if common is None else common & frames
    return sorted(f for f in common if abs(f - round(f)) < 1e-6)


def positions(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=str(path))
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    armatures = [o for o in scene.objects if o.type == "ARMATURE"]
    frames = sorted({f for a in armatures for f in key_frames(a)})
    if not frames:  # a take without curves: the file's one pose, at any time
        frames = [None]
    if len(frames) > FRAMES_PER_FILE:
        step = (len(frames) - 1) / (FRAMES_PER_FILE - 1)
        frames = [frames[round(k * step)] for k in range(FRAMES_PER_FILE)]
    out = []
    for frame in frames:
        scene.frame_set(1 if frame is None else int(round(frame)))
        joints = {}
        for armature in armatures:
            for bone in armature.pose.bones:
                head = armature.matrix_world @ bone.head
                joints[bone.name] = [head.x, head.z, -head.y]
        out.append({"frame": None if frame is None else int(round(frame)),
                    "time": None if frame is None else (frame - 1.0) / fps, "joints": joints})
    return {"file": Path(path).name, "fps": fps, "blender": bpy.app.version_string,
            "frames": out}


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    target, files = Path(args[0]), args[1:]
    result = [positions(Path(f)) for f in files]
    target.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {target}: {[(r['file'], len(r['frames'])) for r in result]}")


main()
