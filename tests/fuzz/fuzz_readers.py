"""The readers the mutation harness attacks: seed inputs, a mutator, and a read-and-check.

Adding a reader is one decorated function (see docs/reliability.md):

    @reader("natnet", suffix=".bin", seeds=lambda: [packet_bytes], mutate=fuzz_mutate.flip_bytes)
    def read_natnet(path: Path) -> None:
        frame = parse_packet(path.read_bytes(), where=path.name)  # must raise FootfallError
        check_finite(frame.positions, "positions")            # or harness.Garbage

The function runs in a child process; it must raise a ``FootfallError`` naming the file for bad
input, and ``Garbage`` (via :func:`check_finite` or ``check``) when it accepted input but what came
out is wrong. Everything else it raises, and any warning from a library, counts as a defect.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import fuzz_mutate as mutate_lib
import numpy as np
from fuzz_harness import Case, Garbage

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class Reader:
    """One attacked reader: file suffix, seed inputs, mutator and the read-and-check."""

    name: str
    suffix: str
    seeds: Callable[[], list[bytes]]
    mutate: mutate_lib.Mutator
    read: Callable[[Path], None]


READERS: dict[str, Reader] = {}
#: Cases per reader in CI (a few hundred; glTF fewer, pygltflib takes ~0.3 s to parse one).
CI_CASES = {"glb": 120, "bvh-cli": 100, "vrm": 60, "bvh-ground": 60, "motion-vrma": 80,
            "motion-cli": 100}
DEFAULT_CI_CASES = 200


def ci_cases(name: str) -> int:
    return CI_CASES.get(name, DEFAULT_CI_CASES)


ReadFunction = Callable[[Path], None]


def reader(name: str, *, suffix: str, seeds: Callable[[], list[bytes]],
           mutate: mutate_lib.Mutator) -> Callable[[ReadFunction], ReadFunction]:
    """Register the decorated ``read(path)`` as reader ``name``."""
    def register(read: Callable[[Path], None]) -> Callable[[Path], None]:
        READERS[name] = Reader(name, suffix, seeds, mutate, read)
        return read
    return register


def check(condition: bool, message: str) -> None:
    """Raise :class:`Garbage` with ``message`` unless ``condition``."""
    if not condition:
        raise Garbage(message)


def check_finite(values: object, what: str) -> None:
    array = np.asarray(values, dtype=np.float64)
    check(bool(np.isfinite(array).all()), f"{what} holds NaN or inf")


def cases(name: str, count: int, seed: int) -> list[Case]:
    """``count`` mutated inputs for reader ``name``, the same for the same ``seed``."""
    spec = READERS[name]
    originals = spec.seeds()
    out = []
    for index in range(count):
        rng = random.Random(f"{name}:{seed}:{index}")
        data = spec.mutate(rng.choice(originals), rng)
        out.append(Case(name, f"case{index}{spec.suffix}", data))
    return out


# --------------------------------------------------------------------------------------- BVH
def _short_bvh(path: Path, frames: int = 6) -> bytes:
    """A shared capture cut to its first ``frames`` frames (fast to read, same hierarchy)."""
    lines = path.read_bytes().rstrip().split(b"\n")  # no blank line counted as a frame
    at = next(i for i, line in enumerate(lines) if line.strip().upper().startswith(b"FRAMES"))
    kept = lines[: at + 2 + frames]
    kept[at] = b"Frames: %d" % min(frames, len(lines) - at - 2)
    return b"\n".join(kept) + b"\n"


def bvh_seeds() -> list[bytes]:
    return [_short_bvh(path) for path in sorted((DATA / "bvh").glob("*.bvh"))]


@reader("bvh", suffix=".bvh", seeds=bvh_seeds, mutate=mutate_lib.mutate_bvh)
def read_bvh(path: Path) -> None:
    """``footfall info``'s read: the clip, its info, and the text it prints."""
    from footfall import bvh
    from footfall.commands.info import describe
    from footfall.sizes import MAX_REACH_METRES, reach

    clip, info = bvh.load(path, return_info=True)
    check_finite(clip.rotations, "rotations")
    check_finite(clip.positions, "positions")
    check_finite(clip.global_positions(), "global positions")
    check(np.isfinite(clip.fps) and clip.fps > 0, f"fps {clip.fps}")
    check(np.isfinite(info.standing_height), f"standing height {info.standing_height}")
    check(reach(clip) <= MAX_REACH_METRES, f"a skeleton reaching {reach(clip):.3g} m was read")
    text = describe(clip, info)
    check("inf" not in text and "nan" not in text, "info prints inf or nan")


