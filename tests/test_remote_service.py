"""The control service with real ``websockets`` clients against a 60 Hz loop on 127.0.0.1:
each of seed 001's actions, broadcasts between clients, debounced saves, and every bad input
answered with an error reply while the connection and the service stay up."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from footfall.remote import ControlService
from footfall.retarget.fingers import preset
from footfall.retarget.floor import left_leg_length
from footfall.retarget.settings import PARAMETERS, load_settings
from remote_loop import ClipLoop, build_characters, running_service

TIMEOUT = 10.0


@pytest.fixture(scope="module")
def running() -> Iterator[tuple[ControlService, ClipLoop]]:
    with running_service() as pair:
        yield pair


async def ask(ws: ClientConnection, message: dict[str, Any] | str,
              seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Send one request; the reply with its id (broadcasts met meanwhile go to ``seen``)."""
    await ws.send(message if isinstance(message, str) else json.dumps(message))
    wanted = None if isinstance(message, str) else message.get("id")
    while True:
        answer = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        if answer["type"] == "broadcast":
            if seen is not None:
                seen.append(answer)
            continue
        if wanted is None or answer["id"] == wanted:
            return answer


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


# ---------------------------------------------------------------- each action


def test_refresh_lists_characters_and_presets(running) -> None:
    service, _ = running

    async def main():
        async with connect(service.url) as ws:
            return await ask(ws, {"action": "refresh", "id": "r1"})

    answer = run(main())
    assert answer["ok"] and answer["id"] == "r1" and answer["type"] == "reply"
    assert answer["result"]["characters"] == ["cmu", "mixamo"]
    presets = answer["result"]["handPosePresets"]
    assert [p["name"] for p in presets] == ["가위", "바위", "보", "브이", "검지", "초기화"]


def test_character_data_has_every_parameter_with_range_and_value(running) -> None:
    service, loop = running

    async def main():
        async with connect(service.url) as ws:
            return await ask(ws, {"action": "getCharacterData", "id": 2, "character": "cmu"})

    result = run(main())["result"]
    assert result["character"] == "cmu"
    listed = {p["name"]: p for p in result["parameters"]}
    assert set(listed) == set(PARAMETERS)
    values = loop.characters()["cmu"].settings.values
    for name, entry in listed.items():
        assert entry["type"] == PARAMETERS[name].kind.__name__
        assert entry["value"] == values[name]
        if entry["type"] == "float":
            assert entry["min"] <= entry["value"] <= entry["max"]


def test_update_applies_in_the_loop_and_reaches_the_other_client(running) -> None:
    service, loop = running
    value = float(np.random.default_rng().uniform(0.5, 2.0))

    async def main():
        async with connect(service.url) as a, connect(service.url) as b:
            answer = await ask(a, {"action": "updateValueRealtime", "id": 3,
                                   "character": "mixamo", "parameter": "head_scale",
                                   "value": value})
            while True:  # b was told without asking
                message = json.loads(await asyncio.wait_for(b.recv(), TIMEOUT))
                if message["type"] == "broadcast" and "head_scale" in message["values"]:
                    break
            data = await ask(b, {"action": "getCharacterData", "id": 4,
                                 "character": "mixamo"})
            return answer, message, data

    answer, message, data = run(main())
    assert answer["ok"] and answer["result"] == {"character": "mixamo",
                                                 "parameter": "head_scale", "value": value}
    assert message["character"] == "mixamo"
    assert message["values"]["head_scale"] == value
    assert message["action"] == "updateValueRealtime"
    assert data["result"]["values"]["head_scale"] == value
    assert loop.characters()["mixamo"].settings["head_scale"] == value


def test_seed_style_field_and_parameter_names(running) -> None:
    service, loop = running

    async def main():
        async with connect(service.url) as ws:
            return await ask(ws, {"action": "updateValueRealtime", "id": 5,
                                  "characterName": "cmu", "property": "headRotationOffsetY",
                                  "value": 12.5})

    answer = run(main())
    assert answer["ok"] and answer["result"]["parameter"] == "head_rotation_offset_y_deg"
    assert loop.characters()["cmu"].settings["head_rotation_offset_y_deg"] == 12.5
    run(_set("cmu", "head_rotation_offset_y_deg", 0.0, service))


async def _set(character: str, name: str, value: Any, service: ControlService) -> None:
    async with connect(service.url) as ws:
        answer = await ask(ws, {"action": "updateValueRealtime", "id": 0,
                                "character": character, "parameter": name, "value": value})
        assert answer["ok"], answer


