"""The MOTION block of a BVH file: frame count, frame time and the ``(F, C)`` channel values.

Two paths. The usual file (plain decimals, LF or CRLF lines) is read straight from its bytes
by :func:`footfall.bvh.decimals.parse_decimal_rows`, without decoding or splitting the file
into lines. Anything else, every malformed file included, goes through the general path:
:func:`numpy.loadtxt` on the decoded lines, with errors that name the file and line.
"""

from __future__ import annotations

import re

import numpy as np

from footfall.bvh import decimals
from footfall.errors import BVHError

_FRAMES = re.compile(r"^\s*frames\s*:\s*(\S*)\s*$", re.IGNORECASE)
_FRAME_TIME = re.compile(r"^\s*frame\s+time\s*:\s*(\S*)\s*$", re.IGNORECASE)
_MOTION_LINE = re.compile(rb"^[ \t]*MOTION(?=\s|$)", re.MULTILINE | re.IGNORECASE)

#: Frame times accepted, seconds: 10,000 fps down to one frame an hour.
FRAME_TIME_RANGE = (1e-4, 3600.0)
#: Most frames × joints a clip may hold (about 1.1 GB of rotations and positions).
MAX_JOINT_FRAMES = 20_000_000
#: Characters a frame line may hold per value it must hold (plus :data:`LINE_SLACK`): a frame
#: line is refused by its length before it is parsed, however long a token it hides.
MAX_VALUE_CHARS = 64
LINE_SLACK = 1024
#: Longest line of the MOTION header (MOTION, Frames, Frame Time), characters.
MAX_HEADER_CHARS = 1024
#: Largest magnitude of any number in a file (OFFSETs, channel values), in file units or degrees:
#: far beyond any capture, far below where sums of them overflow.
MAX_FILE_VALUE = 1e7


def _frame_lines_error(data_lines: list[str], first_line: int, width: int, path: str) -> BVHError:
    """Find the first bad frame line (slow path, only after the fast parse failed)."""
    for offset, text in enumerate(data_lines):
        values = text.split()
        if not values:
            continue
        number = first_line + offset
        if len(values) != width:
            return BVHError(f"{path}, line {number}: frame line has {len(values)} values, "
                            f"expected {width}")
        for value in values:
            try:
                float(value)
            except ValueError:
                return BVHError(f"{path}, line {number}: {value!r} is not a number")
    return BVHError(f"{path}, line {first_line}: cannot read the frame data")


def _line_of_row(data_lines: list[str], first_line: int, row: int) -> int:
    """File line number of the ``row``-th non-blank frame line."""
    filled = [i for i, text in enumerate(data_lines) if text.strip()]
    return first_line + filled[min(row, len(filled) - 1)]


def _integer_fps(frame_time: float, text: str) -> float:
    """``1 / frame_time``, snapped to a whole rate when the written digits allow it (0.0083333)."""
    fps = 1.0 / frame_time
    whole = round(fps)
    if whole > 0 and "e" not in text.lower():
        decimals = len(text.split(".")[1]) if "." in text else 0
        if abs(1.0 / whole - frame_time) <= 0.5 * 10.0 ** (-decimals) + 1e-15:
            return float(whole)
    return fps


def _motion_header(lines: list[str], start: int, path: str) -> tuple[int, float, float, int]:
    """``(frame count, frame time s, fps, index of the 'Frame Time' line)`` after the MOTION
    keyword at ``lines[start]``."""
    index = start + 1
    while index < len(lines) and not lines[index].strip():
        index += 1
    for number in range(start, min(index + 2, len(lines))):
        if len(lines[number]) > MAX_HEADER_CHARS:
            raise BVHError(f"{path}, line {number + 1}: a line of {len(lines[number]):,} "
                           f"characters in the MOTION header (at most {MAX_HEADER_CHARS:,})")
    match = _FRAMES.match(lines[index]) if index < len(lines) else None
    if match is None:
        raise BVHError(f"{path}, line {index + 1}: expected 'Frames: N' after MOTION")
    count_text = match.group(1)
    if not (count_text.isascii() and count_text.isdigit()):  # "²".isdigit() is true
        raise BVHError(f"{path}, line {index + 1}: frame count must be a whole number, found "
                       f"{count_text[:40]!r}")
    frame_count = int(count_text) if len(count_text) <= 18 else MAX_JOINT_FRAMES + 1
    if frame_count > MAX_JOINT_FRAMES:
        raise BVHError(f"{path}, line {index + 1}: {count_text[:40]} frames is more than "
                       f"{MAX_JOINT_FRAMES:,} (a limit of this reader)")
    index += 1
    match = _FRAME_TIME.match(lines[index]) if index < len(lines) else None
    if match is None:
        raise BVHError(f"{path}, line {index + 1}: expected 'Frame Time: seconds' after Frames")
    text = match.group(1)
    try:
        frame_time = float(text)
    except ValueError:
        frame_time = float("nan")
    if not (np.isfinite(frame_time) and frame_time > 0):
        raise BVHError(f"{path}, line {index + 1}: frame time must be a positive number, found "
                       f"{text[:40]!r}")
    low, high = FRAME_TIME_RANGE
    if not low <= frame_time <= high:
        raise BVHError(f"{path}, line {index + 1}: frame time {text[:40]} s is outside "
                       f"{low:g}–{high:g} s ({1 / high:g}–{1 / low:g} fps)")
    return frame_count, frame_time, _integer_fps(frame_time, text), index


