"""Server cost of ``footfall demo`` at 60 Hz with a headless browser connected.

Measures, over a window of wall-clock time, the CPU time of this process (``time.process_time``:
the update loop, the simulation and viser's sender threads together) while Debian's chromium
shows the page, and the frame rate the loop held. Three runs in one go:

* ``demo``        the demo as shipped (bunnies, rays, dots, gap bars as a few batched meshes);
* ``drawing``     the same loop with the simulation replaced by a replay of recorded frames,
                  i.e. what drawing and sending cost on their own;
* ``no-follow``   the drawing with the follow camera switched off (its share of the cost);
* ``gait``        the demo with the procedural walk cycle chosen as the walker;
* ``per-part``    baseline: the drawing with every bunny part its own scene node (56 pose
                  updates a frame instead of a few arrays), the naive way.

Run: ``.venv/bin/python benchmarks/bench_viewer.py [--seconds 10] [--runs demo,drawing]``
(about a minute). To compare with an older commit in the same session, run this script with
``PYTHONPATH=<that commit's src>`` (e.g. from ``git archive <commit> src``) between runs of the
current code.
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np
from playwright.sync_api import sync_playwright

import footfall
from footfall.bunny.mesh import unit_sphere
from footfall.viewer.app import DemoApp
from footfall.viewer.headless import CHROMIUM
from footfall.viewer.headless import CHROMIUM_FLAGS as FLAGS
from footfall.viewer.simulation import DT, DemoSettings


class Replay:
    """Stands in for the simulation: hands back recorded frames in a loop."""

    def __init__(self, simulation, frames) -> None:
        self.simulation = simulation
        self.frames = frames
        self.index = 0

    def step(self, dt: float = DT):
        frame = self.frames[self.index % len(self.frames)]
        self.index += 1
        self.simulation.frame = frame
        return frame


class PerPartBody:
    """Baseline body: one scene node per part, posed one by one (takes the batched arrays the
    scene would have sent)."""

    def __init__(self, app: DemoApp) -> None:
        vertices, faces = unit_sphere(2)
        radii = app.scene.parts.scales(2)
        self.nodes = [
            app.server.scene.add_mesh_simple(
                f"/walkers/part{i}", vertices, faces, scale=tuple(radii[i]),
                color=(240, 220, 220),
            )
            for i in range(len(radii))
        ]
        self.wxyz = np.zeros((len(radii), 4))

    def __setattr__(self, name: str, value: object) -> None:
        if name == "batched_wxyzs":
            self.wxyz = np.asarray(value)
        elif name == "batched_positions":
            for node, q, p in zip(self.nodes, self.wxyz, np.asarray(value), strict=True):
                node.wxyz = q
                node.position = p
        else:
            super().__setattr__(name, value)


def per_part_nodes(app: DemoApp) -> None:
    """Baseline: replace the bunnies' batched mesh by one scene node per part."""
    app.scene.bodies.remove()
    app.scene.bodies = PerPartBody(app)


def measure(browser, app: DemoApp, seconds: float) -> tuple[float, float]:
    """(CPU share of one core, frames per second) over ``seconds`` with a page connected."""
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(120_000)
    page.goto(app.url)
    page.get_by_label("IK (left bunny)", exact=True).wait_for()
    deadline = time.monotonic() + 60
    while not app.server.get_clients() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2.0)  # past the initial scene transfer
    cpu0, wall0, frames0 = time.process_time(), time.perf_counter(), app.frames
    time.sleep(seconds)
    cpu1, wall1, frames1 = time.process_time(), time.perf_counter(), app.frames
    page.close()
    app.stop()
    loop.join(timeout=10)
    wall = wall1 - wall0
    return (cpu1 - cpu0) / wall, (frames1 - frames0) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured window per run")
    parser.add_argument(
        "--runs", default="demo,drawing,no-follow,per-part", help="comma-separated runs"
    )
    args = parser.parse_args()
    runs = [name.strip() for name in args.runs.split(",") if name.strip()]
    print(f"footfall from {footfall.__file__}")

    # Recorded frames for the replays (the first 10 s of the course).
    recorder = DemoApp(port=8790, lang="en", settings=DemoSettings())
    frames = [recorder.simulation.step() for _ in range(600)]
    recorder.close()
    started = time.process_time()
    for _ in range(300):
        recorder.simulation.step()
    sim_ms = (time.process_time() - started) / 300 * 1000

    results = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for name in runs:
            settings = DemoSettings(
                follow=name != "no-follow", walker="gait" if name == "gait" else "stepping"
            )
            app = DemoApp(port=8791, lang="en", settings=settings)
            if name not in ("demo", "gait"):
                app.simulation.step = Replay(app.simulation, frames).step
            if name == "per-part":
                per_part_nodes(app)
            results[name] = measure(browser, app, args.seconds)
            print(f"{name:9s} CPU {results[name][0]:6.1%} of one core, {results[name][1]:5.1f} Hz")
        browser.close()

    base_cpu = results.get("per-part", (float("nan"),))[0]
    print()
    print(
        f"simulation alone: {sim_ms:.2f} ms CPU per 1/60 s step = {sim_ms * 60 / 10:.1f} % "
        "of one core at 60 Hz"
    )
    for name, (cpu, hz) in results.items():
        ratio = f"  ×{cpu / base_cpu:.2f} of per-part" if "per-part" in results else ""
        print(f"{name:9s} {cpu:6.1%} CPU  {hz:5.1f} Hz{ratio}")


if __name__ == "__main__":
    main()
