"""Vectorised parsing of plain decimal numbers (``-12.345``), the bulk of a BVH MOTION block.

NumPy whole-array operations on the bytes are several times faster than C parsers' per-number
``strtod``. Only ``[+-]digits[.digits]`` with at most 15 digits is handled, where ``mantissa /
10**decimals`` is the exactly rounded value (both exact doubles, one IEEE division), so the
result is bit-identical to :func:`float`. Anything else (exponents, ``nan``, stray characters,
too many digits) makes :func:`parse_decimal_rows` return ``None``: the caller falls back.
"""

from __future__ import annotations

import numpy as np

# Longest number handled (two 8-byte words).
_MAX_TOKEN = 16
_MAX_DIGITS = 15  # 10**15 < 2**53, so every mantissa is an exact double

_WORD_PAD = 16
# Every byte a plain block may hold; whitespace is space, tab, LF and CR (only as part of CRLF).
_PLAIN_BYTES = b" \t\r\n0123456789.+-"
_PIECE_BYTES = 1 << 16
# _TOP_BYTES[k]: the k most significant bytes of a little-endian word, i.e. its last k characters.
_TOP_BYTES = np.array(
    [((1 << 64) - 1) ^ ((1 << (8 * (8 - k))) - 1) for k in range(9)], dtype=np.uint64
)
_POW10_INT = 10 ** np.arange(_MAX_TOKEN + 1, dtype=np.int64)
# A number's first byte: unsigned, "-" or "+" (by byte value).
_UNSIGNED, _MINUS, _PLUS = 0, 1, 2
_SIGN_CLASS = np.zeros(256, dtype=np.int64)
_SIGN_CLASS[ord("-")] = _MINUS
_SIGN_CLASS[ord("+")] = _PLUS
# At n * 3 + sign: what n bytes summed as digits hold beyond their digits: 48 (the byte "0")
# in each place, less what a leading sign byte lacks from "0" ("-" is 45, "+" is 43).
_BYTES_BEYOND_DIGITS = np.array(
    [
        48 * ((10**n - 1) // 9) - (ord("0") - lead) * 10 ** max(n - 1, 0) * (lead != ord("0"))
        for n in range(_MAX_TOKEN + 1)
        for lead in (ord("0"), ord("-"), ord("+"))
    ],
    dtype=np.int64,
)
# At k * 3 + sign: the divisor of a mantissa with k decimals, negative for "-".
_SIGNED_POW10 = np.array(
    [10.0**k * factor for k in range(_MAX_TOKEN + 1) for factor in (1.0, -1.0, 1.0)]
)


def parse_decimal_rows(text: bytes, width: int, start: int = 0) -> np.ndarray | None:
    """Numbers of ``text[start:]`` as ``(rows, width)`` float64, or ``None`` if not all plain.

    The text holds lines (LF or CRLF) of whitespace-separated numbers; blank lines are skipped
    and every other line must hold exactly ``width`` numbers, else the result is ``None`` too,
    so that the caller can find and report the offending line with its own slow parser.
    """
    if width <= 0:
        return None
    # Pieces of whole lines small enough for the temporaries to stay in cache and be reused
    # (large numpy temporaries are fresh memory maps whose page faults cost more than the
    # arithmetic); a piece ends after a LF, so it never splits a CRLF.
    pieces = []
    while start < len(text):
        end = text.find(b"\n", start + _PIECE_BYTES)
        end = len(text) if end < 0 else end + 1
        piece = text[start:end]
        if piece.translate(None, _PLAIN_BYTES):
            return None  # a letter, symbol or control byte (exponent, nan, inf, form feed...)
        if b"\r" in piece and piece.count(b"\r") != piece.count(b"\r\n"):
            return None  # a lone CR, which also ends a line
        rows = _parse_piece(piece, width)
        if rows is None:
            return None
        pieces.append(rows)
        start = end
    return np.concatenate(pieces) if pieces else np.empty((0, width))


def _parse_piece(text: bytes, width: int) -> np.ndarray | None:
    """:func:`parse_decimal_rows` of whole lines ``text``."""
    padded = b" " * _WORD_PAD + text + b" "
    chars = np.frombuffer(padded, dtype=np.uint8)
    space = chars <= ord(" ")
    minus_count = np.count_nonzero(chars == ord("-"))
    plus_count = np.count_nonzero(chars == ord("+"))
    line_feeds = np.flatnonzero(chars == ord("\n"))
    # Number edges: every change between whitespace and not (the text is padded with spaces).
    edges = np.flatnonzero(space[:-1] != space[1:]) + 1
    starts, ends = edges[0::2], edges[1::2]
    count = len(starts)
    if count == 0:
        return np.empty((0, width))
    if count % width:
        return None
    # Rows: the numbers right after a line feed must be exactly every width-th number.
    after = np.searchsorted(starts, line_feeds)  # sorted; blank lines repeat a value
    row_starts = after[(after > 0) & (after < count) & (np.diff(after, prepend=-1) != 0)]
    if not np.array_equal(row_starts, np.arange(width, count, width)):
        return None

    lengths = ends - starts
    sign = _SIGN_CLASS.take(chars.take(starts))  # take: faster than [] for gathers
    signed = sign != _UNSIGNED
    if minus_count + plus_count != np.count_nonzero(signed):
        return None  # a sign inside a number
    dot_positions = np.flatnonzero(chars == ord("."))
    if len(dot_positions) == count:
        # Usual case, every number has a dot: the i-th dot must lie in the i-th number.
        if not np.all((dot_positions >= starts) & (dot_positions < ends)):
            return None
        decimals = ends - dot_positions - 1
        every_dot = True
        dots: np.ndarray | int = 1
    else:
        owner = np.searchsorted(ends, dot_positions, side="right")
        if np.any(np.diff(owner) == 0):
            return None  # two dots in one number
        has_dot = np.zeros(count, dtype=bool)
        has_dot[owner] = True
        decimals = np.zeros(count, dtype=np.int64)
        decimals[owner] = ends[owner] - dot_positions - 1
        every_dot = False
        dots = has_dot
    digits = lengths - signed - dots
    if digits.min() < 1 or lengths.max() > _MAX_TOKEN or digits.max() > _MAX_DIGITS:
        return None

    # The bytes of each number, right-aligned in two little-endian words read straight from
    # the text, bytes before its start masked off, summed as if every byte were a digit
    # (byte value times its power of ten); then "0" (48) is taken off every place and the
    # sign and dot bytes are put back to zero.
    words = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    last = words.take(ends - 8)
    last &= _TOP_BYTES.take(np.minimum(lengths, 8))
    stacked = _word_value(last).astype(np.int64)
    long = np.flatnonzero(lengths > 8)  # few in most files: only they need a second word
    if len(long):
        before = words.take(ends[long] - 16)
        before &= _TOP_BYTES.take(lengths[long] - 8)
        stacked[long] += _word_value(before).astype(np.int64) * 10**8
    stacked -= _BYTES_BEYOND_DIGITS.take(lengths * 3 + sign)
    if every_dot:
        stacked += (ord("0") - ord(".")) * _POW10_INT.take(decimals)
    else:
        # A number without a dot is read as if it ended in one ("12" as "12.").
        stacked = np.where(has_dot, stacked + (ord("0") - ord(".")) * _POW10_INT[decimals],
                           stacked * 10)
    # The dot's place multiplied the digits before it by 10 too much.
    fraction = stacked % _POW10_INT.take(decimals)
    stacked -= fraction
    stacked //= 10
    stacked += fraction
    # Exact mantissa over an exact (signed) power of ten: one correctly rounded division.
    decimals *= 3
    decimals += sign
    return (stacked / _SIGNED_POW10.take(decimals)).reshape(-1, width)


def _word_value(words: np.ndarray) -> np.ndarray:
    """``sum(byte_i * 10**(7 - i))`` of little-endian uint64 ``words (...)``, bytes <= 99.

    Pairs of bytes, then pairs of pairs, then the two halves are combined in place (SWAR).
    """
    pairs = (words & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(10)
    pairs += (words >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)
    quads = (pairs & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(100)
    quads += (pairs >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)
    out = (quads & np.uint64(0xFFFFFFFF)) * np.uint64(10000)
    out += quads >> np.uint64(32)
    return out
