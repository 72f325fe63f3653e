"""VMC protocol out: an avatar's pose as OSC bundles over UDP (VSeeFace, Warudo, VMC4B …).

Per frame: ``/VMC/Ext/OK 1``, ``/VMC/Ext/T seconds`` (relative: the sender's own clock, see
:meth:`VmcPose.clock_for`), ``/VMC/Ext/Root/Pos "root" p q`` (the model root: at the origin, or
with ``root_motion`` the avatar's root — the hips' ground-plane position and heading, the hips
then sent relative to it, :func:`footfall.root_motion.ground_track`) and one
``/VMC/Ext/Bone/Pos <HumanBodyBones name> p q`` per humanoid bone the avatar has — Unity local
transforms (localPosition/localRotation), left-handed: z of positions and the x, y of quaternions
negated, quaternions sent x, y, z, w. Bones go in bundles of at most ``MAX_DATAGRAM`` bytes.

A VRM avatar (``humanoid=``) is sent as VRM receivers hold it: exactly the bones of its humanoid,
each bone's *normalized* local rotation (its turn from the T-pose relative to its humanoid
parent's, :mod:`footfall.gltf.normalized`; the T-pose with every bone rotation the identity is
the rest pose of the receiver's normalized model) and normalized local position, in the Unity
frame UniVRM loads VRM files into: facing +Z, so x of positions and y, z of quaternions negated
(:func:`vrm_to_unity`).

The OSC bytes are written here, not with python-osc's per-message builders, so a whole pose is
packed in one NumPy call; python-osc is the tests' independent decoder.
"""

from __future__ import annotations

import math
import socket
import struct
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import FloatArray
from footfall.errors import SettingsError
from footfall.humanoid import HUMAN_BONES
from footfall.skeleton import FKPlan, Skeleton

if TYPE_CHECKING:
    from footfall.gltf.normalized import NormalizedHumanoid

MAX_DATAGRAM = 1400
#: Most the ``/VMC/Ext/T`` clock advances between two poses, seconds (a paused stream resumes
#: without a jump; an absurd time stamp cannot throw it far).
MAX_CLOCK_STEP = 1.0
RECEIVER_PORT = 39539
_BUNDLE = b"#bundle\0" + struct.pack(">Q", 1)  # time tag 1 = "immediately"
_SIZE = struct.Struct(">i")


def _osc_string(text: str) -> bytes:
    raw = text.encode("utf-8") + b"\0"
    return raw + b"\0" * (-len(raw) % 4)


def osc_message(address: str, *args: int | float | str) -> bytes:
    """One OSC message with int32 (``i``), float32 (``f``) and string (``s``) arguments."""
    tags = ","
    data = b""
    for value in args:
        if isinstance(value, int):  # bool too
            tags += "i"
            data += struct.pack(">i", int(value))
        elif isinstance(value, float):
            tags += "f"
            data += struct.pack(">f", value)
        else:
            tags += "s"
            data += _osc_string(str(value))
    return _osc_string(address) + _osc_string(tags) + data


def osc_bundle(elements: Sequence[bytes]) -> bytes:
    """An OSC bundle (time tag "immediately") of already encoded messages."""
    return _BUNDLE + b"".join(_SIZE.pack(len(e)) + e for e in elements)


