"""``footfall walk``: write a procedural walk (seed 004), grounded on a terrain, as a BVH file."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from footfall import bvh, terrain
from footfall.commands import number_in
from footfall.errors import SettingsError
from footfall.gait import PATHS, GaitParams, ProceduralWalker, WalkPath
from footfall.gait.grounded import GroundedWalker
from footfall.gait.path import MAX_RADIUS
from footfall.motion_io import save_motion
from footfall.motion_io.cli import check_outputs

NAME = "walk"
HELP = "generate a procedural walk (any humanoid BVH skeleton or the bunny) and save it as BVH"
DESCRIPTION = (
    "Walk a character procedurally (seed 004: phase clock, five stance phases, stride angle, "
    "bob, gaze, arm swing, twist, slope lean, swing clearance, planted feet locked) for the given "
    "seconds at 60 fps. With --terrain the walk reads the slope from that scene and is grounded "
    "by the foot placement pipeline (rays, hips, leg IK, sole alignment). Without --terrain it "
    "walks on the flat floor. It starts at --start-x heading +X and walks straight (turning "
    "around at a scene's ends), or with --path circle/eight along a circle of --radius metres "
    "(an eight: a full circle to one side, then one to the other): the body faces along the "
    "path and each foot lands beside it, so the inside foot takes shorter steps and planted "
    "feet do not slide. The result is written as a BVH file (metres, Y up) that Blender opens."
)
DEFAULT_RADIUS = 1.0  # metres
MAX_SECONDS = 3600.0
WALK_OUTPUTS = (".bvh", ".glb", ".gltf")  # a walk has no joint layout for .npy
KERNELS = ("grounding", "clip", "walk")  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall walk``."""
    parser.add_argument("-o", "--output", required=True,
                        help="the file to write: .bvh, or .glb/.gltf (a skeleton-only glTF)")
    parser.add_argument("--terrain", choices=sorted(terrain.SCENES), default=None,
                        help="built-in scene to walk on (default: the flat floor)")
    parser.add_argument("--seconds", type=number_in(float, 0.0, MAX_SECONDS, "seconds"),
                        default=10.0, help="length of the walk in seconds (default 10)")
    parser.add_argument("--skeleton", default=None,
                        help="a BVH file whose skeleton walks (default: the bunny)")
    parser.add_argument("--step-rate", type=float, default=1.6, help="steps per second (1.6)")
    parser.add_argument("--stride-deg", type=float, default=28.0,
                        help="stride half-angle in degrees (28)")
    parser.add_argument("--start-x", type=float, default=0.0,
                        help="start position along X (m); a circle is centred there (at z = 0), "
                             "an eight crosses itself there")
    # Taken as text and checked in run(): a bad value is one error line, not argparse's usage.
    parser.add_argument("--path", default="straight", metavar="{" + ",".join(PATHS) + "}",
                        help="straight ahead (default), round a circle, or a figure eight of "
                             "two circles touching where it starts")
    parser.add_argument("--radius", default=None, metavar="METRES",
                        help=f"radius of the circle (each of the eight's two), metres: at least "
                             f"one step length of the skeleton, at most {MAX_RADIUS:g} "
                             f"(default {DEFAULT_RADIUS:g}); with --terrain the path and feet "
                             f"must stay on the scene")
    parser.add_argument("--turn", default=None, metavar="{left,right}",
                        help="which way a circle turns (an eight's first circle); default left")
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
    if Path(args.output).suffix.lower() not in WALK_OUTPUTS:
        raise SettingsError(f"-o {args.output}: walk writes {', '.join(WALK_OUTPUTS)}")
    check_outputs(args.output)  # its folder exists, before the walk is made
    path = _path(args)
    skeleton = bvh.load(args.skeleton).skeleton if args.skeleton else None
    ground = terrain.scene(args.terrain) if args.terrain else None
    start = path.start_for((args.start_x, 0.0, 0.0))
    seconds = 0.0 if args.rest else args.seconds
    if ground is not None and not args.no_grounding and not args.rest:
        grounded = GroundedWalker(ground, skeleton, params=params, start=start, path=path)
        _check_path(grounded.walker, path, start, ground, args.terrain)
        if path.straight:
            _patrol(grounded.walker, ground)
        clip = grounded.to_clip(grounded.generate(seconds))
        hips = grounded.walker.rig.root
        how = f"grounded on {args.terrain}"
    else:
        walker = ProceduralWalker(skeleton, params=params, start=start, path=path)
        _check_path(walker, path, start, ground, args.terrain)
        if ground is not None and path.straight:
            _patrol(walker, ground)
        clip = walker.to_clips(list(walker.iterate(seconds, ground)))[0]
        hips = walker.rig.root
        how = f"on {args.terrain} (not grounded)" if ground is not None else "on the flat floor"
    clip.check_finite()
    save_motion(clip, args.output)
    # The hips' world path (F, 3), metres: a static root above it never moves.
    root = clip.global_positions()[:, hips]
    travelled = float(np.sum(np.linalg.norm(np.diff(root[:, [0, 2]], axis=0), axis=1)))
    who = "bunny" if skeleton is None else args.skeleton
    if not path.straight:
        how += f", {path.kind} of radius {path.radius:g} m turning {_side_name(path.side)}"
    print(f"wrote {args.output}: {clip.frame_count} frames at {clip.fps:g} fps, {who} "
          f"({clip.skeleton.joint_count} joints), {'resting pose' if args.rest else how}, "
          f"{travelled:.2f} m walked")
    return 0