@pytest.mark.parametrize("name, english", [("가위", "scissors"), ("바위", "rock"), ("보", "paper"),
                                           ("브이", "v"), ("검지", "index"), ("Rock", "rock"),
                                           ("paper", "paper"), ("초기화", "reset")])
def test_hand_pose_presets(running, name, english) -> None:
    service, loop = running

    async def main():
        async with connect(service.url) as ws:
            return await ask(ws, {"action": "setHandPosePreset", "id": 6, "preset": name,
                                  "character": "mixamo"})

    answer = run(main())
    assert answer["ok"] and answer["result"]["characters"] == {"mixamo": english}
    values = loop.characters()["mixamo"].settings.values
    curl, spread = preset(english)
    assert values["left_middle_curl"] == curl[0, 2] and values["right_index_spread"] == spread[1, 1]
    assert values["fingers_enabled"] is (english != "reset")


def test_calibrate_i_pose_then_reset(running) -> None:
    service, loop = running
    cmu = loop.characters()["cmu"]
    rest_offsets = cmu.offsets.copy()

    async def main(action):
        async with connect(service.url) as ws:
            return await ask(ws, {"action": action, "id": 7, "character": "cmu"})

    answer = run(main("calibrateIPose"))
    assert answer["ok"] and answer["result"]["characters"] == {"cmu": "calibrated"}
    assert not np.allclose(cmu.offsets, rest_offsets, atol=1e-3)  # a walking frame, not rest
    assert run(main("resetCalibration"))["ok"]
    np.testing.assert_allclose(cmu.offsets, rest_offsets, atol=1e-12)


def test_calibrate_head_forward_sets_the_head_offset(running) -> None:
    service, loop = running

    async def main():
        async with connect(service.url) as ws:
            return await ask(ws, {"action": "calibrateHeadForward", "id": 8,
                                  "character": "mixamo"})

    answer = run(main())
    offset = answer["result"]["characters"]["mixamo"]["head_rotation_offset_deg"]
    values = loop.characters()["mixamo"].settings.values
    assert offset == [values[f"head_rotation_offset_{a}_deg"] for a in "xyz"]
    assert any(abs(v) > 0.1 for v in offset)  # the walking performer is not straight ahead


def test_auto_calibrate_all_scale_floor_then_head_a_frame_later(running) -> None:
    service, loop = running
    mixamo = loop.characters()["mixamo"]
    run(_set("mixamo", "floor_comfort_ratio", 0.95, service))
    reads = len(loop.pose_reads)

    async def main():
        async with connect(service.url) as ws:
            seen: list[dict] = []
            answer = await ask(ws, {"action": "autoCalibrateAll", "id": 9,
                                    "character": "mixamo"}, seen)
            return answer, seen

    answer, seen = run(main())
    result = answer["result"]["characters"]["mixamo"]
    assert 0.1 <= result["avatar_scale"] <= 3.0 and result["avatar_scale"] != 1.0
    leg = left_leg_length(mixamo.target, mixamo.target_map, mixamo.calibration_pose)
    assert result["floor_height"] == pytest.approx(-0.05 * leg * result["avatar_scale"])
    assert result["head_rotation_offset_deg"] == [
        mixamo.settings[f"head_rotation_offset_{a}_deg"] for a in "xyz"]
    frames = sorted(set(loop.pose_reads[reads:]))
    assert len(frames) == 2 and frames[1] == frames[0] + 1  # scale, then head next frame
    assert any("avatar_scale" in b["values"] for b in seen)
    run(_set("mixamo", "floor_comfort_ratio", 1.0, service))


def test_settings_saved_debounced(tmp_path) -> None:
    clip, characters = build_characters(("cmu",))
    service = ControlService(port=0, save_delay=0.4).start()
    with ClipLoop(clip, characters, service, settings_folder=tmp_path) as loop:
        async def main():
            async with connect(service.url) as ws:
                for i in range(5):
                    answer = await ask(ws, {"action": "updateValueRealtime", "id": i,
                                            "character": "cmu", "parameter": "head_scale",
                                            "value": 1.0 + i / 10})
                    assert answer["ok"]
                early = list(loop.saved)
                await asyncio.sleep(1.0)
                return early

        early = run(main())
    service.stop()
    assert early == []  # changes within the delay are not saved yet
    assert loop.saved == ["cmu"]  # once, after the last change
    assert load_settings("cmu", tmp_path)["head_scale"] == pytest.approx(1.4)


