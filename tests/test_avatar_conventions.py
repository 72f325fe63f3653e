"""glTF avatars written the ways other exporters write them (issue: avatars of every exporter).

Each shared avatar is rewritten at test time with pygltflib the way other tools write it — in
centimetres under a 0.01 armature scale (Mixamo/FBX; the bone translations, mesh positions and
inverse bind matrices ×100), the same with the 0.01 scale on the skeleton root joint itself,
under an extra parent node turned 90° about Y (the avatar faces +X) or moved, with its skeleton
root scaled 2× (a 2× avatar), without ``skin.skeleton``, with the skin's joints listed in
another order, with every node's transform as a matrix (Assimp, COLLADA2GLTF) — and checked
the way a user sees it:

* ``load_avatar`` gives the same skeleton, rest rotations and world rest positions (metres, Y
  up) as the original placed where the variant's nodes put it;
* retargeting GAMES-105's walk onto it moves the body as on the original (a rig's facing and
  place are conventions; the 2× avatar moves as footfall's own 2× avatar, ``avatar_scale`` 2);
* ``footfall retarget … -o OUT.glb`` writes a file that plays what the retargeter computed:
  every joint's world position, every frame, evaluated here from the file's own nodes and
  channels (an evaluator independent of ``footfall.gltf``) and read back by
  ``load_animation``, with the variant's node structure kept.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from conftest import DATA
from footfall import bvh, quat
from footfall.cli import main
from footfall.errors import GLTFError
from footfall.gltf import Avatar, _node_matrix, load_animation, load_avatar
from footfall.retarget import Retargeter, RetargetSettings
from footfall.retarget.toes import Toes
from footfall.skeleton import Clip
from footfall.skinning import avatar_targets
from test_retarget_avatars import lowest_point

AVATARS = ("CesiumMan", "RobotExpressive")
WALK = DATA / "bvh" / "games105_walk60.bvh"
SECONDS = 0.5  # 30 frames: the stance and floor layers at work, the module quick
TOLERANCE = 1e-5  # metres; the written files hold float32
_HALF = float(np.sqrt(0.5))
_TURN = np.array([_HALF, 0.0, _HALF, 0.0])  # w, x, y, z: 90° about +Y (facing +Z → +X)
_MOVE = np.array([1.5, 0.25, -2.0])

# ------------------------------------------------------------------ accessors in the GLB blob

_DTYPES = {5121: np.uint8, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def _layout(gltf: pygltflib.GLTF2, index: int) -> tuple[int, np.dtype, int, int, int]:
    """(count, dtype, width, stride bytes, first byte) of accessor ``index``."""
    accessor = gltf.accessors[index]
    view = gltf.bufferViews[accessor.bufferView]
    dtype = np.dtype(_DTYPES[accessor.componentType]).newbyteorder("<")
    width = _WIDTHS[accessor.type]
    stride = view.byteStride or dtype.itemsize * width
    return (accessor.count, dtype, width, stride,
            (view.byteOffset or 0) + (accessor.byteOffset or 0))


def _rows(blob: bytes | bytearray, gltf: pygltflib.GLTF2, index: int) -> tuple[np.ndarray,
                                                                                np.dtype, int]:
    """(``(count, element bytes)`` uint8 view of accessor ``index`` in ``blob``, dtype, width)."""
    count, dtype, width, stride, start = _layout(gltf, index)
    size = dtype.itemsize * width
    raw = np.frombuffer(blob, np.uint8, stride * (count - 1) + size, start)
    return np.lib.stride_tricks.as_strided(raw, (count, size), (stride, 1)), dtype, width


def _read(gltf: pygltflib.GLTF2, index: int) -> np.ndarray:
    """Accessor ``index`` as ``(count, width)`` float64."""
    rows, dtype, width = _rows(gltf.binary_blob(), gltf, index)
    return np.ascontiguousarray(rows).view(dtype).reshape(-1, width).astype(np.float64)


def _write(gltf: pygltflib.GLTF2, index: int, values: np.ndarray) -> None:
    """Overwrite accessor ``index`` with ``values`` ``(count, width)`` (bounds updated)."""
    blob = bytearray(gltf.binary_blob())
    rows, dtype, width = _rows(blob, gltf, index)
    typed = np.asarray(values).reshape(len(rows), width).astype(dtype)
    start = _layout(gltf, index)[4]
    target = np.ndarray(rows.shape, np.uint8, blob, start, rows.strides)
    target[...] = typed.view(np.uint8).reshape(rows.shape)
    accessor = gltf.accessors[index]
    if accessor.min is not None:
        accessor.min = [float(v) for v in typed.min(axis=0)]
        accessor.max = [float(v) for v in typed.max(axis=0)]
    gltf.set_binary_blob(bytes(blob))


# ------------------------------------------------------------------ the variants


def _parents(gltf: pygltflib.GLTF2) -> dict[int, int]:
    return {child: n for n, node in enumerate(gltf.nodes) for child in node.children or []}


def _ancestors(parents: dict[int, int], node: int) -> list[int]:
    out = []
    while node in parents:
        node = parents[node]
        out.append(node)
    return out


def _root_joint(gltf: pygltflib.GLTF2) -> int:
    """The skin's joint with no joint above it."""
    joints, parents = set(gltf.skins[0].joints), _parents(gltf)
    return next(j for j in gltf.skins[0].joints
                if not joints.intersection(_ancestors(parents, j)))


