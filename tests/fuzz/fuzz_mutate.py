"""Deterministic mutations of text, JSON, GLB and PNG inputs (a ``random.Random`` decides all).

Each mutator takes the seed input's bytes and a generator and returns new bytes; the choices
are what a hostile or careless user produces: numbers at the edges of float and int, unicode
digits, truncation, deleted or repeated lines, deep nesting, wrong types and lengths in JSON,
chunk and header fields of binary containers out of range.
"""

from __future__ import annotations

import json
import random
import re
import struct
import zlib
from collections.abc import Callable
from typing import Any

Mutator = Callable[[bytes, random.Random], bytes]

#: Numbers as text that have broken readers: float edges, non-finite, unicode digits, huge ints.
NUMBERS = [
    "0", "-0", "1", "-1", "2", "3", "6", "1e308", "-1e308", "1e309", "5e-324", "1e-320",
    "nan", "NaN", "inf", "-inf", "Infinity", "²", "٣", "1e6", "-1e6", "1e12", "1e-9",
    "99999999999", "9" * 401, "1" * 5000, "0x10", "1_000", "1e", "--1", "+", ".", "1.2.3",
    "4294967296", "-2147483649", "1e1000000",
]
WORDS = ["{", "}", "JOINT", "ROOT", "End", "Site", "OFFSET", "CHANNELS", "MOTION", "Frames:",
         "Frame", "Time:", "HIERARCHY", "Xposition", "Zrotation", "\x00", "\ufeff", "v", "f",
         "vn", "#", "", "Hips", "mixamorig:Hips"]
_NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _replace_one_number(data: bytes, rng: random.Random, choices: list[str]) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return data
    hit = rng.choice(found)
    return data[: hit.start()] + rng.choice(choices).encode() + data[hit.end():]


def replace_number(data: bytes, rng: random.Random) -> bytes:
    """One number of the text replaced by an edge value."""
    return _replace_one_number(data, rng, NUMBERS)


def scale_numbers(data: bytes, rng: random.Random) -> bytes:
    """Every number of a random stretch of lines multiplied by a huge or tiny factor."""
    lines = _lines(data)
    start = rng.randrange(len(lines))
    stop = min(len(lines), start + rng.randint(1, 40))
    factor = rng.choice([1e6, 1e12, 1e300, -1e300, 1e-300, 0.0])

    def scaled(match: re.Match[bytes]) -> bytes:
        return repr(float(match.group()) * factor).encode()

    for index in range(start, stop):
        lines[index] = _NUMBER.sub(scaled, lines[index])
    return b"\n".join(lines)


def replace_word(data: bytes, rng: random.Random) -> bytes:
    """One whitespace-separated word replaced by a keyword, a number or a control character."""
    words = list(re.finditer(rb"\S+", data))
    if not words:
        return data
    hit = rng.choice(words)
    new = rng.choice(WORDS + NUMBERS).encode("utf-8")
    return data[: hit.start()] + new + data[hit.end():]


def delete_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.randint(1, 8)]
    return b"\n".join(lines)


def repeat_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    block = lines[start : start + rng.randint(1, 8)]
    return b"\n".join(lines[:start] + block * rng.randint(2, 50) + lines[start:])


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def splice(data: bytes, rng: random.Random) -> bytes:
    """A random stretch of the input copied over another place."""
    if len(data) < 4:
        return data
    a, b = sorted(rng.randrange(len(data)) for _ in range(2))
    at = rng.randrange(len(data))
    return data[:at] + data[a:b] + data[at:]


def mutate_binary(data: bytes, rng: random.Random) -> bytes:
    """One to three byte-level mutations (packets, containers)."""
    for _ in range(rng.choice([1, 1, 2, 3])):
        data = rng.choice([truncate, flip_bytes, flip_bytes, splice])(data, rng)
    return data


TEXT_MUTATORS: list[Mutator] = [replace_number, replace_number, replace_number, scale_numbers,
                                replace_word, delete_lines, repeat_lines, truncate, flip_bytes,
                                splice]


