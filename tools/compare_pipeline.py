"""Hash every array the per-frame grounding pipeline returns, to show a refactor changes nothing.

``tools/compare_outputs.py`` hashes what the commands write (clips grounded on three terrains,
walks); this hashes the pipeline's own frames on the bunny, where the paths a command does not
take run too: stepping walkers of 1 and 5 characters one frame at a time and batched, four
characters with four parameter sets, foot locks and turns every other frame, given foot lifts,
hips offsets and sole angles, IK switched off for one character, a batch of 6 frames and a
rewind. Each array is hashed with its dtype and shape.

    PYTHONPATH=/path/to/old/src python tools/compare_pipeline.py -o /tmp/pipe_old.json
    PYTHONPATH=$PWD/src python tools/compare_pipeline.py -o /tmp/pipe_new.json \\
        --against /tmp/pipe_old.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from footfall.bunny import bunny_skeleton
from footfall.gait.stepping import StepWalker
from footfall.grounding.params import GroundingParams
from footfall.grounding.pipeline import FootPlan, GroundingPipeline
from footfall.terrain import scene

DT = 1 / 60


def hashed(out: dict[str, str], name: str, frame: object) -> None:
    """Every array field of ``frame`` (hash of bytes, dtype and shape) and its other values."""
    for key, value in vars(frame).items():
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value).tobytes() + f"{value.dtype}{value.shape}".encode()
            out[f"{name}.{key}"] = hashlib.sha256(data).hexdigest()
        elif value is not None:
            out[f"{name}.{key}"] = repr(value)


def frames() -> dict[str, str]:
    """The hashes of every run (module docstring)."""
    out: dict[str, str] = {}
    skeleton, terrain = bunny_skeleton(), scene("course")
    rng = np.random.default_rng(3)
    for k in (1, 5):
        walker = StepWalker(skeleton, terrain, k, ik=True, lateral_z=rng.uniform(-1, 1, k),
                            start_x=rng.uniform(0, 15, k), speed=rng.uniform(0.4, 1.2, k))
        for f in range(40):
            hashed(out, f"walker{k}.{f}", walker.step(DT))
        hashed(out, f"walker{k}.frames", walker.step_frames(DT, 7))
    walker = StepWalker(skeleton, terrain, 4, lateral_z=[-1, 0, 0.5, 1.0],
                        start_x=[1, 4, 8, 12], speed=[0.5, 0.8, 1.0, 1.2])
    params = [GroundingParams(), GroundingParams(smoothing=False),
              GroundingParams(foot_align=False), GroundingParams(tread_snap=False)]
    pipe = GroundingPipeline(skeleton, terrain, 4, params=params)
    for f in range(30):
        walker.distance = walker.distance + walker.speed * DT
        rotations, positions, plan = walker.flat_pose()
        locked = FootPlan(plan.stance, plan.swing, plan.plant_xz, plan.next_plant_xz,
                          lock_xz=plan.plant_xz + 0.01, lock_weight=np.full((4, 2), 0.5 + 0.01 * f),
                          lock_turn=np.full((4, 2), 0.1))
        frame = pipe.step(
            rotations, positions, locked if f % 2 else plan, DT, ik=[True, f % 3 > 0, True, True],
            foot_lift=rng.uniform(0, 0.02, (4, 2)) if f % 5 == 0 else None,
            hips_offset=rng.uniform(-0.05, 0, 4) if f % 7 == 0 else None,
            sole_angles=rng.uniform(-0.1, 0.1, (4, 2, 2)) if f % 4 == 0 else None)
        hashed(out, f"pipe.{f}", frame)
    rotations, positions, plan = walker.flat_pose(np.linspace(0, 2, 24).reshape(6, 4)
                                                  + walker.distance)
    hashed(out, "pipe.frames", pipe.step_frames(rotations, positions, plan, DT))
    pipe.rewind(2)
    first = FootPlan(plan.stance[0], plan.swing[0], plan.plant_xz[0], plan.next_plant_xz[0])
    hashed(out, "pipe.after_rewind", pipe.step(rotations[0], positions[0], first, DT))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help="JSON of hashes to write")
    parser.add_argument("--against", help="an earlier JSON to compare with")
    args = parser.parse_args()
    hashes = frames()
    Path(args.output).write_text(json.dumps(hashes, indent=0, sort_keys=True) + "\n")
    if not args.against:
        print(f"{len(hashes)} values hashed")
        return 0
    old = json.loads(Path(args.against).read_text())
    differ = [name for name in sorted(set(old) | set(hashes)) if old.get(name) != hashes.get(name)]
    for name in differ[:20]:
        print(f"DIFFERS: {name}")
    print(f"{len(hashes) - len(differ)} of {len(hashes)} values bit for bit equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
