"""``footfall natnet-serve CLIP``: stream a clip (any motion file) as a Motive skeleton over
NatNet."""

from __future__ import annotations

import argparse
import sys

NAME = "natnet-serve"
HELP = ("stream a motion file (BVH, glTF, VRMA, FBX, joints) over NatNet as a Motive skeleton "
        "(demos, tests, checking a setup)")
DESCRIPTION = (
    "A NatNet server on the command port: answers CONNECT with server info and model-definition "
    "requests with the clip's skeleton (bones named like Motive's: Hip, Ab, Chest, LThigh …), "
    "then streams the clip, looping, at --rate to every connected client (unicast) and to the "
    "multicast group with --multicast. Point `footfall live --natnet` (or any NatNet client) at it."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``footfall natnet-serve``."""
    from footfall.motion_io.cli import add_motion_arguments

    parser.add_argument("clip", help="the motion to stream (.bvh, .glb/.gltf, .vrma, .fbx, "
                        ".npy joint positions …)")
    add_motion_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1; 0.0.0.0 for the network)")
    parser.add_argument("--command-port", type=int, default=1510, help="command port (1510)")
    parser.add_argument("--rate", type=float, default=None,
                        help="frames a second (default: the clip's rate)")
    parser.add_argument("--version", choices=("3.0", "3.1", "4.0", "4.1", "4.2"), default="4.1",
                        help="NatNet stream version (default 4.1)")
    parser.add_argument("--multicast", action="store_true",
                        help="also send frames to the multicast group")
    parser.add_argument("--group", default="239.255.42.99", help="multicast group")
    parser.add_argument("--data-port", type=int, default=1511, help="multicast data port")
    parser.add_argument("--name", default="Skeleton", help="skeleton name (default Skeleton)")
    parser.add_argument("--bone-poses", choices=("local", "global"), default="local",
                        help="bones relative to their parent (Motive's local rigid bodies) "
                             "or world poses")
    parser.add_argument("--up", choices=("y", "z"), default="y",
                        help="the stream's up axis, as Motive's streaming pane sets it: y "
                             "(default) or z (the world turned +90° about X, as streamed "
                             "to Unreal)")
    parser.add_argument("--duration", type=float, default=None,
                        help="stop after this many seconds (default: until Ctrl-C)")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or --duration."""
    from footfall.live.natnet_server import NatNetServer
    from footfall.motion_io.cli import motion_from_args
    from footfall.sizes import check_size

    clip = motion_from_args(args.clip, args).clip
    check_size(clip, args.clip, min_frames=1)
    server = NatNetServer(clip, host=args.host, command_port=args.command_port, rate=args.rate,
                          version=args.version, multicast=args.multicast, group=args.group,
                          data_port=args.data_port, name=args.name, bone_poses=args.bone_poses,
                          up=args.up,
                          report=lambda m: print(m, file=sys.stderr))
    host, port = server.address
    print(f"natnet-serve: {args.clip} as skeleton {args.name!r}, {clip.skeleton.joint_count} "
          f"bones, NatNet {args.version}, {args.up.upper()} up, {server.rate:g} Hz on {host}:{port}"
          + (f" and {args.group}:{args.data_port}" if args.multicast else ""), flush=True)
    try:
        server.serve(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        server.socket.close()
    print(f"natnet-serve: {server.frames_sent} frames sent", flush=True)
    return 0
