"""Foot contact curves in the output file: ``contact_l`` / ``contact_r`` (0/1) and a smooth
weight per foot, as engines read them (Unreal's motion matching and pose search take
``contact_l``-style curves).

Where they go:

- **glTF/GLB/VRM** (:func:`add_to_gltf`): a node ``footfall_contacts`` holding a one-triangle
  mesh with four morph targets named ``contact_l``, ``contact_r``, ``weight_l``, ``weight_r``
  (``mesh.extras.targetNames``), whose ``weights`` are animated, one STEP key per frame, in the
  file's animation. That is the route that round-trips as an *animated* property: Blender 3.4's
  importer makes shape keys of them with an action on ``key_blocks["contact_l"].value``, and
  engines import morph-target weights as animation curves of the same name. glTF has no
  animated custom property (Blender 3.4 does not read ``KHR_animation_pointer``), so the same
  curves are also put, whole, in the node's ``extras`` (``{"contact_l": [0, 1, …], …,
  "fps": 30}``), which Blender 3.4 keeps as custom properties of the object (arrays, not
  animated). ``tests/data/blender/contacts_blender34.json`` is what Blender 3.4 read.
- **BVH and others** (:func:`write_contact_csv`): a sidecar ``OUT.contacts.csv`` with
  ``frame,time,contact_l,contact_r,weight_l,weight_r``.

The contacts themselves are footfall's own, taken from the command's result in one place
(:func:`clip_contacts`, :func:`ground_contacts`, :func:`retarget_contacts`), never detected
again here.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.arrays import FloatArray
from footfall.batch.atomic import replacing
from footfall.errors import FootfallError, GLTFError
from footfall.skeleton import Clip

#: Curve names: 0/1 per foot, then the smooth weight per foot (left, right).
CONTACT_NAMES = ("contact_l", "contact_r")
WEIGHT_NAMES = ("weight_l", "weight_r")
CURVE_NAMES = CONTACT_NAMES + WEIGHT_NAMES
CSV_COLUMNS = ("frame", "time", *CURVE_NAMES)
#: Seconds a weight takes to go from 0 to 1 across a contact's start (and back at its end),
#: centred on the edge: 0.5 at the first planted frame's edge.
BLEND_SECONDS = 0.1
#: Name of the node (and mesh) holding the curves in a glTF file.
NODE_NAME = "footfall_contacts"
#: The glTF suffixes the curves go into; anything else gets the CSV sidecar.
GLTF_SUFFIXES = (".glb", ".gltf", ".vrm", ".vrma")


class ContactCurveError(FootfallError, ValueError):
    """A contact-curve file (CSV sidecar or glTF node) that cannot be read or written."""


@dataclass
class ContactCurves:
    """Per-frame foot contact curves.

    Attributes:
        contacts: ``(F, 2)`` bool, left and right foot planted.
        weights: ``(F, 2)`` smooth weights in [0, 1] (≥ 0.5 exactly where planted).
        fps: frames per second.
    """

    contacts: NDArray[np.bool_]
    weights: FloatArray
    fps: float

    @property
    def frame_count(self) -> int:
        """Number of frames F."""
        return int(self.contacts.shape[0])

    def values(self) -> FloatArray:
        """``(F, 4)`` the curves in :data:`CURVE_NAMES` order."""
        return np.concatenate([self.contacts.astype(np.float64), self.weights], axis=1)


def contact_weights(contacts: ArrayLike, fps: float,
                    blend_seconds: float = BLEND_SECONDS) -> FloatArray:
    """Smooth weights ``(F, K)`` in [0, 1] of boolean ``contacts (F, K)``: a smoothstep of the
    signed distance (seconds) to the nearest contact edge over ``blend_seconds`` centred on it,
    so a weight rises from 0 to 1 across each touch-down and falls across each lift-off, is
    ≥ 0.5 exactly on planted frames, and 1 (0) deep inside a contact (a swing)."""
    planted = np.asarray(contacts, dtype=bool)
    index = np.arange(planted.shape[0], dtype=np.float64)[:, None]
    # Distance in frames to the nearest frame of the other state, per column: the last and
    # the next frame where the state differs, found with running maxima / minima.
    change = np.zeros_like(planted)
    change[1:] = planted[1:] != planted[:-1]
    # No edge before (after) a frame: infinitely far (the clip's ends are not edges).
    last = np.maximum.accumulate(np.where(change, index, -np.inf), axis=0)  # a run's first
    following = np.zeros_like(planted)
    following[:-1] = change[1:]
    after = np.minimum.accumulate(np.where(following, index, np.inf)[::-1], axis=0)[::-1]
    # Frames from this one to the run's edges (half a frame beyond the last of the run).
    inside = np.minimum(index - last, after - index) + 0.5
    signed = np.where(planted, inside, -inside) / fps
    half = 0.5 * max(blend_seconds, 1e-9)
    t = np.clip((signed + half) / (2 * half), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def contact_curves(contacts: ArrayLike, fps: float,
                   blend_seconds: float = BLEND_SECONDS) -> ContactCurves:
    """:class:`ContactCurves` of ``contacts (F, 2)`` (left, right) at ``fps``."""
    planted = np.asarray(contacts, dtype=bool)
    if planted.ndim != 2 or planted.shape[1] != 2:
        raise ContactCurveError(f"contacts have shape {planted.shape}; expected (F, 2)")
    return ContactCurves(planted, contact_weights(planted, fps, blend_seconds), float(fps))


# --- Where the contacts come from: the one place commands ask -------------------------------


def clip_contacts(clip: Clip) -> NDArray[np.bool_]:
    """``(F, 2)`` contacts footfall finds in a clip's motion, as ``footfall ground`` and
    ``measure`` find them (:func:`footfall.grounding.clip.prepare_clip` over the frames that
    are no calibration pose, :func:`footfall.footing.foot_model.calibration_frames`; False in
    those)."""
    from footfall.footing.foot_model import calibration_frames, legs_of
    from footfall.grounding.clip import prepare_clip

    motion = ~calibration_frames(clip.rotations, clip.skeleton.parents)
    out = np.zeros((clip.frame_count, 2), dtype=bool)
    out[motion] = prepare_clip(clip[motion], legs_of(clip.skeleton)).contacts
    return out


def ground_contacts(result: Any) -> NDArray[np.bool_]:
    """``(F, 2)`` contacts of a :class:`~footfall.grounding.clip.GroundResult` (the contacts
    it planted)."""
    return np.asarray(result.contacts, dtype=bool)


def retarget_contacts(retargeter: Any, source: Clip) -> NDArray[np.bool_]:
    """``(F, 2)`` the source feet a :class:`~footfall.retarget.Retargeter` plants on the
    target's floor (:meth:`~footfall.retarget.Retargeter.source_contacts`)."""
    return np.asarray(retargeter.source_contacts(source), dtype=bool)


