"""``footfall render``: the demo's side-by-side comparison as a PNG, GIF or MP4, no browser."""

from __future__ import annotations

import argparse

from footfall.commands.demo import add_scene_arguments
from footfall.viewer.i18n import detect_language
from footfall.viewer.simulation import DemoSettings

NAME = "render"
HELP = "draw the two-bunny comparison to a .png, .gif or .mp4 (no browser needed)"
DESCRIPTION = (
    "Run the demo's simulation (left bunny IK on, right IK off) and draw it from the side with "
    "matplotlib: ground profile, both bunnies, light-blue rays with hit dots, red gap bars. "
    "A .png is one moment (--start); .gif and .mp4 are --seconds of animation. GIF needs no "
    "ffmpeg; MP4 needs imageio-ffmpeg."
)
KERNELS = ("grounding",)  # compiled kernels made ready first (footfall.kernels)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall render``."""
    parser.add_argument("--out", required=True, help="output file: .png, .gif or .mp4")
    add_scene_arguments(parser, "terrain (default course)")
    parser.add_argument("--step-height", type=float, default=0.10,
                        help="stair step height m (default 0.10)")
    parser.add_argument("--no-hips", "--no-pelvis", dest="no_hips", action="store_true",
                        help="switch the hips correction off (the hips lowered so the lower "
                        "foot reaches)")
    parser.add_argument("--start", type=float, default=22.8, help="seconds walked before the "
                        "first picture (default 22.8: both bunnies on the stairs)")
    parser.add_argument("--seconds", type=float, default=4.0, help="animation length (default 4)")
    parser.add_argument("--fps", type=float, default=20.0, help="animation frames per second")
    parser.add_argument("--width", type=int, default=800, help="picture width px (default 800)")
    parser.add_argument("--height", type=int, default=400, help="picture height px (default 400)")


def run(args: argparse.Namespace) -> int:
    """Render and print where the file went."""
    from footfall.viewer.render import RenderOptions, render  # matplotlib only when rendering

    settings = DemoSettings(terrain=args.terrain, speed=args.speed, step_height=args.step_height,
                            hips=not args.no_hips)
    options = RenderOptions(settings=settings, start=args.start, seconds=args.seconds, fps=args.fps,
                            width=args.width, height=args.height,
                            lang=args.lang or detect_language())
    path = render(args.out, options)
    print(f"footfall render: wrote {path}")
    return 0
