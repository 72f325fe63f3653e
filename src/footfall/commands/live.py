"""``footfall live``: a capture stream retargeted onto avatars every frame, out as VMC."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

from footfall.commands._control import add_control_arguments
from footfall.errors import FootfallError, SettingsError

NAME = "live"
HELP = "live retargeting: OptiTrack NatNet (or a replayed BVH) onto avatars, out as VMC"
DESCRIPTION = (
    "Receive a performer from Motive over NatNet (--natnet SERVER_IP, unicast or --multicast) or "
    "replay a BVH clip at its own rate (--replay), retarget every frame onto each --to avatar "
    "with its saved settings, and send each avatar over the VMC protocol (--vmc HOST:PORT) to "
    "VSeeFace, Warudo or VMC4B; a browser view on 127.0.0.1 shows the stream (--no-view to run "
    "without). A stream Motive sends Z up is turned to Y up (--up). A stopped stream holds the "
    "last pose and resumes by itself; bad packets are counted and dropped. Ctrl-C saves the "
    "avatars' settings and finishes --record."
)


def KERNELS(args: argparse.Namespace) -> tuple[str, ...]:  # noqa: N802 (the commands' attribute)
    """Compiled kernels made ready first (footfall.kernels): the limbs; grounding with a terrain."""
    return ("retarget", "grounding") if args.terrain else ("retarget",)


SWITCH_INTERVAL = 0.001


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall live``."""
    from footfall.motion_io.cli import UNITS

    source = parser.add_argument_group("source (one of)")
    given = source.add_mutually_exclusive_group(required=True)
    given.add_argument("--natnet", metavar="SERVER_IP", help="Motive's (NatNet server's) address")
    given.add_argument("--replay", metavar="CLIP",
                       help="play a motion file (BVH, glTF, VRMA, FBX, joints; --take picks an "
                       "animation) at its own rate, looping (no capture system needed)")
    source.add_argument("--take", default=None, metavar="NAME|INDEX",
                        help="--replay: which animation of a file holding several")
    source.add_argument("--sample", type=int, default=None, metavar="N",
                        help="--replay of MDM's results.npy: which sample")
    source.add_argument("--unit", choices=UNITS,
                        default="auto", help="--replay of a BVH: its length unit (default: "
                        "by the body's height)")
    source.add_argument("--multicast", action="store_true",
                        help="receive frames from the multicast group instead of unicast")
    source.add_argument("--group", default="239.255.42.99", help="multicast group address")
    source.add_argument("--local-ip", default="0.0.0.0",
                        help="this machine's address on the capture network (default: any)")
    source.add_argument("--command-port", type=int, default=1510, help="NatNet command port")
    source.add_argument("--data-port", type=int, default=1511,
                        help="NatNet data port (0: unicast frames on the command socket only)")
    source.add_argument("--skeleton", default=None, metavar="NAME",
                        help="which streamed skeleton to follow (default: the first)")
    source.add_argument("--bone-poses", choices=("auto", "local", "global"), default="auto",
                        help="Motive's bone poses: relative to the parent (local), world "
                             "(global), or detected (auto, default)")
    source.add_argument("--up", choices=("auto", "y", "z"), default="auto",
                        help="the stream's up axis: auto (default) reads it from the skeleton "
                             "description (a standing humanoid's feet-to-head line; anything "
                             "unclear stays Y), y takes the stream as it comes, z turns it to "
                             "Y up (Motive's streaming pane set to Z up, as for Unreal); with "
                             "--replay, the BVH file's up axis")
    source.add_argument("--mapping", default=None,
                        help="JSON {canonical bone: source joint} overriding the automatic guess")
    target = parser.add_argument_group("avatars")
    target.add_argument("--to", action="append", required=True, metavar="AVATAR",
                        help="an avatar (.glb/.gltf/.vrm or .bvh); repeat for several")
    target.add_argument("--settings-dir", default=None,
                        help="folder of the per-avatar settings (default: the user config dir)")
    target.add_argument("--ik", choices=("auto", "ik", "fk"), default=None,
                        help="limb IK weights for every avatar (default: each avatar's saved)")
    target.add_argument("--filter", choices=("on", "off"), default=None,
                        help="One Euro filter on the source positions (default: saved)")
    target.add_argument("--floor-height", type=float, default=None,
                        help="world height added to hips and feet, metres (default: saved)")
    target.add_argument("--terrain", default=None,
                        help="ground the avatars' feet on a terrain scene, mesh or heightmap")
    out = parser.add_argument_group("outputs")
    out.add_argument("--vmc", action="append", default=[], metavar="[AVATAR=]HOST:PORT",
                     help="send an avatar over VMC (OSC/UDP); repeat: the n-th --vmc gets the "
                          "n-th avatar unless AVATAR= names one")
    out.add_argument("--vmc-rate", type=float, default=0.0,
                     help="at most this many VMC poses a second (default: every frame)")
    out.add_argument("--vmc-root-motion", action="store_true",
                     help="send the avatar's root each frame as /VMC/Ext/Root/Pos (the hips' "
                          "x, z on the floor and heading about Y; the bones relative to it), "
                          "for receivers that move the model by its root (default: the root at "
                          "the origin, the hips carry the travel)")
    out.add_argument("--record", default=None, metavar="OUT.bvh|.glb",
                     help="record every avatar (one file each, written when recording stops)")
    out.add_argument("--no-view", action="store_true", help="run without the browser view")
    out.add_argument("--view-port", type=int, default=8081, help="browser view port")
    add_control_arguments(parser)
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many seconds (scripts, tests)")
    parser.add_argument("--quiet", action="store_true", help="no status line at the end")