def _scale_node(node: pygltflib.Node, factor: float) -> None:
    """Multiply a node's own scale by ``factor`` (TRS or matrix node)."""
    if node.matrix is not None:
        matrix = np.asarray(node.matrix, dtype=np.float64).reshape(4, 4)  # column-major rows
        matrix[:3, :3] *= factor
        node.matrix = [float(v) for v in matrix.ravel()]
    else:
        node.scale = [float(v) * factor for v in (node.scale or [1.0, 1.0, 1.0])]


def _in_centimetres(gltf: pygltflib.GLTF2, at_root: bool = False) -> None:
    """Mixamo/FBX-style: the armature node (or, ``at_root``, the skeleton root joint) scaled
    0.01 and every translation below it, every mesh position (morph targets too) and every
    inverse bind matrix translation ×100 — the same avatar in the world, in centimetres inside."""
    parents, root = _parents(gltf), _root_joint(gltf)
    scaled = root if at_root else parents[root]
    _scale_node(gltf.nodes[scaled], 0.01)
    for n, node in enumerate(gltf.nodes):
        if scaled in _ancestors(parents, n) and node.translation is not None:
            node.translation = [100.0 * v for v in node.translation]
    done: set[int] = set()
    for mesh in gltf.meshes:
        for primitive in mesh.primitives:
            targets = [t.get("POSITION") if isinstance(t, dict) else t.POSITION
                       for t in primitive.targets or []]
            for index in [primitive.attributes.POSITION, *targets]:
                if index is not None and index not in done:
                    done.add(index)
                    _write(gltf, index, 100.0 * _read(gltf, index))
    for skin in gltf.skins:
        if skin.inverseBindMatrices not in done:
            done.add(skin.inverseBindMatrices)
            matrices = _read(gltf, skin.inverseBindMatrices)
            matrices[:, 12:15] *= 100.0  # column-major: the translation column
            _write(gltf, skin.inverseBindMatrices, matrices)


def _under_a_parent(gltf: pygltflib.GLTF2, rotation: np.ndarray | None = None,
                    translation: np.ndarray | None = None) -> None:
    """An extra node above the scene's roots (``rotation`` w, x, y, z; ``translation`` m)."""
    scene = gltf.scenes[gltf.scene or 0]
    extra = pygltflib.Node(name="Placement", children=list(scene.nodes))
    if rotation is not None:
        extra.rotation = [float(v) for v in rotation[[1, 2, 3, 0]]]
    if translation is not None:
        extra.translation = [float(v) for v in translation]
    gltf.nodes.append(extra)
    scene.nodes = [len(gltf.nodes) - 1]


