"""The ``footfall`` command line: a thin layer over the library.

Each subcommand is a module of :mod:`footfall.commands` (found by scanning the package) with
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``. A module whose
``KERNELS`` names kernel groups (a tuple, or a function of the parsed arguments) has them
compiled in the background while the command checks its input, so a mistake is reported at once.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
import warnings
from collections.abc import Sequence

from footfall import __version__, commands, kernels
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
        command_parser.set_defaults(_run=module.run, _kernels=getattr(module, "KERNELS", ()))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``footfall`` console script; returns the process exit code.

    With ``argv`` (in-process: tests, scripts) it returns once the kernels' background compile
    has finished (numba's compiler swaps the process's warning filters while it runs). Without
    (the console script) a still-running compile ends the process at once (``os._exit``):
    Python's shutdown under a thread inside LLVM aborts the process."""
    try:
        code = _main(argv)
    finally:
        if argv is not None:
            kernels.wait_ready()
    if argv is None and kernels.compiling():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not logging.getLogger().handlers:
        # Libraries' log lines (trimesh warns while reading broken meshes) stay off the
        # terminal: with a handler on the root logger, logging's last-resort printer is unused.
        logging.getLogger().addHandler(logging.NullHandler())
    if not hasattr(args, "_run"):
        parser.print_help()
        return 0
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")  # each warning once per place (long runs)
            groups = args._kernels(args) if callable(args._kernels) else args._kernels
            if groups:  # compiled on the first run: say so rather than stall silently
                kernels.prepare_in_background(None if getattr(args, "quiet", False) else (
                    lambda text: print(f"footfall {args.command}: {text}", file=sys.stderr,
                                       flush=True)), groups=groups)
            code = int(args._run(args) or 0)
            if code == 0:  # a finished job leaves every kernel cached for the next run
                kernels.wait_ready()
        _print_own_warnings(args.command, caught)
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into a reader that stopped early (`footfall info x.bvh | head`).
        sys.stderr.close()
        return 0
    except FootfallError as error:
        # One line: footfall's own warnings before it are dropped with the libraries' ones.
        print(f"footfall {args.command}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as error:  # a limit no reader check caught
        print(f"footfall {args.command}: error: the input is too large or too deeply nested "
              f"({type(error).__name__})", file=sys.stderr)
        return 2


def _one_line(error: object) -> str:
    return " ".join(str(error).split())


def _print_own_warnings(command: str, caught: list[warnings.WarningMessage]) -> None:
    """footfall's own warnings as one line each; numpy's, trimesh's or pygltflib's (whose
    causes the readers check and report themselves) are dropped."""
    for item in caught:
        if type(item.message).__module__.startswith("footfall"):
            print(f"footfall {command}: warning: {_one_line(item.message)}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
