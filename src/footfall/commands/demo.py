"""``footfall demo``: the browser demo of seed 000 served on localhost."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import webbrowser

from footfall.viewer.i18n import LANGUAGES, detect_language
from footfall.viewer.simulation import SPEED_RANGE, TERRAINS, DemoSettings

NAME = "demo"
HELP = "two bunnies on uneven ground in the browser (left IK on, right IK off)"
DESCRIPTION = (
    "Serve the seed-000 demo with viser on 127.0.0.1 and print its URL: two bunnies walk the demo "
    "course side by side, the left one with foot IK, the right one without. Ctrl-C stops."
)
KERNELS = ("grounding",)  # compiled kernels made ready first (footfall.kernels)


def add_scene_arguments(parser: argparse.ArgumentParser, terrain_help: str) -> None:
    """The options ``footfall demo`` and ``footfall render`` share: terrain, speed, language."""
    parser.add_argument("--terrain", choices=TERRAINS, default="course", help=terrain_help)
    parser.add_argument("--speed", type=float, default=0.75,
                        help=f"walking speed m/s, {SPEED_RANGE[0]}–{SPEED_RANGE[1]} (default 0.75)")
    parser.add_argument("--lang", choices=LANGUAGES, help="ko or en (default: locale)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall demo``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (next free one if busy)")
    add_scene_arguments(parser, "starting terrain (default course)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many seconds (default: never)")


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY")
                                                       or os.environ.get("WAYLAND_DISPLAY"))


def run(args: argparse.Namespace) -> int:
    """Start the server, print the URL, loop until Ctrl-C (or ``--duration``)."""
    from footfall import kernels
    from footfall.viewer.app import DemoApp  # viser is imported only when the demo runs

    settings = DemoSettings(terrain=args.terrain, speed=args.speed).check()
    lang = args.lang or detect_language()
    app = DemoApp(host=args.host, port=args.port, lang=lang, settings=settings)
    interrupted = []
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum: int, frame: object) -> None:
        # Ctrl-C ends the loop after the current frame instead of raising KeyboardInterrupt
        # wherever the loop happens to be (inside viser's sender, with its locks held, that
        # could leave the shutdown waiting forever). A second Ctrl-C interrupts at once.
        interrupted.append(signum)
        app.stop()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_interrupt)
    try:
        if app.notice:
            print(f"footfall demo: {app.notice}", flush=True)
        kernels.wait_ready()  # the first frames are not held up by a compile
        print(f"footfall demo: open {app.url}  (Ctrl-C stops)", flush=True)
        if not args.no_browser and _has_display():
            webbrowser.open(app.url)
        app.run(duration=args.duration)
    except KeyboardInterrupt:
        interrupted.append(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
        app.close()
    if interrupted:
        print("footfall demo: stopped", flush=True)
    return 0