# -------------------------------------------------------------------------------- glTF / GLB
def _one_animation(data: bytes) -> bytes:
    """A GLB cut to its first animation, without the accessors and views only the others used
    (RobotExpressive's 14 animations make pygltflib take over a second per read)."""
    document, blob = mutate_lib.split_glb(data)
    document["animations"] = document.get("animations", [])[:1]
    used: list[int] = []

    def use(index: object) -> None:
        if isinstance(index, int) and index not in used:
            used.append(index)

    for skin in document.get("skins", []):
        use(skin.get("inverseBindMatrices"))
    for mesh in document.get("meshes", []):
        for primitive in mesh.get("primitives", []):
            for index in primitive.get("attributes", {}).values():
                use(index)
            use(primitive.get("indices"))
            for target in primitive.get("targets", []):
                for index in target.values():
                    use(index)
    for animation in document["animations"]:
        for sampler in animation["samplers"]:
            use(sampler["input"])
            use(sampler["output"])
    new_accessor = {old: new for new, old in enumerate(used)}
    accessors = [document["accessors"][old] for old in used]
    views: list[int] = []
    for accessor in accessors:
        if accessor.get("bufferView") not in views and "bufferView" in accessor:
            views.append(accessor["bufferView"])
    for image in document.get("images", []):
        if "bufferView" in image and image["bufferView"] not in views:
            views.append(image["bufferView"])
    new_view = {old: new for new, old in enumerate(views)}
    for item in accessors + document.get("images", []):
        if "bufferView" in item:
            item["bufferView"] = new_view[item["bufferView"]]
    document["bufferViews"] = [document["bufferViews"][old] for old in views]
    document["accessors"] = accessors
    for skin in document.get("skins", []):
        if "inverseBindMatrices" in skin:
            skin["inverseBindMatrices"] = new_accessor[skin["inverseBindMatrices"]]
    for mesh in document.get("meshes", []):
        for primitive in mesh.get("primitives", []):
            attributes = primitive.get("attributes", {})
            for key in attributes:
                attributes[key] = new_accessor[attributes[key]]
            if "indices" in primitive:
                primitive["indices"] = new_accessor[primitive["indices"]]
            for target in primitive.get("targets", []):
                for key in target:
                    target[key] = new_accessor[target[key]]
    for animation in document["animations"]:
        for sampler in animation["samplers"]:
            sampler["input"] = new_accessor[sampler["input"]]
            sampler["output"] = new_accessor[sampler["output"]]
    return mutate_lib.join_glb(document, blob)


def glb_seeds() -> list[bytes]:
    return [_one_animation(path.read_bytes())
            for path in sorted((DATA / "avatars").glob("*.glb"))]