# --- Writing and reading ---------------------------------------------------------------------


def contacts_path(output: str | Path) -> Path:
    """The CSV sidecar of ``output``: ``OUT.contacts.csv`` beside it (``walk.bvh`` →
    ``walk.contacts.csv``)."""
    output = Path(output)
    return output.with_name(output.stem + ".contacts.csv")


def write_contacts(output: str | Path, curves: ContactCurves) -> Path:
    """Put ``curves`` with the written ``output``: into it when it is glTF (:func:`add_to_gltf`),
    else in its CSV sidecar (:func:`write_contact_csv`); returns the file written."""
    output = Path(output)
    if output.suffix.lower() in GLTF_SUFFIXES:
        add_to_gltf(output, curves)
        return output
    sidecar = contacts_path(output)
    write_contact_csv(curves, sidecar)
    return sidecar


def write_contact_csv(curves: ContactCurves, path: str | Path) -> None:
    """``frame,time,contact_l,contact_r,weight_l,weight_r`` rows, written atomically."""
    path = Path(path)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    values = curves.values()
    for frame in range(curves.frame_count):
        writer.writerow([frame, f"{frame / curves.fps:.6f}",
                         int(curves.contacts[frame, 0]), int(curves.contacts[frame, 1]),
                         f"{values[frame, 2]:.6f}", f"{values[frame, 3]:.6f}"])
    try:
        with replacing(path) as partial:
            partial.write_text(text.getvalue())
    except OSError as error:
        raise ContactCurveError(f"{path}: cannot write ({error.strerror or error})") from None