def _metres(value: float) -> str:
    """A position for a message: millimetres at most, no -0 or 1e-16 rounding noise."""
    return f"{round(float(value), 3) + 0.0:g}"


def _side_name(side: float) -> str:
    return "left" if side > 0 else "right"


def _path(args: argparse.Namespace) -> WalkPath:
    """The walk's path from ``--path``, ``--radius`` and ``--turn`` (checked here, so a bad
    value is one error line)."""
    if args.path not in PATHS:
        raise SettingsError(f"--path must be one of {', '.join(PATHS)}, got {args.path!r}")
    if args.path == "straight":
        given = [name for name in ("radius", "turn") if getattr(args, name) is not None]
        if given:
            raise SettingsError(f"--{given[0]} shapes a curved walk: add --path circle or "
                                f"--path eight (the walk is straight)")
        return WalkPath()
    if args.turn not in (None, "left", "right"):
        raise SettingsError(f"--turn must be left or right, got {args.turn!r}")
    side = -1.0 if args.turn == "right" else 1.0
    text = DEFAULT_RADIUS if args.radius is None else args.radius
    try:
        radius = float(text)
    except ValueError:
        raise SettingsError(f"--radius must be a number of metres, got {text!r}") from None
    if not 0.0 < radius <= MAX_RADIUS:  # NaN too
        raise SettingsError(f"--radius must be > 0 and ≤ {MAX_RADIUS:g} m, got {text}")
    return WalkPath(args.path, radius, side)


def _check_path(walker: ProceduralWalker, path: WalkPath, start: np.ndarray,
                ground: terrain.Terrain | None, name: str | None) -> None:
    """A curved path must be no tighter than one step, and with a scene stay on it with the
    feet (a foot off the scene would stand on nothing)."""
    if path.straight:
        return
    step = walker.step_length
    if path.radius < step:
        raise SettingsError(
            f"--radius {path.radius:g} m is tighter than one step of this skeleton "
            f"({step:.2f} m at --stride-deg {walker.params.stride_deg:g}): the body would turn "
            f"more than a radian a step; use --radius {math.ceil(step * 100) / 100:g} or more")
    if ground is None:
        return
    reach = float(np.abs(walker.rig.foot_lateral).max()
                  + np.abs(np.concatenate([walker.rig.heel, walker.rig.ball])[:, 2]).max())
    (x_min, z_min), (x_max, z_max) = path.bounds(start)
    (scene_x_min, scene_z_min), (scene_x_max, scene_z_max) = ground.bounds
    if (x_min - reach >= scene_x_min and x_max + reach <= scene_x_max
            and z_min - reach >= scene_z_min and z_max + reach <= scene_z_max):
        return
    # The box grows with the radius about the path's centre: the largest radius that fits.
    centre = np.array([x_min + x_max, z_min + z_max]) / 2
    half = np.array([x_max - x_min, z_max - z_min]) / (2 * path.radius)  # per metre of radius
    room = np.minimum(centre - [scene_x_min, scene_z_min], [scene_x_max, scene_z_max] - centre)
    fits = float(np.min((room - reach) / half))
    hint = (f"the largest radius that fits there is {math.floor(fits * 100) / 100:g} m"
            if fits >= step else "no curved walk fits there")
    raise SettingsError(
        f"--path {path.kind} --radius {path.radius:g} m from --start-x {_metres(start[0])} reaches "
        f"x {x_min - reach:.2f}…{x_max + reach:.2f} m, z {z_min - reach:.2f}…{z_max + reach:.2f} "
        f"m with the feet, off the {name} scene (x {scene_x_min:g}…{scene_x_max:g} m, "
        f"z {scene_z_min:g}…{scene_z_max:g} m): {hint}")


def _patrol(walker: ProceduralWalker, ground: terrain.Terrain) -> None:
    """Turn around a step length before either end of the scene."""
    (x_min, _), (x_max, _) = ground.bounds
    margin = 2.0 * walker.step_length + walker.leg_length
    walker.patrol(x_min + margin, x_max - margin)