@reader("glb", suffix=".glb", seeds=glb_seeds, mutate=mutate_lib.mutate_glb)
def read_glb(path: Path) -> None:
    """``footfall retarget --to``'s read, then a write of the rest pose that must read back."""
    from footfall.errors import FootfallError
    from footfall.gltf import load_animation, load_avatar, save_animation
    from footfall.sizes import MAX_REACH_METRES, reach

    avatar = load_avatar(path)
    check_finite(avatar.skeleton.offsets, "offsets")
    check(reach(avatar.skeleton) <= MAX_REACH_METRES, f"an avatar reaching "
          f"{reach(avatar.skeleton):.3g} m was read")
    check_finite(avatar.rest_rotations, "rest rotations")
    try:
        clip = load_animation(path, avatar=avatar)
    except FootfallError:
        clip = None  # animations are optional for a target; a clean error is fine
    if clip is not None:
        check_finite(clip.rotations, "animation rotations")
        check_finite(clip.positions, "animation positions")
    out = path.with_name("written.glb")
    save_animation(avatar, avatar.rest_clip(3), out)
    try:
        back = load_avatar(out)
        load_animation(out, avatar=back)
    except FootfallError as error:
        raise Garbage(f"the written GLB does not read back: {error}") from None
    check(back.skeleton.names == avatar.skeleton.names, "written GLB has other joints")


# ---------------------------------------------------------------------------------------- VRM
def vrm_seeds() -> list[bytes]:
    """Both VRM 1.0 samples, and the first as VRM 0.x (list-form bone map) as well."""
    seeds = [path.read_bytes() for path in sorted((DATA / "avatars").glob("*.vrm"))]
    document, blob = mutate_lib.split_glb(seeds[0])
    vrm1 = document["extensions"].pop("VRMC_vrm")
    thumbs = {"Metacarpal": "Proximal", "Proximal": "Intermediate"}
    bones = []
    for name, entry in vrm1["humanoid"]["humanBones"].items():
        for one, zero in thumbs.items():
            if name.endswith(f"Thumb{one}"):
                name = name.replace(f"Thumb{one}", f"Thumb{zero}")
                break
        bones.append({"bone": name, "node": entry["node"]})
    document["extensions"]["VRM"] = {"specVersion": "0.0", "humanoid": {"humanBones": bones},
                                     "meta": {"title": "t", "author": "a", "licenseName": "CC0"}}
    return [*seeds, mutate_lib.join_glb(document, blob)]


def mutate_vrm(data: bytes, rng: random.Random) -> bytes:
    """Mostly the VRM extension (bone map, versions, meta) mutated, else as any GLB."""
    document, blob = mutate_lib.split_glb(data)
    extensions = document.get("extensions", {})
    if rng.random() < 0.6 and extensions:
        name = rng.choice(sorted(extensions))
        extensions[name] = mutate_lib.mutate_tree(extensions[name], rng)
        return mutate_lib.join_glb(document, blob)
    return mutate_lib.mutate_glb(data, rng)


@reader("vrm", suffix=".vrm", seeds=vrm_seeds, mutate=mutate_vrm)
def read_vrm(path: Path) -> None:
    """``footfall info`` and ``retarget --to``'s read of a VRM, then its rest pose written as
    .vrm and .vrma, which must read back."""
    from footfall.errors import FootfallError
    from footfall.gltf import load_animation, load_avatar, load_vrm_animation, save_animation
    from footfall.gltf.describe import describe_avatar
    from footfall.gltf.vrma import save_vrm_animation

    avatar = load_avatar(path)
    check_finite(avatar.skeleton.offsets, "offsets")
    check_finite(avatar.rest_rotations, "rest rotations")
    text = describe_avatar(avatar)
    bone_lines = 1 + len(avatar.humanoid) if avatar.humanoid else 0
    check(len(text.splitlines()) == len(describe_avatar(avatar, tree=False).splitlines())
          + bone_lines, "info prints a field over several lines")
    rest = avatar.rest_clip(3)
    out = path.with_name("written.vrm")
    save_animation(avatar, rest, out)
    if avatar.vrm is None:
        return  # the VRM extension mutated away: a plain glTF (the glb reader's ground)
    motion = path.with_name("written.vrma")
    save_vrm_animation(avatar, rest, motion)
    try:
        back = load_animation(out)
        played = load_vrm_animation(motion, avatar)
    except FootfallError as error:
        raise Garbage(f"the written .vrm/.vrma does not read back: {error}") from None
    check(back.skeleton.names == avatar.skeleton.names, "written .vrm has other joints")
    check(np.abs(played.global_positions() - rest.global_positions()).max() < 1e-4,
          "the written .vrma does not play the rest pose")