def read_contact_csv(path: str | Path) -> ContactCurves:
    """The curves of a CSV sidecar; :class:`ContactCurveError` naming the file and the row at
    fault for anything else."""
    path = Path(path)
    try:
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ContactCurveError(f"{path}: cannot read contact curves ({error})") from None
    if not rows or tuple(rows[0]) != CSV_COLUMNS:
        raise ContactCurveError(f"{path}: expected the header {','.join(CSV_COLUMNS)}")
    if len(rows) < 2:
        raise ContactCurveError(f"{path}: no frames")
    try:
        table = np.array([[float(v) for v in row] for row in rows[1:]])
    except ValueError as error:
        raise ContactCurveError(f"{path}: {error}") from None
    if table.ndim != 2 or table.shape[1] != len(CSV_COLUMNS):
        bad = next(k for k, row in enumerate(rows[1:], 2) if len(row) != len(CSV_COLUMNS))
        raise ContactCurveError(f"{path}: row {bad} does not have {len(CSV_COLUMNS)} values")
    if not np.array_equal(table[:, 0], np.arange(len(table))) or not np.all(
            np.isfinite(table)):
        raise ContactCurveError(f"{path}: frames must run 0, 1, 2 … with finite values")
    if not np.all(np.isin(table[:, 2:4], (0.0, 1.0))) or not np.all(
            (table[:, 4:] >= 0) & (table[:, 4:] <= 1)):
        raise ContactCurveError(f"{path}: contacts must be 0 or 1 and weights in [0, 1]")
    step = np.diff(table[:, 1])
    fps = 1.0 / float(np.median(step)) if len(step) and np.median(step) > 0 else 30.0
    return ContactCurves(table[:, 2:4] > 0.5, table[:, 4:], round(fps, 3))