def mutate_text(data: bytes, rng: random.Random) -> bytes:
    """One to three text mutations in a row."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data = rng.choice(TEXT_MUTATORS)(data, rng)
    return data


# ------------------------------------------------------------------------------------- JSON
JSON_VALUES: list[Any] = [None, True, False, 0, -1, 1, 2, 3, 10**6, 2**31, 2**64, -(2**63),
                          1e308, -1e308, 5e-324, 0.5, "", "x", "joint", [], {}, [0], [0, 0],
                          [0, 0, 0], [0, 0, 0, 0], [1] * 15, [1] * 16, {"a": 1}]


def _paths(node: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every path into a JSON tree (iteration bounded: at most 4,000 paths)."""
    out = [prefix]
    stack = [(node, prefix)]
    while stack and len(out) < 4000:
        value, path = stack.pop()
        items = (value.items() if isinstance(value, dict)
                 else enumerate(value) if isinstance(value, list) else ())
        for key, child in items:
            out.append(path + (key,))
            stack.append((child, path + (key,)))
    return out


def _set(tree: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return tree


_DEEP = re.compile(rb'"__deep_(\d+)_(\d)__"')


def _deep(depth: int, rng: random.Random) -> str:
    """A marker :func:`_dump` replaces by ``depth`` nested arrays or objects (as text: a tree
    that deep cannot go through the recursive ``json.dumps``)."""
    return f"__deep_{depth}_{rng.randrange(2)}__"


def _nested(match: re.Match[bytes]) -> bytes:
    depth, kind = int(match.group(1)), match.group(2)
    if kind == b"0":
        return b"[" * depth + b"0" + b"]" * depth
    return b'{"a":' * depth + b"0" + b"}" * depth


def mutate_tree(tree: Any, rng: random.Random) -> Any:
    """One to three edits of a parsed JSON tree: a value replaced, removed or nested deep."""
    for _ in range(rng.choice([1, 1, 2, 3])):
        paths = _paths(tree)
        path = rng.choice(paths)
        choice = rng.random()
        if choice < 0.6:
            tree = _set(tree, path, json.loads(json.dumps(rng.choice(JSON_VALUES))))
        elif choice < 0.75 and path:
            parent = tree
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        elif choice < 0.85:
            tree = _set(tree, path, _deep(rng.choice([50, 2000, 100_000]), rng))
        else:
            tree = _set(tree, path, rng.choice([float("nan"), float("inf"), -float("inf")]))
    return tree


def _dump(tree: Any) -> bytes:
    return _DEEP.sub(_nested, json.dumps(tree).encode())


def mutate_json(data: bytes, rng: random.Random) -> bytes:
    """A JSON file mutated as a tree (mostly) or as text; huge integers as raw digits."""
    if rng.random() < 0.25:
        return mutate_text(data, rng)
    tree = mutate_tree(json.loads(data), rng)
    text = _dump(tree)
    if rng.random() < 0.1:
        text = replace_number(text, rng)
    return text


# -------------------------------------------------------------------------------------- GLB
def split_glb(data: bytes) -> tuple[dict[str, Any], bytes]:
    """(JSON document, BIN chunk) of a well-formed GLB."""
    length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20 : 20 + length])
    rest = data[20 + length :]
    blob = rest[8 : 8 + struct.unpack_from("<I", rest, 0)[0]] if len(rest) >= 8 else b""
    return document, blob


