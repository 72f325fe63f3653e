"""OptiTrack NatNet packets: decode and encode, NatNet 2.x (frames and descriptions) to 4.2.

A packet is ``u16 message id, u16 payload bytes, payload``, little-endian; the layouts follow
OptiTrack's PacketClient.cpp (``notes/live-capture.md``) and change with the stream version.
Written by hand because no maintained library decodes every version into arrays (the PyPI
``natnet`` client is the tests' independent check). Every decode error is a :class:`PacketError`
whose ``kind`` (``truncated``, ``size``, ``malformed``, ``version``, ``unknown-message``) lets a
live client count and report each kind once.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from footfall.arrays import FloatArray
from footfall.errors import ProtocolError

NAT_CONNECT = 0
NAT_SERVERINFO = 1
NAT_REQUEST = 2
NAT_RESPONSE = 3
NAT_REQUEST_MODELDEF = 4
NAT_MODELDEF = 5
NAT_REQUEST_FRAMEOFDATA = 6
NAT_FRAMEOFDATA = 7
NAT_MESSAGESTRING = 8
NAT_DISCONNECT = 9
NAT_KEEPALIVE = 10
NAT_DISCONNECTBYTIMEOUT = 11
NAT_ECHOREQUEST = 12
NAT_ECHORESPONSE = 13
NAT_DISCOVERY = 14
NAT_UNRECOGNIZED_REQUEST = 100
KNOWN_MESSAGES = frozenset({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 100})

MAX_PACKET = 65503
COMMAND_PORT = 1510
DATA_PORT = 1511
MULTICAST_GROUP = "239.255.42.99"
SUPPORTED = ((2, 0), (4, 2))  # decodable range (major, minor), inclusive

FRAME_RECORDING = 0x01
FRAME_MODELS_CHANGED = 0x02
FRAME_BITSTREAM_CHANGED = 0x04

_HEADER = struct.Struct("<HH")
# SERVERINFO after the name: application and NatNet versions; then, from 3.0, clock frequency,
# data port, multicast flag and group address.
_SERVER_VERSIONS = struct.Struct("<4s4s")
_SERVER_3_0 = struct.Struct("<QHB4s")
# One rigid-body record from NatNet 3.0: id, position, quaternion (x, y, z, w), mean error,
# params (bit 0 = tracked); 38 bytes, packed.
_BONE = np.dtype([("id", "<i4"), ("pos", "<f4", 3), ("quat", "<f4", 4), ("error", "<f4"),
                  ("params", "<i2")])


class PacketError(ProtocolError):
    """A NatNet packet could not be decoded; ``kind`` names the class of problem."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"NatNet {kind}: {message}")
        self.kind = kind


Version = tuple[int, int]


def check_version(version: Version) -> Version:
    """``version`` as ``(major, minor)`` if it can be decoded, else a ``version`` PacketError."""
    major, minor = int(version[0]), int(version[1])
    if not SUPPORTED[0] <= (major, minor) <= SUPPORTED[1]:
        raise PacketError("version", f"stream version {major}.{minor} is outside "
                                     "{}.{}–{}.{}".format(*SUPPORTED[0], *SUPPORTED[1]))
    return major, minor


# ---------------------------------------------------------------------------- data classes


@dataclass(frozen=True)
class ServerInfo:
    """SERVERINFO: who streams and which NatNet version (4.1 means ``(4, 1, 0, 0)``)."""

    application: str
    application_version: tuple[int, int, int, int]
    natnet_version: tuple[int, int, int, int]
    clock_frequency: int | None = None
    data_port: int | None = None
    multicast: bool | None = None
    multicast_address: str | None = None

    @property
    def version(self) -> Version:
        """The stream version ``(major, minor)``."""
        return self.natnet_version[0], self.natnet_version[1]


@dataclass(frozen=True)
class BoneDescription:
    """One rigid body of a model definition (a skeleton bone or a free rigid body).

    ``offset`` ``(3,)`` metres from the parent; ``rotation`` ``(4,)`` wxyz (identity before 4.2).
    """

    name: str
    id: int
    parent_id: int
    offset: FloatArray
    rotation: FloatArray


@dataclass(frozen=True)
class SkeletonDescription:
    """A skeleton of a model definition: name, id and its bones in stream order."""

    name: str
    id: int
    bones: tuple[BoneDescription, ...]


@dataclass(frozen=True)
class ModelDefinition:
    """MODELDEF: skeletons, rigid bodies and marker sets (other types are skipped)."""

    skeletons: tuple[SkeletonDescription, ...] = ()
    rigid_bodies: tuple[BoneDescription, ...] = ()
    marker_sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: int = 0


