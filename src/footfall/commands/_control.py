"""Command-line options of the control service (:mod:`footfall.remote`), for ``footfall live``
(and any loop command)."""

from __future__ import annotations

import argparse

from footfall.commands import number_in
from footfall.remote.service import DEFAULT_PORT, ControlService


def add_control_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the control service's options to ``parser``."""
    group = parser.add_argument_group("remote control (WebSocket /retargeting, panel at /)")
    group.add_argument("--control-port", type=number_in(int, 0, 65535, "port"),
                       default=DEFAULT_PORT, metavar="PORT",
                       help=f"port of the control service and panel (default {DEFAULT_PORT})")
    group.add_argument("--control-host", default="127.0.0.1", metavar="HOST",
                       help="address to listen on (default 127.0.0.1: this computer only)")
    group.add_argument("--control-origin", action="append", default=[], metavar="ORIGIN",
                       help="another browser origin allowed to connect, e.g. "
                            "http://192.168.1.5:64212 (repeatable)")
    group.add_argument("--no-control", action="store_true",
                       help="do not start the control service")


def service_from_args(args: argparse.Namespace) -> ControlService | None:
    """The service the options ask for, not yet started (``--no-control``: ``None``)."""
    if args.no_control:
        return None
    return ControlService(args.control_host, args.control_port, args.control_origin)