def join_glb(document: dict[str, Any] | bytes, blob: bytes) -> bytes:
    """A GLB container with correct chunk lengths around ``document`` and ``blob``."""
    text = document if isinstance(document, bytes) else _dump(document)
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob), b"BIN\0")
    body += blob
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def scale_nodes(document: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A scale bomb: every node translation (or one node's) times a huge finite factor."""
    factor = rng.choice([1e3, 1e4, 1e6])
    nodes = [node for node in document.get("nodes", []) if "translation" in node]
    for node in nodes if rng.random() < 0.5 else rng.sample(nodes, min(1, len(nodes))):
        node["translation"] = [value * factor for value in node["translation"]]
    return document


def mutate_glb(data: bytes, rng: random.Random) -> bytes:
    """A GLB with its JSON mutated (lengths kept right), its BIN chunk cut, or its bytes hit."""
    choice = rng.random()
    if choice < 0.6:
        document, blob = split_glb(data)
        return join_glb(mutate_tree(document, rng), blob)
    if choice < 0.7:
        document, blob = split_glb(data)
        return join_glb(scale_nodes(document, rng), blob)
    if choice < 0.85:
        document, blob = split_glb(data)
        return join_glb(document, blob[: rng.randrange(len(blob) + 1)])
    return rng.choice([truncate, flip_bytes, splice])(data, rng)


# -------------------------------------------------------------------------------------- PNG
def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks, at = [], 8
    while at + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, at)
        chunks.append((kind, data[at + 8 : at + 8 + length]))
        at += 12 + length
    return chunks


def _png(chunks: list[tuple[bytes, bytes]]) -> bytes:
    out = b"\x89PNG\r\n\x1a\n"
    for kind, body in chunks:
        out += struct.pack(">I", len(body)) + kind + body
        out += struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return out


def mutate_png(data: bytes, rng: random.Random) -> bytes:
    """A PNG whose header declares other sizes or depths (CRC fixed), or whose bytes are hit."""
    choice = rng.random()
    chunks = _png_chunks(data)
    if choice < 0.5 and chunks and chunks[0][0] == b"IHDR":
        width, height, depth, colour, *rest = struct.unpack(">IIBBBBB", chunks[0][1])
        field = rng.randrange(4)
        big = rng.choice([0, 1, 2, 65_535, 100_000, 2**31 - 1])
        if field == 0:
            width = big
        elif field == 1:
            height = big
        elif field == 2:
            depth = rng.choice([1, 2, 4, 8, 16, 3, 0])
        else:
            colour = rng.choice([0, 2, 3, 4, 6, 5])
        chunks[0] = (b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, *rest))
        return _png(chunks)
    if choice < 0.7 and len(chunks) > 2:
        del chunks[rng.randrange(1, len(chunks))]
        return _png(chunks)
    return rng.choice([truncate, flip_bytes, splice])(data, rng)


# -------------------------------------------------------------------------------------- BVH
#: Numbers a BVH reader must take as written: tiny, subnormal, large but inside its limits.
VALID_NUMBERS = ["0", "-0", "1e-9", "1e-300", "5e-324", "0.1", "359.999", "-720", "1e6",
                 "-1e6", "9999999", "1e7", "123456.789", "-0.000001"]
_END_SITE = re.compile(rb"End Site\s*\{\s*OFFSET[^}]*\}", re.IGNORECASE)
_CHANNEL_LINE = re.compile(rb"CHANNELS\s+\d+((?:\s+[XYZ](?:position|rotation))+)", re.IGNORECASE)
_JOINT_NAME = re.compile(rb"(?:JOINT|ROOT)[ \t]+([^\r\n{]+)")


def valid_number(data: bytes, rng: random.Random) -> bytes:
    """One number replaced by a value the reader must take as written."""
    return _replace_one_number(data, rng, VALID_NUMBERS)


def nest_joints(data: bytes, rng: random.Random) -> bytes:
    """An End Site replaced by a chain of channel-less joints (well-formed, any depth)."""
    sites = list(_END_SITE.finditer(data))
    if not sites:
        return data
    hit = rng.choice(sites)
    depth = rng.choice([5, 100, 255, 256, 300, 1000, 5000])
    chain = b"".join(b"JOINT nest%d\n{\nOFFSET 0 0.01 0\nCHANNELS 0\n" % i for i in range(depth))
    return data[: hit.start()] + chain + hit.group() + b"\n}" * depth + data[hit.end():]


