"""The NatNet client and the loop on loopback: newest frame only, duplicates and out-of-order
frames dropped by number, a paused stream waits and resumes, a model change re-reads the
description, and 10,000 random or mutated packets at the live socket leave the loop at its
rate."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from footfall import bvh
from footfall.live import natnet_protocol as proto
from footfall.live.loop import LiveLoop, load_target
from footfall.live.motive import ClipStream
from footfall.live.natnet_client import NatNetClient
from footfall.live.natnet_server import NatNetServer

DATA = Path(__file__).parent / "data"
CLIP = DATA / "bvh" / "games105_walk60.bvh"
AVATAR = DATA / "avatars" / "CesiumMan.glb"


def _connected(rate: float = 60.0, version: str = "4.1") -> tuple[NatNetServer, NatNetClient]:
    server = NatNetServer(bvh.load(CLIP), command_port=0, rate=rate, version=version)
    server.start()
    client = NatNetClient("127.0.0.1", command_port=server.address[1], data_port=0)
    client.start()
    deadline = time.monotonic() + 3
    while client.skeleton is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.skeleton is not None
    return server, client


def _inject(client: NatNetClient, packets: list[bytes]) -> None:
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    target = client.command_socket.getsockname()
    for data in packets:
        sender.sendto(data, target)
    sender.close()


def _drain(client: NatNetClient, seconds: float) -> list:
    frames, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        f = client.wait(0.02)
        if f is not None:
            frames.append(f)
    return frames


def test_duplicates_and_out_of_order_frames_are_dropped() -> None:
    server, client = _connected()
    try:
        _drain(client, 0.3)
        server.paused = True
        _drain(client, 0.2)
        before = client.status.dropped
        last = client.sequence.last
        base = last + 100
        # … then a corrupt number 300 ahead, the real sequence continuing (followed at once),
        # and a restart back to 5 (followed on its fourth frame: a steady run).
        numbers = [base, base + 1, base + 1, base - 1, base + 3, base + 300, base + 4,
                   5, 6, 7, 8, 9]
        passes = [True, True, False, False, True, True, True, False, False, False, True, True]
        for n, expected in zip(numbers, passes, strict=True):
            _inject(client, [server.frame(n)])  # one at a time: the client hands the newest
            frame = client.wait(0.3)
            if expected:
                assert frame is not None and frame.number == n
            else:
                assert frame is None
        assert client.status.errors.get("resync") == 1
        # The gap up to base and base + 2; not the corrupt jump nor the restart.
        assert client.status.dropped - before == 99 + 1
    finally:
        client.stop()
        server.stop()


def test_newest_frame_only() -> None:
    server, client = _connected()
    try:
        server.paused = True
        _drain(client, 0.2)
        base = server.frame_number + 10
        _inject(client, [server.frame(base + i) for i in range(5)])
        time.sleep(0.2)
        frame = client.wait(0.2)
        assert frame is not None and frame.number == base + 4
        assert client.wait(0.05) is None
        assert client.status.overwritten >= 4
    finally:
        client.stop()
        server.stop()


def test_paused_stream_waits_then_resumes_and_model_change_rereads(tmp_path: Path) -> None:
    server, client = _connected(rate=60)
    loop = LiveLoop(client, [load_target(AVATAR)], settings={"filter_enabled": False},
                    settings_folder=tmp_path)
    states: list[tuple[float, bool, int]] = []
    start = time.monotonic()

    def drive() -> None:
        time.sleep(0.8)
        server.paused = True
        time.sleep(1.0)
        server.paused = False
        time.sleep(0.6)
        # A new skeleton (a shorter clip's joints renamed): the frame flag asks for it again.
        clip = bvh.load(DATA / "bvh" / "cmu_131_01_metres.bvh")
        server.stream = ClipStream.build(clip)
        server._model_changed = True

    def watch(loop: LiveLoop) -> None:
        states.append((time.monotonic() - start, loop.waiting, client.generation))
        if not stopped:
            loop.add_between_frames(watch)

    stopped = False
    loop.add_between_frames(watch)
    thread = threading.Thread(target=drive)
    thread.start()
    try:
        loop.run(duration=3.6)
    finally:
        stopped = True
        thread.join()
        server.stop()
    waiting = [t for t, w, _ in states if w and t > 0.9]
    assert waiting and min(waiting) < 1.8  # waited while paused …
    assert any(not w for t, w, _ in states if t > 2.0)  # … and resumed by itself
    assert states[-1][2] == 2  # re-read the model: a second skeleton generation
    assert "LeftUpLeg" in client.skeleton.names or client.skeleton.joint_count == 31
    assert len(loop.characters()) == 1
    assert client.status.errors == {}


def test_frames_before_server_info_are_counted() -> None:
    server = NatNetServer(bvh.load(CLIP), command_port=0)
    client = NatNetClient("127.0.0.1", command_port=1, data_port=0)  # nobody answers
    client.start()
    try:
        _inject(client, [server.frame(1)])
        time.sleep(0.2)
        assert client.status.errors.get("no-server-info") == 1
        assert client.wait(0.05) is None
    finally:
        client.stop()
        server.socket.close()


FLOOD = """
import socket, sys, time
data = open(sys.argv[1], "rb").read()
packets, at = [], 0
while at < len(data):
    n = int.from_bytes(data[at:at + 4], "little")
    packets.append(data[at + 4:at + 4 + n])
    at += 4 + n
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
start = time.perf_counter()
for i, p in enumerate(packets):
    s.sendto(p, ("127.0.0.1", int(sys.argv[2])))
    if i % 40 == 39:
        time.sleep(max(0.0, start + (i + 1) / 4000 - time.perf_counter()))