# ----------------------------------------------------------------------------------- terrain
def mesh_seeds() -> list[bytes]:
    import trimesh

    from footfall.terrain import scene

    stairs = scene("stairs")
    mesh = trimesh.Trimesh(stairs.vertices, stairs.faces, process=False)
    box = trimesh.creation.box((2.0, 0.5, 2.0))
    out = []
    for item in (mesh, box):
        out.append(item.export(file_type="obj").encode())
    return out


@reader("mesh", suffix=".obj", seeds=mesh_seeds, mutate=mutate_lib.mutate_text)
def read_mesh(path: Path) -> None:
    """``footfall ground --terrain mesh.obj``'s read, then rays down over its bounds."""
    from footfall.terrain import load_mesh

    terrain = load_mesh(path)
    (x0, z0), (x1, z1) = terrain.bounds
    grid = np.stack(np.meshgrid(np.linspace(x0, x1, 7), np.linspace(z0, z1, 7)), -1)
    hits = terrain.raycast_down(grid.reshape(-1, 2))
    check_finite(hits.point[hits.hit], "hit points")
    check_finite(hits.normal, "normals")


def png_seeds() -> list[bytes]:
    from PIL import Image

    rng = np.random.default_rng(5)
    out = []
    for pixels in (rng.integers(0, 256, (8, 8), dtype=np.uint8),
                   rng.integers(0, 65536, (6, 9), dtype=np.uint16),
                   rng.integers(0, 256, (5, 5, 3), dtype=np.uint8)):
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="PNG")
        out.append(buffer.getvalue())
    return out


@reader("heightmap", suffix=".png", seeds=png_seeds, mutate=mutate_lib.mutate_png)
def read_heightmap(path: Path) -> None:
    """``footfall ground --terrain map.png``'s read, then rays down over it."""
    from footfall.terrain import load_heightmap

    terrain = load_heightmap(path, (10.0, 10.0), (0.0, 1.0))
    grid = np.stack(np.meshgrid(np.linspace(0, 10, 9), np.linspace(0, 10, 9)), -1)
    hits = terrain.raycast_down(grid.reshape(-1, 2))
    check(bool(hits.hit.all()), "rays inside the heightmap miss")
    check_finite(hits.point, "hit points")


# -------------------------------------------------------------------------------------- JSON
_CMU_NAMES: list[str] = []


def _cmu_names() -> list[str]:
    if not _CMU_NAMES:
        from footfall import bvh

        _CMU_NAMES.extend(bvh.load(DATA / "bvh" / "cmu_131_01.bvh").skeleton.names)
    return _CMU_NAMES


def mapping_seeds() -> list[bytes]:
    from footfall.humanoid import auto_map

    return [json.dumps(auto_map(_cmu_names()), indent=2).encode()]


@reader("mapping", suffix=".json", seeds=mapping_seeds, mutate=mutate_lib.mutate_json)
def read_mapping(path: Path) -> None:
    """``footfall retarget --mapping file.json``'s read against the CMU skeleton."""
    from footfall.humanoid import load_mapping

    load_mapping(path, _cmu_names())


def settings_seeds() -> list[bytes]:
    from footfall.retarget import RetargetSettings

    changed = RetargetSettings()
    changed["floor_height"] = 0.25
    return [json.dumps(RetargetSettings().to_dict(), indent=2).encode(),
            json.dumps(changed.to_dict()).encode()]


