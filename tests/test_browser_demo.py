"""The demo in a real browser: Debian's chromium driven by Playwright (software WebGL).

The page loads, the canvas shows the terrain and both bunnies (hiding each one changes the
picture), clicking the IK control changes what the server simulates, closing the tab and
reconnecting works, and screenshots at 1280×720, 844×390 and 390×844 land in ``artifacts/``.
"""

from __future__ import annotations

import base64
import io
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from PIL import Image

from conftest import ARTIFACTS
from footfall.viewer.app import DemoApp
from footfall.viewer.simulation import DemoSettings


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture(scope="module")
def demo() -> Iterator[DemoApp]:
    """The demo server running its 60 Hz loop in a thread, as ``footfall demo`` does.

    It starts paused: viser renders on demand, so a still scene lets the software-WebGL browser
    idle between checks (the IK test runs it)."""
    app = DemoApp(port=_free_port(), lang="en", settings=DemoSettings(paused=True))
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    yield app
    app.stop()
    loop.join(timeout=10)
    assert not loop.is_alive()


#: Wait for the canvas and the software-WebGL notice, close the notice (its button never stops
#: animating, so a Playwright click would wait forever) and wait until it is gone: in one call,
#: as each round trip to the page waits out a software-WebGL frame.
_CLOSE_NOTICE = """async (timeout) => {
    const deadline = performance.now() + timeout;
    const until = async (what, test) => {
        while (!test()) {
            if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
    };
    const notice = () => document.querySelector("#webgl-software-rendering");
    await until("a canvas", () => document.querySelector("canvas") !== null);
    await until("the software-WebGL notice",
                () => notice() !== null && notice().getClientRects().length > 0);
    notice().querySelector(".mantine-Notification-closeButton").click();
    await until("the notice to close", () => notice() === null);
}"""


def _open(browser, app: DemoApp, width: int, height: int):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(120_000)  # software WebGL on a busy machine is slow
    page.goto(app.url)
    page.evaluate(_CLOSE_NOTICE, 120_000)
    return page


#: Every canvas's box in the viewport (CSS px), read in one call: a round trip to the page waits
#: while software WebGL draws a frame (about a second), so asking canvas by canvas cost seconds.
_CANVAS_BOXES = """() => [...document.querySelectorAll("canvas")].map((canvas) => {
    const box = canvas.getBoundingClientRect();
    return {x: box.x, y: box.y, width: box.width, height: box.height};
})"""


def _canvas_box(page) -> dict[str, float]:
    """The scene canvas (the largest one: viser keeps other, empty canvases on the page)."""
    boxes = [box for box in page.evaluate(_CANVAS_BOXES) if box["width"] * box["height"] > 0]
    return max(boxes, key=lambda box: box["width"] * box["height"])


#: Each page's DevTools session for :func:`_capture` (it ends with the page).
_CDP_SESSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _capture(page, clip: dict[str, float]) -> bytes:
    """A PNG of ``clip`` (CSS px, device scale 1) by Chromium's own ``Page.captureScreenshot``:
    the capture ``page.screenshot`` ends with, without its three round trips to the page (hide
    the caret, wait for fonts, restore), each of which waits out a software-WebGL frame (3–7 s
    a screenshot against 0.3 s on the shared 2-core machine). No text field has focus here, and
    a picture taken while fonts still load differs from the next: every picture a test judges
    follows two that agreed (:func:`_settled`)."""
    session = _CDP_SESSIONS.get(page)
    if session is None:  # one per page: attaching and detaching each wait for the page too
        session = _CDP_SESSIONS[page] = page.context.new_cdp_session(page)
    shot = session.send("Page.captureScreenshot", {"format": "png", "clip": {**clip, "scale": 1}})
    return base64.b64decode(shot["data"])