# ---------------------------------------------------------------- bad input


BAD = [
    ("{not json", None),
    ("[]", None),
    (json.dumps({"id": 1}), "action"),
    (json.dumps({"action": "fly", "id": 1}), "action"),
    (json.dumps({"action": "getCharacterData", "id": 1, "character": "nobody"}), "character"),
    (json.dumps({"action": "getCharacterData", "id": 1}), "character"),
    (json.dumps({"action": "updateValueRealtime", "id": 1, "character": "cmu",
                 "parameter": "_private", "value": 1}), "parameter"),
    (json.dumps({"action": "updateValueRealtime", "id": 1, "character": "cmu",
                 "parameter": "avatar_scale", "value": "large"}), "value"),
    (json.dumps({"action": "updateValueRealtime", "id": 1, "character": "cmu",
                 "parameter": "avatar_scale", "value": 30}), "value"),
    (json.dumps({"action": "updateValueRealtime", "id": 1, "character": "cmu",
                 "parameter": "fingers_enabled", "value": "yes"}), "value"),
    (json.dumps({"action": "updateValueRealtime", "id": 1, "character": "ghost",
                 "parameter": "avatar_scale", "value": 1}), "character"),
    (json.dumps({"action": "setHandPosePreset", "id": 1, "preset": "fist"}), "preset"),
    (json.dumps({"action": "calibrateIPose", "id": 1, "character": "ghost"}), "character"),
    (json.dumps({"action": "refresh", "id": 1, "pad": "x" * 70_000}), None),
]


def test_every_bad_input_gets_an_error_and_the_connection_stays(running) -> None:
    service, loop = running
    before = loop.characters()["cmu"].settings.values.copy()
    frames = loop.frame

    async def main():
        async with connect(service.url) as ws:
            answers = [await ask(ws, text) for text, _ in BAD]
            still = await ask(ws, {"action": "refresh", "id": "after"})
            return answers, still

    answers, still = run(main())
    for (text, field), answer in zip(BAD, answers, strict=True):
        assert answer["type"] == "error" and answer["ok"] is False, text[:80]
        assert answer["error"]["field"] == field, (text[:80], answer)
        assert answer["error"]["message"]
        if '"id": 1' in text[:40]:
            assert answer["id"] == 1
    assert still["ok"] and still["id"] == "after"
    assert loop.characters()["cmu"].settings.values == before  # nothing half-applied
    assert loop.frame > frames and not loop.errors  # the loop kept running


def test_no_source_frame_yet_is_an_error_reply() -> None:
    clip, characters = build_characters(("cmu",))

    class Waiting(ClipLoop):
        def source_pose(self):
            return None

    with ControlService(port=0) as service, Waiting(clip, characters, service):
        async def main():
            async with connect(service.url) as ws:
                return await ask(ws, {"action": "calibrateHeadForward", "id": 1})

        answer = run(main())
    assert answer["error"]["field"] == "source" and "no source frame" in answer["error"]["message"]


def test_other_paths_and_foreign_origins_are_refused(running) -> None:
    service, _ = running

    async def status(url: str, **options) -> int:
        try:
            async with connect(url, **options) as ws:
                await ask(ws, {"action": "refresh", "id": 1})
                return 101
        except InvalidStatus as exc:
            return exc.response.status_code

    base = service.url.removesuffix("/retargeting")
    assert run(status(base + "/other")) == 404
    assert run(status(base + "/")) == 404  # the panel is HTTP, not a WebSocket
    assert run(status(service.url, origin="http://evil.example")) == 403
    assert run(status(service.url, origin="null")) == 403
    assert run(status(service.url, origin=f"http://127.0.0.1:{service.port}")) == 101
    assert run(status(service.url, origin=f"http://localhost:{service.port}")) == 101
    assert run(status(service.url)) == 101  # tools without an Origin (StreamDeck scripts)


def test_an_allowed_origin_gets_in() -> None:
    with ControlService(port=0, allowed_origins=["http://192.168.1.5:64212/"]) as service:
        async def main():
            async with connect(service.url, origin="http://192.168.1.5:64212") as ws:
                return await ask(ws, {"action": "refresh", "id": 1})

        # No loop: the request waits in the queue, so run the pending actions by hand.
        async def with_loop():
            task = asyncio.create_task(main())
            clip, characters = build_characters(("cmu",))
            target = ClipLoop(clip, characters, None)
            while not task.done():
                service.process_pending(target)
                await asyncio.sleep(0.01)
            return await task

        assert run(with_loop())["ok"]


