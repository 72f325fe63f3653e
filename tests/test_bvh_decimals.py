"""The vectorised MOTION-block parser: bit-identical to float() where it answers, None elsewhere,
and the reader gives the same clip (and the same errors) whether or not it answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import BVH_FILES
from footfall import bvh, quat
from footfall.bvh import decimals, reader
from footfall.bvh.decimals import parse_decimal_rows
from footfall.errors import BVHError

FAST = settings(max_examples=60, deadline=None)


def _float_rows(text: bytes) -> np.ndarray:
    """Reference: Python's float() on every word, one row per non-blank line."""
    rows = [[float(word) for word in line.split()] for line in text.decode().splitlines()]
    return np.array([row for row in rows if row])


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(a.view(np.int64) == b.view(np.int64)))


@st.composite
def plain_numbers(draw: st.DrawFn) -> str:
    """A plain decimal as BVH exporters write it: sign, digits, dot, decimals (16 bytes at most)."""
    integer = draw(st.integers(0, 10**6))
    decimals_count = draw(st.integers(0, 14 - len(str(integer))))
    fraction = draw(st.integers(0, 10**decimals_count - 1)) if decimals_count else 0
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    whole = str(integer)
    if decimals_count == 0:
        return sign + whole + draw(st.sampled_from(["", "."]))
    if integer == 0 and draw(st.booleans()):
        whole = ""  # ".5"
    return f"{sign}{whole}.{fraction:0{decimals_count}d}"