def read_motion(
    lines: list[str], start: int, path: str, width: int, joints: int
) -> tuple[np.ndarray, float, float]:
    """``(data (F, width), frame time s, fps)`` of the MOTION block whose keyword is line
    ``start`` (0-based) of a clip of ``joints`` joints; checks the frame count, the size
    limit and that every value is a finite number within ±:data:`MAX_FILE_VALUE`."""
    frame_count, frame_time, fps, index = _motion_header(lines, start, path)
    first_line = index + 2  # 1-based line number of the first frame line
    check_size(frame_count, joints, path, index + 1)
    data_lines = lines[index + 1 :]
    while data_lines and not data_lines[-1].strip():
        data_lines.pop()
    _check_line_lengths(data_lines, first_line, width, path)
    if not data_lines:
        # No channels at all: frame lines are empty, so trust the frame count.
        data = np.zeros((frame_count if width == 0 else 0, width))
    else:
        try:
            data = np.loadtxt(data_lines, dtype=np.float64, comments=None, ndmin=2)
        except ValueError:
            raise _frame_lines_error(data_lines, first_line, width, path) from None
        if data.shape[1] != width:
            raise _frame_lines_error(data_lines, first_line, width, path)
    if data.shape[0] != frame_count:
        raise BVHError(f"{path}, line {index}: 'Frames: {frame_count}' but {data.shape[0]} "
                       "frame lines follow (truncated file?)")
    for bad, fault in ((~np.isfinite(data), "is not finite"),
                       (np.abs(data) > MAX_FILE_VALUE, f"is beyond ±{MAX_FILE_VALUE:g}")):
        if np.any(bad):
            row, column = np.argwhere(bad)[0]
            raise BVHError(f"{path}, line {_line_of_row(data_lines, first_line, int(row))}: value "
                           f"{data[row, column]:g} in column {int(column) + 1} {fault}")
    return data, frame_time, fps


def _check_line_lengths(data_lines: list[str], first_line: int, width: int, path: str) -> None:
    """Refuse a frame line longer than ``width`` values may need (before any is parsed)."""
    limit = LINE_SLACK + MAX_VALUE_CHARS * width
    lengths = np.fromiter(map(len, data_lines), dtype=np.int64, count=len(data_lines))
    if lengths.size and lengths.max() > limit:
        row = int(np.argmax(lengths > limit))
        raise BVHError(f"{path}, line {first_line + row}: a frame line of {int(lengths[row]):,} "
                       f"characters; {width} values may take at most {limit:,}")


def check_size(frame_count: int, joints: int, path: str, line: int) -> None:
    """Refuse clips of more than :data:`MAX_JOINT_FRAMES` joint-frames (before reading them)."""
    if frame_count * max(joints, 1) > MAX_JOINT_FRAMES:
        raise BVHError(f"{path}, line {line}: {frame_count:,} frames × {joints} joints is more "
                       f"than {MAX_JOINT_FRAMES:,} joint-frames (a limit of this reader)")


def is_motion_line(line: str) -> bool:
    """Whether ``line`` is the MOTION keyword (any case, as HIERARCHY and JOINT are read)."""
    words = line.split(None, 1)  # the first word only: a line may be long
    return bool(words) and words[0].upper() == "MOTION"


def split_at_motion(raw: bytes) -> tuple[list[str], list[str], int] | None:
    """``(hierarchy lines, MOTION…'Frame Time' lines, offset of the frame lines)`` found
    without decoding or splitting the whole file, or ``None`` when the layout is unusual (the
    caller then does)."""
    match = _MOTION_LINE.search(raw)
    if match is None:
        return None
    position = match.start()
    motion_count = 0
    filled = 0
    while filled < 3:  # MOTION, Frames, Frame Time (and any blank lines between)
        end = raw.find(b"\n", position)
        if end < 0:
            return None
        filled += bool(raw[position:end].strip())
        motion_count += 1
        position = end + 1
    try:
        raw[:position].decode("utf-8")
        codec = "utf-8"
    except UnicodeDecodeError:
        codec = "latin-1"  # as _decode would choose, since the frame bytes must be ASCII
    header = raw[: match.start()].decode(codec).splitlines()
    motion = raw[match.start() : position].decode(codec).splitlines()
    if len(motion) != motion_count or any(is_motion_line(line) for line in header):
        return None  # line breaks other than LF, or an earlier MOTION behind one
    return header, motion, position


def read_motion_fast(
    motion: list[str], raw: bytes, start: int, path: str, width: int, joints: int
) -> tuple[np.ndarray, float, float] | None:
    """:func:`read_motion` for the usual file (plain decimals, LF or CRLF lines), or ``None``
    for anything else, including every error, which the slow path then reports by line."""
    try:
        frame_count, frame_time, fps, _ = _motion_header(motion, 0, path)
        check_size(frame_count, joints, path, 0)
    except BVHError:
        return None
    data = decimals.parse_decimal_rows(raw, width, start)
    if data is None or data.shape[0] != frame_count:
        return None
    if data.size and not np.abs(data).max() <= MAX_FILE_VALUE:
        return None
    return data, frame_time, fps