@dataclass(frozen=True)
class SkeletonPose:
    """One skeleton of a frame: bone ids ``(B,)`` (``(skeleton << 16) | bone``), positions
    ``(B, 3)`` metres, rotations ``(B, 4)`` wxyz, tracked ``(B,)`` bool."""

    id: int
    bone_ids: NDArray[np.int64]
    positions: FloatArray
    rotations: FloatArray
    tracked: NDArray[np.bool_]


@dataclass(frozen=True)
class FrameOfData:
    """FRAMEOFDATA, the parts footfall uses.

    Attributes:
        frame_number: Motive's frame counter.
        skeletons: one :class:`SkeletonPose` per streamed skeleton.
        rigid_bodies: free rigid bodies as one :class:`SkeletonPose` with ``id`` −1.
        labeled_markers: how many labelled markers came along.
        timestamp: seconds since Motive started.
        mid_exposure, received, transmit: host clock ticks (3.0+, else 0).
        params: frame flags (``FRAME_MODELS_CHANGED`` …).
    """

    frame_number: int
    skeletons: tuple[SkeletonPose, ...]
    rigid_bodies: SkeletonPose
    labeled_markers: int
    timestamp: float
    mid_exposure: int = 0
    received: int = 0
    transmit: int = 0
    params: int = 0

    @property
    def models_changed(self) -> bool:
        """The tracked models changed: re-read the model definition."""
        return bool(self.params & FRAME_MODELS_CHANGED)


# ---------------------------------------------------------------------------- reading


class _Reader:
    """Bounds-checked little-endian reads over one payload."""

    def __init__(self, data: bytes | memoryview) -> None:
        self.data = memoryview(data)
        self.at = 0

    def need(self, count: int, what: str) -> None:
        if count < 0 or self.at + count > len(self.data):
            raise PacketError("truncated", f"{what} needs {count} bytes at byte {self.at}, "
                                           f"{len(self.data) - self.at} left")

    def unpack(self, fmt: struct.Struct, what: str) -> tuple:
        self.need(fmt.size, what)
        values = fmt.unpack_from(self.data, self.at)
        self.at += fmt.size
        return values

    def i32(self, what: str) -> int:
        return self.unpack(_I32, what)[0]

    def count(self, what: str, item_bytes: int) -> int:
        n = self.i32(what)
        if n < 0 or n * item_bytes > len(self.data) - self.at:
            raise PacketError("malformed", f"{what} = {n} at byte {self.at - 4} does not fit "
                                           f"the {len(self.data) - self.at} bytes left")
        return n

    def floats(self, count: int, what: str) -> FloatArray:
        self.need(4 * count, what)
        out = np.frombuffer(self.data, "<f4", count, self.at).astype(np.float64)
        self.at += 4 * count
        return out

    def cstr(self, what: str, limit: int | None = None) -> str:
        end = len(self.data) if limit is None else min(len(self.data), self.at + limit)
        raw = bytes(self.data[self.at:end])
        cut = raw.find(b"\0")
        if cut < 0:
            if limit is None:
                raise PacketError("truncated", f"{what} at byte {self.at} has no terminating NUL")
            cut = len(raw)
        self.at = end if limit is not None else self.at + cut + 1
        return raw[:cut].decode("utf-8", errors="replace")

    def skip(self, count: int, what: str) -> None:
        self.need(count, what)
        self.at += count


_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_I16 = struct.Struct("<h")
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")
_TWO_I32 = struct.Struct("<ii")
_THREE_U64 = struct.Struct("<QQQ")


def split_packet(packet: bytes | memoryview) -> tuple[int, memoryview]:
    """``(message id, payload)`` of one datagram: the payload is the header's byte count.

    Bytes after it are ignored, as Motive does: OptiTrack's sample clients send
    REQUEST_MODELDEF and KEEPALIVE with a count of 0 followed by their string's NUL. A datagram
    shorter than its count is a ``size`` error.
    """
    view = memoryview(packet)
    if len(view) < 4:
        raise PacketError("truncated", f"a packet needs a 4-byte header, got {len(view)} bytes")
    if len(view) > MAX_PACKET:
        raise PacketError("size", f"{len(view)} bytes is over NatNet's {MAX_PACKET}-byte limit")
    message, size = _HEADER.unpack_from(view)
    if size > len(view) - 4:
        raise PacketError("size", f"header says {size} payload bytes, got {len(view) - 4}")
    if message not in KNOWN_MESSAGES:
        raise PacketError("unknown-message", f"message id {message}")
    return message, view[4 : 4 + size]


