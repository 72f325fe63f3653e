"""The demo's control panel: switches, sliders and the live readout, in viser's GUI.

Callbacks run on viser's threads, so they only edit :class:`DemoSettings` and raise a flag;
the update loop (:mod:`footfall.viewer.app`) applies the change at the start of its next frame.
"""

from __future__ import annotations

import threading

import numpy as np
import viser

from footfall.viewer.i18n import text
from footfall.viewer.simulation import (
    SPEED_RANGE,
    STEP_HEIGHT_RANGE,
    TERRAINS,
    ContactStats,
    DemoFrame,
    DemoSettings,
)


class PendingChanges:
    """Thread-safe flags from the GUI threads to the update loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._apply = False
        self._rebuild = False

    def request(self, rebuild: bool) -> None:
        """Ask for the cheap switches to be applied, or for a full rebuild."""
        with self._lock:
            self._apply = True
            self._rebuild = self._rebuild or rebuild

    def take(self) -> tuple[bool, bool]:
        """``(apply, rebuild)`` requested since the last call; clears them."""
        with self._lock:
            out = (self._apply, self._rebuild)
            self._apply = self._rebuild = False
        return out


def readout_markdown(frame: DemoFrame, stats: ContactStats, lang: str) -> str:
    """The live readout, a Markdown table: each bunny's sole gap now, contact error so far (cm)."""
    error = stats.mean
    rows = [f"| {text('readout_bunny', lang)} | {text('readout_gap', lang)} "
            f"| {text('readout_error', lang)} |", "|---|---:|---:|"]
    for k, side in enumerate(("readout_left", "readout_right")):
        stance = frame.stance[k]
        gap = frame.sole_gap[k][stance] if stance.any() else frame.sole_gap[k]
        now = float(np.abs(gap).max()) * 100.0
        err = "–" if np.isnan(error[k]) else f"{error[k] * 100.0:.2f} cm"
        ik = text("label_ik_on" if frame.ik[k] else "label_ik_off", lang)
        rows.append(f"| {text(side, lang)} ({ik}) | {now:.1f} cm | {err} |")
    return "\n".join(rows)


class DemoControls:
    """Builds the control panel on ``server`` editing ``settings``; changes go to ``pending``."""

    def __init__(self, server: viser.ViserServer, settings: DemoSettings, pending: PendingChanges,
                 lang: str, walkers: tuple[str, ...]) -> None:
        self.settings = settings
        self.pending = pending
        self.lang = lang
        gui = server.gui
        t = lambda key: text(key, lang)  # noqa: E731
        self.terrain_names = {t(f"terrain_{name}"): name for name in TERRAINS}
        self.walker_names = {t(f"walker_{name}"): name for name in walkers}

        with gui.add_folder(t("folder_controls")):
            self.ik = gui.add_checkbox(t("ik_left"), settings.ik_left)
            self.hips = gui.add_checkbox(t("hips"), settings.hips)
            self.speed = gui.add_slider(t("speed"), *SPEED_RANGE, 0.05, settings.speed)
            self.terrain = gui.add_dropdown(t("terrain"), list(self.terrain_names),
                                            initial_value=t(f"terrain_{settings.terrain}"))
            self.step_height = gui.add_slider(t("step_height"), *STEP_HEIGHT_RANGE, 0.01,
                                              settings.step_height)
            self.walker = gui.add_dropdown(t("walker"), list(self.walker_names),
                                           initial_value=t(f"walker_{settings.walker}"))
            self.follow = gui.add_checkbox(t("follow"), settings.follow)
            self.pause = gui.add_checkbox(t("pause"), settings.paused)
            self.restart = gui.add_button(t("restart"))
        with gui.add_folder(t("folder_readout")):
            self.legend = gui.add_markdown(t("legend"))
            self.readout = gui.add_markdown("")

        self.ik.on_update(lambda _: self._set("ik_left", self.ik.value, rebuild=False))
        self.hips.on_update(lambda _: self._set("hips", self.hips.value, rebuild=False))
        self.speed.on_update(lambda _: self._set("speed", float(self.speed.value), rebuild=False))
        self.terrain.on_update(
            lambda _: self._set("terrain", self.terrain_names[self.terrain.value], rebuild=True)
        )
        self.step_height.on_update(
            lambda _: self._set("step_height", float(self.step_height.value), rebuild=True)
        )
        self.walker.on_update(
            lambda _: self._set("walker", self.walker_names[self.walker.value], rebuild=True)
        )
        self.follow.on_update(lambda _: self._set("follow", self.follow.value, rebuild=False))
        self.pause.on_update(lambda _: self._set("paused", self.pause.value, rebuild=False))
        self.restart.on_click(lambda _: self.pending.request(rebuild=True))

    def _set(self, name: str, value: object, rebuild: bool) -> None:
        setattr(self.settings, name, value)
        self.pending.request(rebuild)

    def show(self, frame: DemoFrame, stats: ContactStats) -> None:
        """Refresh the live readout (call a few times a second, not every frame)."""
        content = readout_markdown(frame, stats, self.lang)
        if self.readout.content != content:
            self.readout.content = content
