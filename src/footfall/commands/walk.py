"""``footfall walk``: write a procedural walk (seed 004), grounded on a terrain, as a BVH file."""

from __future__ import annotations

import argparse
import math

import numpy as np

from footfall import bvh, terrain
from footfall.commands import number_in
from footfall.errors import SettingsError
from footfall.gait import GaitParams, ProceduralWalker
from footfall.gait.grounded import GroundedWalker

NAME = "walk"
HELP = "generate a procedural walk (any humanoid BVH skeleton or the bunny) and save it as BVH"
DESCRIPTION = (
    "Walk a character procedurally (seed 004: phase clock, five stance phases, stride angle, "
    "bob, gaze, arm swing, twist, slope lean, swing clearance, planted feet locked) for the given "
    "seconds at 60 fps. With --terrain the walk reads the slope from that scene and is grounded "
    "by the foot placement pipeline (rays, pelvis, leg IK, sole alignment); the character "
    "turns around at the scene's ends. Without --terrain it walks on the flat floor along +X. "
    "The result is written as a BVH file (metres, Y up) that Blender opens."
)
MAX_SECONDS = 3600.0
KERNELS = ("grounding", "clip", "walk")  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall walk``."""
    parser.add_argument("-o", "--output", required=True, help="the .bvh file to write")
    parser.add_argument("--terrain", choices=sorted(terrain.SCENES), default=None,
                        help="built-in scene to walk on (default: the flat floor)")
    parser.add_argument("--seconds", type=number_in(float, 0.0, MAX_SECONDS, "seconds"),
                        default=10.0, help="length of the walk in seconds (default 10)")
    parser.add_argument("--skeleton", default=None,
                        help="a BVH file whose skeleton walks (default: the bunny)")
    parser.add_argument("--step-rate", type=float, default=1.6, help="steps per second (1.6)")
    parser.add_argument("--stride-deg", type=float, default=28.0,
                        help="stride half-angle in degrees (28)")
    parser.add_argument("--start-x", type=float, default=0.0, help="start position along X (m)")
    parser.add_argument("--no-grounding", action="store_true",
                        help="with --terrain, write the walker's own pose (feet at the ground "
                             "under them) instead of the grounding pipeline's")
    parser.add_argument("--rest", action="store_true",
                        help="reduced motion: write one resting pose instead of a walk")


def run(args: argparse.Namespace) -> int:
    """Generate, ground and save the walk; prints one summary line."""
    params = GaitParams(step_rate_hz=args.step_rate, stride_deg=args.stride_deg,
                        reduced_motion=bool(args.rest))
    if not math.isfinite(args.start_x):
        raise SettingsError(f"--start-x must be finite, got {args.start_x!r}")
    skeleton = bvh.load(args.skeleton).skeleton if args.skeleton else None
    ground = terrain.scene(args.terrain) if args.terrain else None
    start = (args.start_x, 0.0, 0.0)
    seconds = 0.0 if args.rest else args.seconds
    if ground is not None and not args.no_grounding and not args.rest:
        grounded = GroundedWalker(ground, skeleton, params=params, start=start)
        _patrol(grounded.walker, ground)
        clip = grounded.to_clip(grounded.generate(seconds))
        pelvis = grounded.walker.rig.root
        how = f"grounded on {args.terrain}"
    else:
        walker = ProceduralWalker(skeleton, params=params, start=start)
        if ground is not None:
            _patrol(walker, ground)
        clip = walker.to_clips(list(walker.iterate(seconds, ground)))[0]
        pelvis = walker.rig.root
        how = f"on {args.terrain} (not grounded)" if ground is not None else "on the flat floor"
    clip.check_finite()
    bvh.save(clip, args.output)
    # The pelvis's world path (F, 3), metres: a static root above it never moves.
    root = clip.global_positions()[:, pelvis]
    travelled = float(np.sum(np.linalg.norm(np.diff(root[:, [0, 2]], axis=0), axis=1)))
    who = "bunny" if skeleton is None else args.skeleton
    print(f"wrote {args.output}: {clip.frame_count} frames at {clip.fps:g} fps, {who} "
          f"({clip.skeleton.joint_count} joints), {'resting pose' if args.rest else how}, "
          f"{travelled:.2f} m walked")
    return 0


def _patrol(walker: ProceduralWalker, ground: terrain.Terrain) -> None:
    """Turn around a step length before either end of the scene."""
    (x_min, _), (x_max, _) = ground.bounds
    margin = 2.0 * walker.step_length + walker.leg_length
    walker.patrol(x_min + margin, x_max - margin)


