"""Retargeting settings: an explicit typed registry of parameters, saved as JSON per avatar.

Every tunable value lives in :data:`PARAMETERS` with its type, range and meaning, so a remote
control can list, read and change them by name without reflection on private fields. One file
per avatar, ``<config>/footfall/retargeting/<avatar>_settings.json`` (platformdirs), written
atomically; a corrupt file is moved aside, reported, and the avatar starts from the defaults.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import json
import math
import os
import re
import tempfile
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from footfall.errors import SettingsError
from footfall.json_input import parse_json
from footfall.retarget.fingers import FINGERS, HANDS, PRESET_ALIASES, PRESETS

SETTINGS_VERSION = 1
HEAD_OFFSET_KEYS = tuple(f"head_rotation_offset_{axis}_deg" for axis in "xyz")


class SettingsWarning(UserWarning):
    """A settings file could not be used and was replaced by defaults (the message says why)."""


@dataclass(frozen=True)
class Parameter:
    """One named, typed, range-checked setting.

    Attributes:
        name: registry key (snake_case; degrees end in ``_deg``, metres are documented).
        kind: ``float``, ``bool`` or ``str``.
        default: value used when nothing is stored.
        minimum, maximum: inclusive range for floats.
        choices: allowed values for strings.
        doc: one line saying what it does and its unit.
    """

    name: str
    kind: type
    default: Any
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()

    def validate(self, value: Any) -> Any:
        """``value`` checked and converted to this parameter's type; raises SettingsError."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise SettingsError(
                    f"setting {self.name!r} must be true or false, got {value!r}"
                )
            return value
        if self.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SettingsError(f"setting {self.name!r} must be a number, got {value!r}")
            number = float(value)
            if not math.isfinite(number):
                raise SettingsError(f"setting {self.name!r} must be finite, got {value!r}")
            if (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum
            ):
                raise SettingsError(
                    f"setting {self.name!r} = {number} is outside "
                    f"[{self.minimum}, {self.maximum}]"
                )
            return number
        if self.kind is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise SettingsError(
                    f"setting {self.name!r} must be one of {list(self.choices)}, got {value!r}"
                )
            return value
        raise SettingsError(f"setting {self.name!r} has unsupported type {self.kind}")

    def describe(self) -> dict[str, Any]:
        """JSON-ready description (for a remote control's parameter listing)."""
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.kind.__name__,
            "default": self.default,
            "doc": self.doc,
        }
        extra = {"min": self.minimum, "max": self.maximum, "choices": list(self.choices) or None}
        return out | {key: value for key, value in extra.items() if value is not None}


_p = Parameter  # a short name for the tables below


_BASE = [
    _p("foot_front_back_offset", float, 0.0, "foot IK target along the foot's forward, m",
       -0.5, 0.5),
    _p("foot_in_out_offset", float, 0.0, "foot IK target outwards (+) / inwards (−), m",
       -0.5, 0.5),
    _p("floor_height", float, 0.0, "world Y added to the hips and foot IK targets, m", -2.0, 2.0),
    _p("floor_comfort_ratio", float, 1.0,
       "share of the left leg a standing leg spans; autoCalibrateAll sets floor_height to "
       "(ratio − 1) × leg length × avatar_scale (1: floor at 0)", 0.5, 1.0),
    *(_p(key, float, 0.0, f"head local rotation offset about {key[-5].upper()}, °",
         -180.0, 180.0) for key in HEAD_OFFSET_KEYS),
    _p("avatar_scale", float, 1.0, "uniform size of the whole avatar", 0.1, 3.0),
    _p("head_scale", float, 1.0, "size of the head alone", 0.1, 3.0),
    _p("chair_seat_height_offset", float, 0.0, "hips height change when seated on a chair, m",
       -1.0, 1.0),
    _p("ik_mode", str, "auto", "limb IK weights: automatic, always IK, or always FK",
       choices=("auto", "ik", "fk")),
    _p("left_arm_ik", bool, True, "allow IK on the left arm"),
    _p("right_arm_ik", bool, True, "allow IK on the right arm"),
    _p("weight_smooth_speed", float, 10.0, "rate at which IK weights follow their goal, 1/s",
       0.0, 1000.0),
    _p("hands_distance_near", float, 0.15, "hands closer than this: arm IK fully on, m",
       0.0, 5.0),
    _p("hands_distance_far", float, 0.35, "hands farther than this: hands-apart layer off, m",
       0.0, 5.0),
    _p("prop_distance_near", float, 0.1, "hand this close to a prop: arm IK fully on, m",
       0.0, 5.0),
    _p("prop_distance_far", float, 0.3, "hand this far from every prop: prop layer off, m",
       0.0, 5.0),
    _p("foot_height_low", float, 0.3, "foot (ankle) lift below this: leg IK fully on, m",
       0.0, 5.0),
    _p("foot_height_high", float, 0.6, "foot (ankle) lift above this: leg IK off, m", 0.0, 5.0),
    _p("chair_distance_near", float, 0.3, "hips this close to a chair: seated, m", 0.0, 5.0),
    _p("chair_distance_far", float, 0.8, "hips this far from every chair: standing, m",
       0.0, 5.0),
    _p("sit_hips_ratio_low", float, 0.6, "hips height / standing height below this: seated",
       0.0, 2.0),
    _p("sit_hips_ratio_high", float, 0.85, "hips height / standing height above: standing",
       0.0, 2.0),
    _p("finger_copy", str, "rotation",
       "how the source's fingers reach the avatar: rotation (bone by bone through the "
       "calibration), curl (measured as curl and spread per finger and rebuilt on the avatar's "
       "own finger axes: for hands built differently), none (the calibration pose)",
       choices=("rotation", "curl", "none")),
    _p("fingers_enabled", bool, False,
       "drive fingers from the curl/spread values below (over any finger_copy)"),
    _p("left_hand_enabled", bool, True, "finger values apply to the left hand"),
    _p("right_hand_enabled", bool, True, "finger values apply to the right hand"),
    _p("filter_enabled", bool, False, "One Euro filter on raw source positions (live)"),
    _p("filter_min_cutoff", float, 1.0, "One Euro minimum cutoff, Hz", 1e-3, 100.0),
    _p("filter_beta", float, 0.0, "One Euro speed coefficient", 0.0, 100.0),
    _p("plant_feet", bool, True, "a planted source foot stands on the floor: its stance level "
       "follows the foot's lowest point while it is planted (offline and live)"),
]
_FINGER_PARAMS = [
    _p(f"{hand}_{finger}_{what}", float, 0.0,
       f"{hand} {finger} {'curl of all three joints' if what == 'curl' else 'spread'}, −1…1",
       -1.0, 1.0)
    for hand in HANDS
    for finger in FINGERS
    for what in ("curl", "spread")
]