def decode_server_info(payload: bytes | memoryview) -> ServerInfo:
    """SERVERINFO payload → :class:`ServerInfo` (the 3.0+ fields when present)."""
    r = _Reader(payload)
    name = r.cstr("server name", 256) if len(payload) >= 256 else r.cstr("server name")
    app, natnet = r.unpack(_SERVER_VERSIONS, "server versions")
    if len(payload) - r.at < _SERVER_3_0.size:
        return ServerInfo(name, tuple(app), tuple(natnet))  # type: ignore[arg-type]
    frequency, port, multicast, address = r.unpack(_SERVER_3_0, "server info")
    return ServerInfo(name, tuple(app), tuple(natnet), frequency, port,  # type: ignore[arg-type]
                      bool(multicast), ".".join(str(b) for b in address))


def _rigid_body_description(r: _Reader, version: Version) -> BoneDescription:
    name = r.cstr("rigid body name")
    ident, parent = r.unpack(_TWO_I32, "rigid body id and parent")
    offset = r.floats(3, f"offset of {name!r}")
    rotation = np.array([1.0, 0.0, 0.0, 0.0])
    if version >= (4, 2):
        x, y, z, w = r.floats(4, f"rotation offset of {name!r}")
        rotation = np.array([w, x, y, z])
    if version >= (3, 0):
        markers = r.count(f"marker count of {name!r}", 16)
        r.skip(16 * markers, f"markers of {name!r}")
        if version >= (4, 0):
            for _ in range(markers):
                r.cstr(f"marker name of {name!r}")
    return BoneDescription(name, ident, parent, offset, rotation)


def _skeleton_description(r: _Reader, version: Version) -> SkeletonDescription:
    name = r.cstr("skeleton name")
    ident = r.i32("skeleton id")
    count = r.count(f"bone count of {name!r}", 21)
    bones = tuple(_rigid_body_description(r, version) for _ in range(count))
    return SkeletonDescription(name, ident, bones)


def _skip_untyped(r: _Reader, kind: int, version: Version) -> None:
    """Step over a force plate (3), device (4) or camera (5) description before 4.1."""
    if kind == 3:
        r.i32("force plate id")
        r.cstr("force plate serial")
        r.skip(4 * (2 + 3 + 144 + 12) + 8, "force plate geometry")
        for _ in range(r.count("force plate channels", 1)):
            r.cstr("force plate channel")
    elif kind == 4:
        r.i32("device id")
        r.cstr("device name")
        r.cstr("device serial")
        r.skip(8, "device type")
        for _ in range(r.count("device channels", 1)):
            r.cstr("device channel")
    elif kind == 5:
        r.cstr("camera name")
        r.skip(28, "camera pose")
    else:
        raise PacketError("malformed", f"unknown model type {kind} at byte {r.at - 4}"
                                       f"(NatNet {version[0]}.{version[1]} has no size to skip it)")


def decode_model_definition(payload: bytes | memoryview, version: Version) -> ModelDefinition:
    """MODELDEF payload → :class:`ModelDefinition` for stream ``version`` ``(major, minor)``."""
    version = check_version(version)
    r = _Reader(payload)
    skeletons: list[SkeletonDescription] = []
    bodies: list[BoneDescription] = []
    sets: dict[str, tuple[str, ...]] = {}
    skipped = 0
    for _ in range(r.count("model count", 4)):
        kind = r.i32("model type")
        end = None
        if version >= (4, 1):
            size = r.count("model size", 1)
            end = r.at + size
        if kind == 0:
            name = r.cstr("marker set name")
            sets[name] = tuple(r.cstr(f"marker of {name!r}")
                               for _ in range(r.count(f"markers of {name!r}", 1)))
        elif kind == 1:
            bodies.append(_rigid_body_description(r, version))
        elif kind == 2:
            skeletons.append(_skeleton_description(r, version))
        elif end is not None:
            r.at = end  # a type this reader does not use: its size says how far to skip
            skipped += 1
        else:
            _skip_untyped(r, kind, version)
            skipped += 1
        if end is not None and r.at != end:
            raise PacketError("malformed", f"model type {kind} used {r.at - end + size} bytes, "
                                           f"its size says {size}")
    return ModelDefinition(tuple(skeletons), tuple(bodies), sets, skipped)


def _poses(records: np.ndarray, ident: int) -> SkeletonPose:
    with np.errstate(invalid="ignore", over="ignore"):  # NaN in a packet stays NaN
        quat_xyzw = records["quat"].astype(np.float64)
        positions = records["pos"].astype(np.float64)
    return SkeletonPose(ident, records["id"].astype(np.int64), positions,
                        quat_xyzw[:, [3, 0, 1, 2]], (records["params"] & 1).astype(bool))