def add_to_gltf(path: str | Path, curves: ContactCurves) -> None:
    """Add the curves to the written glTF/GLB/VRM ``path``: the ``footfall_contacts`` node
    (morph-target weights animated in the file's first animation, the whole curves in its
    ``extras``; see the module docstring), rewritten atomically."""
    import pygltflib

    from footfall.gltf.document import read_document
    from footfall.gltf.writer import add_accessor, write_document

    path = Path(path)
    gltf = read_document(path)
    if any(node.name == NODE_NAME for node in gltf.nodes):
        raise ContactCurveError(f"{path}: already holds a {NODE_NAME} node")
    for animation in gltf.animations[:1]:
        for sampler in animation.samplers[:1]:
            keys = gltf.accessors[sampler.input].count
            if keys != curves.frame_count:
                raise ContactCurveError(f"{path}: the animation has {keys} keys, the contact "
                                        f"curves {curves.frame_count} frames")
    gltf.convert_buffers(pygltflib.BufferFormat.BINARYBLOB)
    blob = bytearray(gltf.binary_blob() or b"")
    # One triangle a centimetre across, and four targets that do not move it: shape keys need
    # a POSITION target to exist in Blender, not a displacement.
    triangle = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.0, 0.01]])
    position = add_accessor(gltf, blob, triangle, pygltflib.VEC3, with_bounds=True)
    still = add_accessor(gltf, blob, np.zeros((3, 3)), pygltflib.VEC3, with_bounds=True)
    gltf.meshes.append(pygltflib.Mesh(
        name=NODE_NAME, weights=[0.0] * len(CURVE_NAMES),
        extras={"targetNames": list(CURVE_NAMES)},
        primitives=[pygltflib.Primitive(
            attributes=pygltflib.Attributes(POSITION=position),
            targets=[pygltflib.Attributes(POSITION=still) for _ in CURVE_NAMES])]))
    values = curves.values()
    extras: dict[str, Any] = {name: [int(v) for v in values[:, k]]
                              for k, name in enumerate(CONTACT_NAMES)}
    extras.update({name: [round(float(v), 6) for v in values[:, 2 + k]]
                   for k, name in enumerate(WEIGHT_NAMES)})
    extras["fps"] = curves.fps
    gltf.nodes.append(pygltflib.Node(name=NODE_NAME, mesh=len(gltf.meshes) - 1,
                                     extras=extras))
    node = len(gltf.nodes) - 1
    if not gltf.scenes:
        gltf.scenes = [pygltflib.Scene(nodes=[])]
    scene = gltf.scenes[gltf.scene if isinstance(gltf.scene, int) else 0]
    scene.nodes = [*(scene.nodes or []), node]
    times = np.arange(curves.frame_count, dtype=np.float64) / curves.fps
    time_accessor = add_accessor(gltf, blob, times, pygltflib.SCALAR, with_bounds=True)
    weights = add_accessor(gltf, blob, values.reshape(-1), pygltflib.SCALAR)
    if not gltf.animations:
        gltf.animations = [pygltflib.Animation(name="footfall", channels=[], samplers=[])]
    animation = gltf.animations[0]
    animation.samplers.append(pygltflib.AnimationSampler(
        input=time_accessor, output=weights, interpolation="STEP"))
    animation.channels.append(pygltflib.AnimationChannel(
        sampler=len(animation.samplers) - 1,
        target=pygltflib.AnimationChannelTarget(node=node, path="weights")))
    write_document(gltf, bytes(blob), path)


def read_gltf_contacts(path: str | Path) -> ContactCurves:
    """The curves :func:`add_to_gltf` put in ``path``, read from the animated morph-target
    weights."""
    from footfall.gltf.document import accessor_values, buffer_bytes, read_document

    path = Path(path)
    gltf = read_document(path)
    nodes = [k for k, node in enumerate(gltf.nodes) if node.name == NODE_NAME]
    if not nodes:
        raise ContactCurveError(f"{path}: no {NODE_NAME} node")
    node = gltf.nodes[nodes[0]]
    mesh = gltf.meshes[node.mesh] if isinstance(node.mesh, int) else None
    names = (mesh.extras or {}).get("targetNames") if mesh is not None else None
    if names != list(CURVE_NAMES):
        raise ContactCurveError(f"{path}: {NODE_NAME} targets are {names!r}, expected "
                                f"{list(CURVE_NAMES)}")
    for animation in gltf.animations:
        for channel in animation.channels:
            if channel.target.node == nodes[0] and channel.target.path == "weights":
                sampler = animation.samplers[channel.sampler]
                try:
                    blob = buffer_bytes(gltf, 0, path)
                    times = accessor_values(gltf, blob, sampler.input)[:, 0]
                    values = accessor_values(gltf, blob, sampler.output).reshape(
                        len(times), len(CURVE_NAMES))
                except (IndexError, ValueError, TypeError, KeyError, GLTFError,
                        AttributeError) as error:
                    raise ContactCurveError(f"{path}: {NODE_NAME} weights do not read "
                                            f"({error})") from None
                fps = float(node.extras.get("fps", 0.0)) if node.extras else 0.0
                if not fps > 0:
                    fps = 1.0 / float(np.median(np.diff(times))) if len(times) > 1 else 30.0
                return ContactCurves(values[:, :2] > 0.5, values[:, 2:], fps)
    raise ContactCurveError(f"{path}: {NODE_NAME} has no animated weights")