"""


def test_fuzz_10000_packets_at_the_live_socket(tmp_path: Path) -> None:
    server, client = _connected(rate=60)
    loop = LiveLoop(client, [load_target(AVATAR)], settings={"filter_enabled": False},
                    settings_folder=tmp_path)
    rng = np.random.default_rng(11)
    good = server.frame(5)
    modeldef = server.model_definition()
    packets = []
    for i in range(10_000):
        kind = i % 5
        if kind == 0:  # random bytes
            packets.append(rng.bytes(int(rng.integers(0, 300))))
        elif kind == 1:  # a frame with bytes changed
            data = bytearray(good)
            for at in rng.integers(4, len(data), 3):
                data[at] = int(rng.integers(0, 256))
            packets.append(bytes(data))
        elif kind == 2:  # truncated frame, header kept
            packets.append(good[:int(rng.integers(1, len(good)))])
        elif kind == 3:  # a valid header on a random payload of a known message
            message = int(rng.choice([proto.NAT_FRAMEOFDATA, proto.NAT_MODELDEF,
                                      proto.NAT_SERVERINFO, 99]))
            packets.append(proto.packet(message, rng.bytes(int(rng.integers(0, 200)))))
        else:  # a mutated model definition
            data = bytearray(modeldef)
            data[int(rng.integers(4, len(data)))] ^= 0xFF
            packets.append(bytes(data))
    # The loop's rate without the flood first (the machine is shared: compare in one run).
    calm = loop.stats.frames
    loop.run(duration=1.5, stop_source=False)
    calm = loop.stats.frames - calm
    # The flood comes from another process (as it would from the network), 4,000 a second.
    path = tmp_path / "packets.bin"
    path.write_bytes(b"".join(len(p).to_bytes(4, "little") + p for p in packets))
    port = client.command_socket.getsockname()[1]
    flood = subprocess.Popen([sys.executable, "-c", FLOOD, str(path), str(port)])
    before = loop.stats.frames
    try:
        loop.run(duration=3.0)
    finally:
        flood.wait(timeout=20)
        server.stop()
    flooded = loop.stats.frames - before
    errors = client.status.errors
    assert sum(errors.values()) > 1000, errors
    assert flooded / 3.0 >= 0.8 * calm / 1.5, (calm, flooded, client.status)
    assert loop.stats.errors == {}


def test_multicast_on_loopback() -> None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("0.0.0.0", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = NatNetServer(bvh.load(CLIP), command_port=0, rate=60, multicast=True,
                          data_port=port)
    server.start()
    client = NatNetClient("127.0.0.1", multicast=True, local_ip="127.0.0.1",
                          command_port=server.address[1], data_port=port)
    client.start()
    try:
        frames = _drain(client, 1.5)
    finally:
        client.stop()
        server.stop()
    assert len(frames) >= 30
    numbers = [f.number for f in frames]
    assert numbers == sorted(set(numbers))
    # A client joining a running multicast stream may see frames before the server info it
    # asked for: those are dropped and counted; nothing else may go wrong.
    assert set(client.status.errors) <= {"no-server-info"}, client.status.errors


# ---------------------------------------------------------------------------- clients as they are


def _request(message: int, declared: int, body: bytes) -> bytes:
    """A request as a client writes it: ``declared`` payload bytes in the header, then ``body``
    (which may run past them, as OptiTrack's samples' string terminators do)."""
    return message.to_bytes(2, "little") + declared.to_bytes(2, "little") + body


def _answer(sock: socket.socket, wanted: int, seconds: float = 2.0) -> bytes | None:
    """The payload of the next datagram with message id ``wanted`` (others skipped), or None
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(65536)
        except TimeoutError:
            return None
        message, payload = proto.split_packet(data)
        if message == wanted:
            return bytes(payload)
    return None