def _rigid_bodies(r: _Reader, count: int, version: Version, what: str) -> np.ndarray:
    if version >= (3, 0):
        r.need(38 * count, what)
        records = np.frombuffer(r.data, _BONE, count, r.at)
        r.at += 38 * count
        return records
    records = np.zeros(count, _BONE)
    for i in range(count):
        ident = r.i32(f"{what} id")
        values = r.floats(7, f"{what} pose")
        markers = r.count(f"{what} marker count", 12)
        r.skip(12 * markers, f"{what} markers")
        r.skip(8 * markers, f"{what} marker ids and sizes")  # 2.0+: every decodable version
        error = r.unpack(_F32, f"{what} mean error")[0]
        params = r.unpack(_I16, f"{what} params")[0] if version >= (2, 6) else 1
        records[i] = (ident, values[:3], values[3:], error, params)
    return records


def decode_frame(payload: bytes | memoryview, version: Version) -> FrameOfData:
    """FRAMEOFDATA payload → :class:`FrameOfData` for stream ``version`` ``(major, minor)``."""
    version = check_version(version)
    sized = version >= (4, 1)
    r = _Reader(payload)
    frame_number = r.i32("frame number")

    def section(what: str, item_bytes: int) -> tuple[int, int | None]:
        n = r.count(f"{what} count", item_bytes)
        size = r.count(f"{what} size", 1) if sized else None
        return n, None if size is None else r.at + size

    def close(what: str, end: int | None) -> None:
        if end is not None and r.at != end:
            raise PacketError("malformed", f"{what} ended at byte {r.at}, its size says {end}")

    n, end = section("marker sets", 5)
    if end is not None:
        r.at = end
    else:
        for _ in range(n):
            r.cstr("marker set name")
            r.skip(12 * r.count("marker set size", 12), "marker set markers")
    n, end = section("legacy markers", 12)
    r.skip(12 * n, "legacy markers") if end is None else setattr(r, "at", end)
    n, end = section("rigid bodies", 38 if version >= (3, 0) else 32)
    bodies = _poses(_rigid_bodies(r, n, version, "rigid body"), -1)
    close("rigid bodies", end)
    skeletons: list[SkeletonPose] = []
    if version >= (2, 1):
        n, end = section("skeletons", 8)
        for _ in range(n):
            ident, bones = r.unpack(_TWO_I32, "skeleton id and bone count")
            if bones < 0 or bones * 32 > len(r.data) - r.at:
                raise PacketError("malformed", f"skeleton {ident} claims {bones} bones")
            skeletons.append(_poses(_rigid_bodies(r, bones, version, f"skeleton {ident} bone"),
                                    ident))
        close("skeletons", end)
    if version >= (4, 1):
        n, end = section("assets", 4)
        r.at = end  # type: ignore[assignment]
    labeled = 0
    if version >= (2, 3):
        item = 20 + (2 if version >= (2, 6) else 0) + (4 if version >= (3, 0) else 0)
        labeled, end = section("labeled markers", item)
        r.skip(item * labeled, "labeled markers") if end is None else setattr(r, "at", end)
    for what, since in (("force plates", (2, 9)), ("devices", (2, 11))):
        if version >= since:
            n, end = section(what, 8)
            if end is not None:
                r.at = end
                continue
            for _ in range(n):
                r.i32(f"{what} id")
                for _ in range(r.count(f"{what} channel count", 4)):
                    r.skip(4 * r.count(f"{what} channel frames", 4), f"{what} channel")
    if version < (3, 0):
        r.skip(4, "latency")
    r.skip(8, "timecode")
    timestamp = (r.unpack(_F64, "timestamp")[0] if version >= (2, 7)
                 else r.unpack(_F32, "timestamp")[0])
    ticks = (0, 0, 0)
    if version >= (3, 0):
        ticks = r.unpack(_THREE_U64, "host clock ticks")
    if version >= (4, 1):
        r.skip(8, "precision timestamp")
    params = r.unpack(_I16, "frame params")[0]
    return FrameOfData(frame_number, tuple(skeletons), bodies, labeled, float(timestamp),
                       *ticks, params=params & 0xFFFF)


# ---------------------------------------------------------------------------- writing


def packet(message: int, payload: bytes = b"") -> bytes:
    """One datagram: header + payload."""
    if len(payload) > MAX_PACKET - 4:
        raise PacketError("size", f"payload of {len(payload)} bytes is over the packet limit")
    return _HEADER.pack(message, len(payload)) + payload


