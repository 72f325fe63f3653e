"""Reading JSON that a user hands in (mapping files, settings) within explicit limits.

:func:`json.loads` recurses once per nesting level, turns ``1e400`` into inf, accepts ``NaN``
and refuses integers of more than 4,300 digits with a bare ValueError. :func:`parse_json` checks
the nesting depth first with a scan that never recurses, then parses with hooks that refuse
those numbers, raising the caller's error type with the file, line and column.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from footfall.errors import FootfallError

#: Deepest nesting of arrays and objects accepted.
MAX_DEPTH = 64
#: Largest file accepted, in characters.
MAX_CHARACTERS = 16 << 20
#: Most digits an integer may have (larger ones overflow a float).
MAX_INTEGER_DIGITS = 300

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _line_column(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    return f"{line}:{position - (text.rfind(chr(10), 0, position) + 1) + 1}"


def _depth_error(text: str) -> int | None:
    """Position of the first bracket nested deeper than :data:`MAX_DEPTH`, or ``None``."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    # Blank out strings (same length, so positions hold), then a running sum of brackets.
    masked = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
    codes = np.frombuffer(masked.encode("utf-32-le"), dtype=np.uint32)
    step = (np.isin(codes, (ord("["), ord("{"))).astype(np.int32)
            - np.isin(codes, (ord("]"), ord("}"))).astype(np.int32))
    depth = np.cumsum(step)
    deep = np.flatnonzero(depth > MAX_DEPTH)
    return int(deep[0]) if deep.size else None


class _Refused(ValueError):
    pass


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (at most "
                       f"{MAX_INTEGER_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not np.isfinite(value):
        raise _Refused(f"the number {text[:40]} is beyond the float range")
    return value


def _constant(name: str) -> float:
    raise _Refused(f"{name} is not a finite number")


def parse_json(text: str, where: str, error: type[FootfallError]) -> Any:
    """The JSON value of ``text``; faults raise ``error`` naming ``where`` and the line:column.

    Refused: invalid JSON, nesting deeper than :data:`MAX_DEPTH`, more than
    :data:`MAX_CHARACTERS` characters, ``NaN``/``Infinity``, numbers beyond the float range and
    integers of more than :data:`MAX_INTEGER_DIGITS` digits.
    """
    if len(text) > MAX_CHARACTERS:
        raise error(f"{where}: {len(text):,} characters; more than {MAX_CHARACTERS:,} is refused")
    deep = _depth_error(text)
    if deep is not None:
        raise error(f"{where}:{_line_column(text, deep)}: nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, parse_int=_integer, parse_float=_float,
                          parse_constant=_constant)
    except json.JSONDecodeError as fault:
        raise error(f"{where}:{fault.lineno}:{fault.colno}: not valid JSON ({fault.msg})") from None
    except _Refused as fault:
        raise error(f"{where}: refused {fault}") from None
    except RecursionError:  # not reached below MAX_DEPTH; kept so no traceback can escape
        raise error(f"{where}: nested too deep") from None