@FAST
@given(
    data=st.data(),
    width=st.integers(1, 7),
    rows=st.integers(1, 6),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_plain_numbers_parse_bit_exact(
    data: st.DataObject, width: int, rows: int, newline: str
) -> None:
    lines = []
    for _ in range(rows):
        words = data.draw(st.lists(plain_numbers(), min_size=width, max_size=width))
        gaps = data.draw(st.lists(st.sampled_from([" ", "  ", "\t", " \t"]),
                                  min_size=width + 1, max_size=width + 1))
        lines.append(gaps[0] + "".join(w + g for w, g in zip(words, gaps[1:], strict=True)))
        if data.draw(st.booleans()):
            lines.append(data.draw(st.sampled_from(["", "  ", "\t"])))  # blank lines skipped
    text = newline.join(lines).encode() + data.draw(st.sampled_from([b"", newline.encode()]))
    out = parse_decimal_rows(text, width)
    assert out is not None
    assert _same_bits(out, _float_rows(text))


@FAST
@given(values=st.lists(st.floats(-1e4, 1e4), min_size=12, max_size=12),
       places=st.integers(0, 9))
def test_printf_output_parses_bit_exact(values: list[float], places: int) -> None:
    """What writers print with "%.Nf" (the footfall writer uses %.9f), up to 16 bytes."""
    text = "\n".join(" ".join(f"{v:.{places}f}" for v in values[i : i + 4])
                     for i in range(0, 12, 4)).encode()
    out = parse_decimal_rows(text, 4)
    assert out is not None and _same_bits(out, _float_rows(text))


def test_many_pieces_match_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Long blocks are cut into pieces at line feeds; tiny pieces give the same numbers."""
    rng = np.random.default_rng(7)
    table = rng.uniform(-500, 500, size=(200, 9))
    text = "\n".join(" ".join(f"{v:.4f}" for v in row) for row in table).encode() + b"\n"
    whole = parse_decimal_rows(text, 9)
    monkeypatch.setattr(decimals, "_PIECE_BYTES", 16)
    pieces = parse_decimal_rows(text, 9)
    assert whole is not None and pieces is not None
    assert _same_bits(whole, pieces) and _same_bits(whole, _float_rows(text))
    monkeypatch.setattr(decimals, "_PIECE_BYTES", 16)
    assert parse_decimal_rows(text.replace(b"\n", b" 1\n", 1), 9) is None


def test_start_offset_skips_the_header() -> None:
    text = b"Frame Time: 0.01\n1.5 -2\n3 4.25\n"
    out = parse_decimal_rows(text, 2, start=text.index(b"\n") + 1)
    assert out is not None and _same_bits(out, np.array([[1.5, -2.0], [3.0, 4.25]]))
    assert parse_decimal_rows(text, 2) is None  # the header is not plain


@pytest.mark.parametrize(
    "text",
    [
        b"1e3 2\n",  # exponent
        b"nan 2\n",
        b"inf 2\n",
        b"-inf 2\n",
        b"1.2.3 4\n",  # two dots
        b"1-2 3\n",  # sign inside a number
        b"- 2\n",  # sign alone
        b". 2\n",  # dot alone
        b"-. 2\n",
        b"1234567890123456 2\n",  # 16 digits: no longer exact
        b"1.23456789012345678 2\n",  # longer than two words
        b"1 2\r3 4\n",  # lone CR ends a line for str.splitlines
        b"1 2\x0c3 4\n",  # form feed likewise
        b"1 2\x00\n",
        b"1 \xc3\xa9\n",  # non-ASCII
        b"1 2 3\n4\n",  # 3 then 1 numbers: total fits 2 rows of 2, lines do not
        b"1 2 3\n",
        b"",
    ],
)
def test_anything_else_is_left_to_the_general_parser(text: bytes) -> None:
    out = parse_decimal_rows(text, 2)
    assert out is None or (text == b"" and out.shape == (0, 2))


@pytest.mark.parametrize("path", BVH_FILES, ids=lambda p: p.name)
def test_fast_and_general_paths_load_the_same_clip(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = []

    def recording(text: bytes, width: int, start: int = 0) -> np.ndarray | None:
        answers.append(parse_decimal_rows(text, width, start))
        return answers[-1]

    monkeypatch.setattr(decimals, "parse_decimal_rows", recording)
    fast, fast_info = bvh.load(path, return_info=True)
    assert len(answers) == 1 and answers[0] is not None  # the shared files are all plain
    monkeypatch.setattr(decimals, "parse_decimal_rows", lambda text, width, start=0: None)
    slow, slow_info = bvh.load(path, return_info=True)
    assert fast_info == slow_info
    assert fast.fps == slow.fps
    assert np.array_equal(fast.positions, slow.positions)
    assert np.array_equal(fast.rotations, slow.rotations)
    assert np.array_equal(fast.skeleton.offsets, slow.skeleton.offsets)


def test_shifted_values_between_lines_still_name_the_line(tmp_path: Path) -> None:
    """Two frame lines of 10 and 8 values: the total is right, the lines are not."""
    text = (
        "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
        "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
        "  JOINT Spine\n  {\n    OFFSET 0 10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
        "    End Site\n    {\n      OFFSET 0 10 0\n    }\n  }\n}\n"
        "MOTION\nFrames: 2\nFrame Time: 0.0333333\n"
        "0.0 90.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 1.5\n0.0 90.0 0.0 0.0 0.0 0.0 10.0 0.0\n"
    )
    path = tmp_path / "shifted.bvh"
    path.write_text(text)
    with pytest.raises(BVHError, match=r"shifted.bvh, line 19: frame line has 10 values"):
        bvh.load(path)


@FAST
@given(
    angles=st.lists(st.floats(-720, 720), min_size=3, max_size=3),
    order=st.sampled_from(quat.EULER_ORDERS),
)
def test_closed_form_euler_matches_quat_from_euler(angles: list[float], order: str) -> None:
    degrees = np.array(angles)
    expected = quat.from_euler(np.radians(degrees), order)
    ours = reader._euler_to_quat(degrees[None, None].copy(), [order])[0, 0]
    assert np.abs(ours - expected).max() < 1e-15 * 4


@FAST
@given(seed=st.integers(0, 2**32 - 1), joints=st.integers(1, 6), frames=st.integers(1, 4))
def test_closed_form_euler_with_a_different_order_per_joint(
    seed: int, joints: int, frames: int
) -> None:
    rng = np.random.default_rng(seed)
    orders = [quat.EULER_ORDERS[i] for i in rng.integers(0, 6, joints)]
    degrees = rng.uniform(-400.0, 400.0, size=(frames, joints, 3))
    expected = np.stack(
        [quat.from_euler(np.radians(degrees[:, j]), order) for j, order in enumerate(orders)],
        axis=1,
    )
    ours = reader._euler_to_quat(degrees.copy(), orders)
    assert np.abs(ours - expected).max() < 1e-15 * 4


@pytest.mark.parametrize(
    ("text", "width"),
    [(b" 0 \n 0 ", 1), (b"5\n\n\n-7.25\r\n", 1), (b"+.5 -0.0 12.\n", 3), (b"\t1\t2\n", 2)],
)
def test_small_blocks(text: bytes, width: int) -> None:
    out = parse_decimal_rows(text, width)
    assert out is not None and _same_bits(out, _float_rows(text))
