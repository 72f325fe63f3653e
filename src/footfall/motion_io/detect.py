"""Which format a motion file is, from its first bytes (and, for a GLB, its JSON chunk's
extensions), not only from its name.

A file's content wins over its suffix (a GLB saved as ``.bvh`` is read as glTF). A file whose
first bytes name no format is handed to the reader its suffix names, which reports the exact
place it went wrong (a BVH mutated in its first line: "line 1: expected HIERARCHY"); with an
unknown suffix too, it is refused in one line.
"""

from __future__ import annotations

import codecs
import struct
from pathlib import Path

from footfall.errors import MotionFileError

#: A format's name → how messages call it.
LABELS = {
    "bvh": "BVH", "glb": "glTF binary (GLB)", "gltf": "glTF (JSON)", "vrm": "VRM avatar",
    "vrma": "VRM Animation", "fbx": "FBX", "npy": "NumPy .npy", "npz": "NumPy .npz archive",
    "pickle": "Python pickle",
}
#: Suffix → format, for files whose first bytes say nothing.
SUFFIXES = {
    ".bvh": "bvh", ".glb": "glb", ".gltf": "gltf", ".vrm": "vrm", ".vrma": "vrma", ".fbx": "fbx",
    ".npy": "npy", ".npz": "npz", ".pkl": "pickle", ".pickle": "pickle",
}
#: Bytes read to sniff a file, and the most of a GLB's JSON chunk read for its extensions.
HEAD_BYTES = 64
MAX_JSON_SNIFF = 64 * 1024 * 1024
_FBX_BINARY = b"Kaydara FBX Binary"
_NPY = b"\x93NUMPY"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")


def label(fmt: str) -> str:
    """How messages name format ``fmt``."""
    return LABELS.get(fmt, fmt)


def _text_start(head: bytes) -> str:
    """The first characters of ``head`` as text: a UTF-8 or UTF-16 mark dropped, spaces
    stripped, upper-cased."""
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8):]
    elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        head = head.decode("utf-16", errors="ignore").encode("utf-8", errors="ignore")
    return head.decode("latin-1").lstrip().upper()


def _glb_kind(path: Path) -> str:
    """``"vrma"``, ``"vrm"`` or ``"glb"`` for a GLB, by the extensions its JSON chunk names."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
            if len(header) < 20:
                return "glb"  # the glTF reader says what is missing
            length, kind = struct.unpack_from("<II", header, 12)
            if kind != 0x4E4F534A:  # "JSON"
                return "glb"
            text = handle.read(min(length, MAX_JSON_SNIFF))
    except OSError:
        return "glb"
    return _json_kind(text, "glb")


def _json_kind(text: bytes, default: str) -> str:
    if b'"VRMC_vrm_animation"' in text:
        return "vrma"
    if b'"VRMC_vrm"' in text or b'"VRM"' in text:
        return "vrm"
    return default


def sniff(path: str | Path) -> str | None:
    """The format ``path``'s first bytes show (a key of :data:`LABELS`), or None when they
    show none. Raises :class:`MotionFileError` for a file that cannot be opened or is empty."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except FileNotFoundError:
        raise MotionFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MotionFileError(f"{path}: a folder, not a motion file (footfall batch takes "
                              "folders)") from None
    except OSError as error:
        raise MotionFileError(f"{path}: cannot read ({error.strerror or error})") from None
    if not head.strip():
        raise MotionFileError(f"{path}: the file is empty")
    if head.startswith(b"glTF"):
        return _glb_kind(path)
    if head.startswith(_FBX_BINARY):
        return "fbx"
    if head.startswith(_NPY):
        return "npy"
    if head.startswith(_ZIP):
        return "npz"
    if len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return "pickle"
    text = _text_start(head)
    if text.startswith("HIERARCHY"):
        return "bvh"
    if text.startswith("; FBX"):
        return "fbx"
    if text.startswith("{"):
        try:
            with open(path, "rb") as handle:
                return _json_kind(handle.read(MAX_JSON_SNIFF), "gltf")
        except OSError:
            return "gltf"
    return None


def detect(path: str | Path) -> str:
    """The format to read ``path`` as: its content's (:func:`sniff`), else its suffix's; a
    :class:`MotionFileError` naming the file and why when neither says one footfall reads.

    A ``.vrm`` file whose content is a plain GLB stays ``"vrm"`` (the avatar reader says what
    its VRM extension lacks), and a ``.glb`` holding a VRM is read as the GLB it is."""
    path = Path(path)
    found = sniff(path)
    by_name = SUFFIXES.get(path.suffix.lower())
    if found is None:
        if by_name is not None:
            return by_name  # the format's own reader names the line or field at fault
        with open(path, "rb") as handle:
            start = handle.read(16)
        raise MotionFileError(
            f"{path}: not a motion file footfall reads (it starts with {start!r}); expected "
            "BVH, glTF/GLB, VRM, VRM Animation, FBX, NumPy .npy/.npz or MDM's results.npy")
    if found == "glb" and by_name == "vrm":
        return "vrm"
    return found