def _without_skeleton(gltf: pygltflib.GLTF2) -> None:
    for skin in gltf.skins:
        skin.skeleton = None


def _joints_shuffled(gltf: pygltflib.GLTF2) -> None:
    """Every skin's joints in another order, inverse bind matrices and the meshes' JOINTS_0
    indices with them (the file draws the same)."""
    done: set[int] = set()
    for number, skin in enumerate(gltf.skins):
        order = np.random.default_rng(number).permutation(len(skin.joints))
        skin.joints = [skin.joints[k] for k in order]
        if skin.inverseBindMatrices not in done:
            done.add(skin.inverseBindMatrices)
            _write(gltf, skin.inverseBindMatrices, _read(gltf, skin.inverseBindMatrices)[order])
        new_index = np.argsort(order)
        for node in gltf.nodes:
            if node.skin == number and node.mesh is not None:
                for primitive in gltf.meshes[node.mesh].primitives:
                    index = primitive.attributes.JOINTS_0
                    if index is not None and index not in done:
                        done.add(index)
                        _write(gltf, index, new_index[_read(gltf, index).astype(int)])


def _as_matrices(gltf: pygltflib.GLTF2) -> None:
    """Every node's transform as a ``matrix`` (Assimp, COLLADA2GLTF)."""
    for node in gltf.nodes:
        if node.matrix is None:
            matrix = np.eye(4)
            x, y, z, w = node.rotation or [0.0, 0.0, 0.0, 1.0]
            matrix[:3, :3] = quat.to_matrix(quat.normalize(np.array([w, x, y, z]))) * np.asarray(
                node.scale or [1.0, 1.0, 1.0])
            matrix[:3, 3] = node.translation or [0.0, 0.0, 0.0]
            node.matrix = [float(v) for v in matrix.T.ravel()]  # column-major
            node.translation = node.rotation = node.scale = None


def _root_scaled(gltf: pygltflib.GLTF2) -> None:
    _scale_node(gltf.nodes[_root_joint(gltf)], 2.0)


def _root_scaled_under_a_parent(gltf: pygltflib.GLTF2) -> None:
    _root_scaled(gltf)
    _under_a_parent(gltf, _TURN, _MOVE)


VARIANTS: dict[str, Callable[[pygltflib.GLTF2], None]] = {
    "centimetres": _in_centimetres,
    "centimetres_at_root": lambda gltf: _in_centimetres(gltf, at_root=True),
    "turned_parent": lambda gltf: _under_a_parent(gltf, rotation=_TURN),
    "moved_parent": lambda gltf: _under_a_parent(gltf, translation=_MOVE),
    "turned_moved_parent": lambda gltf: _under_a_parent(gltf, _TURN, _MOVE),
    "root_scaled_2x": _root_scaled,
    "root_scaled_2x_turned_moved": _root_scaled_under_a_parent,
    "no_skin_skeleton": _without_skeleton,
    "joints_shuffled": _joints_shuffled,
    "matrices": _as_matrices,
}
_SCALED = ("root_scaled_2x", "root_scaled_2x_turned_moved")


