"""Seed 001's eight remote actions run against the animation loop's characters.

Runs on the loop's thread, between frames. Every action goes through the retargeter's own
methods (``run_action`` of :mod:`footfall.retarget.settings`, or ``auto_calibrate``); nothing
here reimplements a calibration. ``autoCalibrateAll`` spans two frames as in seed 001: scale
and floor height now, head forward on the next frame (:attr:`Outcome.then`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from footfall.errors import FootfallError
from footfall.remote.protocol import (
    ACTIONS,
    FieldError,
    Request,
    error_reply,
    preset_names,
    reply,
)
from footfall.remote.target import ControlTarget
from footfall.retarget import Retargeter
from footfall.retarget.fingers import PRESET_ALIASES
from footfall.retarget.settings import HEAD_OFFSET_KEYS, run_action


@dataclass
class Outcome:
    """What one action did.

    Attributes:
        reply: the reply to send, or ``None`` while the action continues next frame.
        changed: ``{character: {parameter: new value}}`` to broadcast.
        saved: characters whose settings (or calibration) changed and should be saved.
        then: the rest of the action, to run on the next frame.
    """

    reply: dict[str, Any] | None
    changed: dict[str, dict[str, Any]] = field(default_factory=dict)
    saved: set[str] = field(default_factory=set)
    then: Callable[[ControlTarget], Outcome] | None = None


def run(request: Request, target: ControlTarget) -> Outcome:
    """Run ``request`` on ``target``'s characters; errors become error replies, never raise."""
    return _guarded(request, lambda: _HANDLERS[request.action](request, target))


def _guarded(request: Request, work: Callable[[], Outcome]) -> Outcome:
    try:
        return work()
    except FieldError as exc:
        return Outcome(error_reply(exc, request.action, request.id))
    except FootfallError as exc:
        return Outcome(error_reply(str(exc), request.action, request.id))
    except Exception as exc:  # noqa: BLE001 - a bad action must never stop the loop
        return Outcome(error_reply(f"internal error: {type(exc).__name__}: {exc}",
                                   request.action, request.id))


def _selected(request: Request, target: ControlTarget) -> dict[str, Retargeter]:
    characters = target.characters()
    if request.character is None:
        return dict(characters)
    if request.character not in characters:
        raise FieldError("character", f"unknown character {request.character!r}; registered: "
                         f"{sorted(characters)}", request.id)
    return {request.character: characters[request.character]}


