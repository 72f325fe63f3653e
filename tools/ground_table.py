"""Print the `footfall ground` table of docs/experiment.md: every BVH in a folder grounded on
the stairs, hills and rocks scenes (and flat, for reference), before → after.

Run: ``.venv/bin/python tools/ground_table.py [FOLDER]`` (default ``tests/data/bvh``; about
10 s). Each clip is placed by :func:`footfall.grounding.postprocess.place_clip`, as
``footfall ground`` does.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from footfall import bvh
from footfall.grounding.postprocess import ground_clip
from footfall.terrain import scene

TERRAINS = ("stairs", "hills", "rocks", "flat")


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/bvh")
    paths = sorted(folder.glob("*.bvh"))
    if not paths:
        raise SystemExit(f"no .bvh files in {folder}")
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
          f"(`.venv/bin/python tools/ground_table.py {folder}`):\n")
    print("| clip | terrain | frames | contact % | penetration mm before → after | floating mm "
          "before → after | foot-skate ratio (GMD) before → after | contact skate ratio after "
          "| contact error mm before → after | swing raised by at most (cm) | fallback frames |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    clips = {path.stem: bvh.load(path) for path in paths}
    for name in TERRAINS:
        terrain = scene(name)
        for stem, clip in clips.items():
            result = ground_clip(clip, terrain)
            b, a = result.before, result.after
            print(
                f"| {stem} | {name} | {clip.frame_count} | {100 * result.contacts.mean():.0f} | "
                f"{1000 * b['penetration_m']:.1f} → {1000 * a['penetration_m']:.2f} | "
                f"{1000 * b['floating_m']:.1f} → {1000 * a['floating_m']:.2f} | "
                f"{b['foot_skate_ratio']:.3f} → {a['foot_skate_ratio']:.3f} | "
                f"{a['contact_skate_ratio']:.3f} | "
                f"{1000 * b['contact_error_m']:.1f} → {1000 * a['contact_error_m']:.1f} | "
                f"{100 * result.swing_lift_max_m:.1f} | {result.fallback_frames} |"
            )


if __name__ == "__main__":
    main()
