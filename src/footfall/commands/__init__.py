"""Subcommands of the ``footfall`` command line, one module each (see :mod:`footfall.cli`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

_Number = TypeVar("_Number", int, float)


def number_in(convert: Callable[[str], _Number], low: float, high: float, what: str
              ) -> Callable[[str], _Number]:
    """An argparse ``type``: ``convert(text)`` within ``[low, high]``, else a message naming
    ``what``."""

    def parse(text: str) -> _Number:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
        if not low <= value <= high:  # NaN too
            raise argparse.ArgumentTypeError(f"{what} must be {low:g}–{high:g}, got {value:g}")
        return value

    return parse