def _canvas(page) -> np.ndarray:
    """What the scene canvas shows now, ``(H, W, 3)``. Reading the canvas's box first waits
    until the page has finished the frame it is drawing, so the picture is at least that new."""
    png = _capture(page, _canvas_box(page))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def _changed_columns(page, before: np.ndarray, timeout: float = 60.0) -> np.ndarray:
    """Wait until the canvas differs from ``before``; the changed pixels' column indices."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        after = _canvas(page)
        changed = np.abs(after - before).sum(axis=-1) > 40
        if changed.sum() > 400:
            return np.nonzero(changed)[1]
        time.sleep(0.3)
    raise AssertionError("the canvas did not change")


def _settled(page, timeout: float = 60.0) -> np.ndarray:
    """The canvas once two pictures a second apart agree (the scene has finished loading)."""
    deadline = time.monotonic() + timeout
    previous = _canvas(page)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        current = _canvas(page)
        if (np.abs(current - previous).sum(axis=-1) > 40).sum() <= 100:
            return current
        previous = current
    raise AssertionError("the canvas never settled")


def _looks_like_a_scene(pixels: np.ndarray) -> None:
    colours = np.unique(pixels.reshape(-1, 3) // 8, axis=0)
    assert len(colours) > 200, f"only {len(colours)} colours: a blank or flat canvas"
    assert pixels.std(axis=(0, 1)).max() > 15


@pytest.fixture(scope="class")
def desktop(demo: DemoApp, browser) -> Iterator[object]:
    """One desktop-sized page shared by the desktop tests (each page load costs seconds)."""
    page = _open(browser, demo, 1280, 720)
    page.get_by_label("IK (left bunny)", exact=True).wait_for()
    _wait_for(lambda: bool(demo._windows), 60, "the client to report its window")
    yield page
    page.close()


def _toggle(page, show) -> tuple[float, float]:
    """Hide something (``show(False)``) then show it again; the median screen column of what
    it covered and the spread of those columns."""
    shown = _settled(page)
    show(False)
    gone = _changed_columns(page, shown)
    hidden = _settled(page)
    show(True)
    back = _changed_columns(page, hidden)
    # It comes back where it was.
    assert abs(np.median(back) - np.median(gone)) < 40, (np.median(gone), np.median(back))
    return float(np.median(gone)), float(np.ptp(gone))


class TestDesktop:
    """The two tests of one desktop page, closed after them: an open page keeps software WebGL
    busy (about half a core) through every later test."""

    def test_page_shows_terrain_and_both_bunnies(self, demo: DemoApp, desktop) -> None:
        page = desktop
        # The demo is paused (see ``demo``): a still picture where only what the test changes moves.
        still = _settled(page)
        _looks_like_a_scene(still)
        Image.fromarray(still.astype(np.uint8)).save(ARTIFACTS / "browser_1280x720.png")

        width = still.shape[1]
        left, _ = _toggle(page, lambda shown: demo.scene.show_bunny(0, shown))
        right, _ = _toggle(page, lambda shown: demo.scene.show_bunny(1, shown))
        # The IK-on bunny walks on the left of the screen, the IK-off one on the right.
        assert left < width / 2 < right, (left, right)
        terrain = demo.scene.terrain_handles[0]
        _, spread = _toggle(page, lambda shown: setattr(terrain, "visible", shown))
        assert spread > width / 2, "the terrain should span the view"

    def test_clicking_ik_changes_the_simulation(self, demo: DemoApp, desktop) -> None:
        page = desktop
        checkbox = page.get_by_label("IK (left bunny)", exact=True)
        assert checkbox.is_checked()
        assert bool(demo.simulation.walker.ik[0])
        demo.settings.paused = False
        try:
            time_before = demo.simulation.time
            page.locator("label", has_text="IK (left bunny)").click()
            _wait_for(lambda: not bool(demo.simulation.walker.ik[0]), 30, "the server to switch IK")
            _wait_for(lambda: not demo.simulation.frame.ik[0], 5, "a frame without IK")
            assert demo.simulation.time > time_before
            assert demo.scene.labels[0].text == "IK off"
            page.screenshot(path=ARTIFACTS / "browser_ik_off.png")
            page.locator("label", has_text="IK (left bunny)").click()
            _wait_for(lambda: bool(demo.simulation.walker.ik[0]), 30, "IK back on")
            _wait_for(lambda: demo.scene.labels[0].text == "IK on", 5, "the label back to IK on")
        finally:
            demo.settings.paused = True


def test_phone_sizes_show_the_scene(demo: DemoApp, browser) -> None:
    page = _open(browser, demo, 844, 390)
    try:
        box = _canvas_box(page)
        assert box["width"] >= 842 and box["height"] >= 350
        _settled(page)  # the client reports its window; the camera frames both bunnies
        # Landscape: the panel starts shut (one bar), the whole scene visible; it opens.
        checkbox = page.get_by_label("IK (left bunny)", exact=True)
        assert not checkbox.is_visible()
        _looks_like_a_scene(_canvas(page))
        page.screenshot(path=ARTIFACTS / "browser_844x390.png")
        page.get_by_role("button", name="Expand panel").click()
        checkbox.wait_for(state="visible")

        # Portrait (the phone turned): viser's control sheet covers the lower part; the camera
        # frames the bunnies in the top part, which must show the scene.
        page.set_viewport_size({"width": 390, "height": 844})
        _settled(page)
        box = _canvas_box(page)
        assert box["width"] >= 388
        pixels = _canvas(page)
        _looks_like_a_scene(pixels[: int(pixels.shape[0] * 0.4)])
        page.screenshot(path=ARTIFACTS / "browser_390x844.png")
    finally:
        page.close()


def test_closing_and_reconnecting(demo: DemoApp, browser) -> None:
    page = _open(browser, demo, 640, 360)
    _wait_for(lambda: len(demo.server.get_clients()) >= 1, 60, "the client to connect")
    before = len(demo.server.get_clients())
    page.close()
    _wait_for(lambda: len(demo.server.get_clients()) == before - 1, 60, "the client to leave")
    frames = demo.frames
    page = _open(browser, demo, 640, 360)
    try:
        _wait_for(lambda: len(demo.server.get_clients()) == before, 60, "the client to return")
        page.get_by_role("button", name="Expand panel").wait_for()
        assert demo.frames > frames  # the loop kept running throughout
    finally:
        page.close()


def test_korean_page(browser) -> None:
    """``--lang ko``: the panel and the labels over the bunnies speak Korean (the test command
    installs Debian's fonts-nanum, so the screenshot shows Hangul, not boxes)."""
    app = DemoApp(port=_free_port(), lang="ko", settings=DemoSettings(paused=True))
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    try:
        page = _open(browser, app, 1280, 720)
        try:
            page.get_by_label("IK (왼쪽 토끼)", exact=True).wait_for()
            page.get_by_text("footfall — 발 땅에 붙이기").first.wait_for()
            # The labels over the bunnies are drawn into the canvas (not page text).
            assert [label.text for label in app.scene.labels] == ["IK 켬", "IK 끔"]
            still = _settled(page)
            _looks_like_a_scene(still)
            Image.fromarray(still.astype(np.uint8)).save(ARTIFACTS / "browser_ko_1280x720.png")
        finally:
            page.close()
    finally:
        app.stop()
        loop.join(timeout=10)
    assert not loop.is_alive()
