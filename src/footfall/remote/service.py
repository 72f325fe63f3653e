"""The WebSocket control service (seed 001's ``RetargetingRemoteController``), port 64212.

``websockets`` runs in its own thread and asyncio loop; the animation loop runs the queued
actions between frames (:meth:`ControlService.process_pending`) and hands replies back with one
``call_soon_threadsafe`` per frame. Neither side waits on the other: each client has a bounded
outbox written by its own task, so a slow client is closed rather than slowing anyone.

Safe by default: loopback only; browsers must come from the panel's own origin or one given in
``allowed_origins``; messages over 64 KiB, more than ``max_clients`` clients, and more than
``rate`` messages a second per client are refused. The control panel is served on the same
port (``/``); the WebSocket lives at ``/retargeting`` and every other path is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from importlib import resources
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request as HTTPRequest
from websockets.http11 import Response

from footfall.errors import FootfallError
from footfall.remote import actions
from footfall.remote.protocol import (
    MAX_MESSAGE_BYTES,
    FieldError,
    Request,
    broadcast,
    encode,
    error_reply,
    parse_request,
)
from footfall.remote.target import ControlTarget

PATH = "/retargeting"
DEFAULT_PORT = 64212
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_PANEL_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
                "/index.html": ("index.html", "text/html; charset=utf-8"),
                "/panel.js": ("panel.js", "text/javascript; charset=utf-8"),
                "/panel.css": ("panel.css", "text/css; charset=utf-8")}
_SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"),
                     ("Content-Security-Policy",
                      "default-src 'self'; connect-src 'self'; frame-ancestors 'none'"),
                     ("Cache-Control", "no-cache"))
log = logging.getLogger("footfall.remote")


class ControlServiceError(FootfallError, OSError):
    """The control service could not start (port taken, bad host)."""


@dataclass
class _Bucket:
    """Token bucket: ``rate`` messages a second, bursts up to ``burst``."""

    rate: float
    burst: float
    tokens: float = 0.0
    stamp: float = 0.0

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= 1.0
        return self.tokens >= 0.0


@dataclass(eq=False)
class _Client:
    connection: ServerConnection
    bucket: _Bucket
    outbox: asyncio.Queue[str]
    queued: int = 0
    dropped: tuple[int, str] | None = None  # close code and reason once refused
    gone: bool = False  # disconnected: its waiting requests are skipped
    writer: asyncio.Task[None] | None = field(default=None, repr=False)

    async def write(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.connection.send(await self.outbox.get())


class ControlService:
    """The remote-control WebSocket service and its control panel.

    Args:
        host, port: where to listen (``port=0`` picks a free port; see :attr:`port`).
        allowed_origins: browser origins allowed besides the panel's own
            (e.g. ``"http://192.168.1.5:64212"`` when bound to a LAN address).
        max_clients: clients connected at once; more are refused (HTTP 503).
        rate, burst: messages a second per client and the burst allowed above it.
        max_queued: requests of one client waiting for the loop; more get a "busy" error.
        max_actions_per_frame: actions one :meth:`process_pending` call runs at most.
        save_delay: seconds after a character's last change before it is saved.
        outbox: messages waiting for one client; a client that falls this far behind is closed.
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        allowed_origins: Iterable[str] = (),
        *,
        max_clients: int = 16,
        rate: float = 100.0,
        burst: float = 200.0,
        max_queued: int = 64,
        max_actions_per_frame: int = 64,
        save_delay: float = 0.5,
        outbox: int = 512,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.host = host
        self.port = port
        self.extra_origins = tuple(o.rstrip("/").lower() for o in allowed_origins)
        self.max_clients = max_clients
        self.rate = rate
        self.burst = burst
        self.max_queued = max_queued
        self.max_actions_per_frame = max_actions_per_frame
        self.outbox_size = outbox
        self.clock = clock
        self.saves = actions.SaveSchedule(save_delay)
        self.counts = {"received": 0, "errors": 0, "rate_limited": 0, "refused": 0,
                       "slow_closed": 0, "actions": 0, "skipped": 0}
        self._pending: queue.SimpleQueue[tuple[_Client, Request]] = queue.SimpleQueue()
        self._later: list[tuple[_Client, Callable[[ControlTarget], actions.Outcome]]] = []
        self._clients: set[_Client] = set()
        self._closing: set[asyncio.Task[None]] = set()  # kept so they are not collected
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Future[None] | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_error: BaseException | None = None
        self._panel = {path: (resources.files("footfall.remote.panel").joinpath(name)
                              .read_bytes(), kind)
                       for path, (name, kind) in _PANEL_FILES.items()}

    # ------------------------------------------------------------------ life cycle

    def start(self, timeout: float = 10.0) -> ControlService:
        """Start listening in a background thread; raises :class:`ControlServiceError`."""
        if self._thread is not None:
            return self
        self._ready.clear()
        self._start_error = None
        self._thread = threading.Thread(target=self._run, name="footfall-control",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise ControlServiceError(f"control service did not start within {timeout} s")
        if self._start_error is not None:
            self._thread.join(timeout)
            self._thread = None
            raise ControlServiceError(
                f"cannot listen on {self.host}:{self.port}: {self._start_error}")
        log.info("control service at %s, panel at %s", self.url, self.panel_url)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Close every connection and stop the thread."""
        stop = self._stop
        if stop is not None:
            def finish() -> None:
                if not stop.done():
                    stop.set_result(None)

            self._call(finish)
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None

    def __enter__(self) -> ControlService:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``ws://host:port/retargeting``."""
        return f"ws://{self._netloc}{PATH}"

    @property
    def panel_url(self) -> str:
        """``http://host:port/`` (the control panel)."""
        return f"http://{self._netloc}/"

    @property
    def client_count(self) -> int:
        """Clients connected now."""
        return len(self._clients)

    @property
    def _netloc(self) -> str:
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{host}:{self.port}"

    # ------------------------------------------------------------------ the loop's side

    def process_pending(self, target: ControlTarget) -> int:
        """Run the queued actions on ``target`` between frames, on the loop's thread: those
        continued from a frame earlier (``autoCalibrateAll``) and at most
        ``max_actions_per_frame`` new ones; save characters whose debounce delay passed; hand
        replies and one broadcast per changed character to the service without blocking.
        Returns the number of actions run or continued."""
        now = self.clock()
        outgoing: list[tuple[_Client | None, str]] = []
        changed: dict[str, dict[str, Any]] = {}
        causes: dict[str, str] = {}
        later, self._later = self._later, []

        def finish(client: _Client, action: str, outcome: actions.Outcome) -> None:
            if outcome.then is not None:
                self._later.append((client, outcome.then))
            if outcome.reply is not None:
                outgoing.append((client, encode(outcome.reply)))
            for name, values in outcome.changed.items():
                changed.setdefault(name, {}).update(values)
                causes[name] = action
            self.saves.touch(outcome.saved, now)

        done = len(later)
        for client, rest in later:
            finish(client, "autoCalibrateAll", rest(target))
        for _ in range(self.max_actions_per_frame):
            try:
                client, request = self._pending.get_nowait()
            except queue.Empty:
                break
            if client.gone or client.dropped:
                self.counts["skipped"] += 1
                continue
            finish(client, request.action, actions.run(request, target))
            done += 1
        outgoing.extend((None, encode(broadcast(name, values, causes[name])))
                        for name, values in changed.items())
        self.saves.save_due(target, now)
        self.counts["actions"] += done
        if outgoing:
            self._call(self._deliver, outgoing)
        return done

    def flush(self, target: ControlTarget) -> list[str]:
        """Save every character changed but not saved yet (call when the loop ends)."""
        return self.saves.save_due(target, self.clock(), everything=True)

    def _call(self, callback: Callable[..., Any], *args: Any) -> None:
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the service stopped (its loop closed) meanwhile
            loop.call_soon_threadsafe(callback, *args)

    # ------------------------------------------------------------------ the service's side

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._start_error = exc
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = self._loop.create_future()
        server = await serve(  # an OSError (port taken) is reported by _run to start()
            self._handle, self.host, self.port,
            process_request=self._process_request,
            max_size=4 * MAX_MESSAGE_BYTES,  # hard cap; over 64 KiB gets an error reply
            max_queue=32, compression=None, ping_interval=20, ping_timeout=20,
            close_timeout=1,  # a client that stopped reading never answers a close
            logger=log,
        )
        self.port = int(next(iter(server.sockets)).getsockname()[1])
        self._ready.set()
        try:
            await self._stop
        finally:
            server.close()
            await server.wait_closed()
            self._loop = None

    def _origins(self) -> set[str | None]:
        names = set(LOOPBACK_NAMES)
        if self.host not in ("", "0.0.0.0", "::"):
            names.add(f"[{self.host}]" if ":" in self.host else self.host)
        return {None, *(f"http://{name}:{self.port}" for name in names), *self.extra_origins}

    def _process_request(self, connection: ServerConnection,
                         request: HTTPRequest) -> Response | None:
        path = request.path.split("?", 1)[0]
        upgrade = "websocket" in request.headers.get("Upgrade", "").lower()
        if path == PATH and upgrade:
            origin = request.headers.get("Origin")
            if (origin.rstrip("/").lower() if origin else None) not in self._origins():
                self.counts["refused"] += 1
                return _text(HTTPStatus.FORBIDDEN, f"origin {origin!r} is not allowed; start "
                             "the service with --control-origin to allow it\n")
            if len(self._clients) >= self.max_clients:
                self.counts["refused"] += 1
                return _text(HTTPStatus.SERVICE_UNAVAILABLE,
                             f"{self.max_clients} clients already connected\n")
            return None
        if path in self._panel and not upgrade:
            return _response(HTTPStatus.OK, *self._panel[path])
        self.counts["refused"] += 1
        return _text(HTTPStatus.NOT_FOUND,
                     f"nothing at {path!r}: the WebSocket is at {PATH}, the panel at /\n")

    async def _handle(self, connection: ServerConnection) -> None:
        if len(self._clients) >= self.max_clients:  # two handshakes raced past the check
            await connection.close(1013, "too many clients")
            return
        client = _Client(connection, _Bucket(self.rate, self.burst, self.burst, self.clock()),
                         asyncio.Queue(self.outbox_size))
        client.writer = asyncio.create_task(client.write())
        self._clients.add(client)
        try:
            async for message in connection:
                self._receive(client, message)
                if client.dropped:
                    await connection.close(*client.dropped)
                    break
        except ConnectionClosed:
            pass
        finally:
            client.gone = True
            self._clients.discard(client)
            client.writer.cancel()

    def _receive(self, client: _Client, message: str | bytes) -> None:
        self.counts["received"] += 1
        try:
            request = parse_request(message)
        except FieldError as exc:
            self.counts["errors"] += 1
            self._send(client, encode(error_reply(exc)))
            return
        if not client.bucket.take(self.clock()):
            self.counts["rate_limited"] += 1
            self._send(client, encode(error_reply(
                f"rate limit: at most {self.rate:g} messages a second", request.action,
                request.id)))
            if client.bucket.tokens < -self.burst:  # flooding on regardless
                self._drop(client, 1008, "rate limit exceeded")
            return
        if client.queued >= self.max_queued:
            self.counts["errors"] += 1
            self._send(client, encode(error_reply(
                f"busy: {client.queued} requests are waiting for the animation loop",
                request.action, request.id)))
            return
        client.queued += 1
        self._pending.put((client, request))

    def _deliver(self, outgoing: list[tuple[_Client | None, str]]) -> None:
        """Runs on the service's loop: replies to their clients, broadcasts to everyone."""
        for client, text in outgoing:
            if client is None:
                for each in list(self._clients):
                    self._send(each, text)
            else:
                client.queued -= 1
                if client in self._clients:
                    self._send(client, text)

    def _send(self, client: _Client, text: str) -> None:
        if client.dropped:
            return
        try:
            client.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.counts["slow_closed"] += 1
            self._drop(client, 1008, "client too slow: messages piled up")

    def _drop(self, client: _Client, code: int, reason: str) -> None:
        client.dropped = (code, reason)
        self._clients.discard(client)
        self._closing.add(asyncio.get_running_loop().create_task(
            client.connection.close(code, reason)))
        self._closing = {task for task in self._closing if not task.done()}


def _text(status: HTTPStatus, text: str) -> Response:
    return _response(status, text.encode("utf-8"), "text/plain; charset=utf-8")


def _response(status: HTTPStatus, body: bytes, kind: str) -> Response:
    headers = Headers([("Content-Type", kind), ("Content-Length", str(len(body))),
                       *_SECURITY_HEADERS])
    return Response(status.value, status.phrase, headers, body)