def _placement(variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(rotation (4,), translation (3,)) the variant's extra parent puts the avatar at."""
    turn = _TURN if "turned" in variant else quat.identity(())
    return turn, (_MOVE if "moved" in variant else np.zeros(3))


@pytest.fixture(scope="module")
def variant_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("avatar_variants")


def variant_path(directory: Path, avatar: str, variant: str) -> Path:
    """The shared avatar ``avatar`` written as ``variant`` (once per module) in ``directory``."""
    path = directory / f"{avatar}_{variant}.glb"
    if not path.exists():
        gltf = pygltflib.GLTF2().load(str(DATA / "avatars" / f"{avatar}.glb"))
        VARIANTS[variant](gltf)
        gltf.save_binary(str(path))
    return path


# ------------------------------------------------------------------ retargeting, cached


@cache
def walk() -> Clip:
    clip = bvh.load(WALK)
    return clip[: int(SECONDS * clip.fps)]


@cache
def loaded(path: Path) -> Avatar:
    """``load_avatar(path)``, once per module."""
    return load_avatar(path)


@cache
def retargeted(path: Path, scale: float = 1.0) -> tuple[Avatar, Retargeter, Clip]:
    """``walk()`` onto the avatar at ``path`` as ``footfall retarget --scale`` computes it."""
    avatar = loaded(path)
    settings = RetargetSettings()
    settings.update({"avatar_scale": scale})
    retargeter = Retargeter(walk().skeleton, avatar.skeleton, settings=settings,
                            target_rest=avatar.rest_rotations, **avatar_targets(avatar))
    retargeter.calibrate_for(walk())  # as the command does
    return avatar, retargeter, retargeter.apply(walk())


def _by_name(avatar: Avatar, values: np.ndarray) -> dict[str, np.ndarray]:
    """``values (..., J, k)`` per joint name."""
    return {name: values[..., j, :] for j, name in enumerate(avatar.skeleton.names)}


# ------------------------------------------------------------------ reading


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("avatar_name", AVATARS)
def test_the_variant_loads_as_the_original_placed(variant_dir: Path, avatar_name: str,
                                                   variant: str) -> None:
    """Same joints and parents; world rest positions and rotations are the original's moved by
    the extra parent (the 2× root: scaled 2× about the root joint), to 1e-6."""
    original = loaded(DATA / "avatars" / f"{avatar_name}.glb")
    other = loaded(variant_path(variant_dir, avatar_name, variant))
    assert sorted(other.skeleton.names) == sorted(original.skeleton.names)
    parent_names = {n: (original.skeleton.names[p] if p >= 0 else None) for n, p in
                    zip(original.skeleton.names, original.skeleton.parents, strict=True)}
    assert all((other.skeleton.names[p] if p >= 0 else None) == parent_names[n] for n, p in
               zip(other.skeleton.names, other.skeleton.parents, strict=True))
    rest, rest0 = (_by_name(a, a.rest_clip().global_positions()[0]) for a in (other, original))
    rot, rot0 = (_by_name(a, a.rest_clip().global_rotations()[0]) for a in (other, original))
    turn, move = _placement(variant)
    root = original.skeleton.names[0]
    scale = 2.0 if variant in _SCALED else 1.0
    for name in rest0:
        expected = quat.rotate(turn, rest0[root] + scale * (rest0[name] - rest0[root])) + move
        np.testing.assert_allclose(rest[name], expected, atol=1e-6, err_msg=name)
        assert abs(np.dot(rot[name], quat.mul(turn, rot0[name]))) > 1 - 1e-9, name


# ------------------------------------------------------------------ retargeting


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("avatar_name", AVATARS)
def test_retargeting_onto_the_variant_moves_the_body_as_the_original(
        variant_dir: Path, avatar_name: str, variant: str) -> None:
    """Every mapped joint and all below, every frame: the original's world
    positions to 1e-6 m (the 2× root: the original retargeted as footfall's own 2× avatar,
    ``avatar_scale`` 2, and twice the original's size ratio, its feet on the floor where the
    source's are)."""
    avatar, retargeter, out = retargeted(variant_path(variant_dir, avatar_name, variant))
    scaled = variant in _SCALED
    original, retargeter0, out0 = retargeted(DATA / "avatars" / f"{avatar_name}.glb",
                                             2.0 if scaled else 1.0)
    if scaled:
        assert retargeter.size_ratio == pytest.approx(2 * retargeted(
            DATA / "avatars" / f"{avatar_name}.glb")[1].size_ratio, rel=1e-9)
        # Feet on the floor: during the source's contacts the lowest foot point stands at or
        # above the floor (the skinned soles themselves: test_retarget_floor.py), and on average
        # (the median) within the 2× avatar's 2 cm contact band of it.
        toes = Toes.of(walk().skeleton, retargeter.source_map), Toes.of(
            avatar.skeleton, retargeter.target_map)
        both = None not in toes
        low_s = lowest_point(walk(), retargeter.source_map, retargeter.source_measures,
                             toes[0] if both else None)
        low_t = lowest_point(out, retargeter.target_map, retargeter.target_measures,
                             toes[1] if both else None)
        contact = low_s < np.percentile(low_s, 5) + 0.02
        assert contact.mean() > 0.15
        assert low_t[contact].min() > -3e-3  # (a 2× avatar: 1.5 mm at scale 1)
        assert np.median(low_t[contact]) < 0.04
    positions, positions0 = _by_name(avatar, out.global_positions()), _by_name(
        original, out0.global_positions())
    for name in _body(avatar, retargeter):
        np.testing.assert_allclose(positions[name], positions0[name], atol=1e-6, err_msg=name)


def _body(avatar: Avatar, retargeter: Retargeter) -> list[str]:
    """Every joint the retargeter maps and every joint below one (RobotExpressive's static root
    and IK pole targets are neither)."""
    skeleton = avatar.skeleton
    mapped = {skeleton.index(name) for name in retargeter.target_map.values()}
    body = []
    for joint in range(skeleton.joint_count):
        above = joint
        while above >= 0 and above not in mapped:
            above = int(skeleton.parents[above])
        if above >= 0:
            body.append(skeleton.names[joint])
    assert len(body) > 0.8 * skeleton.joint_count
    return body


# ------------------------------------------------------------------ the written file


def _played(gltf: pygltflib.GLTF2, frames: int, fps: float) -> np.ndarray:
    """``(F, N, 3)`` world position of every node at every frame as a glTF viewer plays the
    document's first animation at the frame times (keys must sit on them)."""
    animation = gltf.animations[0]
    tracks = {}
    for channel in animation.channels:
        sampler = animation.samplers[channel.sampler]
        np.testing.assert_allclose(_read(gltf, sampler.input)[:, 0], np.arange(frames) / fps,
                                   atol=1e-6)
        tracks[channel.target.node, channel.target.path] = _read(gltf, sampler.output)
    parents = _parents(gltf)
    out = np.empty((frames, len(gltf.nodes), 3))
    world: dict[int, np.ndarray] = {}
    for n in sorted(range(len(gltf.nodes)), key=lambda k: len(_ancestors(parents, k))):
        node = gltf.nodes[n]
        if node.matrix is not None:
            assert not any((n, kind) in tracks for kind in ("translation", "rotation", "scale"))
            local = np.broadcast_to(np.asarray(node.matrix, dtype=np.float64).reshape(4, 4).T,
                                    (frames, 4, 4))
        else:
            def value(kind: str, default: list[float], n: int = n,
                      node: pygltflib.Node = node) -> np.ndarray:
                if (n, kind) in tracks:
                    return tracks[n, kind][:frames]
                return np.broadcast_to(np.asarray(getattr(node, kind) or default,
                                                  dtype=np.float64), (frames, len(default)))
            xyzw = value("rotation", [0.0, 0.0, 0.0, 1.0])
            local = np.zeros((frames, 4, 4))
            local[:, :3, :3] = quat.to_matrix(quat.normalize(xyzw[:, [3, 0, 1, 2]])) * value(
                "scale", [1.0, 1.0, 1.0])[:, None, :]
            local[:, :3, 3] = value("translation", [0.0, 0.0, 0.0])
            local[:, 3, 3] = 1.0
        world[n] = world[parents[n]] @ local if n in parents else local
        out[:, n] = world[n][:, :3, 3]
    return out


CLI_CASES = [("CesiumMan", variant, 1.0) for variant in VARIANTS
             if variant not in ("turned_parent", "moved_parent")] + [
    ("RobotExpressive", variant, 1.0) for variant in (
        "centimetres_at_root", "turned_moved_parent", "root_scaled_2x_turned_moved",
        "joints_shuffled", "matrices")] + [
    (avatar, variant, 1.5) for avatar in AVATARS
    for variant in ("centimetres", "root_scaled_2x_turned_moved", "matrices")]


@pytest.mark.parametrize(("avatar_name", "variant", "scale"), CLI_CASES,
                         ids=[f"{a}-{v}-x{s:g}" for a, v, s in CLI_CASES])
def test_the_written_file_plays_what_was_computed(variant_dir: Path, tmp_path: Path,
                                                  avatar_name: str, variant: str,
                                                  scale: float) -> None:
    """``footfall retarget`` onto the variant (``--scale``): every skin joint's world position
    in the written file, every frame, is the retargeter's to 1e-5 m — played from the file's
    nodes here and read back by ``load_animation``; channels target skin joints only and every
    node keeps its children (and every node without a channel its transform)."""
    target = variant_path(variant_dir, avatar_name, variant)
    source = tmp_path / "walk.bvh"
    bvh.save(walk(), source)
    output = tmp_path / "out.glb"
    assert main(["retarget", str(source), "--to", str(target), "-o", str(output), "--quiet",
                 "--scale", f"{scale:g}"]) == 0
    avatar, _, out = retargeted(target, scale)
    computed = out.global_positions()
    back = load_avatar(output)
    assert back.skeleton.names == avatar.skeleton.names
    written = back.document
    assert written is not None and avatar.document is not None
    played = _played(written, out.frame_count, out.fps)
    np.testing.assert_allclose(played[:, avatar.nodes], computed, atol=TOLERANCE)
    clip = load_animation(output, fps=out.fps, avatar=back)
    np.testing.assert_allclose(clip.global_positions()[: out.frame_count], computed,
                               atol=TOLERANCE)
    before = avatar.document
    animated = {c.target.node for c in written.animations[0].channels}
    assert animated <= set(before.skins[0].joints)
    assert [n.children for n in written.nodes] == [n.children for n in before.nodes]
    for n in set(range(len(before.nodes))) - animated:
        for kind in ("translation", "rotation", "scale", "matrix"):
            assert getattr(written.nodes[n], kind) == getattr(before.nodes[n], kind)
    for n in animated:  # the same rest transform (an animated node holds no matrix: glTF 2.0)
        assert written.nodes[n].matrix is None
        np.testing.assert_allclose(_node_matrix(written.nodes[n]), _node_matrix(before.nodes[n]),
                                   atol=1e-6)


def test_a_non_uniform_root_scale_is_a_clear_error(tmp_path: Path, capsys) -> None:
    """A skeleton root scaled [1, 2, 1] cannot be a skeleton of rigid bones: ``load_avatar``
    names the node and the scale, and ``footfall retarget`` writes nothing."""
    gltf = pygltflib.GLTF2().load(str(DATA / "avatars" / "CesiumMan.glb"))
    root = _root_joint(gltf)
    gltf.nodes[root].scale = [1.0, 2.0, 1.0]
    path = tmp_path / "stretched.glb"
    gltf.save_binary(str(path))
    with pytest.raises(GLTFError, match=rf"node {root} .*non-uniform scale \[1\. 2\. 1\.\]"):
        load_avatar(path)
    output = tmp_path / "out.glb"
    assert main(["retarget", str(WALK), "--to", str(path), "-o", str(output), "--quiet"]) != 0
    assert "non-uniform scale" in capsys.readouterr().err
    assert not output.exists()