PARAMETERS: dict[str, Parameter] = {p.name: p for p in _BASE + _FINGER_PARAMS}


@dataclass
class RetargetSettings:
    """Values of every parameter of :data:`PARAMETERS`, plus cached calibration data.

    Attributes:
        values: ``{name: value}`` for every registered parameter.
        calibration: JSON-ready calibration cache (the two calibration poses).
    """

    values: dict[str, Any] = field(
        default_factory=lambda: {name: p.default for name, p in PARAMETERS.items()}
    )
    calibration: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.values[_known(name).name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.values[name] = _known(name).validate(value)

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def update(self, changes: Mapping[str, Any]) -> None:
        """Set several values; all are validated before any is applied."""
        checked = {name: _known(name).validate(value) for name, value in changes.items()}
        self.values.update(checked)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "version": SETTINGS_VERSION,
            "values": dict(self.values),
            "calibration": self.calibration,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "settings") -> RetargetSettings:
        """Settings from :meth:`to_dict` output; unknown or invalid fields raise SettingsError."""
        if not isinstance(data, dict) or not isinstance(data.get("values"), dict):
            raise SettingsError(f"{where}: expected an object with a 'values' object")
        if data.get("version") != SETTINGS_VERSION:
            raise SettingsError(
                f"{where}: version {data.get('version')!r}, expected {SETTINGS_VERSION}"
            )
        settings = cls()
        try:
            settings.update(data["values"])
        except SettingsError as exc:
            raise SettingsError(f"{where}: {exc}") from None
        calibration = data.get("calibration", {})
        if not isinstance(calibration, dict):
            raise SettingsError(f"{where}: 'calibration' must be an object")
        settings.calibration = calibration
        return settings


@dataclass(frozen=True)
class Action:
    """One remote-control action (seed 001's WebSocket actions), mapped to a retargeter method.

    Attributes:
        name: the action's wire name.
        method: the public ``Retargeter`` method it calls.
        doc: one line saying what it does.
        needs_frame: the method takes the current source frame (rotations, translations) first.
        arguments: the typed arguments after the frame, in call order.
    """

    name: str
    method: str
    doc: str
    needs_frame: bool = False
    arguments: tuple[Parameter, ...] = ()

    def describe(self) -> dict[str, Any]:
        """JSON-ready description."""
        return {"name": self.name, "doc": self.doc, "needs_frame": self.needs_frame,
                "arguments": [a.describe() for a in self.arguments]}


PRESET_NAMES = tuple(PRESETS) + tuple(PRESET_ALIASES)
ACTIONS: dict[str, Action] = {a.name: a for a in (
    Action("setHandPosePreset", "set_hand_pose", "finger preset on both hands",
           arguments=(Parameter("preset", str, "reset", "preset name", choices=PRESET_NAMES),)),
    Action("calibrateIPose", "calibrate_i_pose",
           "calibrate with the performer's current pose as the I-pose", needs_frame=True),
    Action("resetCalibration", "reset_calibration", "forget the calibration (rest poses)"),
    Action("calibrateHeadForward", "calibrate_head_forward",
           "head offset so the head looks straight ahead in the current frame", needs_frame=True),
    Action("autoCalibrateAll", "auto_calibrate",
           "avatar scale from the neck height ratio, then head forward", needs_frame=True),
)}