def shuffle_channels(data: bytes, rng: random.Random) -> bytes:
    """One joint's channel names in another order (the MOTION columns keep theirs)."""
    lines = list(_CHANNEL_LINE.finditer(data))
    if not lines:
        return data
    hit = rng.choice(lines)
    names = hit.group(1).split()
    rng.shuffle(names)
    start, end = hit.span(1)
    return data[:start] + b" " + b" ".join(names) + data[end:]


def rename_joint(data: bytes, rng: random.Random) -> bytes:
    """A joint renamed to another joint's name, a humanoid name, or unicode."""
    names = list(_JOINT_NAME.finditer(data))
    if len(names) < 2:
        return data
    hit = rng.choice(names)
    new = rng.choice([rng.choice(names).group(1).strip(), b"Head", b"LeftFoot", b"Hips",
                      "가슴".encode(), b"a b  c"])
    start, end = hit.span(1)
    return data[:start] + new + b"\n" + data[end:].lstrip(b" \t")


def motion_header(data: bytes, rng: random.Random) -> bytes:
    """Frames count or Frame Time changed to edge values."""
    if rng.random() < 0.5:
        value = rng.choice([b"0", b"1", b"2", b"5", b"7", b"100000000"])
        return re.sub(rb"Frames:\s*\S+", b"Frames: " + value, data, count=1)
    value = rng.choice([b"0.0001", b"0.00009", b"3600", b"3601", b"0.008333", b"1", b"1e-4"])
    return re.sub(rb"Frame Time:\s*\S+", b"Frame Time: " + value, data, count=1)


def empty_motion(data: bytes, rng: random.Random) -> bytes:
    """No frames: ``Frames: 0`` and the frame lines gone (a skeleton-only file)."""
    match = re.search(rb"Frames:\s*\S+[^\n]*\n([^\n]*Frame Time:[^\n]*\n?)", data, re.IGNORECASE)
    if match is None:
        return data
    return data[: match.start()] + b"Frames: 0\n" + match.group(1)


def giant_token(data: bytes, rng: random.Random) -> bytes:
    """One word (a joint name, a keyword, a number of the hierarchy or of a frame line, the frame
    count) replaced by a token of megabytes without whitespace."""
    words = list(re.finditer(rb"\S+", data))
    if not words:
        return data
    hit = rng.choice(words)
    token = rng.choice([b"1", b"9", b"J", b"0.", b"-"]) * rng.choice([1 << 20, 3 << 20, 8 << 20])
    return data[: hit.start()] + token + data[hit.end():]


_OFFSET = re.compile(rb"(OFFSET[ \t]+)([^\r\n]*)", re.IGNORECASE)


def scale_bomb(data: bytes, rng: random.Random) -> bytes:
    """Every OFFSET (or one, often an End Site's) times a huge finite factor, the frame lines
    left alone: a skeleton kilometres tall, or one bone that long."""
    factor = rng.choice([1e3, 1e4, 1e6, 3e6])
    offsets = list(_OFFSET.finditer(data))
    if not offsets:
        return data
    chosen = offsets if rng.random() < 0.5 else [rng.choice(offsets)]

    def scaled(match: re.Match[bytes]) -> bytes:
        return repr(float(match.group()) * factor).encode()

    out, at = [], 0
    for match in chosen:
        out += [data[at:match.start(2)], _NUMBER.sub(scaled, match.group(2))]
        at = match.end(2)
    return b"".join(out) + data[at:]


BVH_MUTATORS: list[Mutator] = [valid_number, valid_number, nest_joints, shuffle_channels,
                               rename_joint, motion_header, empty_motion, giant_token,
                               scale_bomb]


def mutate_bvh(data: bytes, rng: random.Random) -> bytes:
    """Half BVH-aware mutations that keep the file well-formed or nearly, half text ones."""
    if rng.random() < 0.5:
        return mutate_text(data, rng)
    for _ in range(rng.choice([1, 1, 2])):
        data = rng.choice(BVH_MUTATORS)(data, rng)
    return data
