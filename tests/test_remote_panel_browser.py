"""The control panel in a real browser (Debian chromium driven by Playwright).

The panel comes from the service's own port, lists the characters, builds a control for every
parameter; moving a slider changes the parameter in the running 60 Hz loop (read back with
``getCharacterData``), a value changed by another client shows up in the panel, a preset button
and the language switch work, and screenshots at 1280×720, 844×390 and 390×844 land in
``artifacts/``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest
from websockets.sync.client import connect

from conftest import ARTIFACTS
from footfall.remote import ControlService
from footfall.retarget.settings import PARAMETERS
from remote_loop import ClipLoop, running_service

SIZES = [(1280, 720), (844, 390), (390, 844)]


@pytest.fixture(scope="module")
def running() -> Iterator[tuple[ControlService, ClipLoop]]:
    with running_service() as pair:
        yield pair


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _open(browser, service: ControlService, width: int, height: int, lang: str = "en"):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{service.panel_url}?lang={lang}")
    page.wait_for_selector("#status[data-state='open']")
    page.wait_for_selector(".row[data-name='avatar_scale']")
    return page, errors


def _ask(service: ControlService, request: dict) -> dict:
    """One request from a plain WebSocket client (the sync one: Playwright owns the asyncio
    loop of this thread); returns the reply's result."""
    with connect(service.url, open_timeout=10) as ws:
        ws.send(json.dumps(request))
        while True:
            answer = json.loads(ws.recv(timeout=10))
            if answer["type"] != "broadcast":
                assert answer["ok"], answer
                return answer["result"]


def test_slider_changes_the_parameter_in_the_running_loop(running, browser) -> None:
    service, loop = running
    page, errors = _open(browser, service, 1280, 720)
    try:
        assert page.locator("#characters button").all_inner_texts() == ["cmu", "mixamo"]
        assert page.locator(".row").count() == len(PARAMETERS)
        page.locator("#characters button", has_text="mixamo").click()
        _wait_for(lambda: page.locator("#characters button[aria-selected='true']")
                  .inner_text() == "mixamo", 10, "mixamo selected")
        # its controls are rebuilt when its data arrives: move the slider after that
        page.wait_for_selector("#parameters[data-character='mixamo']", timeout=10_000)
        slider = page.locator("#p-head_scale")
        start = loop.characters()["mixamo"].settings["head_scale"]
        slider.focus()
        for _ in range(40):  # a user moving the control, step by step
            page.keyboard.press("ArrowRight")
        moved = float(slider.input_value())
        assert moved == pytest.approx(start + 40 * 0.01, abs=1e-6)
        _wait_for(lambda: loop.characters()["mixamo"].settings["head_scale"]
                  == pytest.approx(moved), 10, "the loop to take the slider's value")
        data = _ask(service, {"action": "getCharacterData", "id": 1, "character": "mixamo"})
        assert data["values"]["head_scale"] == pytest.approx(moved)
        assert page.locator(".row[data-name='head_scale'] input[type='number']").input_value() \
            == f"{round(moved, 3):g}"
        assert loop.characters()["cmu"].settings["head_scale"] == 1.0  # the other untouched
        assert not errors
    finally:
        page.close()


def test_panel_follows_broadcasts_and_presets_apply(running, browser) -> None:
    service, loop = running
    page, errors = _open(browser, service, 844, 390)
    try:
        _ask(service, {"action": "updateValueRealtime", "id": 1, "character": "cmu",
                       "parameter": "avatar_scale", "value": 1.37})
        slider = page.locator("#p-avatar_scale")
        _wait_for(lambda: float(slider.input_value()) == pytest.approx(1.37), 10,
                  "the panel to follow the broadcast")
        page.locator("#presets button[data-preset='rock']").click()
        _wait_for(lambda: loop.characters()["cmu"].settings["fingers_enabled"], 10,
                  "the preset to reach the loop")
        assert loop.characters()["cmu"].settings["left_middle_curl"] == 1.0
        # The loop's change comes back to the panel as a broadcast: a round trip, not at once.
        _wait_for(lambda: page.locator("#p-fingers_enabled").is_checked(), 10,
                  "the panel to show the preset's fingers switch")
        assert not errors
    finally:
        page.close()


@pytest.mark.parametrize("width, height", SIZES)
def test_screenshots_and_phone_layout(running, browser, width, height) -> None:
    service, _ = running
    lang = "ko" if width == 390 else "en"
    page, errors = _open(browser, service, width, height, lang)
    try:
        overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
        assert overflow <= 0, f"{overflow} px wider than the {width} px screen"
        button = page.locator("button[data-action='autoCalibrateAll']").bounding_box()
        assert button["x"] >= 0 and button["x"] + button["width"] <= width
        assert button["height"] >= 36  # big enough for a finger
        if lang == "ko":
            assert page.locator("h1").inner_text() == "리타게팅 제어"
            assert "바위" in page.locator("#presets").inner_text()
            page.locator("#lang").click()
            assert page.locator("h1").inner_text() == "Retargeting control"
            page.locator("#lang").click()
        page.screenshot(path=ARTIFACTS / f"remote_panel_{width}x{height}.png")
        assert not errors
    finally:
        page.close()