def routes(specs: list[str], names: list[str], rate: float) -> list:
    """``--vmc`` entries → ``(avatar name, VmcSender)`` pairs."""
    from footfall.live.vmc import VmcSender, parse_route

    out = []
    free = iter(names)
    for text in specs:
        name, address = parse_route(text)
        if name is None:
            name = next(free, names[0])
        elif name not in names:
            raise SettingsError(f"--vmc {text!r}: no avatar named {name!r} "
                                f"(avatars: {', '.join(names)})")
        out.append((name, VmcSender(address, rate)))
    return out


def _start_control(loop: Any, args: argparse.Namespace) -> Any:
    """The remote-control service (WebSocket /retargeting and the panel) the options ask for,
    started, with its queued actions run on the loop's thread between frames."""
    from footfall.commands._control import service_from_args

    service = service_from_args(args)
    if service is None:
        return None
    service.start()

    def pump(running: Any) -> None:  # every turn: the loop's callbacks run once each
        service.process_pending(running)
        running.add_between_frames(pump)

    loop.add_between_frames(pump)
    print(f"remote control: {service.url} (panel {service.panel_url})", file=sys.stderr)
    return service


def run(args: argparse.Namespace) -> int:
    """Build the source, the avatars and the outputs; run the loop."""
    from footfall import kernels
    from footfall.live.loop import LiveLoop, load_target, unique_names
    from footfall.live.natnet_client import NatNetClient
    from footfall.live.record import Recorder
    from footfall.live.sources import ReplaySource, Source
    from footfall.sizes import check_size

    # The network thread and the loop share the GIL: hand it over every 1 ms instead of 5 ms,
    # so a frame waiting for the loop is not held up behind a burst of packets.
    sys.setswitchinterval(SWITCH_INTERVAL)
    if args.vmc_rate < 0:
        raise SettingsError(f"--vmc-rate {args.vmc_rate}: must be ≥ 0")
    targets = [load_target(p) for p in args.to]
    names = unique_names([t.path for t in targets])
    vmc = routes(args.vmc, names, args.vmc_rate)
    report = lambda message: print(message, file=sys.stderr)  # noqa: E731
    mapping = None
    if args.mapping:
        from footfall.humanoid import load_mapping

        mapping = {k: v for k, v in load_mapping(args.mapping).items() if v is not None}
    source: Source
    calibrate_on = None  # a replayed clip: calibrated on, as `footfall retarget` does
    if args.replay:
        from footfall.motion_io.cli import motion_from_args

        motion = motion_from_args(args.replay, args,
                                  up=None if args.up == "auto" else args.up)
        check_size(motion.clip, args.replay, min_frames=1)
        source = ReplaySource(motion.clip, up=motion.up)
        calibrate_on = motion.clip
    else:
        source = NatNetClient(args.natnet, local_ip=args.local_ip, multicast=args.multicast,
                              group=args.group, command_port=args.command_port,
                              data_port=args.data_port, skeleton_name=args.skeleton,
                              bone_poses=args.bone_poses, up=args.up, report=report)
    given = {"ik_mode": args.ik, "filter_enabled": args.filter and args.filter == "on",
             "floor_height": args.floor_height}
    overrides = {key: value for key, value in given.items() if value is not None}
    loop = LiveLoop(source, targets, vmc=vmc, settings=overrides,
                    settings_folder=Path(args.settings_dir) if args.settings_dir else None,
                    source_mapping=mapping, report=report,
                    vmc_root_motion=args.vmc_root_motion,
                    calibrate_on=calibrate_on)
    recorder = None
    if args.record:
        recorder = Recorder(args.record)
        loop.recorders.append(recorder)
    if args.terrain:
        from footfall.live.ground import LiveGrounder
        from footfall.terrain import from_spec

        loop.grounder = LiveGrounder(from_spec(args.terrain))
    view = None
    if not args.no_view:
        from footfall.live.view import LiveView

        view = LiveView(port=args.view_port)
        loop.views.append(view)
        print(f"view: {view.url}", file=sys.stderr)
    control = _start_control(loop, args)
    stopping: list[int] = []
    previous = signal.getsignal(signal.SIGINT)

    def on_interrupt(signum: int, frame: object) -> None:
        stopping.append(signum)
        loop.stop()

    signal.signal(signal.SIGINT, on_interrupt)
    kernels.wait_ready()  # compiled before the first frame, not inside it
    try:
        loop.run(args.duration)
    finally:
        signal.signal(signal.SIGINT, previous)
        try:
            saved = loop.save_all()
        except FootfallError as error:
            saved = []
            print(f"settings not saved: {error}", file=sys.stderr)
        for _, sender in vmc:
            sender.close()
        if view is not None:
            view.close()
        if control is not None:
            control.flush(loop)  # changes still waiting for their debounced save
            control.stop()
        if recorder is not None:
            for path in recorder.finish():
                print(f"wrote {path}")
    if not args.quiet:
        status = source.status
        latency = sorted(loop.stats.latency)
        median = (f"{latency[len(latency) // 2] * 1000:.2f} ms" if latency else
                  "n/a (no frames)")
        turned = "; stream is Z-up; turned to Y up" if status.up == "z" else ""
        print(f"live: {loop.stats.frames} frames, {status.dropped} dropped, "
              f"{status.overwritten} skipped by the loop, errors {dict(status.errors) or 0}, "
              f"latency median {median}; settings saved for {len(saved)} avatar(s)"
              + turned)
    if loop.stats.frames == 0 and not args.replay:
        print(f"footfall live: warning: no frames came from the NatNet server {args.natnet} "
              f"(command port {args.command_port}): is Motive streaming to this machine, and "
              "is --local-ip this machine's address on that network?", file=sys.stderr)
        return 1
    return 0