def test_client_limit() -> None:
    with ControlService(port=0, max_clients=2) as service:
        async def main():
            async with connect(service.url), connect(service.url):
                with pytest.raises(InvalidStatus) as refused:
                    async with connect(service.url):
                        pass
                assert refused.value.response.status_code == 503
            for _ in range(100):  # the two closed: room again
                if service.client_count == 0:
                    break
                await asyncio.sleep(0.02)
            async with connect(service.url) as ws:
                await ask(ws, "{")  # answered: the service has registered this client
                return service.client_count

        assert run(main()) == 1


def test_rate_limit_answers_then_closes_a_flood() -> None:
    with ControlService(port=0, rate=5.0, burst=5.0) as service:
        async def main():
            async with connect(service.url) as ws, connect(service.url) as calm:
                for i in range(8):  # 5 queued (no loop runs them), 3 over the limit
                    await ws.send(json.dumps({"action": "refresh", "id": i}))
                limited = [json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
                           for _ in range(3)]
                for i in range(8, 40):
                    await ws.send(json.dumps({"action": "refresh", "id": i}))
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await asyncio.wait_for(ws.recv(), TIMEOUT)
                await calm.send("{")  # the other client is still served
                other = json.loads(await asyncio.wait_for(calm.recv(), TIMEOUT))
                return limited, closed.value, other

        limited, closed, other = run(main())
    assert [m["id"] for m in limited] == [5, 6, 7]
    assert all("rate limit" in m["error"]["message"] for m in limited)
    assert closed.rcvd.code == 1008
    assert other["type"] == "error" and other["error"]["field"] is None


def test_a_client_that_stops_reading_is_closed_and_the_loop_goes_on() -> None:
    REQUESTS = 600
    clip, characters = build_characters(("cmu",))
    service = ControlService(port=0, outbox=4, rate=5000, burst=5000, max_queued=5000).start()
    with ClipLoop(clip, characters, service) as loop:
        async def main():
            # max_queue=1 and a small socket buffer: this client reads nothing after connecting.
            async with connect(service.url, max_queue=1, close_timeout=0.5) as slow:
                request = json.dumps({"action": "getCharacterData", "id": 1,
                                      "character": "cmu"})
                for _ in range(REQUESTS):  # ~12 KB replies: more than any socket buffer holds
                    await slow.send(request)
                for _ in range(500):
                    if service.counts["slow_closed"]:
                        break
                    await asyncio.sleep(0.02)

        run(main())
        frames = loop.frame
        deadline = time.monotonic() + 30
        while (service.counts["actions"] + service.counts["skipped"]
               < service.counts["received"] and time.monotonic() < deadline):
            time.sleep(0.05)
        time.sleep(0.1)
        assert loop.frame > frames  # the loop still runs
    service.stop()
    counts = service.counts
    assert counts["slow_closed"] >= 1, counts
    # Run at 64 a frame until the client was closed, the rest skipped (and after the close
    # the service read no more of its messages).
    assert counts["actions"] + counts["skipped"] == counts["received"] <= REQUESTS, counts
    assert loop.frame > counts["actions"] / 64, (loop.frame, counts)


def test_save_schedule_debounces_but_a_held_slider_still_saves() -> None:
    from footfall.remote.actions import SaveSchedule

    class Target:
        saved: list[tuple[str, float]] = []

        def save_settings(self, name: str) -> None:
            self.saved.append((name, now))

    target, schedule = Target(), SaveSchedule(delay=0.5, longest=2.0)
    for step in range(60):  # a change every 0.1 s for 6 s
        now = step * 0.1
        schedule.touch({"a"}, now)
        schedule.save_due(target, now)
    times = [t for _, t in target.saved]
    # Saved every ~2 s although no 0.5 s pause came: at 2.0 s, then 2 s after the next change.
    assert times == pytest.approx([2.0, 4.1])
    now = 10.0
    assert schedule.save_due(target, now) == ["a"] and schedule.waiting == []
    schedule.touch({"b"}, 11.0)
    assert schedule.save_due(target, 11.4) == [] and schedule.save_due(target, 11.5) == ["b"]
