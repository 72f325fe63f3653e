"""Render a GLB/VRM output in Blender from the side and from the front, floor at y = 0.

Run by ``tools/retarget_renders.py`` (Blender 3.4, ``apt-get install blender``):
``blender -b -P tools/blender_views.py -- IN.glb OUT_PREFIX FPS [--bones J,J,…] [--action A]
FRAME …``
writes ``OUT_PREFIX_side_fNNN.png`` and ``OUT_PREFIX_front_fNNN.png`` (orthographic, workbench,
studio light, a green floor tile at y = 0 under the body, the camera 4° above the horizon so the
floor shows as a band) and prints the lowest and highest evaluated vertex of each frame.
FRAME counts the clip's frames (0 = its first key) at FPS. The method is the one of the shared
``blender_side.py`` (one importer, one floor, one camera per frame); the front camera is added.
``--bones`` and the skeleton's joint names: the file's meshes are hidden and its skeleton is
drawn as sticks from joint to joint (for a rig without a skinned body: the VRM samples'
meshes are gizmos and test quads).
``--action NAME``: the file's own animation NAME (a reference: the avatar as its author
animated it). A helper for looking at outputs, not part of footfall.
"""

import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool
import bpy  # noqa: E402
import mathutils  # noqa: E402

TILT = 0.07  # radians the camera looks down: the floor shows
FLOOR = 3.0  # metres: the side of the floor tile
VIEWS = {  # camera offset direction from the body's centre, Euler rotation (Blender is Z up)
    "side": ((1.0, 0.0), (1.5708 - TILT, 0.0, 1.5708)),  # from the avatar's left (+X)
    "front": ((0.0, -1.0), (1.5708 - TILT, 0.0, 0.0)),  # glTF +Z (its facing) is Blender −Y
}

args = sys.argv[sys.argv.index("--") + 1:]
names: list = []
if "--bones" in args:  # --bones NAME,NAME,…: the skeleton's joints
    at = args.index("--bones")
    names = args[at + 1].split(",")
    args = args[:at] + args[at + 2:]
bones = bool(names)
action = ""
if "--action" in args:  # --action NAME: play the file's own animation NAME instead
    at = args.index("--action")
    action = args[at + 1]
    args = args[:at] + args[at + 2:]
path, prefix, fps, frames = args[0], args[1], float(args[2]), [int(f) for f in args[3:]]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = max(1, round(fps))  # the importer places keys at time × the scene's rate
scene.render.fps_base = scene.render.fps / fps
bpy.ops.import_scene.gltf(filepath=path)
meshes = [o for o in scene.objects if o.type == "MESH"]
armatures = [o for o in scene.objects if o.type == "ARMATURE"]
if action:  # the importer names an animation's armature action NAME_ARMATURE
    for arm in armatures:
        arm.animation_data.action = bpy.data.actions.get(f"{action}_{arm.name}",
                                                         bpy.data.actions.get(action))
        action = arm.animation_data.action.name
if bones:
    for o in meshes:
        o.hide_render = True
    sticks = bpy.data.objects.new("sticks", bpy.data.meshes.new("sticks"))
    scene.collection.objects.link(sticks)
    meshes = [sticks]


def segments() -> list:
    """(head, tail) world points of every bone: parent joint → joint, and a leaf's own tail.
    A file without a skin has no armature (the importer makes its nodes empties): its joints
    are the objects named in ``names``, each joined to its parent."""
    out = []
    joints = {o.name: o for o in scene.objects if o.name in names}
    for o in joints.values():
        if o.parent is not None and o.parent.name in joints:
            out.append((o.parent.matrix_world.translation.copy(),
                        o.matrix_world.translation.copy()))
    for arm in armatures:
        for pb in arm.pose.bones:
            head = arm.matrix_world @ pb.head
            if pb.parent is not None:
                out.append((arm.matrix_world @ pb.parent.head, head))
            if not pb.children:
                out.append((head, arm.matrix_world @ pb.tail))
    return out


