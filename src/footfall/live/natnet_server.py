"""A NatNet server that streams a clip as a Motive skeleton (``footfall natnet-serve``).

Answers CONNECT with SERVERINFO, REQUEST_MODELDEF with the skeleton's MODELDEF, REQUEST
"Bitstream,X.Y" by switching version (unicast), keeps every client that sent CONNECT or
KEEPALIVE in the last 10 s and sends each frame to the socket address the client's requests came
from; with ``multicast`` frames also go to the group's data port.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable

from footfall.errors import FootfallError, SettingsError
from footfall.live import natnet_protocol as proto
from footfall.live.motive import ClipStream
from footfall.sizes import check_size
from footfall.skeleton import Clip

CLIENT_TIMEOUT = 10.0
VERSIONS = {"3.0": (3, 0), "3.1": (3, 1), "4.0": (4, 0), "4.1": (4, 1), "4.2": (4, 2)}
CLOCK_FREQUENCY = 10_000_000  # host ticks per second in frame time stamps


class NatNetServer:
    """Stream ``clip`` over NatNet.

    Args:
        clip: the motion (looped).
        host: address to bind the command port on (127.0.0.1 by default).
        command_port: the command port (1510; 0 picks a free one, see :attr:`address`).
        rate: frames a second (the clip's own rate by default).
        version: stream version ``"3.1"``, ``"4.1"`` or ``"4.2"`` (any of :data:`VERSIONS`).
        multicast: also send frames to ``group:data_port``.
        name: the skeleton's name.
        bone_poses: ``local`` or ``global`` bone poses.
        up: ``y`` (Motive's default) or ``z`` (see :meth:`ClipStream.build`).
        report: one-line messages (clients connecting, bad requests).
    """

    def __init__(self, clip: Clip, *, host: str = "127.0.0.1",
                 command_port: int = proto.COMMAND_PORT, rate: float | None = None,
                 version: str = "4.1", multicast: bool = False,
                 group: str = proto.MULTICAST_GROUP, data_port: int = proto.DATA_PORT,
                 name: str = "Skeleton", bone_poses: str = "local", up: str = "y",
                 report: Callable[[str], None] | None = None) -> None:
        if version not in VERSIONS:
            raise SettingsError(f"--version {version!r}: choose one of {', '.join(VERSIONS)}")
        if bone_poses not in ("local", "global"):
            raise SettingsError(f"bone poses {bone_poses!r}: choose local or global")
        if up not in ("y", "z"):
            raise SettingsError(f"up axis {up!r}: choose y or z")
        check_size(clip, "natnet-serve", min_frames=1)
        self.stream = ClipStream.build(clip, name, up=up)
        self.rate = float(rate if rate else clip.fps)
        if not self.rate > 0:
            raise SettingsError(f"--rate {rate!r}: must be positive")
        self.version = VERSIONS[version]
        self.multicast = multicast
        self.group = (group, data_port)
        self.bone_poses = bone_poses
        self.report = report or (lambda message: None)
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            self.socket.bind((host, command_port))
        except OSError as error:
            self.socket.close()
            raise FootfallError(f"natnet-serve: cannot bind {host}:{command_port} ({error})"
                                ) from None
        self.socket.setblocking(False)
        if multicast:
            self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
            self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            if host not in ("", "0.0.0.0"):  # the group is reached through this interface
                self.socket.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                                       socket.inet_aton(host))
        self.address = self.socket.getsockname()
        self.clients: dict[tuple[str, int], float] = {}
        self.frames_sent = 0
        self.frame_number = 0
        self.bad_requests = 0
        self.paused = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._model_changed = False

    # ------------------------------------------------------------------ packets

    def server_info(self) -> bytes:
        """The SERVERINFO datagram."""
        return proto.encode_server_info(proto.ServerInfo(
            "footfall natnet-serve", (0, 1, 0, 0), (*self.version, 0, 0), CLOCK_FREQUENCY,
            self.group[1], self.multicast, self.group[0]))

    def model_definition(self) -> bytes:
        """The MODELDEF datagram."""
        return proto.encode_model_definition(
            proto.ModelDefinition(skeletons=(self.stream.description,)), self.version)

    def frame(self, number: int) -> bytes:
        """The FRAMEOFDATA datagram of frame ``number`` (the clip looped)."""
        pose = self.stream.pose(number % self.stream.clip.frame_count, self.bone_poses)
        seconds = number / self.rate
        ticks = int(seconds * CLOCK_FREQUENCY)
        params = proto.FRAME_MODELS_CHANGED if self._model_changed else 0
        self._model_changed = False
        frame = proto.FrameOfData(number, (pose,), proto.empty_pose(), 0, seconds,
                                  ticks, ticks + 1000, ticks + 2000, params)
        return proto.encode_frame(frame, self.version)

    def handle(self, data: bytes, sender: tuple[str, int]) -> None:
        """Answer one request datagram."""
        try:
            message, payload = proto.split_packet(data)
        except proto.PacketError as error:
            self.bad_requests += 1
            if self.bad_requests == 1:
                self.report(f"natnet-serve: ignored a bad request from {sender} ({error})")
            self._reply(proto.packet(proto.NAT_UNRECOGNIZED_REQUEST), sender)
            return
        if message == proto.NAT_CONNECT:
            if sender not in self.clients:
                self.report(f"natnet-serve: client {sender[0]}:{sender[1]} connected")
            self.clients[sender] = time.monotonic()
            self._reply(self.server_info(), sender)
        elif message == proto.NAT_KEEPALIVE:
            if sender in self.clients:
                self.clients[sender] = time.monotonic()
        elif message == proto.NAT_REQUEST_MODELDEF:
            self._reply(self.model_definition(), sender)
        elif message == proto.NAT_REQUEST:
            text = bytes(payload).split(b"\0", 1)[0].decode("utf-8", "replace")
            answer = 0
            if text.startswith("Bitstream,"):
                wanted = text.split(",", 1)[1].strip()
                short = ".".join(wanted.split(".")[:2])
                if short in VERSIONS and not self.multicast:
                    self.version = VERSIONS[short]
                    self._model_changed = True
                else:
                    answer = -1
            self._reply(proto.packet(proto.NAT_RESPONSE, answer.to_bytes(4, "little",
                                                                         signed=True)), sender)
        elif message == proto.NAT_DISCONNECT:
            self.clients.pop(sender, None)
        elif message == proto.NAT_ECHOREQUEST:
            self._reply(proto.packet(proto.NAT_ECHORESPONSE, bytes(payload[:8])), sender)
        elif message == proto.NAT_REQUEST_FRAMEOFDATA:
            self._reply(self.frame(self.frame_number), sender)

    def _reply(self, data: bytes, to: tuple[str, int]) -> None:
        with contextlib.suppress(OSError):
            self.socket.sendto(data, to)

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Serve on a thread."""
        self._thread = threading.Thread(target=self.serve, name="natnet-serve", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self.socket.close()

    def serve(self, duration: float | None = None) -> None:
        """Answer requests and stream frames until stopped (or ``duration`` seconds)."""
        period = 1.0 / self.rate
        start = time.perf_counter()
        next_frame = start
        while not self._stop.is_set():
            now = time.perf_counter()
            if duration is not None and now - start >= duration:
                break
            timeout = max(0.0, min(next_frame - now, 0.05))
            ready, _, _ = select.select([self.socket], [], [], timeout)
            if ready:
                for _ in range(64):
                    try:
                        data, sender = self.socket.recvfrom(65536)
                    except OSError:  # nothing more to read (BlockingIOError) or closed
                        break
                    self.handle(data, sender)
            now = time.perf_counter()
            if now >= next_frame:
                if not self.paused:
                    self._broadcast(self.frame(self.frame_number))
                    self.frame_number += 1
                next_frame += period
                if now - next_frame > 0.25:  # fell far behind (machine busy): skip ahead
                    next_frame = now + period

    def _broadcast(self, data: bytes) -> None:
        if self.multicast:  # as Motive: frames go to the group only
            self._reply(data, self.group)
        else:
            now = time.monotonic()
            for client, seen in list(self.clients.items()):
                if now - seen > CLIENT_TIMEOUT:
                    del self.clients[client]
                    self.report(f"natnet-serve: client {client[0]}:{client[1]} timed out")
                    continue
                self._reply(data, client)
        self.frames_sent += 1