def run_action(retargeter: Any, name: str, arguments: Mapping[str, Any] | None = None,
               frame: tuple[Any, Any] | None = None) -> Any:
    """Run action ``name`` on ``retargeter`` with checked ``arguments``; returns its result.

    ``frame`` is the current source ``(rotations, translations)`` for actions that need it.
    Raises :class:`SettingsError` for an unknown action, invalid arguments or a missing frame.
    """
    action = ACTIONS.get(name)
    if action is None:
        raise SettingsError(f"unknown action {name!r}; choose one of {sorted(ACTIONS)}")
    given = dict(arguments or {})
    unknown = sorted(set(given) - {a.name for a in action.arguments})
    if unknown:
        raise SettingsError(f"action {name!r} takes no argument(s) {unknown}")
    values = [a.validate(given.get(a.name, a.default)) for a in action.arguments]
    if not action.needs_frame:
        return getattr(retargeter, action.method)(*values)
    if frame is None:
        raise SettingsError(f"action {name!r} needs the current source frame")
    return getattr(retargeter, action.method)(*frame, *values)


def _known(name: str) -> Parameter:
    try:
        return PARAMETERS[name]
    except KeyError:
        raise SettingsError(f"unknown setting {name!r}") from None


def settings_dir() -> Path:
    """The user's folder for retargeting settings (platformdirs config folder)."""
    return platformdirs.user_config_path("footfall", appauthor=False) / "retargeting"


def settings_path(avatar: str, folder: Path | str | None = None) -> Path:
    """Path of ``avatar``'s settings file; the name is reduced to safe characters."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", avatar).strip("._") or "avatar"
    return Path(folder if folder is not None else settings_dir()) / f"{safe}_settings.json"


#: Temporary files of a save older than this (seconds) were left by a killed process.
STALE_TEMPORARY_SECONDS = 60.0


def remove_stale_temporaries(avatar: str, folder: Path | str | None = None) -> list[Path]:
    """Delete the temporary files a killed save of ``avatar``'s settings left (those older than
    :data:`STALE_TEMPORARY_SECONDS`: a save running now is left alone); returns them."""
    path = settings_path(avatar, folder)
    removed = []
    now = time.time()
    with contextlib.suppress(OSError):  # an unreadable folder: the load or save reports it
        for temporary in path.parent.glob(f"{glob.escape(path.name)}*.tmp"):
            if temporary.is_file() and now - temporary.stat().st_mtime > STALE_TEMPORARY_SECONDS:
                temporary.unlink(missing_ok=True)
                removed.append(temporary)
    return removed


def save_settings(
    settings: RetargetSettings, avatar: str, folder: Path | str | None = None
) -> Path:
    """Write ``avatar``'s settings atomically; returns the path written.

    Raises :class:`SettingsError` naming the file when it cannot be written; the temporary
    file is removed whatever happens.
    """
    path = settings_path(avatar, folder)
    try:
        text = json.dumps(settings.to_dict(), indent=2, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise SettingsError(f"{path}: cannot write: {error}") from None
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(avatar, folder)
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        raise SettingsError(f"{path}: cannot write ({error.strerror or error})") from None
    finally:
        if temporary is not None:  # gone after the rename: a no-op then
            Path(temporary).unlink(missing_ok=True)
    return path


def has_settings(avatar: str, folder: Path | str | None = None) -> bool:
    """Whether a settings file exists for ``avatar``."""
    return settings_path(avatar, folder).is_file()


def load_settings(
    avatar: str, folder: Path | str | None = None, *, on_corrupt: str = "reset"
) -> RetargetSettings:
    """``avatar``'s saved settings, or the defaults when none are saved.

    A corrupt or invalid file raises :class:`SettingsError` when ``on_corrupt="raise"``;
    with ``"reset"`` (default) it is renamed to ``<file>.corrupt`` (never overwritten: a number
    is added if needed), a :class:`SettingsWarning` names the file and the fault, and the
    defaults are returned.
    """
    if on_corrupt not in ("reset", "raise"):
        raise SettingsError(f"on_corrupt must be 'reset' or 'raise', got {on_corrupt!r}")
    path = settings_path(avatar, folder)
    remove_stale_temporaries(avatar, folder)
    if not path.is_file():
        return RetargetSettings()
    try:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise SettingsError(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})"
                                ) from None
        except OSError as exc:
            raise SettingsError(f"{path}: cannot read ({exc.strerror or exc})") from None
        data = parse_json(text, str(path), SettingsError)
        return RetargetSettings.from_dict(data, where=str(path))
    except SettingsError as exc:
        if on_corrupt == "raise":
            raise
        aside = _aside_path(path)
        try:
            os.replace(path, aside)
        except OSError as error:
            note = f"could not move it aside ({error.strerror or error})"
        else:
            note = f"moved it to {aside}"
        warnings.warn(
            f"{exc}; {note} and started from defaults",
            SettingsWarning,
            stacklevel=2,
        )
        return RetargetSettings()


def _aside_path(path: Path) -> Path:
    """``<file>.corrupt``, else ``<file>.corrupt1``, ``.corrupt2``, …: the first that is free."""
    candidates = (path.with_name(f"{path.name}.corrupt{n or ''}") for n in itertools.count())
    return next(c for c in candidates if not c.exists())