@reader("settings", suffix="_settings.json", seeds=settings_seeds, mutate=mutate_lib.mutate_json)
def read_settings(path: Path) -> None:
    """A settings file loaded twice at start-up: a bad one is set aside once, then defaults."""
    import warnings

    from footfall.retarget.settings import SettingsWarning, load_settings

    avatar = path.name[: -len("_settings.json")]
    original = path.read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_settings(avatar, path.parent)
    ours = [w for w in caught if issubclass(w.category, SettingsWarning)]
    if ours:
        check(not path.exists(), "a corrupt settings file was reported but not set aside")
        aside = sorted(path.parent.glob(path.name + ".corrupt*"))
        check(len(aside) == 1 and aside[0].read_bytes() == original,
              "the corrupt file was not set aside byte-identical")
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        with warnings.catch_warnings(record=True) as again:
            warnings.simplefilter("always")
            load_settings(avatar, path.parent)
        check(not again, "the second start-up warned again")
        path.write_bytes(original)
        load_settings(avatar, path.parent, on_corrupt="raise")  # clean SettingsError expected
        raise Garbage("raise mode accepted a file that reset mode set aside")
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


# ------------------------------------------------------------------------------ command line
def bvh_cli_seeds() -> list[bytes]:
    """The BVH seeds; first imports every command module here in the parent, so that forked
    children do not each import viser and the rest again."""
    from footfall.cli import build_parser

    build_parser()
    return bvh_seeds()


@reader("bvh-cli", suffix=".bvh", seeds=bvh_cli_seeds, mutate=mutate_lib.mutate_bvh)
def read_bvh_cli(path: Path) -> None:
    """``footfall info FILE``: exit 0 with a finite description, or exit 2 with one line on
    stderr naming the file (re-raised here as that error, so the harness sees a clean one)."""
    import contextlib

    from footfall.cli import main
    from footfall.errors import FootfallError

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["info", str(path)])
    if code == 0:
        check(err.getvalue() == "", f"exit 0 but stderr says {err.getvalue()[:200]!r}")
        check("inf" not in out.getvalue() and "nan" not in out.getvalue(), "info prints inf/nan")
        return
    lines = err.getvalue().splitlines()
    check(code == 2 and len(lines) == 1 and out.getvalue() == "",
          f"exit {code}, stdout {out.getvalue()[:100]!r}, stderr {err.getvalue()[:300]!r}")
    raise FootfallError(lines[0])


def bvh_ground_seeds() -> list[bytes]:
    """The BVH seeds; first compiles (or loads) the grounding kernels and imports the commands
    here in the parent, so that every forked child starts with them ready."""
    from footfall import kernels
    from footfall.cli import build_parser

    kernels.prepare(groups=("grounding", "clip"))
    build_parser()
    return bvh_seeds()


@reader("bvh-ground", suffix=".bvh", seeds=bvh_ground_seeds, mutate=mutate_lib.mutate_bvh)
def read_bvh_ground(path: Path) -> None:
    """``footfall ground FILE --terrain level``: a clip whose frames read back finite (as many
    as went in), or exit 2 with one stderr line naming the file (re-raised here as that error).
    Empty clips, giant tokens and scale bombs come from :func:`fuzz_mutate.mutate_bvh`."""
    import contextlib

    from footfall import bvh
    from footfall.cli import main
    from footfall.errors import FootfallError

    out = path.with_name("grounded.bvh")
    stdout, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(err):
        code = main(["ground", str(path), "--terrain", "level", "-o", str(out), "--quiet"])
    if code == 0:
        clip, grounded = bvh.load(path), bvh.load(out)
        check(grounded.frame_count == clip.frame_count > 0, "frames lost or made up")
        check_finite(grounded.global_positions(), "grounded positions")
        return
    lines = err.getvalue().splitlines()
    check(code == 2 and len(lines) == 1 and not out.exists(),
          f"exit {code}, stderr {err.getvalue()[:300]!r}, written {out.exists()}")
    raise FootfallError(lines[0])


# ------------------------------------------------------------ the motion front door's readers
import fuzz_motion_files  # noqa: E402,F401 - registers motion-mdm, motion-vrma, motion-cli
