"""The remote control's wire format: JSON requests checked field by field, replies built here.

A request is one JSON object ``{"action": ..., "id": ..., ...fields}`` (seed 001's
``RetargetingRemoteController`` actions). :func:`parse_request` turns a text frame into a
:class:`Request` or raises :class:`ProtocolError` naming the field at fault; the parameter
registry of :mod:`footfall.retarget.settings` checks names, types and ranges (no reflection).
Replies always carry the request's ``id``; broadcasts have ``"type": "broadcast"``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from footfall.errors import ProtocolError, SettingsError
from footfall.retarget.fingers import PRESET_ALIASES, PRESETS
from footfall.retarget.settings import ACTIONS as RETARGET_ACTIONS
from footfall.retarget.settings import PARAMETERS

MAX_MESSAGE_BYTES = 64 * 1024
#: Every action a request may name: the service's own three, then the retargeter's registry.
ACTIONS = ("refresh", "getCharacterData", "updateValueRealtime", *RETARGET_ACTIONS)
# Field names other tools may use for the same thing (the first is footfall's own).
_ALIASES = {
    "character": ("character", "characterName", "characterId"),
    "parameter": ("parameter", "property", "propertyName", "name"),
    "preset": ("preset", "presetName", "handPose"),
}
_NEEDS_CHARACTER = {"getCharacterData", "updateValueRealtime"}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_ID = re.compile(r'"id"\s*:\s*(-?\d+(?:\.\d+)?|"[^"\\]{0,128}")')


class FieldError(ProtocolError):
    """A request field is missing or invalid; ``field`` names it (``None``: the whole message)."""

    def __init__(self, field: str | None, message: str, request_id: Any = None,
                 action: str | None = None) -> None:
        super().__init__(message if field is None else f"{field}: {message}")
        self.field = field
        self.message = message
        self.request_id = request_id
        self.action = action


@dataclass(frozen=True)
class Request:
    """One checked request.

    Attributes:
        action: one of :data:`ACTIONS`.
        id: the client's id, echoed in the reply (any JSON scalar, or ``None``).
        character: the character named, or ``None`` (every character, where allowed).
        parameter, value: for ``updateValueRealtime``, the registry name and checked value.
        preset: for ``setHandPosePreset``, the preset name as given.
    """

    action: str
    id: Any = None
    character: str | None = None
    parameter: str | None = None
    value: Any = None
    preset: str | None = None


def parameter_name(name: str) -> str:
    """Registry name for ``name``: the registry's own snake_case, or seed-style camelCase
    (``avatarScale``, ``headRotationOffsetX``: ``_deg`` added where the registry has it)."""
    snake = _CAMEL.sub("_", name).lower()
    for candidate in (name, snake, snake + "_deg"):
        if candidate in PARAMETERS:
            return candidate
    raise SettingsError(f"unknown parameter {name!r}")


def preset_names() -> list[dict[str, str]]:
    """Seed 001's hand-pose presets in its order as ``{"name": Korean seed name, "english":
    footfall name}``."""
    return [{"name": korean, "english": english} for korean, english in PRESET_ALIASES.items()]


def parse_request(text: str | bytes) -> Request:
    """A :class:`Request` from one WebSocket message; raises :class:`FieldError`."""
    size = len(text.encode("utf-8") if isinstance(text, str) else text)
    if size > MAX_MESSAGE_BYTES:
        raise FieldError(None, f"message is {size} bytes, the limit is {MAX_MESSAGE_BYTES}",
                         _peek_id(text))
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise FieldError(None, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise FieldError(None, f"expected a JSON object, got {type(data).__name__}")
    request_id = data.get("id")
    action = data.get("action")
    if isinstance(request_id, (dict, list)):
        raise FieldError("id", "must be a string, number or null", None,
                         action if action in ACTIONS else None)
    if not isinstance(action, str):
        raise FieldError("action", f"must be a string, one of {list(ACTIONS)}", request_id)
    if action not in ACTIONS:
        raise FieldError("action", f"unknown action {action!r}; choose one of {list(ACTIONS)}",
                         request_id, action[:64])
    try:
        return _fields(data, action, request_id)
    except FieldError as exc:
        exc.action = action
        raise


def _fields(data: dict[str, Any], action: str, request_id: Any) -> Request:
    """The fields of a request whose action is known."""
    character = _optional_text(data, "character", request_id)
    if action in _NEEDS_CHARACTER and character is None:
        raise FieldError("character", f"{action} needs a character name", request_id)
    parameter = value = preset = None
    if action == "updateValueRealtime":
        raw = _optional_text(data, "parameter", request_id)
        if raw is None:
            raise FieldError("parameter", "updateValueRealtime needs a parameter name",
                             request_id)
        try:
            parameter = parameter_name(raw)
        except SettingsError:
            raise FieldError("parameter", f"unknown parameter {raw!r}", request_id) from None
        if "value" not in data:
            raise FieldError("value", "updateValueRealtime needs a value", request_id)
        try:
            value = PARAMETERS[parameter].validate(data["value"])
        except SettingsError as exc:
            raise FieldError("value", str(exc), request_id) from None
    if action == "setHandPosePreset":
        preset = _optional_text(data, "preset", request_id)
        known = {name.lower() for name in PRESETS} | set(PRESET_ALIASES)
        if preset is None or preset.lower() not in known:
            raise FieldError(
                "preset", f"unknown hand pose preset {preset!r}; choose one of "
                f"{list(PRESET_ALIASES)} or {list(PRESETS)}", request_id)
    return Request(action, request_id, character, parameter, value, preset)


def _peek_id(text: str | bytes) -> Any:
    """The ``id`` of a message too big to parse, read from its first bytes (or ``None``)."""
    head = text[:4096] if isinstance(text, str) else text[:4096].decode("utf-8", "replace")
    found = _ID.search(head)
    if found is None:
        return None
    try:
        return json.loads(found.group(1))
    except json.JSONDecodeError:
        return None


def _optional_text(data: dict[str, Any], name: str, request_id: Any) -> str | None:
    for key in _ALIASES[name]:
        if key in data:
            value = data[key]
            if value is None:
                return None
            if not isinstance(value, str) or not value:
                raise FieldError(key, "must be a non-empty string", request_id)
            return value
    return None


def reply(request: Request, result: Any) -> dict[str, Any]:
    """The success reply to ``request``."""
    return {"type": "reply", "action": request.action, "id": request.id, "ok": True,
            "result": result}


def error_reply(error: FieldError | str, action: str | None = None,
                request_id: Any = None) -> dict[str, Any]:
    """The error reply: ``{"type": "error", "ok": false, "error": {"field", "message"}}``."""
    if isinstance(error, FieldError):
        field_name, message = error.field, error.message
        request_id = error.request_id if request_id is None else request_id
        action = error.action if action is None else action
    else:
        field_name, message = None, error
    return {"type": "error", "action": action, "id": request_id, "ok": False,
            "error": {"field": field_name, "message": message}}


def broadcast(character: str, values: dict[str, Any], cause: str) -> dict[str, Any]:
    """The message every client gets when ``character``'s values change (``cause``: the action)."""
    return {"type": "broadcast", "action": cause, "character": character, "values": values}


def encode(message: dict[str, Any]) -> str:
    """JSON text of a message (NumPy scalars and arrays become plain numbers and lists)."""
    return json.dumps(message, ensure_ascii=False, default=_plain, allow_nan=False)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
