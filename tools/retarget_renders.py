"""Blender renders of retargeted avatars for docs/retarget.md (issue 35 item 5): side and front
views, floor visible, of a few moments of a walk on every shared avatar.

Run (one line, from the project root; Blender 3.4 on the PATH):
``PYTHONPATH=src .venv/bin/python tools/retarget_renders.py``
(``--clip cmu_131_01 --avatars CesiumMan``; ``--out DIR``). For each avatar the clip goes
through ``retarget_file`` (what ``footfall retarget SRC --to AVATAR -o OUT`` runs, default
options); ``tools/blender_views.py`` renders the written file at three moments — spread over
the clip, each where a source foot stands (``tests/motion_measures.stance`` on the clip's own
foot points) — and the frames are put together as one picture per avatar:
``OUT/CLIP__AVATAR.png``, the side views above (seen from the avatar's left, walking to the
right), the front views below (walking towards the camera). The floor is a green band: its
middle line is y = 0. An avatar whose file has its own ``Walking`` animation (RobotExpressive)
is rendered in it too, three moments of its loop (``OUT/AVATAR__own_Walking.png``): how its
author made it walk, beside how footfall makes it walk. An avatar without a skinned body (the
two VRM samples: bone gizmos and test quads) is drawn as its skeleton, a stick from joint to
joint. Prints one Markdown row per picture with the lowest and highest vertex Blender evaluated
per moment.

``--live``: the live path instead — ``footfall live --replay CLIP --to AVATAR --record OUT``
run as a user runs it (the clip streamed at its own rate through ``Retargeter.step``, the
frames the stream produced recorded), up to the last moment, and the recording rendered at the
same moments: ``OUT/CLIP__AVATAR__live.png``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from footfall.gltf import load_avatar
from footfall.motion_io import load_motion
from footfall.retarget.files import RetargetOptions, retarget_file
from footfall.retarget.preview import pick_moments

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import motion_measures  # noqa: E402  (tests/motion_measures.py)
import skinned_feet  # noqa: E402  (tests/skinned_feet.py: the clip's own foot points)

DATA = ROOT / "tests" / "data"
AVATARS = ("CesiumMan.glb", "RobotExpressive.glb", "vrm1_debug_robot.vrm",
           "vrm1_mtoon_uv_test.vrm")
MOMENTS = 3
SCALE = 0.5  # each 600 × 700 render drawn at half size in the picture
#: An avatar file's own animation of this name is rendered too, as its author made it walk.
REFERENCE = "Walking"


def record_live(source: Path, avatar: Path, output: Path, seconds: float) -> None:
    """``footfall live --replay SOURCE --to AVATAR --record OUTPUT`` for ``seconds``, no view,
    no control panel, settings in a scratch folder (a user's saved settings left alone)."""
    with tempfile.TemporaryDirectory() as settings:
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from footfall.cli import main; "
             "sys.exit(main())", "live", "--replay", str(source), "--to",
             str(avatar), "--record", str(output), "--duration", f"{seconds:.2f}", "--no-view",
             "--no-control", "--quiet", "--settings-dir", settings],
            capture_output=True, text=True, timeout=120 + 2 * seconds, check=False)
    if done.returncode != 0 or not output.exists():
        raise RuntimeError(f"footfall live on {avatar.name}: {done.stderr[-800:]}")


def moments(source: Path, count: int) -> list[int]:
    """``count`` frames of the clip spread over it, each where a source foot stands."""
    clip = load_motion(source).clip
    points = skinned_feet.source_foot_points(clip)
    planted = np.stack([motion_measures.stance(motion_measures.lowest_points(points[:, k]),
                                               clip.fps) for k in range(2)], axis=-1)
    return pick_moments(planted, count)


def render(output: Path, prefix: Path, fps: float, frames: list[int], bones: list[str],
           action: str = "") -> list[str]:
    """Blender's side and front renders of ``output`` at ``frames`` (``bones``: joint names,
    when given its skeleton is drawn as sticks and its meshes hidden; ``action``: the file's
    own animation of that name instead of its first); its printed lines."""
    with tempfile.TemporaryDirectory() as folder:
        glb = Path(folder) / "in.glb"  # Blender's importer takes a .vrm by its .glb name
        shutil.copyfile(output, glb)
        done = subprocess.run(
            ["blender", "-b", "-P", str(ROOT / "tools" / "blender_views.py"), "--", str(glb),
             str(prefix), f"{fps:g}", *(["--bones", ",".join(bones)] if bones else []),
             *(["--action", action] if action else []),
             *(str(f) for f in frames)],
            capture_output=True, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("frame ")]
    if done.returncode != 0 or len(lines) != len(frames):
        raise RuntimeError(f"blender on {output.name}: {done.stdout[-800:]}{done.stderr[-800:]}")
    return lines


