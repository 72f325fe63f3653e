"""The ``footfall`` command line: a thin layer over the library.

Each subcommand lives in its own module under :mod:`footfall.commands` and exposes
``NAME: str``, ``HELP: str``, ``add_arguments(parser) -> None`` and ``run(args) -> int``.
Subcommands are found by scanning that package, so adding one never edits this file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from footfall import __version__, commands
from footfall.errors import FootfallError


def _command_modules() -> list:
    found = []
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"footfall.commands.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found.append(module)
    return found


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command module."""
    parser = argparse.ArgumentParser(
        prog="footfall",
        description="Grounded character animation: feet that really touch uneven ground.",
    )
    parser.add_argument("--version", action="version", version=f"footfall {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        command_parser = sub.add_parser(
            module.NAME, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP)
        )
        module.add_arguments(command_parser)
        command_parser.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``footfall`` console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.print_help()
        return 0
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into a reader that stopped early (`footfall info x.bvh | head`).
        sys.stderr.close()
        return 0
    except FootfallError as error:
        print(f"footfall {args.command}: error: {error}", file=sys.stderr)
        return 2




if __name__ == "__main__":
    sys.exit(main())
