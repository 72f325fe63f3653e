"""Contact sheets and the floor table of docs/retarget.md (issue 24): every shared humanoid clip
onto every shared avatar, through the real command line, measured from the written file.

Run: ``PYTHONPATH=src .venv/bin/python tools/retarget_sheet.py --out docs/images/retarget``
(``--clip cmu_131_01 --avatar CesiumMan`` keeps the pairs of the named stems). For each
pair it runs ``footfall retarget SRC --to AVATAR -o OUT.glb|.vrm --preview SHEET.png --quiet``
(the outputs go to a temporary folder unless ``--keep DIR``; the sheets to ``--out``) and prints
one Markdown row. Nothing is taken from the retargeter's own figures but the size ratio it prints:

- the source's contacts and lowest foot points: ``tests/skinned_feet.py`` (``source_contacts``,
  ``source_soles``: the foot joints, the joints below and their End Sites, low and slow);
- the target's feet: the written file skinned as glTF defines it (``skinned_feet.skin``, pygltflib
  only; rigid parts follow their node), a foot's sole = its lowest vertex. A file without a skin
  (armature only: the two VRM samples, whose meshes are orientation gizmos on the bones, reaching
  15 cm below the floor in their own rest pose) is measured at its foot joint and the joints below
  it, read back with ``footfall.gltf.load_animation``;
- *planted sole*: the sole's height above the floor (y = 0) over the frames the source foot is
  planted — median, 5th percentile and minimum per foot, and the share of those frames within
  −1…+1.5 cm (issue 24's band);
- *lowest vertex*: the lowest point of the whole mesh (any part: hands, knees) over the clip;
- *swing clearance*: per swing (a run of unplanted frames ≥ 0.1 s) the foot's highest lowest
  point above its stance level (the source: median of its lowest point over its planted frames;
  the target: the floor), median over the swings of both feet; the source's times the size ratio
  against the target's;
- GMD's foot-skate ratio (``footfall.metrics.gmd_foot_skate_ratio``, as released: 20 fps, floor
  at the lowest joint, toe-base joints, the feet where a rig has no toes) of the source and of
  the target (the file's joints);
- PhysDiff penetration and floating (``footfall.metrics.physdiff_metrics``) of the target's
  lowest vertex per frame, mm. Floating is reported, never rewarded: a low figure needs the
  penetration beside it.

Clips at more than 30 fps are measured at every ``round(fps / 30)``-th frame (the skinned mesh
of a 23 s clip at 120 fps would not fit in memory otherwise); GMD uses every frame.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.footing.runs import segments
from footfall.gltf import load_animation, load_avatar
from footfall.humanoid import map_skeleton
from footfall.metrics import gmd_foot_skate_ratio, physdiff_metrics
from footfall.skeleton import Clip, Skeleton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import skinned_feet  # noqa: E402  (tests/skinned_feet.py: the independent skinner)

#: Not part of the sheet: no legs, and the same motion as cmu_131_01 in other units.
SKIPPED = ("pybvh_rotation_first_root", "cmu_131_01_metres")
BAND = (-0.01, 0.015)  # issue 24: a planted sole within −1…+1.5 cm of the floor
MEASURE_FPS = 30.0
MIN_SWING = 0.1  # seconds: shorter unplanted runs are no swings


def pairs(bvh_dir: Path, avatar_dir: Path, clips: list[str], avatars: list[str]
          ) -> list[tuple[Path, Path]]:
    """Every humanoid clip × every avatar (.glb, .gltf, .vrm), sorted; ``clips`` / ``avatars``:
    the stems to keep (all when empty)."""
    sources = [p for p in sorted(bvh_dir.glob("*.bvh"))
               if p.stem not in SKIPPED and (not clips or p.stem in clips)]
    targets = [p for p in sorted(avatar_dir.iterdir())
               if p.suffix.lower() in (".glb", ".gltf", ".vrm")
               and (not avatars or p.stem in avatars)]
    return [(c, a) for c in sources for a in targets]


def run_cli(source: Path, avatar: Path, output: Path, sheet: Path) -> float:
    """``footfall retarget`` as a user runs it; returns the size ratio it prints."""
    command = [sys.executable, "-c", "import sys; from footfall.cli import main; "
               "sys.exit(main(sys.argv[1:]))", "retarget", str(source), "--to", str(avatar),
               "-o", str(output), "--preview", str(sheet), "--quiet"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"),
                                                    env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"footfall retarget {source.name} --to {avatar.name}: "
                           f"{(done.stdout + done.stderr).strip()}")
    found = re.search(r"size ratio ([0-9.]+)", done.stdout)
    if found is None:
        raise RuntimeError(f"no size ratio in: {done.stdout!r}")
    return float(found.group(1))


def below(skeleton: Skeleton, joint: int) -> list[int]:
    """``joint`` and every joint below it."""
    return [j for j in range(skeleton.joint_count) if joint in skeleton.chain(j)]


def target_feet(output: Path, fps: float, every: int
                ) -> tuple[skinned_feet.SkinnedClip, str, Clip, dict[str, str]]:
    """The written file's points over the clip (every ``every``-th frame) with its feet marked,
    what they are ("mesh" or "joints"), its joints as a clip at the source's rate and its bone
    map."""
    avatar = load_avatar(output)
    mapping = map_skeleton(avatar.skeleton, avatar.target_mapping()).mapping
    feet = (mapping["LeftFoot"], mapping["RightFoot"])
    joints = load_animation(output, fps=fps, avatar=avatar)
    if avatar.document is not None and avatar.document.skins:
        with tempfile.TemporaryDirectory() as folder:
            # pygltflib reads a binary file by its suffix: a .vrm is a .glb by another name.
            glb = Path(folder) / "out.glb"
            glb.write_bytes(output.read_bytes())
            skinned = skinned_feet.skin(glb, feet, every)
        if skinned.foot.any(axis=1).all():
            return skinned, "mesh", joints, mapping
    # No skin: the VRM samples' meshes are bone gizmos hung on the nodes, not a body.
    positions = joints.global_positions()[::every]
    skeleton = joints.skeleton
    mask = np.zeros((2, skeleton.joint_count), dtype=bool)
    for side, name in enumerate(feet):
        mask[side, below(skeleton, skeleton.index(name))] = True
    return (skinned_feet.SkinnedClip(positions, mask, np.arange(len(positions)) * every / fps),
            "joints", joints, mapping)


def swing_peaks(height: np.ndarray, planted: np.ndarray, level: np.ndarray, fps: float
                ) -> np.ndarray:
    """Highest ``height (F, 2)`` above ``level (2,)`` in each swing (unplanted run of at least
    :data:`MIN_SWING` seconds, not touching the clip's ends), metres."""
    peaks = []
    for side in range(2):
        for start, stop in segments(~planted[:, side]):
            if start == 0 or stop == len(height) or (stop - start) / fps < MIN_SWING:
                continue
            peaks.append(height[start:stop, side].max() - level[side])
    return np.array(peaks)


def gmd(clip: Clip, mapping: dict[str, str] | None = None) -> float:
    """GMD's foot-skate ratio of ``clip`` at its toe-base joints (its feet on rigs without
    toes); ``mapping``: the rig's own bone map (a VRM file's), else guessed."""
    bones = map_skeleton(clip.skeleton, mapping).mapping
    left, right = (clip.skeleton.index(bones.get(toe) or bones[foot])
                   for toe, foot in (("LeftToes", "LeftFoot"), ("RightToes", "RightFoot")))
    return gmd_foot_skate_ratio(clip.global_positions(), clip.fps, left, right)


def measure(source_path: Path, output: Path, size: float) -> dict[str, object]:
    """The figures of one pair (see the module docstring)."""
    source = bvh.load(source_path)
    every = max(1, round(source.fps / MEASURE_FPS))
    rate = source.fps / every
    planted = skinned_feet.source_contacts(source, every)
    heights_s, _ = skinned_feet.source_soles(source)
    heights_s = heights_s[::every]
    skinned, kind, joints, mapping = target_feet(output, source.fps, every)
    frames = min(len(planted), len(skinned.vertices))
    planted, heights_s = planted[:frames], heights_s[:frames]
    vertices = skinned.vertices[:frames]
    soles = np.stack([vertices[:, skinned.foot[side], 1].min(axis=1) for side in range(2)],
                     axis=-1)
    row: dict[str, object] = {"kind": kind, "size": size, "frames": frames}
    inside = []
    for side, name in enumerate(("left", "right")):
        on = soles[planted[:, side], side]
        row[f"{name}_median"] = np.median(on) if len(on) else np.nan
        row[f"{name}_p05"] = np.percentile(on, 5) if len(on) else np.nan
        row[f"{name}_min"] = on.min() if len(on) else np.nan
        inside.append((on >= BAND[0]) & (on <= BAND[1]))
    both = np.concatenate(inside)
    row["stance"] = len(both)
    row["in_band"] = both.mean() if len(both) else np.nan
    row["lowest"] = vertices[..., 1].min()
    level_s = np.array([np.median(heights_s[planted[:, k], k]) if planted[:, k].any()
                        else np.nan for k in range(2)])
    peaks_s = swing_peaks(heights_s, planted, level_s, rate)
    peaks_t = swing_peaks(soles, planted, np.zeros(2), rate)
    row["swings"] = len(peaks_s)
    row["swing_source"] = size * np.median(peaks_s) if len(peaks_s) else np.nan
    row["swing_target"] = np.median(peaks_t) if len(peaks_t) else np.nan
    row["gmd_source"] = gmd(source)
    row["gmd_target"] = gmd(joints, mapping)
    physdiff = physdiff_metrics(vertices[..., 1], vertices[..., [0, 2]])
    row["penetration"] = physdiff["penetration_mm"]
    row["floating"] = physdiff["floating_mm"]
    return row


HEADER = (
    "| clip → avatar | size | measured at | planted sole median L / R (cm) | 5th pct L / R | "
    "min L / R | stance frames within −1…+1.5 cm | lowest vertex (cm) | swing clearance, "
    "source × size → target (cm) | GMD source → target | PhysDiff penetration / floating "
    "(mm) |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def cm(value: object) -> str:
    """Metres as signed centimetres, ``–`` for none."""
    v = float(value)  # type: ignore[arg-type]
    return "–" if not np.isfinite(v) else f"{100 * v:+.1f}"


def markdown(pair: str, row: dict[str, object]) -> str:
    """One table row."""
    share = float(row["in_band"])  # type: ignore[arg-type]
    return (
        f"| {pair} | {row['size']:.3f} | {row['kind']} | {cm(row['left_median'])} / "
        f"{cm(row['right_median'])} | {cm(row['left_p05'])} / {cm(row['right_p05'])} | "
        f"{cm(row['left_min'])} / {cm(row['right_min'])} | "
        f"{'–' if not np.isfinite(share) else f'{100 * share:.0f} %'} of {row['stance']} | "
        f"{cm(row['lowest'])} | {cm(row['swing_source'])} → {cm(row['swing_target'])} "
        f"({row['swings']}) | {row['gmd_source']:.3f} → {row['gmd_target']:.3f} | "
        f"{row['penetration']:.1f} / {row['floating']:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Run every pair, write the sheets, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "retarget",
                        help="folder for the contact sheets (CLIP__AVATAR.png)")
    parser.add_argument("--bvh", type=Path, default=ROOT / "tests" / "data" / "bvh")
    parser.add_argument("--avatars", type=Path, default=ROOT / "tests" / "data" / "avatars")
    parser.add_argument("--clip", nargs="*", default=[],
                        help="clip stems to keep (default: every humanoid clip)")
    parser.add_argument("--avatar", nargs="*", default=[],
                        help="avatar stems to keep (default: every avatar)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the retargeted files in this folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    todo = pairs(args.bvh, args.avatars, args.clip, args.avatar)
    if not todo:
        print("no pairs", file=sys.stderr)
        return 2
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(HEADER)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for source, avatar in todo:
            stem = f"{source.stem}__{avatar.stem}"
            suffix = ".vrm" if avatar.suffix.lower() == ".vrm" else ".glb"
            output = folder / f"{stem}{suffix}"
            size = run_cli(source, avatar, output, args.out / f"{stem}.png")
            print(markdown(f"{source.stem} → {avatar.stem}", measure(source, output, size)),
                  flush=True)
    sheets = sorted(args.out.glob("*.png"))
    total = sum(p.stat().st_size for p in sheets)
    print(f"\n{len(todo)} pairs, started {started}; {len(sheets)} sheets in {args.out}, "
          f"{total / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