def to_unity(rotations: ArrayLike, positions: ArrayLike) -> FloatArray:
    """Right-handed Y-up ``(..., 4)`` wxyz rotations and ``(..., 3)`` positions → Unity's
    left-handed ``(..., 7)`` rows ``px py pz qx qy qz qw``."""
    q = np.asarray(rotations, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    shape = np.broadcast_shapes(q.shape[:-1], p.shape[:-1])
    return np.concatenate([np.broadcast_to(p, shape + (3,)) * [1.0, 1.0, -1.0],
                           np.broadcast_to(q, shape + (4,))[..., [1, 2, 3, 0]]
                           * [-1.0, -1.0, 1.0, 1.0]], axis=-1)


def vrm_to_unity(rotations: ArrayLike, positions: ArrayLike) -> FloatArray:
    """Right-handed Y-up rotations ``(..., 4)`` (wxyz) and positions ``(..., 3)`` of a model
    facing +Z → Unity rows ``(..., 7)`` ``px py pz qx qy qz qw`` of the same model facing
    Unity's +Z, as UniVRM loads VRM files (VRM 1.0 by negating x; VRM 0.x, facing −Z, by
    negating z: from footfall's turned model, x negated either way)."""
    q = np.asarray(rotations, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    shape = np.broadcast_shapes(q.shape[:-1], p.shape[:-1])
    return np.concatenate([np.broadcast_to(p, shape + (3,)) * [-1.0, 1.0, 1.0],
                           np.broadcast_to(q, shape + (4,))[..., [1, 2, 3, 0]]
                           * [1.0, -1.0, -1.0, 1.0]], axis=-1)


def from_unity(rows: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """The inverse of :func:`to_unity`: ``(..., 7)`` → (wxyz ``(..., 4)``, ``(..., 3)``)."""
    r = np.asarray(rows, dtype=np.float64)
    positions = r[..., :3] * np.array([1.0, 1.0, -1.0])
    rotations = np.stack([r[..., 6], -r[..., 3], -r[..., 4], r[..., 5]], axis=-1)
    return rotations, positions


class VmcPose:
    """Encodes one avatar's poses as VMC datagrams.

    Args:
        skeleton: the avatar's skeleton.
        mapping: ``{canonical bone: joint name}`` (a Retargeter's ``target_map``); every
            canonical bone is a HumanBodyBones name.
        humanoid: a VRM avatar's normalized humanoid: then its bones are sent (whatever
            ``mapping`` says), normalized, in UniVRM's frame (see the module docstring).
        root_motion: send the avatar's root each frame (the hips' x, z on the floor y = 0 and
            their heading about Y) as ``/VMC/Ext/Root/Pos``, and the bones relative to it, for
            receivers that move the model by its root; else the root stays at the origin and
            the hips carry the travel.
        rest_rotations: ``(J, 4)`` the skeleton's local rest rotations, the heading's zero
            (default: the humanoid's rest, else the identity).
    """

    def __init__(self, skeleton: Skeleton, mapping: Mapping[str, str],
                 humanoid: NormalizedHumanoid | None = None, *, root_motion: bool = False,
                 rest_rotations: ArrayLike | None = None) -> None:
        self.humanoid = humanoid
        bones = ([b for b in HUMAN_BONES if b in humanoid.bones] if humanoid is not None
                 else [b for b in HUMAN_BONES if b in mapping])
        if not bones:
            raise SettingsError("VMC: the avatar has no humanoid bone to send")
        self.bones = bones
        self.joints = (np.array([humanoid.bones.index(b) for b in bones]) if humanoid is not None
                       else np.array([skeleton.index(mapping[b]) for b in bones]))
        prefix = _osc_string("/VMC/Ext/Bone/Pos") + _osc_string(",sfffffff")
        named = [prefix + _osc_string(b) for b in bones]
        self._headers = [_SIZE.pack(len(n) + 28) + n for n in named]
        # Bundles of bones, each under the datagram limit.
        self._groups: list[tuple[int, int]] = []
        start, size = 0, len(_BUNDLE)
        for i, header in enumerate(self._headers):
            item = len(header) + 28
            if size + item > MAX_DATAGRAM and i > start:
                self._groups.append((start, i))
                start, size = i, len(_BUNDLE)
            size += item
        self._groups.append((start, len(bones)))
        self._ok = osc_message("/VMC/Ext/OK", 1)
        origin = to_unity([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
        self._root = osc_message("/VMC/Ext/Root/Pos", "root", *(float(v) for v in origin))
        self.clock = 0.0  # the last /VMC/Ext/T sent, seconds
        self._stream_seconds: float | None = None
        self.root_motion = root_motion
        self.parents = skeleton.parents
        hips_name = mapping.get("Hips")
        self._hips = (int(humanoid.joints[humanoid.hips]) if humanoid is not None
                      else skeleton.index(hips_name) if hips_name is not None
                      else int(np.nonzero(skeleton.parents < 0)[0][0]))
        self._hips_plan = FKPlan(skeleton.parents, [self._hips])
        rest = (humanoid.rest_rotations if humanoid is not None and rest_rotations is None
                else rest_rotations)
        self._rest_world = (None if rest is None
                            else self._hips_plan.rotations(rest)[self._hips])

    def root(self, rotations: ArrayLike, translations: ArrayLike
             ) -> tuple[FloatArray, FloatArray]:
        """The avatar's root for a pose (local ``rotations (J, 4)``, ``translations (J, 3)``):
        ``(rotation (4,), position (3,))``, the hips' heading about Y and their x, z at y = 0
        (:func:`footfall.root_motion.ground_track`)."""
        from footfall import quat
        from footfall.root_motion import ground_track

        world_rotation, world_position = self._hips_plan(rotations, translations)
        position, heading = ground_track(world_rotation[self._hips], world_position[self._hips],
                                         rest_world=self._rest_world)
        return quat.from_axis_angle([0.0, 1.0, 0.0], heading), position

    def clock_for(self, seconds: float) -> float:
        """``/VMC/Ext/T`` for a pose at stream time ``seconds``: relative, 0 at the first pose,
        moved on by each step forward of the stream's time stamps (at most
        :data:`MAX_CLOCK_STEP`); a step back (a restarted server), NaN or inf holds it. Small
        and rising, so a float32 keeps each step: Motive's own time stamps count from its start
        (after 11 days a float32 of them moves in 1/16 s steps)."""
        if not math.isfinite(seconds):
            return self.clock
        if self._stream_seconds is not None and seconds > self._stream_seconds:
            self.clock += min(seconds - self._stream_seconds, MAX_CLOCK_STEP)
        self._stream_seconds = seconds
        return self.clock

    def datagrams(self, rotations: ArrayLike, translations: ArrayLike, seconds: float
                  ) -> list[bytes]:
        """Datagrams for one pose: local ``rotations (J, 4)``, ``translations (J, 3)`` at stream
        time ``seconds`` (sent as :meth:`clock_for` it); the model root is sent at the origin,
        unturned, or with ``root_motion`` as :meth:`root` finds it (the bones then relative
        to it), converted to Unity as the bones are."""
        root = self._root
        if self.root_motion:
            from footfall.root_motion import move_roots

            turn, shift = self.root(rotations, translations)
            rotations, translations = move_roots(self.parents, rotations, translations, turn,
                                                 shift, inverse=True)
            convert = vrm_to_unity if self.humanoid is not None else to_unity
            root = osc_message("/VMC/Ext/Root/Pos", "root",
                               *(float(v) for v in convert(turn, shift)))
        if self.humanoid is not None:
            normalized, positions = self.humanoid.normalize(rotations, translations)
            rows = vrm_to_unity(normalized[self.joints],
                                positions[self.joints]).astype(">f4")
        else:
            rows = to_unity(np.asarray(rotations)[self.joints],
                            np.asarray(translations)[self.joints]).astype(">f4")
        clock = osc_message("/VMC/Ext/T", self.clock_for(float(seconds)))
        head = osc_bundle([self._ok, clock, root])
        return [head] + [_BUNDLE + b"".join(self._headers[i] + rows[i].tobytes()
                                            for i in range(start, stop))
                         for start, stop in self._groups]


def parse_route(text: str) -> tuple[str | None, tuple[str, int]]:
    """``"[AVATAR=]HOST:PORT"`` → ``(avatar name or None, (host, port))``."""
    name, sep, address = text.partition("=")
    if not sep:
        return None, parse_address(text)
    if not name:
        raise SettingsError(f"--vmc {text!r}: an empty avatar name before '='")
    return name, parse_address(address)


def parse_address(text: str, default_port: int = RECEIVER_PORT) -> tuple[str, int]:
    """``"HOST:PORT"`` (or ``"HOST"``) → ``(host, port)``; raises :class:`SettingsError`."""
    host, _, port = text.rpartition(":") if ":" in text else (text, "", str(default_port))
    try:
        number = int(port)
    except ValueError:
        raise SettingsError(f"--vmc {text!r}: the port must be a number") from None
    if not host or not 0 < number < 65536:
        raise SettingsError(f"--vmc {text!r}: expected HOST:PORT with a port in 1–65535")
    return host, number


class VmcSender:
    """Sends one avatar's datagrams to one receiver, at most ``rate`` poses a second (0: every
    frame)."""

    def __init__(self, receiver: tuple[str, int], rate: float = 0.0) -> None:
        self.receiver = receiver
        self.rate = float(rate)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.setblocking(False)
        self._next = 0.0
        self.sent = 0
        self.errors = 0

    def due(self, now: float) -> bool:
        """Whether a pose should go out at ``now`` (seconds, monotonic)."""
        if self.rate <= 0:
            return True
        if now + 1e-6 < self._next:
            return False
        self._next = max(self._next + 1.0 / self.rate, now)
        return True

    def send(self, datagrams: Sequence[bytes]) -> None:
        """Send (never blocks; a full buffer or unreachable receiver is counted)."""
        for data in datagrams:
            try:
                self.socket.sendto(data, self.receiver)
                self.sent += 1
            except OSError:
                self.errors += 1

    def close(self) -> None:
        """Close the socket."""
        self.socket.close()
