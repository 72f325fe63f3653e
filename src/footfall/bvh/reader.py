"""Reading BVH files into :class:`footfall.skeleton.Clip` (metres, Y up).

Written by hand because no maintained BVH reader handles every real-world trap (mixed channel
counts, position channels on any joint, several roots) with batched quaternion output. The
hierarchy is read by a small token parser that keeps line numbers for errors, the MOTION block
by :mod:`footfall.bvh.motion`; Euler angles become quaternions in one closed-form pass.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from os import PathLike
from typing import Literal, overload

import numpy as np

from footfall import quat
from footfall.bvh import motion, units
from footfall.errors import BVHError, MappingError, SkeletonError
from footfall.sizes import check_size
from footfall.skeleton import Clip, Skeleton, forward_kinematics

_CHANNELS = {name.lower(): name for name in (
    "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")}


@dataclass(frozen=True)
class BVHInfo:
    """What :func:`load` found in a file besides the clip.

    Attributes:
        path: the file read.
        unit: "m", "cm", "inch", "cmu", "mm", "fitted" (scaled to 1.7 m) or "given" (a float scale).
        scale: metres per file unit, as applied.
        up: the file's up axis, "y" or "z" ("z" files were turned to Y up).
        standing_height: height along the up axis including end sites, metres: the taller of
            the rest pose and the first frame.
        frame_time: seconds per frame as written in the file.
        channels: per joint (file order), the channel names as written, e.g. ("Zrotation", …).
        rotation_orders: per joint, the Euler order read from its rotation channels.
    """

    path: str
    unit: str
    scale: float
    up: str
    standing_height: float
    frame_time: float
    channels: tuple[tuple[str, ...], ...] = field(repr=False)
    rotation_orders: tuple[str, ...] = field(repr=False)


@dataclass
class _Joint:
    name: str
    parent: int
    offset: np.ndarray
    channels: list[str] = field(default_factory=list)
    end_site: np.ndarray | None = None


class _Tokens:
    """Whitespace-separated words of the hierarchy, each with its 1-based line number.

    Lines are split only as the parser reaches them, so a file fails at its first bad word
    however much follows; a line longer than :data:`MAX_LINE_CHARS` or a word longer than
    :data:`MAX_WORD_CHARS` is refused when reached, naming its line.
    """

    def __init__(self, lines: list[str], path: str) -> None:
        self.source_lines = lines
        self.path = path
        self.end_line = len(lines) + 1  # line where the hierarchy stops (MOTION), for EOF errors
        self.next_line = 0  # index of the next line to split
        self.pending: list[str] = []  # words of line ``pending_line`` not yet taken, reversed
        self.pending_line = 0
        self.taken_line = 0  # line of the last word taken (0: none yet)

    def _fill(self) -> bool:
        """Split lines until a word is pending; False at the end of the hierarchy."""
        while not self.pending:
            if self.next_line >= len(self.source_lines):
                return False
            text = self.source_lines[self.next_line]
            self.next_line += 1
            if len(text) > MAX_LINE_CHARS:
                raise self.error(f"a line of {len(text):,} characters; a hierarchy line may "
                                 f"hold {MAX_LINE_CHARS:,}", self.next_line)
            words = text.split()
            longest = max(words, key=len, default="")
            if len(longest) > MAX_WORD_CHARS:
                raise self.error(f"a word of {len(longest):,} characters ({shown(longest)}); "
                                 f"a name or number may hold {MAX_WORD_CHARS:,}", self.next_line)
            self.pending = words[::-1]
            self.pending_line = self.next_line
        return True

    def error(self, message: str, line: int | None = None) -> BVHError:
        return BVHError(f"{self.path}, line {self.line() if line is None else line}: {message}")

    def peek(self) -> str | None:
        return self.pending[-1] if self._fill() else None

    def line(self) -> int:
        return self.pending_line if self._fill() else self.end_line

    def take(self, what: str) -> tuple[str, int]:
        if not self._fill():
            raise self.error(f"file ends inside the hierarchy, expected {what}")
        self.taken_line = self.pending_line
        return self.pending.pop(), self.pending_line

    def expect(self, keyword: str) -> None:
        word, line = self.take(repr(keyword))
        if word.upper() != keyword.upper():
            raise self.error(f"expected {keyword!r}, found {shown(word)}", line)

    def rest_of_line(self) -> tuple[list[str], int]:
        """Words after the last word taken, to the end of its line (stopping before a '{')."""
        line = self.taken_line or self.line()
        out = []
        while self.pending and self.pending_line == line and self.pending[-1] != "{":
            out.append(self.pending.pop())
        return out, line

    def number(self, what: str) -> float:
        word, line = self.take(what)
        try:
            value = float(word)
        except ValueError:
            raise self.error(f"{what} must be a number, found {shown(word)}", line) from None
        if not np.isfinite(value):
            raise self.error(f"{what} is {shown(word)}; it must be finite", line)
        return value


def shown(word: str, limit: int = 40) -> str:
    """``word`` quoted for a message, cut to ``limit`` characters (a message stays one short
    line whatever a file holds)."""
    return repr(word) if len(word) <= limit else f"{word[:limit]!r}… ({len(word):,} characters)"


#: Longest line of the hierarchy, and longest word in it (a joint name or a number), in
#: characters: far beyond any real file, small enough that nothing downstream slows down.
MAX_LINE_CHARS = 4096
MAX_WORD_CHARS = 1024
#: Most joints a file may declare, and most levels of nesting (explicit limits, so a hostile
#: file is refused with a message instead of exhausting memory; parsing itself never recurses).
MAX_JOINTS = 10_000
MAX_DEPTH = 256
MAX_FILE_VALUE = motion.MAX_FILE_VALUE
#: Farthest any joint, offset or end site may lie from the origin once in metres (100 km).
MAX_METRES = 1e5


class _Hierarchy(_Tokens):
    """The joints of the hierarchy, read by a loop over an explicit stack of open joints."""

    def __init__(self, lines: list[str], path: str) -> None:
        super().__init__(lines, path)
        self.joints: list[_Joint] = []
        self.lines: dict[str, int] = {}  # joint name → line it is declared on
        self.open: list[tuple[int, int]] = []  # (joint index, line) of joints not yet closed
        self.with_offset: set[int] = set()  # joints whose OFFSET has been read

    def start(self, parent: int, kind: str) -> None:
        """The joint whose ROOT/JOINT keyword was just taken: its name and '{'."""
        name_words, line = self.rest_of_line()
        if not name_words:
            raise self.error(f"{kind} without a name", line)
        name = " ".join(name_words)
        if name in self.lines:
            raise self.error(f"joint name {name!r} is used twice (first on line "
                             f"{self.lines[name]}); joint names must be unique", line)
        if len(self.joints) >= MAX_JOINTS:
            raise self.error(f"more than {MAX_JOINTS} joints", line)
        if len(self.open) >= MAX_DEPTH:
            raise self.error(f"joints nested more than {MAX_DEPTH} deep", line)
        self.lines[name] = line
        self.open.append((len(self.joints), line))
        self.joints.append(_Joint(name, parent, np.zeros(3)))
        self.expect("{")

    def read_root(self) -> None:
        """Everything up to the '}' closing the ROOT just taken."""
        self.start(-1, "ROOT")
        while self.open:
            index, line = self.open[-1]
            joint = self.joints[index]
            word = self.peek()
            if word is None:
                raise self.error(f"file ends inside joint {joint.name!r}; missing '}}'")
            keyword = word.upper()
            if keyword == "}":
                self.take("'}'")
                if index not in self.with_offset:
                    raise self.error(f"joint {joint.name!r} has no OFFSET", line)
                self.open.pop()
            elif keyword == "OFFSET":
                self.take("OFFSET")
                joint.offset = self.vector(f"OFFSET of {joint.name!r}")
                self.with_offset.add(index)
            elif keyword == "CHANNELS":
                joint.channels = self.channels(joint.name)
            elif keyword == "JOINT":
                self.take("JOINT")
                self.start(index, "JOINT")
            elif keyword == "END":
                self.take("End Site")
                self.rest_of_line()  # "Site"
                self.expect("{")
                self.expect("OFFSET")
                joint.end_site = self.vector(f"End Site OFFSET of {joint.name!r}")
                self.expect("}")
            else:
                raise self.error(f"unexpected {shown(word)} in joint {joint.name!r}")

    def vector(self, what: str) -> np.ndarray:
        values = []
        for _ in "xyz":
            line = self.line()
            value = self.number(what)
            if abs(value) > MAX_FILE_VALUE:
                raise self.error(f"{what} has {value:g}, beyond ±{MAX_FILE_VALUE:g} file units",
                                 line)
            values.append(value)
        return np.array(values)

    def channels(self, name: str) -> list[str]:
        _, channel_line = self.take("CHANNELS")
        count_word, _ = self.take("a channel count")
        # ASCII digits only: "²".isdigit() is true
        if not (count_word.isascii() and count_word.isdigit() and len(count_word) <= 18):
            raise self.error(f"CHANNELS count of {name!r} must be an integer, found "
                             f"{shown(count_word)}", channel_line)
        count = int(count_word)
        if count > len(_CHANNELS):
            raise self.error(f"CHANNELS count of {name!r} is {count}; a joint has at most "
                             f"{len(_CHANNELS)}", channel_line)
        names = []
        for _ in range(count):
            channel, ch_line = self.take(f"a channel name for {name!r}")
            if channel.lower() not in _CHANNELS:
                raise self.error(f"unknown channel {shown(channel)} on joint {name!r}", ch_line)
            names.append(_CHANNELS[channel.lower()])
        if len(set(names)) != len(names):
            raise self.error(f"joint {name!r} repeats a channel", channel_line)
        return names


def _parse_hierarchy(lines: list[str], path: str) -> tuple[list[_Joint], int]:
    """The joints of the HIERARCHY ``lines``, and their channel count (a frame's width)."""
    hierarchy = _Hierarchy(lines, path)
    hierarchy.expect("HIERARCHY")
    while hierarchy.peek() is not None:
        hierarchy.expect("ROOT")
        hierarchy.read_root()
    if not hierarchy.joints:
        raise hierarchy.error("empty hierarchy: no ROOT joint")
    return hierarchy.joints, sum(len(j.channels) for j in hierarchy.joints)


def _rotation_order(channels: list[str]) -> str:
    """Euler order of the rotation channels as written; missing axes go last (angle 0)."""
    axes = [c[0] for c in channels if c.endswith("rotation")]
    return "".join(axes + [a for a in "XYZ" if a not in axes])


def _build_clip(joints: list[_Joint], data: np.ndarray, fps: float) -> Clip:
    """Clip in file units and axes from parsed joints and ``(F, C)`` channel data.

    ``data`` is used up: its rotation columns may be overwritten.
    """
    frames = data.shape[0]
    count = len(joints)
    offsets = np.stack([j.offset for j in joints])
    skeleton = Skeleton(
        names=[j.name for j in joints], parents=np.array([j.parent for j in joints]),
        offsets=offsets,
        end_sites={i: j.end_site for i, j in enumerate(joints) if j.end_site is not None})
    zero_column = int(data.shape[1])  # stands in for rotation axes a joint has no channel for
    positions = np.broadcast_to(offsets, (frames, count, 3)).copy()
    pos_joint, pos_axis, pos_column = [], [], []
    rotating: list[int] = []
    orders: list[str] = []
    rot_columns: list[list[int]] = []
    column = 0
    for index, joint in enumerate(joints):
        axis_columns: dict[str, int] = {}
        for name in joint.channels:
            if name.endswith("position"):
                pos_joint.append(index)
                pos_axis.append("XYZ".index(name[0]))
                pos_column.append(column)
            else:
                axis_columns[name[0]] = column
            column += 1
        if axis_columns:
            rotating.append(index)
            orders.append(_rotation_order(joint.channels))
            rot_columns.append([axis_columns.get(axis, zero_column) for axis in orders[-1]])
    positions[:, pos_joint, pos_axis] = data[:, pos_column]
    if not rotating:
        return Clip(skeleton, quat.identity((frames, count)), positions, fps)
    columns = np.array(rot_columns, dtype=np.intp)
    first = int(columns[0, 0])
    if columns.max() < zero_column and np.array_equal(columns.ravel(),
                                                      np.arange(first, first + columns.size)):
        # The usual layout, rotation channels side by side in order: convert them in place.
        angles = data[:, first : first + columns.size].reshape(frames, len(rotating), 3)
    else:
        if columns.max() == zero_column:
            data = np.concatenate([data, np.zeros((frames, 1))], axis=1)
        angles = data[:, columns]
    rotation = _euler_to_quat(angles, orders)
    if len(rotating) == count:
        return Clip(skeleton, rotation, positions, fps)
    rotations = quat.identity((frames, count))
    rotations[:, rotating] = rotation
    return Clip(skeleton, rotations, positions, fps)


def _euler_to_quat(degrees: np.ndarray, orders: list[str]) -> np.ndarray:
    """Quaternions ``(F, R, 4)`` of intrinsic Euler angles ``(F, R, 3)`` in degrees, the
    angles of joint ``r`` in the order ``orders[r]`` (e.g. "ZXY"); ``degrees`` is overwritten.

    The same rotations as ``quat.from_euler(np.radians(degrees), order)`` but multiplied out
    in closed form for every joint at once: for axis quaternions ``(c, s·e)`` about distinct
    axes ``i, j, k`` with ``e_i × e_j = σ e_k``, the product ``q_i q_j q_k`` is
    ``w = c_i c_j c_k − σ s_i s_j s_k``, ``v_i = s_i c_j c_k + σ c_i s_j s_k``,
    ``v_j = c_i s_j c_k − σ s_i c_j s_k``, ``v_k = c_i c_j s_k + σ s_i s_j c_k``.
    Done in blocks of frames so that the temporaries stay small, cached and reused.
    """
    axes = np.array([["XYZ".index(axis) for axis in order] for order in orders])
    sigma = np.where((axes[:, 1] - axes[:, 0]) % 3 == 1, 1.0, -1.0)
    out = np.empty(degrees.shape[:-1] + (4,))
    step = max(1, _EULER_BLOCK // max(1, len(orders)))
    for start in range(0, len(degrees), step):
        _euler_block(degrees[start : start + step], axes, sigma, out[start : start + step])
    return out


# Joint-frames per block of _euler_to_quat (temporaries of 8 bytes × this × 3).
_EULER_BLOCK = 2048


def _euler_block(
    degrees: np.ndarray, axes: np.ndarray, sigma: np.ndarray, out: np.ndarray
) -> None:
    """:func:`_euler_to_quat` of one block into ``out``, given ``axes (R, 3)`` (0–2 for X–Z,
    in each joint's order) and ``sigma (R,)``, the sign of ``e_i × e_j = σ e_k``."""
    # cos and sin of the half angles from one tangent of the quarter angles: numpy's tan is
    # vectorised and several times faster than sin plus cos, and as exact (within 1 ulp here):
    # sin = 2t / (1 + t²), cos = 2 / (1 + t²) − 1. Two arrays, computed in place.
    sin = degrees
    sin *= np.pi / 720.0
    np.tan(sin, out=sin)
    cos = sin * sin
    cos += 1.0
    np.divide(2.0, cos, out=cos)
    sin *= cos
    cos -= 1.0
    cos_i, cos_j, cos_k = cos[..., 0], cos[..., 1], cos[..., 2]
    sin_i, sin_j, sin_k = sin[..., 0], sin[..., 1], sin[..., 2]
    cos_cos = cos_i * cos_j
    sin_sin = sin_i * sin_j
    sin_sin *= sigma
    sin_cos = sin_i * cos_j
    cos_sin = cos_i * sin_j
    sigma_sin_k = sin_k * sigma
    np.multiply(cos_cos, cos_k, out=out[..., 0])
    out[..., 0] -= sin_sin * sin_k
    one_order = bool(np.all(axes == axes[0]))
    if one_order:  # v_i, v_j, v_k go straight to their places
        targets = [out[..., 1 + axis] for axis in axes[0]]
    else:
        vector = np.empty(degrees.shape)
        targets = [vector[..., n] for n in range(3)]
    np.multiply(sin_cos, cos_k, out=targets[0])
    targets[0] += cos_sin * sigma_sin_k
    np.multiply(cos_sin, cos_k, out=targets[1])
    targets[1] -= sin_cos * sigma_sin_k
    np.multiply(cos_cos, sin_k, out=targets[2])
    targets[2] += sin_sin * cos_k
    if not one_order:
        # Axis n of joint r goes to x, y or z: out[..., r, 1 + axes[r, n]] = vector[..., r, n].
        joints = np.arange(len(axes))[:, None]
        out[..., joints, 1 + axes] = vector


def _body(skeleton: Skeleton) -> np.ndarray:
    """``(J,)`` True for the body's joints (:func:`footfall.humanoid.body_joints`: a still node
    above the hips is none); every joint of a skeleton without legs."""
    from footfall.humanoid import body_joints, find_legs  # the humanoid package never imports bvh

    body = np.ones(skeleton.joint_count, dtype=bool)
    try:
        legs = find_legs(skeleton)
    except MappingError:
        return body
    body[:] = False
    body[body_joints(skeleton, (legs["left"], legs["right"]))] = True
    return body


def _pose_points(clip: Clip, frame: int | None) -> np.ndarray:
    """Global joint and end-site positions ``(N, 3)`` of the rest pose or of ``frame``: joints
    first (every joint, in order), then the end sites."""
    skeleton = clip.skeleton
    if frame is None:
        rotations, translations = quat.identity((skeleton.joint_count,)), skeleton.offsets
    else:
        rotations, translations = clip.rotations[frame], clip.positions[frame]
    world_rot, world_pos = forward_kinematics(skeleton.parents, rotations, translations)
    sites = list(skeleton.end_sites)
    offsets = np.array([skeleton.end_sites[j] for j in sites]).reshape(-1, 3)
    tips = world_pos[sites] + quat.rotate(world_rot[sites], offsets)
    return np.concatenate([world_pos, tips], axis=0)


def _measure(clip: Clip, up: str) -> tuple[str, float]:
    """``(up axis, body height in file units)`` from the first frame and the rest pose.

    The up axis is the first frame's, else the rest pose's, else Y: a file saved from a Z-up
    source keeps that rest pose but plays upright in Y. The height is the taller of the two
    poses (some rest poses splay or bend the legs), without joints above the body (:func:`_body`).
    """
    from footfall.humanoid import auto_map  # the humanoid package never imports bvh

    skeleton = clip.skeleton
    rest = _pose_points(clip, None)
    first = _pose_points(clip, 0) if clip.frame_count else rest
    if up == "auto":  # a humanoid's feet→head line (joints come first in the points)
        rows = {bone: skeleton.index(joint) for bone, joint in auto_map(skeleton).items()}
        up = units.humanoid_up(rows, [first, rest]) or "y"
    body = np.ones(len(rest), dtype=bool)
    body[: skeleton.joint_count] = _body(skeleton)
    return up, max(units.body_height(rest[body], up), units.body_height(first[body], up))


def _convert(clip: Clip, scale: float, turn_z_up: bool) -> Clip:
    """The clip scaled to metres and, for Z-up files, turned to Y up at its roots.

    Takes over ``clip``'s position and rotation arrays (changed in place, no copies).
    """
    skeleton = clip.skeleton
    offsets = skeleton.offsets * scale
    positions = clip.positions
    positions *= scale
    rotations = clip.rotations
    end_sites = {j: site * scale for j, site in skeleton.end_sites.items()}
    if turn_z_up:
        roots = skeleton.parents < 0
        turn = units.Z_UP_TO_Y_UP
        offsets[roots] = quat.rotate(turn, offsets[roots])
        positions[:, roots] = quat.rotate(turn, positions[:, roots])
        rotations[:, roots] = quat.mul(turn, rotations[:, roots])
    converted = Skeleton(skeleton.names, skeleton.parents, offsets, end_sites)
    return Clip(converted, rotations, positions, clip.fps)


def _check_reach(clip: Clip, path: str, scale: float) -> None:
    """Refuse a clip whose positions or offsets (metres) pass :data:`MAX_METRES`."""
    skeleton = clip.skeleton
    parts = [clip.positions.reshape(-1, 3), skeleton.offsets,
             *[site[None] for site in skeleton.end_sites.values()]]
    reach = max(float(np.abs(part).max()) for part in parts if part.size)
    if not reach <= MAX_METRES:
        raise BVHError(f"{path}: joints reach {reach:.3g} m from the origin once scaled "
                       f"(× {scale:.6g} m per unit); more than {MAX_METRES:g} m is refused")


def _read_bytes(path: str) -> bytes:
    """The file's bytes as UTF-8 (or Latin-1) text: a UTF-8 byte-order mark dropped, a UTF-16
    file (with its mark: Notepad's "Unicode") recoded — as other tools re-save BVH files."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise BVHError(f"{path}: cannot read the file ({error.strerror or error})") from None
    if raw.startswith(codecs.BOM_UTF8):
        return raw[len(codecs.BOM_UTF8):]
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise BVHError(f"{path}: a UTF-16 file that does not decode as UTF-16") from None
    return raw


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


@overload
def load(
    path: str | PathLike[str], *, scale: float | Literal["auto"] = ...,
    up: Literal["auto", "y", "z"] = ..., return_info: Literal[False] = ...,
) -> Clip: ...


@overload
def load(
    path: str | PathLike[str], *, scale: float | Literal["auto"] = ...,
    up: Literal["auto", "y", "z"] = ..., return_info: Literal[True],
) -> tuple[Clip, BVHInfo]: ...


def load(
    path: str | PathLike[str], *, scale: float | Literal["auto"] = "auto",
    up: Literal["auto", "y", "z"] = "auto", return_info: bool = False,
) -> Clip | tuple[Clip, BVHInfo]:
    """Read a BVH file as a clip in metres, Y up.

    Args:
        path: the .bvh file.
        scale: metres per file unit, or "auto" to pick metres, centimetres, inches, CMU
            units or millimetres by the body's height (1.4–2.0 m), else scale the body to 1.7 m.
        up: the file's up axis, "y", "z" or "auto" (a humanoid's feet→head line as the
            first frame plays, else in the rest pose, else Y); Z-up files are turned to Y up
            at the root(s).
        return_info: also return a :class:`BVHInfo`.

    Returns:
        The :class:`Clip` (``rotations (F, J, 4)``, ``positions (F, J, 3)`` metres; joints in
        file order; position channels replace a joint's OFFSET frame by frame), and the
        :class:`BVHInfo` when ``return_info`` is true. Raises :class:`BVHError` naming the file
        and line for any malformed input.
    """
    name = str(path)
    if up not in ("auto", "y", "z"):
        raise BVHError(f"{name}: up must be 'auto', 'y' or 'z', got {up!r}")
    if scale != "auto" and (isinstance(scale, str) or not (np.isfinite(scale) and scale > 0)):
        raise BVHError(f"{name}: scale must be 'auto' or a positive number, got {scale!r}")
    raw = _read_bytes(name)
    split = motion.split_at_motion(raw)
    parsed = None
    if split is not None:
        header, motion_lines, frames_start = split
        joints, width = _parse_hierarchy(header, name)
        parsed = motion.read_motion_fast(motion_lines, raw, frames_start, name, width,
                                         len(joints))
    if parsed is None:
        # General path: every line, numpy.loadtxt, and errors that name the line.
        lines = _decode(raw).splitlines()
        start = next((i for i, line in enumerate(lines) if motion.is_motion_line(line)), None)
        if start is None:
            if not any(line.strip() for line in lines):
                raise BVHError(f"{name}, line 1: the file is empty")
            raise BVHError(f"{name}, line {len(lines)}: no MOTION section (truncated file?)")
        if split is None:
            joints, width = _parse_hierarchy(lines[:start], name)
        parsed = motion.read_motion(lines, start, name, width, len(joints))
    data, frame_time, fps = parsed
    try:
        read = _build_clip(joints, data, fps)
    except SkeletonError as error:
        raise BVHError(f"{name}: {error}") from None

    up_axis, raw_height = _measure(read, up)
    if scale == "auto":
        unit, factor = units.choose_scale(raw_height)
    else:
        unit, factor = "given", float(scale)
    clip = _convert(read, factor, up_axis == "z")
    _check_reach(clip, name, factor)
    check_size(clip, name, error=BVHError)
    if not return_info:
        return clip
    info = BVHInfo(
        path=name, unit=unit, scale=factor, up=up_axis, standing_height=raw_height * factor,
        frame_time=frame_time, channels=tuple(tuple(j.channels) for j in joints),
        rotation_orders=tuple(_rotation_order(j.channels) for j in joints),
    )
    return clip, info