def source_frame(retargeter: Retargeter, target: ControlTarget, request: Request
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The current source frame as ``(Js, 4)`` local rotations and ``(Js, 3)`` translations
    (the skeleton's offsets with the root moved to the loop's root position)."""
    pose = target.source_pose()
    if pose is None:
        raise FieldError("source", "no source frame yet: start the capture stream first",
                         request.id)
    rotations, root = (np.asarray(part, dtype=np.float64) for part in pose)
    joints = retargeter.source.joint_count
    if rotations.shape != (joints, 4) or root.shape != (3,):
        raise FieldError("source", f"the source frame has shapes {rotations.shape} and "
                         f"{root.shape}, expected ({joints}, 4) and (3,)", request.id)
    positions = np.array(retargeter.source.offsets, dtype=np.float64)
    positions[int(np.flatnonzero(retargeter.source.parents < 0)[0])] = root
    return rotations, positions


def _each(request: Request, characters: Mapping[str, Retargeter],
          work: Callable[[str, Retargeter], Any]) -> Outcome:
    """Run ``work`` on every character given; the reply maps names to results."""
    outcome = Outcome(None)
    results: dict[str, Any] = {}
    for name, retargeter in characters.items():
        before = dict(retargeter.settings.values)
        results[name] = work(name, retargeter)
        changed = {parameter: value for parameter, value in retargeter.settings.values.items()
                   if before.get(parameter) != value}
        if changed:
            outcome.changed[name] = changed
        outcome.saved.add(name)
    outcome.reply = reply(request, {"characters": results})
    return outcome


def _refresh(request: Request, target: ControlTarget) -> Outcome:
    return Outcome(reply(request, {"characters": sorted(target.characters()),
                                   "handPosePresets": preset_names(),
                                   "actions": list(ACTIONS)}))


def _character_data(request: Request, target: ControlTarget) -> Outcome:
    ((name, retargeter),) = _selected(request, target).items()
    data = retargeter.character_data()
    values = data["values"]
    for parameter in data["parameters"]:
        parameter["value"] = values[parameter["name"]]
    return Outcome(reply(request, {"character": name, **data}))


def _update_value(request: Request, target: ControlTarget) -> Outcome:
    ((name, retargeter),) = _selected(request, target).items()
    assert request.parameter is not None
    retargeter.settings[request.parameter] = request.value
    value = retargeter.settings[request.parameter]
    return Outcome(reply(request, {"character": name, "parameter": request.parameter,
                                   "value": value}),
                   changed={name: {request.parameter: value}}, saved={name})


def _hand_pose(request: Request, target: ControlTarget) -> Outcome:
    given = request.preset or ""
    preset = PRESET_ALIASES.get(given, given.lower())  # the English name applied
    return _each(request, _selected(request, target), lambda _name, r: run_action(
        r, "setHandPosePreset", {"preset": preset}) or preset)


def _calibrate_i_pose(request: Request, target: ControlTarget) -> Outcome:
    return _each(request, _selected(request, target), lambda _name, r: run_action(
        r, "calibrateIPose", frame=source_frame(r, target, request)) or "calibrated")


def _reset_calibration(request: Request, target: ControlTarget) -> Outcome:
    return _each(request, _selected(request, target),
                 lambda _name, r: run_action(r, "resetCalibration") or "reset")


def _head_forward(request: Request, target: ControlTarget) -> Outcome:
    def work(_name: str, r: Retargeter) -> dict[str, Any]:
        offset = run_action(r, "calibrateHeadForward", frame=source_frame(r, target, request))
        return {"head_rotation_offset_deg": [float(v) for v in offset]}

    return _each(request, _selected(request, target), work)


def _auto_calibrate(request: Request, target: ControlTarget) -> Outcome:
    """Frame 1: scale (neck height ratio) and floor height; frame 2: head forward."""
    first = _each(request, _selected(request, target), lambda _name, r: r.auto_calibrate(
        *source_frame(r, target, request), head_forward=False))
    names = sorted(first.reply["result"]["characters"]) if first.reply else []
    if first.reply is None or not first.reply["ok"]:
        return first
    first.reply = None

    def head(later: ControlTarget) -> Outcome:
        def work(name: str, r: Retargeter) -> Any:
            if "Head" in r.target_map:
                r.calibrate_head_forward(*source_frame(r, later, request))
            values = r.settings.values
            return {"avatar_scale": values["avatar_scale"],
                    "floor_height": values["floor_height"],
                    "head_rotation_offset_deg": [values[k] for k in HEAD_OFFSET_KEYS]}

        characters = later.characters()
        gone = [name for name in names if name not in characters]
        if gone:
            raise FieldError("character", f"character(s) {gone} left before the head "
                             "calibration", request.id)
        return _each(request, {name: characters[name] for name in names}, work)

    first.then = lambda later: _guarded(request, lambda: head(later))
    return first


_HANDLERS: dict[str, Callable[[Request, ControlTarget], Outcome]] = {
    "refresh": _refresh,
    "getCharacterData": _character_data,
    "updateValueRealtime": _update_value,
    "setHandPosePreset": _hand_pose,
    "calibrateIPose": _calibrate_i_pose,
    "resetCalibration": _reset_calibration,
    "calibrateHeadForward": _head_forward,
    "autoCalibrateAll": _auto_calibrate,
}


class SaveSchedule:
    """Debounced saving: a character is saved ``delay`` seconds after its last change, and
    at most ``longest`` seconds after its first unsaved one (a slider held moving still saves).
    """

    def __init__(self, delay: float = 0.5, longest: float = 2.0) -> None:
        self.delay = delay
        self.longest = max(longest, delay)
        self._due: dict[str, float] = {}
        self._first: dict[str, float] = {}
        self.errors: list[str] = []

    def touch(self, names: set[str], now: float) -> None:
        """Characters ``names`` changed at ``now`` (seconds, monotonic)."""
        for name in names:
            first = self._first.setdefault(name, now)
            self._due[name] = min(now + self.delay, first + self.longest)

    def save_due(self, target: ControlTarget, now: float, *, everything: bool = False) -> list[str]:
        """Save the characters whose delay has passed (all with ``everything``); returns them.
        A failed save is kept in :attr:`errors` (latest 20) and never raises."""
        ready = [name for name, due in self._due.items() if everything or due <= now]
        for name in ready:
            del self._due[name]
            del self._first[name]
            try:
                target.save_settings(name)
            except Exception as exc:  # noqa: BLE001 - a full disk must not stop the loop
                self.errors = [*self.errors[-19:], f"{name}: {exc}"]
        return ready

    @property
    def waiting(self) -> list[str]:
        """Characters changed but not saved yet."""
        return sorted(self._due)
