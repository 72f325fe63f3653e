"""``footfall live`` with its remote-control service: a real WebSocket client steers the running
loop (issues 11 and 12 joined), on 127.0.0.1 with bounded waits."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import websockets

from conftest import DATA

CLIP = DATA / "bvh" / "games105_walk60.bvh"
AVATAR = DATA / "avatars" / "CesiumMan.glb"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _connect(url: str, deadline: float) -> websockets.ClientConnection:
    while True:
        try:
            return await websockets.connect(url, open_timeout=2)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def _ask(ws: websockets.ClientConnection, request: dict) -> dict:
    await ws.send(json.dumps(request))
    while True:  # broadcasts may come first; the reply carries the request's id
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
        if message.get("id") == request["id"] and message["type"] in ("reply", "error"):
            return message


async def _steer(url: str) -> tuple[dict, dict, dict, dict]:
    ws = await _connect(url, time.monotonic() + 30)
    async with ws:
        listing = await _ask(ws, {"action": "refresh", "id": 1})
        name = listing["result"]["characters"][0]
        changed = await _ask(ws, {"action": "updateValueRealtime", "id": 2, "character": name,
                                  "parameter": "avatar_scale", "value": 1.25})
        data = await _ask(ws, {"action": "getCharacterData", "id": 3, "character": name})
        bad = await _ask(ws, {"action": "updateValueRealtime", "id": 4, "character": name,
                              "parameter": "avatar_scale", "value": 99.0})
        return listing, changed, data, bad


def test_live_runs_the_control_service_between_frames(tmp_path: Path) -> None:
    port = _free_port()
    settings = tmp_path / "settings"
    command = [sys.executable, "-m", "footfall.cli", "live", "--replay", str(CLIP), "--to",
               str(AVATAR), "--no-view", "--control-port", str(port), "--settings-dir",
               str(settings), "--duration", "12"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        listing, changed, data, bad = asyncio.run(
            _steer(f"ws://127.0.0.1:{port}/retargeting"))
    finally:
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "remote control: ws://127.0.0.1:" in err
    assert listing["ok"] and listing["result"]["characters"] == ["CesiumMan"]
    assert changed["ok"], changed
    values = data["result"]["values"]
    assert values["avatar_scale"] == 1.25  # applied in the running loop, read back
    assert not bad["ok"] and bad["error"]["field"] == "value"  # out of range, service stays up
    saved = json.loads((settings / "CesiumMan_settings.json").read_text())
    assert json.dumps(saved).count("1.25") >= 1  # the change was saved for this avatar