# What OptiTrack's sample clients send: CONNECT as "Ping" and a NUL (older samples), as the SDK's
# 270-byte block (Ping, zero padding, subscribedDataOnly, version 4.1.0.0) and its NUL, or with no
# payload at all (PacketClient.cpp); MODELDEF requests and KEEPALIVE with a size of 0 followed by
# a NUL; REQUEST strings whose NUL is counted, or not.
_BLOCK = b"Ping".ljust(264, b"\0") + bytes([0, 4, 1, 0, 0, 0])
CONNECTS = {"ping": _request(0, 5, b"Ping\0"), "sdk-block": _request(0, 271, _BLOCK + b"\0"),
            "empty": _request(0, 0, b""), "empty+nul": _request(0, 0, b"\0")}


def test_natnet_serve_answers_requests_as_optitracks_samples_send_them() -> None:
    clip = bvh.load(CLIP)
    server = NatNetServer(clip, command_port=0, rate=60)
    server.paused = True  # no frames in between: each answer is the next datagram
    server.start()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    address = ("127.0.0.1", server.address[1])
    try:
        for name, data in CONNECTS.items():
            sock.sendto(data, address)
            info = _answer(sock, proto.NAT_SERVERINFO)
            assert info is not None, name
            assert proto.decode_server_info(info).version == (4, 1)
        sock.sendto(_request(proto.NAT_REQUEST_MODELDEF, 0, b"\0"), address)
        model = _answer(sock, proto.NAT_MODELDEF)
        assert model is not None
        (skeleton,) = proto.decode_model_definition(model, (4, 1)).skeletons
        assert len(skeleton.bones) == clip.skeleton.joint_count
        seen = server.clients[sock.getsockname()]
        sock.sendto(_request(proto.NAT_KEEPALIVE, 0, b"\0"), address)
        sock.sendto(_request(proto.NAT_ECHOREQUEST, 8, b"12345678\0"), address)
        assert _answer(sock, proto.NAT_ECHORESPONSE) == b"12345678"
        assert server.clients[sock.getsockname()] > seen  # the keep-alive counted
        # REQUEST strings: the NUL counted in the size, or left after it, or junk after it.
        for declared, body, version in ((14, b"Bitstream,3.1\0", (3, 1)),
                                        (13, b"Bitstream,4.2\0", (4, 2)),
                                        (16, b"Bitstream,4.0.0\0\0\0junk", (4, 0))):
            sock.sendto(_request(proto.NAT_REQUEST, declared, body), address)
            assert _answer(sock, proto.NAT_RESPONSE) == (0).to_bytes(4, "little"), body
            assert server.version == version, body
        sock.sendto(_request(proto.NAT_REQUEST, 9, b"FrameRate\0"), address)
        assert _answer(sock, proto.NAT_RESPONSE) is not None
        assert server.bad_requests == 0
    finally:
        sock.close()
        server.stop()


def test_natnet_serve_command_answers_a_modeldef_request_with_a_trailing_nul() -> None:
    """``footfall natnet-serve`` itself, as a user runs it, asked as OptiTrack's samples ask."""
    command = [sys.executable, "-c", "import sys; from footfall.cli import main; "
               "sys.exit(main(sys.argv[1:]))", "natnet-serve", str(CLIP), "--command-port", "0",
               "--duration", "20"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    try:
        first = process.stdout.readline()  # "… Hz on 127.0.0.1:PORT"
        port = int(first.rsplit(":", 1)[1])
        sock.sendto(CONNECTS["sdk-block"], ("127.0.0.1", port))
        assert _answer(sock, proto.NAT_SERVERINFO, 5.0) is not None
        sock.sendto(_request(proto.NAT_REQUEST_MODELDEF, 0, b"\0"), ("127.0.0.1", port))
        model = _answer(sock, proto.NAT_MODELDEF, 5.0)
        assert model is not None
        (skeleton,) = proto.decode_model_definition(model, (4, 1)).skeletons
        assert skeleton.bones[0].name == "Skeleton_Hip"
    finally:
        sock.close()
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "bad request" not in err, err


def test_the_client_ignores_bytes_after_the_declared_size(tmp_path: Path) -> None:
    """Everything a server sends with bytes after its declared size (server info, model
    definition, frames) is read as if they were not there."""
    server = NatNetServer(bvh.load(CLIP), command_port=0, rate=60)
    send = server._reply
    server._reply = lambda data, to: send(data + b"\0\0tail", to)  # type: ignore[method-assign]
    server.start()
    client = NatNetClient("127.0.0.1", command_port=server.address[1], data_port=0)
    client.start()
    try:
        frames = _drain(client, 1.0)
    finally:
        client.stop()
        server.stop()
    assert client.skeleton is not None and len(frames) >= 20
    assert client.status.errors == {}