def stick_mesh(mesh, parts: list, radius: float) -> None:
    """Fill ``mesh`` with a square prism of ``radius`` along every (a, b) of ``parts``."""
    verts, faces = [], []
    for a, b in parts:
        d = b - a
        if d.length < 1e-6:
            continue
        u = d.orthogonal().normalized() * radius
        v = d.normalized().cross(u)
        base = len(verts)
        for end in (a, b):
            verts += [end + u, end + v, end - u, end - v]
        faces += [(base + i, base + (i + 1) % 4, base + 4 + (i + 1) % 4, base + 4 + i)
                  for i in range(4)]
        faces += [(base + 3, base + 2, base + 1, base), (base + 4, base + 5, base + 6, base + 7)]
    mesh.clear_geometry()
    mesh.from_pydata(verts, [], faces)
    mesh.update()


first = (bpy.data.actions[action].frame_range[0] if action else
         min((a.frame_range[0] for a in bpy.data.actions), default=0.0))
# A floor tile under the body (moved with it): seen 4° from above it is a band whose middle is
# y = 0 — soles on it stand in the band's middle, a floating foot above it, a sunk one below.
bpy.ops.mesh.primitive_plane_add(size=FLOOR, location=(0, 0, 0))  # glTF y = 0: Blender z = 0
floor = bpy.context.active_object
material = bpy.data.materials.new("floor")
material.diffuse_color = (0.25, 0.55, 0.3, 1.0)
floor.data.materials.append(material)
# Two thin dark bars on y = 0 through the body, one across each view: the floor's line.
bars = []
for _ in range(2):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0, 0, 0))
    bar = bpy.context.active_object
    dark = bpy.data.materials.new("line")
    dark.diffuse_color = (0.05, 0.1, 0.05, 1.0)
    bar.data.materials.append(dark)
    bars.append(bar)
scene.render.engine = "BLENDER_WORKBENCH"
scene.display.shading.light = "STUDIO"
scene.display.shading.color_type = "MATERIAL"
scene.render.resolution_x, scene.render.resolution_y = 600, 700
scene.world = scene.world or bpy.data.worlds.new("w")
scene.world.color = (0.8, 0.85, 0.9)
cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
scene.collection.objects.link(cam)
scene.camera = cam
cam.data.type = "ORTHO"
for f in frames:
    scene.frame_set(int(round(first)) + f)
    if bones:
        parts = segments()
        tall = max(p.z for seg in parts for p in seg) - min(p.z for seg in parts for p in seg)
        stick_mesh(meshes[0].data, parts, 0.012 * tall)
    dg = bpy.context.evaluated_depsgraph_get()
    pts = []
    for o in meshes:
        e = o.evaluated_get(dg)
        m = e.to_mesh()
        pts += [e.matrix_world @ v.co for v in m.vertices]
        e.to_mesh_clear()
    lo, hi = min(p.z for p in pts), max(p.z for p in pts)
    c = sum(pts, mathutils.Vector()) / len(pts)
    k = max(1.0, hi / 2.0)  # the tile: at least 1.5 times the body's height across
    for part in (floor, *bars):
        part.location = (c.x, c.y, 0.0)
    floor.scale = (k, k, 1.0)
    bars[0].scale = (0.01, FLOOR * k, 0.004)
    bars[1].scale = (FLOOR * k, 0.01, 0.004)
    cam.data.ortho_scale = max(2.0, (hi - min(0.0, lo)) * 1.3)
    for view, ((dx, dy), rotation) in VIEWS.items():
        cam.location = (c.x + 10 * dx, c.y + 10 * dy, (hi + min(0.0, lo)) / 2 + 10 * TILT)
        cam.rotation_euler = rotation
        scene.render.filepath = f"{prefix}_{view}_f{f:03d}.png"
        bpy.ops.render.render(write_still=True)
    print(f"frame {f}: lowest vertex {lo * 100:+.1f} cm, highest {hi * 100:.1f} cm")
