"""NatNet client: sockets, handshake and keep-alive on a thread that hands only the newest frame.

Unicast: CONNECT from our command socket, which also receives frames (as OptiTrack's samples);
a data socket on the data port is read too, duplicates dropped by frame number. Multicast: the
data socket joins the group. KEEPALIVE goes out every second and CONNECT again after 2 s without
a packet, so a stream that stops resumes by itself. Bad packets are counted, reported once per
kind and dropped. Which frames are followed is decided by their numbers alone
(:class:`~footfall.live.frame_sequence.FrameSequencer`); bytes after a packet's declared size
are ignored, as Motive does.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from collections.abc import Callable

from footfall.arrays import FloatArray
from footfall.errors import FootfallError
from footfall.live import natnet_protocol as proto
from footfall.live.frame_sequence import FrameSequencer
from footfall.live.motive import MotiveSkeleton, choose_skeleton
from footfall.live.sources import LiveFrame, SourceStatus
from footfall.skeleton import Skeleton

KEEPALIVE_SECONDS = 1.0
RECONNECT_SECONDS = 2.0


class NatNetClient:
    """Receive a Motive skeleton over NatNet.

    Args:
        server: the server's IP address.
        local_ip: the interface to use (``0.0.0.0``: any).
        multicast: receive frames from ``group`` on the data port instead of unicast.
        command_port, data_port: the server's ports (1510, 1511; data port 0 = no data socket
            in unicast).
        skeleton_name: which streamed skeleton to follow (the first by default).
        bone_poses: ``auto``, ``local`` or ``global`` (see :meth:`MotiveSkeleton.pose`).
        up: the stream's up axis: ``auto`` (read from the skeleton description), ``y`` or
            ``z``; a Z-up stream is turned to Y up (said once through ``report``).
        version: ask for this stream version in CONNECT (None: the server's newest).
        report: called once per kind of problem with a one-line message.
    """

    def __init__(self, server: str, *, local_ip: str = "0.0.0.0", multicast: bool = False,
                 group: str = proto.MULTICAST_GROUP, command_port: int = proto.COMMAND_PORT,
                 data_port: int = proto.DATA_PORT, skeleton_name: str | None = None,
                 bone_poses: str = "auto", version: proto.Version | None = None,
                 up: str = "auto", report: Callable[[str], None] | None = None) -> None:
        if up not in ("auto", "y", "z"):
            raise FootfallError(f"up axis {up!r}: choose auto, y or z")
        self.server = (server, command_port)
        self.local_ip = local_ip
        self.multicast = multicast
        self.group = group
        self.data_port = data_port
        self.skeleton_name = skeleton_name
        self.bone_poses = bone_poses
        self.up = up
        self.requested_version = version
        self.report = report or (lambda message: None)
        self.status = SourceStatus(server=f"{server}:{command_port}")
        self.skeleton: Skeleton | None = None
        self.mapping: dict[str, str] | None = None
        self.motive: MotiveSkeleton | None = None
        self.generation = 0
        self.info: proto.ServerInfo | None = None
        self.version: proto.Version | None = None
        self.command_socket: socket.socket | None = None
        self.data_socket: socket.socket | None = None
        self._slot: LiveFrame | None = None
        self._lock = threading.Lock()
        self._new = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.sequence = FrameSequencer()
        self._last_pose: tuple[FloatArray, FloatArray] | None = None
        self._mode = bone_poses
        self._last_packet = 0.0
        self._last_keepalive = 0.0
        self._last_connect = 0.0
        self._awaiting_info = True
        self._awaiting_model = 0.0  # when the model definition was last asked for (0: not)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Open the sockets, send CONNECT and start the network thread (once)."""
        if self._thread is not None:
            return
        cmd = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            cmd.bind((self.local_ip if not self.multicast else "0.0.0.0", 0))
        except (OSError, OverflowError) as error:  # an address this machine does not have
            cmd.close()
            reason = getattr(error, "strerror", None) or error
            raise FootfallError(f"NatNet: --local-ip {self.local_ip}: cannot use this address "
                                f"({reason}); give this machine's address on the capture "
                                "network, or 0.0.0.0 for any") from None
        cmd.setblocking(False)
        self.command_socket = cmd
        if self.multicast or self.data_port:
            data = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            data.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                data.bind(("0.0.0.0" if self.multicast else self.local_ip, self.data_port))
                if self.multicast:
                    membership = socket.inet_aton(self.group) + socket.inet_aton(
                        self.local_ip if self.local_ip else "0.0.0.0")
                    data.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
                data.setblocking(False)
                self.data_socket = data
            except OSError as error:
                data.close()
                if self.multicast:
                    cmd.close()
                    raise FootfallError(f"NatNet: cannot receive multicast {self.group}:"
                                        f"{self.data_port} ({error})") from None
                self._problem("data-port", f"data port {self.data_port} not available "
                                           f"({error}); frames come on the command socket")
        self._connect(time.monotonic())
        self._thread = threading.Thread(target=self._run, name="natnet-client", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and close the sockets."""
        self._stop.set()
        self._new.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        for s in (self.command_socket, self.data_socket):
            if s is not None:
                with contextlib.suppress(OSError):
                    s.close()

    def wait(self, timeout: float) -> LiveFrame | None:
        """The newest frame not yet taken, waiting at most ``timeout`` seconds for one."""
        if not self._new.wait(timeout):
            return None
        with self._lock:
            frame, self._slot = self._slot, None
            self._new.clear()
        return frame

    # ------------------------------------------------------------------ network thread

    def _send(self, data: bytes) -> None:
        try:
            if self.command_socket is not None:
                self.command_socket.sendto(data, self.server)
        except OSError as error:
            self._problem("send", f"cannot send to {self.server[0]}:{self.server[1]} ({error})")

    def _problem(self, kind: str, message: str) -> None:
        self.status.errors[kind] = self.status.errors.get(kind, 0) + 1
        if self.status.errors[kind] == 1:  # the first of its kind
            self.report(f"NatNet: {message} (counted, further ones not shown)")

    def _run(self) -> None:
        sockets = [s for s in (self.command_socket, self.data_socket) if s is not None]
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select(sockets, [], [], 0.05)
            except (OSError, ValueError):
                break
            for s in ready:
                for _ in range(256):  # drain, newest last
                    try:
                        data, _ = s.recvfrom(65536)
                    except (BlockingIOError, InterruptedError):
                        break
                    except OSError as error:
                        self._problem("receive", f"receive failed ({error})")
                        break
                    self._last_packet = time.monotonic()
                    try:
                        self._handle(data)
                    except FootfallError as error:
                        self._problem(getattr(error, "kind", "malformed"), str(error))
                    except Exception as error:  # never let a packet stop the thread
                        self._problem("internal", f"{type(error).__name__}: {error}")
            self._tick()

    def _tick(self) -> None:
        now = time.monotonic()
        if not self.multicast and now - self._last_keepalive >= KEEPALIVE_SECONDS:
            self._send(proto.packet(proto.NAT_KEEPALIVE))
            self._last_keepalive = now
        silent = now - max(self._last_packet, self._last_connect)
        if silent >= RECONNECT_SECONDS:
            self.status.connected = False
            self._connect(now)
        if self._awaiting_model and now - self._awaiting_model >= RECONNECT_SECONDS:
            self._request_model(now)  # the answer got lost

    def _connect(self, now: float) -> None:
        self._awaiting_info = True
        self._send(proto.encode_connect(self.requested_version or (0, 0)))
        self._last_connect = now

    def _request_model(self, now: float) -> None:
        self._awaiting_model = now
        self._send(proto.packet(proto.NAT_REQUEST_MODELDEF))

    def _handle(self, data: bytes) -> None:
        """One datagram: server info, a model definition or a frame (anything else: nothing
        to do — RESPONSE, MESSAGESTRING, echo …)."""
        received = time.perf_counter()
        message, payload = proto.split_packet(data)
        if message == proto.NAT_SERVERINFO:
            self._on_server_info(payload)
        elif message == proto.NAT_MODELDEF:
            self._on_model_definition(payload)
        elif message == proto.NAT_FRAMEOFDATA:
            self._on_frame(payload, received)

    # Server info and model definitions are answers: one nobody asked for is dropped (a stray
    # or corrupt one would otherwise change how every later frame is read).

    def _on_server_info(self, payload: memoryview) -> None:
        """Take the stream version; ask for the model when it is new."""
        if not self._awaiting_info:
            self._problem("unrequested", "a server info nobody asked for was dropped")
            return
        info = proto.decode_server_info(payload)
        version = proto.check_version(info.version)
        changed = version != self.version
        self.info, self.version = info, version
        self._awaiting_info = False
        self.status.connected = True
        self.status.version = f"{version[0]}.{version[1]}"
        self.status.server = f"{info.application} {self.server[0]}:{self.server[1]}"
        if changed or self.motive is None:
            self._request_model(time.monotonic())

    def _on_model_definition(self, payload: memoryview) -> None:
        """Take the followed skeleton; a new one starts a new generation."""
        if self.version is None or not self._awaiting_model:
            self._problem("unrequested", "a model definition nobody asked for was dropped")
            return
        model = proto.decode_model_definition(payload, self.version)
        self._awaiting_model = 0.0
        if not model.skeletons:
            self._problem("no-skeleton", "the model definition has no skeleton")
            return
        description = choose_skeleton(model.skeletons, self.skeleton_name)
        motive = MotiveSkeleton.from_description(description, self.up)
        if self.motive is not None and _same(motive, self.motive):
            return
        if motive.up == "z" and (self.motive is None or self.motive.up != "z"):
            self.report("NatNet: stream is Z-up; turned to Y up"
                        + (" (--up z)" if self.up == "z" else ""))
        self.status.up = motive.up
        self.motive = motive
        self.skeleton, self.mapping = motive.skeleton, motive.mapping
        self.generation += 1
        self._last_pose = None
        self._mode = self.bone_poses

    def _on_frame(self, payload: memoryview, received: float) -> None:
        """Decode a frame, follow its number, and hand its pose on."""
        if self.version is None:
            self._problem("no-server-info", "frames before the server info are dropped")
            if not self._awaiting_info:
                self._connect(time.monotonic())
            return
        frame = proto.decode_frame(payload, self.version)
        if not self._follow(frame.frame_number):
            return
        if frame.models_changed:
            self._request_model(time.monotonic())
        self._deliver(frame, received)

    def _follow(self, number: int) -> bool:
        """Whether frame ``number`` is followed (:class:`FrameSequencer`); counts the lost."""
        verdict = self.sequence.step(number, time.perf_counter() - self.status.last_frame_at)
        if verdict.resync:
            self._problem("resync", f"frame numbers jumped from {verdict.resync_from} to "
                                    f"{number}; following")
        self.status.dropped += verdict.dropped
        return verdict.keep

    def _deliver(self, frame: proto.FrameOfData, received: float) -> None:
        """The followed skeleton's pose of ``frame`` into the slot (the newest only)."""
        current = self.motive
        if current is None:
            return
        pose = next((s for s in frame.skeletons if s.id == current.description.id), None)
        if pose is None:
            return  # frames without our skeleton (rigid bodies only)
        rotations, translations, mode = current.pose(pose, self._mode, self._last_pose)
        if self._mode == "auto":
            self._mode = mode
        self._last_pose = (rotations, translations)
        live = LiveFrame(frame.frame_number, frame.timestamp, rotations, translations,
                         received, self.generation)
        with self._lock:
            if self._slot is not None:
                self.status.overwritten += 1
            self._slot = live
            self.status.frames += 1
            self.status.last_frame_at = received
            self._new.set()


def _same(a: MotiveSkeleton, b: MotiveSkeleton) -> bool:
    """Whether two descriptions give the same skeleton (names, parents, offsets, ids)."""
    return (a.description.id == b.description.id and a.up == b.up
            and a.skeleton.names == b.skeleton.names
            and bool((a.skeleton.parents == b.skeleton.parents).all())
            and bool((a.bone_ids == b.bone_ids).all())
            and bool(abs(a.skeleton.offsets - b.skeleton.offsets).max() < 1e-6))
