"""Whether a command draws a progress bar: only for a person watching a terminal (the batch
runner and the commands ask here)."""

from __future__ import annotations

import sys


def show_progress(quiet: bool = False) -> bool:
    """True unless ``quiet`` or stdout/stderr is not a terminal: a bar redrawn with carriage
    returns only garbles a log, a pipe or a file (and runs into the tables on stdout)."""
    return not quiet and _is_terminal(sys.stderr) and _is_terminal(sys.stdout)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):  # a closed stream
        return False
