"""The demo server: a fixed-step simulation loop feeding the viser scene at 60 Hz.

Each frame: apply what the controls changed, advance the simulation one fixed step (1/60 s),
send the few batched updates, ``server.flush()``, then sleep to the frame period. Sleeping
matters: a loop that never sleeps starves viser's sender thread (notes/viewer.md).
"""

from __future__ import annotations

import socket
import time

import numpy as np
import viser

from footfall.errors import SettingsError
from footfall.viewer.controls import DemoControls, PendingChanges
from footfall.viewer.i18n import check_language, text
from footfall.viewer.scene import CAMERA_FOV, DemoScene, camera_pose, camera_target
from footfall.viewer.simulation import DT, WALKERS, DemoSettings, DemoSimulation

READOUT_EVERY = 15  # frames between readout refreshes (4 per second)
SMALL_SCREEN = (900, 500)  # windows narrower or lower than this (pixels) start with the panel shut
FOLLOW_STEP = 0.001  # metres the bunnies move before the follow view moves the world


def port_is_free(host: str, port: int) -> bool:
    """Whether a TCP server could bind ``host:port`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class DemoApp:
    """The whole demo: server, simulation, scene, controls, loop (:attr:`notice`: a busy port)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8080, lang: str = "en",
                 settings: DemoSettings | None = None, verbose: bool = False) -> None:
        self.lang = check_language(lang)
        if not 1 <= int(port) <= 65535:
            raise SettingsError(f"port {port} must be in 1…65535")
        self.simulation = DemoSimulation(settings)
        self.settings = self.simulation.settings
        self.notice = "" if port_is_free(host, port) else f"port {port} is busy"
        self.server = viser.ViserServer(host=host, port=port, label="footfall", verbose=verbose)
        self.host = host
        self.port = self.server.get_port()
        if self.notice:
            self.notice += f"; using free port {self.port} instead"
        self.server.gui.configure_theme(control_width="small", show_share_button=False,
                                        brand_color=(255, 140, 170))
        self.server.gui.set_panel_label(text("title", self.lang))
        self._anchor = camera_target(self.simulation.frame)
        self._offset = np.zeros(3)
        camera = self.server.initial_camera
        camera.fov = CAMERA_FOV
        camera.up = (0.0, 1.0, 0.0)
        camera.position, camera.look_at = camera_pose(self._anchor, 1280, 720)
        self.pending = PendingChanges()
        self.scene = DemoScene(self.server, self.simulation, self.lang)
        self.controls = DemoControls(self.server, self.settings, self.pending, self.lang, WALKERS)
        self.frames = 0
        self._running = True
        self._closed = False
        self._windows: dict[int, tuple[int, int]] = {}
        self.server.on_client_connect(self._on_connect)
        self.server.on_client_disconnect(self._on_disconnect)

    @property
    def url(self) -> str:
        """The address to open in a browser."""
        return f"http://{self.host}:{self.port}/"

    def _on_connect(self, client: viser.ClientHandle) -> None:
        # A new (or reconnecting) browser: frame both bunnies for its window as soon as it
        # reports its camera, and again when the window changes shape (a phone turned sideways).
        def on_camera(camera: viser.CameraHandle) -> None:
            size = (int(camera.image_width), int(camera.image_height))
            known = self._windows.get(client.client_id)
            if known == size:
                return
            self._windows[client.client_id] = size
            if known is None and (size[0] < SMALL_SCREEN[0] or size[1] < SMALL_SCREEN[1]):
                client.gui.main_panel.minimize()  # phones: the scene first, the panel a tap away
            # where the bunnies appear now: their camera target in the shifted world
            self._place_camera(client, camera_target(self.simulation.frame) + self._offset)

        client.camera.on_update(on_camera)

    def _on_disconnect(self, client: viser.ClientHandle) -> None:
        self._windows.pop(client.client_id, None)

    def _place_camera(self, client: viser.ClientHandle, target: np.ndarray) -> None:
        size = self._windows.get(client.client_id)
        if size is None:  # the client has not reported its window yet
            return
        position, look_at = camera_pose(target, *size)
        camera = client.camera
        with client.atomic():  # one wake-up of viser's sender for the camera's messages
            camera.fov = CAMERA_FOV
            camera.up_direction = (0.0, 1.0, 0.0)
            camera.position = position
            camera.look_at = look_at

    def _follow(self) -> None:
        # The world (shifted by ``_offset``) moves under the still cameras so the bunnies stay
        # at ``_anchor``, where the cameras look; a user's orbit is kept.
        if not self.settings.follow:
            return
        offset = self._anchor - camera_target(self.simulation.frame)
        if np.any(np.abs(offset - self._offset) > FOLLOW_STEP):
            self._offset = offset
            self.scene.shift_world(offset)

    def tick(self) -> None:
        """One frame: apply control changes, step the simulation, send the updates."""
        apply, rebuild = self.pending.take()
        if rebuild:
            self.simulation.rebuild()
            self.scene.build_terrain()
            self._offset = np.zeros(3)
            self.scene.shift_world(self._offset)
            self._anchor = camera_target(self.simulation.frame)
            self.scene.place_legend(self._anchor)
            for client in self.server.get_clients().values():
                self._place_camera(client, self._anchor)
        elif apply:
            self.simulation.apply()
        frame = self.simulation.step(DT)
        with self.server.atomic():
            self._follow()
            self.scene.update(frame)
            if self.frames % READOUT_EVERY == 0:
                self.controls.show(frame, self.simulation.stats)
        self.server.flush()
        self.frames += 1

    def run(self, duration: float | None = None) -> None:
        """Run the loop at 60 Hz until :meth:`stop`, Ctrl-C, or ``duration`` seconds."""
        start = time.perf_counter()
        next_time = start
        try:
            while self._running:
                self.tick()
                if duration is not None and time.perf_counter() - start >= duration:
                    break
                next_time += DT
                delay = next_time - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                else:  # fell behind (a slow machine): do not try to catch up in a burst
                    next_time = time.perf_counter()
        finally:
            self.close()

    def stop(self) -> None:
        """Ask :meth:`run` to return after the current frame (from any thread)."""
        self._running = False

    def close(self) -> None:
        """Stop the server and free the port (once; later calls do nothing)."""
        self._running = False
        if not self._closed:
            self._closed = True
            self.server.stop()