def encode_connect(version: Version = (0, 0)) -> bytes:
    """CONNECT: "Ping", zero padding to 264 bytes, subscribed-data-only 0, requested version."""
    body = b"Ping".ljust(264, b"\0") + bytes([0, version[0], version[1], 0, 0])
    return packet(NAT_CONNECT, body)


def encode_server_info(info: ServerInfo) -> bytes:
    """SERVERINFO (the 3.0+ fields when the stream version is 3.0 or newer)."""
    body = info.application.encode("utf-8")[:255].ljust(256, b"\0")
    body += _SERVER_VERSIONS.pack(bytes(info.application_version), bytes(info.natnet_version))
    if info.natnet_version[0] >= 3:
        address = bytes(int(p) for p in (info.multicast_address or "0.0.0.0").split("."))
        body += _SERVER_3_0.pack(info.clock_frequency or 0, info.data_port or DATA_PORT,
                                 bool(info.multicast), address)
    return packet(NAT_SERVERINFO, body)


def _cstr(text: str) -> bytes:
    return text.encode("utf-8") + b"\0"


def _bone_description(bone: BoneDescription, version: Version) -> bytes:
    out = _cstr(bone.name) + _TWO_I32.pack(bone.id, bone.parent_id)
    out += np.asarray(bone.offset, "<f4").tobytes()
    if version >= (4, 2):
        w, x, y, z = bone.rotation
        out += np.array([x, y, z, w], "<f4").tobytes()
    if version >= (3, 0):
        out += _I32.pack(0)  # no markers
    return out


def encode_model_definition(model: ModelDefinition, version: Version) -> bytes:
    """MODELDEF with the skeletons and rigid bodies of ``model`` for stream ``version``."""
    version = check_version(version)
    items = [(1, _bone_description(body, version)) for body in model.rigid_bodies]
    for skeleton in model.skeletons:
        data = _cstr(skeleton.name) + _TWO_I32.pack(skeleton.id, len(skeleton.bones))
        data += b"".join(_bone_description(b, version) for b in skeleton.bones)
        items.append((2, data))
    out = _I32.pack(len(items))
    for kind, data in items:
        out += _I32.pack(kind) + (_I32.pack(len(data)) if version >= (4, 1) else b"") + data
    return packet(NAT_MODELDEF, out)


def encode_frame(frame: FrameOfData, version: Version) -> bytes:
    """FRAMEOFDATA with ``frame``'s skeletons and rigid bodies (3.0+ layouts; no markers)."""
    version = check_version(version)
    if version < (3, 0):
        raise PacketError("version", "footfall writes NatNet frames from 3.0 on")
    sized = version >= (4, 1)

    def records(pose: SkeletonPose) -> bytes:
        rec = np.zeros(len(pose.bone_ids), _BONE)
        rec["id"] = pose.bone_ids
        rec["pos"] = pose.positions
        rec["quat"] = np.asarray(pose.rotations)[:, [1, 2, 3, 0]]
        rec["params"] = np.asarray(pose.tracked, dtype=np.int16)
        return rec.tobytes()

    def section(count: int, data: bytes) -> bytes:
        return _I32.pack(count) + (_I32.pack(len(data)) if sized else b"") + data

    out = _I32.pack(frame.frame_number)
    out += section(0, b"") + section(0, b"")  # marker sets, legacy markers
    out += section(len(frame.rigid_bodies.bone_ids), records(frame.rigid_bodies))
    out += section(len(frame.skeletons), b"".join(
        _TWO_I32.pack(s.id, len(s.bone_ids)) + records(s) for s in frame.skeletons))
    if sized:
        out += section(0, b"")  # assets
    out += section(0, b"") + section(0, b"") + section(0, b"")  # labeled, plates, devices
    out += _U32.pack(0) + _U32.pack(0) + _F64.pack(frame.timestamp)
    out += _THREE_U64.pack(frame.mid_exposure, frame.received, frame.transmit)
    if sized:
        seconds = int(frame.timestamp)
        out += _U32.pack(seconds) + _U32.pack(int((frame.timestamp - seconds) * 1e9))
    out += _I16.pack(frame.params) + _I32.pack(0)
    return packet(NAT_FRAMEOFDATA, out)


def empty_pose(ident: int = -1) -> SkeletonPose:
    """A pose with no bones (frames without rigid bodies)."""
    return SkeletonPose(ident, np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 4)),
                        np.zeros(0, bool))