def own_walk(avatar: object) -> float | None:
    """Seconds of the avatar file's own animation :data:`REFERENCE` (None: it has none)."""
    document = avatar.document  # type: ignore[attr-defined]
    for animation in (document.animations if document is not None else []):
        if animation.name == REFERENCE:
            return max(float(document.accessors[s.input].max[0]) for s in animation.samplers)
    return None


def montage(prefix: Path, frames: list[int], path: Path) -> None:
    """The side renders in a row above the front renders, at :data:`SCALE`."""
    rows = [[Image.open(f"{prefix}_{view}_f{f:03d}.png").convert("RGB") for f in frames]
            for view in ("side", "front")]
    w, h = (round(SCALE * s) for s in rows[0][0].size)
    sheet = Image.new("RGB", (w * len(frames), h * 2), "white")
    for r, row in enumerate(rows):
        for c, image in enumerate(row):
            sheet.paste(image.resize((w, h), Image.LANCZOS), (c * w, r * h))
    sheet.save(path, optimize=True)


def row(name: str, picture: Path, frames: list[int], lines: list[str]) -> None:
    """Print one Markdown row: the picture and Blender's lowest / highest vertex per frame."""
    found = [re.findall(r"[-+]?\d+\.\d", ln) for ln in lines]
    heights = ", ".join(f"{lo} / {hi}" for lo, hi in found)
    shown = picture.relative_to(ROOT) if picture.is_relative_to(ROOT) else picture  # --out
    print(f"| {name} | {shown} | {', '.join(map(str, frames))} | "
          f"{heights} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Retarget, render and assemble every avatar's picture; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clip", default="games105_walk60", help="clip stem in tests/data/bvh")
    parser.add_argument("--avatars", nargs="*", default=[], help="avatar stems (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "renders")
    parser.add_argument("--live", action="store_true",
                        help="render what `footfall live --replay CLIP --record` writes")
    args = parser.parse_args(argv)
    if shutil.which("blender") is None:
        print("blender is not on the PATH (apt-get install blender)", file=sys.stderr)
        return 2
    source = DATA / "bvh" / f"{args.clip}.bvh"
    fps = load_motion(source).clip.fps
    frames = moments(source, MOMENTS)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| avatar | picture | frames | lowest / highest vertex per frame (cm) |\n"
          "|---|---|---|---|")
    for name in AVATARS:
        avatar = DATA / "avatars" / name
        if args.avatars and avatar.stem not in args.avatars:
            continue
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / f"out{avatar.suffix}"
            if args.live:  # a recording is a GLB whatever the avatar's file
                output = output.with_suffix(".glb")
                record_live(source, avatar, output, (max(frames) + 1) / fps + 1.0)
            else:
                retarget_file(source, output, RetargetOptions(target=str(avatar)))
            prefix = Path(folder) / "render"
            loaded = load_avatar(avatar)
            skinned = bool(loaded.document is not None and loaded.document.skins)
            lines = render(output, prefix, fps, frames,
                           [] if skinned else list(loaded.skeleton.names))
            picture = args.out / f"{args.clip}__{avatar.stem}{'__live' * args.live}.png"
            montage(prefix, frames, picture)
        row(f"{avatar.stem}{'' if skinned else ' (bones)'}", picture, frames, lines)
        seconds = own_walk(loaded)
        # the avatar as its author animated its walk, for comparison (offline pictures only)
        if seconds is not None and not args.live:
            own = [round(k * seconds * 30.0 / MOMENTS) for k in range(MOMENTS)]
            with tempfile.TemporaryDirectory() as folder:
                prefix = Path(folder) / "render"
                lines = render(avatar, prefix, 30.0, own, [], REFERENCE)
                picture = args.out / f"{avatar.stem}__own_{REFERENCE}.png"
                montage(prefix, own, picture)
            row(f"{avatar.stem}: its own {REFERENCE}", picture, own, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
