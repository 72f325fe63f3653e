"""The live animation loop: newest source frame → every avatar's Retargeter → VMC, view, record.

Runs on the caller's thread. Each turn takes the newest source frame, runs the callbacks queued
with :meth:`LiveLoop.add_between_frames` (control actions), then steps every avatar. A new
source skeleton rebuilds the retargeters; a stopped stream holds the last pose ("waiting").
"""

from __future__ import annotations

import queue
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from footfall.arrays import FloatArray
from footfall.errors import FootfallError
from footfall.live.sources import LiveFrame, Source
from footfall.live.vmc import VmcPose, VmcSender
from footfall.retarget import Retargeter
from footfall.retarget.settings import has_settings
from footfall.skeleton import Clip, Skeleton

WAITING_SECONDS = 0.5
MAX_DT = 0.05


@dataclass
class AvatarSpec:
    """One ``--to`` target: its file, skeleton, glTF rest pose (or None) and loaded avatar;
    a VRM avatar's bone map (canonical → joint, every other bone None: nothing guessed) and
    normalized humanoid (what VMC sends)."""

    path: Path
    skeleton: Skeleton
    rest: FloatArray | None = None
    avatar: Any = None  # footfall.gltf.Avatar for .glb/.gltf/.vrm targets
    mapping: dict[str, str | None] | None = None
    humanoid: Any = None  # footfall.gltf.NormalizedHumanoid for .vrm targets
    feet: Any = None  # footfall.retarget.calibration.SolePoints of a skinned avatar's feet
    hands: FloatArray | None = None  # (2,) a skinned avatar's hands' reach from the wrists
    body: Any = None  # footfall.retarget.body_floor.BodyPoints of a skinned avatar's arms, trunk


def load_target(path: str | Path) -> AvatarSpec:
    """Read a ``--to`` file: a .glb/.gltf/.vrm avatar or a .bvh skeleton."""
    from footfall import bvh
    from footfall.gltf import NormalizedHumanoid, is_avatar_file, load_avatar

    path = Path(path)
    suffix = path.suffix.lower()
    if is_avatar_file(path):
        from footfall.skinning import avatar_targets

        avatar = load_avatar(path)
        humanoid = NormalizedHumanoid.of(avatar) if avatar.vrm is not None else None
        mapping = avatar.target_mapping()
        measured = avatar_targets(avatar, mapping)
        return AvatarSpec(path, avatar.skeleton, avatar.rest_rotations, avatar, mapping, humanoid,
                          feet=measured["target_feet"], hands=measured["target_hands"],
                          body=measured["target_body"])
    if suffix == ".bvh":
        return AvatarSpec(path, bvh.load(path).skeleton)
    raise FootfallError(f"--to {path}: expected a .glb, .gltf, .vrm or .bvh file")


def unique_names(paths: Sequence[Path]) -> list[str]:
    """Avatar names from file stems, made unique (``robot``, ``robot-2`` …)."""
    names: list[str] = []
    for path in paths:
        name, n = path.stem, 2
        while name in names:
            name = f"{path.stem}-{n}"
            n += 1
        names.append(name)
    return names


@dataclass
class Character:
    """One avatar on the loop."""

    name: str
    spec: AvatarSpec
    retargeter: Retargeter
    vmc: VmcPose
    pose: tuple[FloatArray, FloatArray] | None = None


@dataclass
class LoopStats:
    """What the loop measured."""

    frames: int = 0
    turns: int = 0
    waiting: bool = True
    errors: dict[str, int] = field(default_factory=dict)
    latency: deque = field(default_factory=lambda: deque(maxlen=200_000))
    frame_times: deque = field(default_factory=lambda: deque(maxlen=240))

    def rate(self) -> float:
        """Frames a second over the last ~240 frames."""
        if len(self.frame_times) < 2:
            return 0.0
        span = self.frame_times[-1] - self.frame_times[0]
        return (len(self.frame_times) - 1) / span if span > 0 else 0.0


class LiveLoop:
    """The live loop.

    Args:
        source: a :class:`~footfall.live.sources.Source` (NatNet client or replay).
        targets: the avatars.
        vmc: ``(avatar name, sender)`` pairs: where each avatar's poses go.
        settings: setting overrides applied to every avatar after its saved settings load.
        settings_folder: where per-avatar settings live (platformdirs default).
        source_mapping: ``{canonical: joint}`` override for the source skeleton.
        view, recorder, grounder: optional hooks with ``update(loop, frame)`` / ``add`` /
            ``ground`` (see ``view.py``, ``record.py``, ``ground.py``).
        report: one-line messages.
        calibrate_on: a clip of the source skeleton known ahead (``--replay``'s): every avatar
            is calibrated on it as ``footfall retarget`` calibrates on a clip
            (:meth:`Retargeter.calibrate_for <footfall.retarget.Retargeter.calibrate_for>`:
            the pose the motion stands in, never the file's rest pose) after its saved
            settings load, so that a replayed clip retargets live as it does offline. A
            stream (NatNet) has no clip ahead: its avatars keep their saved calibration, or
            the skeleton's rest pose (Motive's stands), until the performer calibrates.
    """

    def __init__(self, source: Source, targets: Sequence[AvatarSpec], *,
                 vmc: Sequence[tuple[str, VmcSender]] = (),
                 settings: Mapping[str, Any] | None = None,
                 settings_folder: Path | None = None,
                 source_mapping: Mapping[str, str] | None = None,
                 report: Callable[[str], None] | None = None,
                 vmc_root_motion: bool = False,
                 calibrate_on: Clip | None = None) -> None:
        self.source = source
        self.calibrate_on = calibrate_on
        self.vmc_root_motion = vmc_root_motion  # VmcPose(root_motion=…)
        self.targets = list(targets)
        self.names = unique_names([t.path for t in self.targets])
        self.vmc = list(vmc)
        self.overrides = dict(settings or {})
        self.settings_folder = settings_folder
        self.source_mapping = dict(source_mapping or {})
        self.report = report or (lambda message: print(message, file=sys.stderr))
        self.stats = LoopStats()
        self.views: list[Any] = []
        self.recorders: list[Any] = []
        self.grounder: Any = None
        self._characters: dict[str, Character] = {}
        self._generation = -1
        self._frame: LiveFrame | None = None
        self._last_seconds: float | None = None
        self._between: queue.SimpleQueue[Callable[[LiveLoop], None]] = queue.SimpleQueue()
        self._stop = False

    # ------------------------------------------------------------------ interface for control

    def characters(self) -> Mapping[str, Retargeter]:
        """The registered avatars by name (file stem, made unique)."""
        return {name: c.retargeter for name, c in self._characters.items()}

    def source_pose(self) -> tuple[FloatArray, FloatArray] | None:
        """The newest source frame: local rotations ``(J, 4)`` wxyz and root translation
        ``(3,)`` metres on the source skeleton, or None before the first frame."""
        frame = self._frame
        if frame is None:
            return None
        return frame.rotations.copy(), frame.translations[0].copy()

    def source_frame(self) -> LiveFrame | None:
        """The newest source frame as it came (all local translations)."""
        return self._frame

    def save_settings(self, name: str) -> None:
        """Save avatar ``name``'s settings (atomic JSON, per avatar)."""
        character = self._characters.get(name)
        if character is None:
            raise FootfallError(f"no avatar named {name!r}; avatars: "
                                f"{', '.join(self._characters) or 'none yet'}")
        character.retargeter.save(name, self.settings_folder)

    def add_between_frames(self, callback: Callable[[LiveLoop], None]) -> None:
        """Run ``callback(loop)`` on the loop thread before the next frame (thread-safe)."""
        self._between.put(callback)

    def stop(self) -> None:
        """Ask the loop to finish its turn and return (thread-safe)."""
        self._stop = True

    @property
    def waiting(self) -> bool:
        """No frame for half a second (the last pose is held)."""
        return self.stats.waiting

    # ------------------------------------------------------------------ running

    def _problem(self, kind: str, message: str) -> None:
        self.stats.errors[kind] = self.stats.errors.get(kind, 0) + 1
        if self.stats.errors[kind] == 1:  # the first of its kind
            self.report(f"live: {message} (counted, further ones not shown)")

    def _build(self) -> None:
        """(Re)build every avatar's retargeter for the source's current skeleton."""
        skeleton = self.source.skeleton
        if skeleton is None:
            return
        mapping = {**(self.source.mapping or {}), **self.source_mapping}
        characters: dict[str, Character] = {}
        for name, spec in zip(self.names, self.targets, strict=True):
            retargeter = Retargeter(skeleton, spec.skeleton, mapping or None, spec.mapping,
                                    target_rest=spec.rest, target_feet=spec.feet,
                                    target_hands=spec.hands, target_body=spec.body)
            if has_settings(name, self.settings_folder):
                retargeter.load(name, self.settings_folder)
            if self.overrides:
                retargeter.settings.update(self.overrides)
            if self.calibrate_on is not None and self.calibrate_on.skeleton.names == \
                    skeleton.names:
                retargeter.calibrate_for(self.calibrate_on)
            characters[name] = Character(
                name, spec, retargeter,
                VmcPose(spec.skeleton, retargeter.target_map, humanoid=spec.humanoid,
                        root_motion=self.vmc_root_motion, rest_rotations=spec.rest))
        self._characters = characters
        self._generation = self.source.generation
        self._last_seconds = None
        for hook in (*self.views, *self.recorders):
            self._guarded(hook.rebuild)
        if self.grounder is not None:
            self._guarded(self.grounder.rebuild)

    def run(self, duration: float | None = None, *, stop_source: bool = True) -> None:
        """Run until :meth:`stop`, Ctrl-C (raised to the caller) or ``duration`` seconds; the
        source is started (if it is not) and stopped at the end unless ``stop_source`` is
        false."""
        self.source.start()
        start = time.perf_counter()
        try:
            while not self._stop:
                now = time.perf_counter()
                if duration is not None and now - start >= duration:
                    break
                if self.source.generation != self._generation and \
                        self.source.skeleton is not None:
                    self._rebuild_safely()  # avatars registered before the first frame
                frame = self.source.wait(0.02)
                self._between_frames()
                self.stats.turns += 1
                if frame is None:
                    idle = time.perf_counter() - max(self.source.status.last_frame_at, start)
                    if idle > WAITING_SECONDS and not self.stats.waiting:
                        self.stats.waiting = True
                        for view in self.views:
                            self._guarded(view.update, None)
                    continue
                self.stats.waiting = False
                self.process(frame)
        finally:
            if stop_source:
                self.source.stop()

    def _rebuild_safely(self) -> None:
        try:
            self._build()
        except FootfallError as error:
            self._problem("avatar", f"cannot retarget onto the avatars: {error}")
            self._characters = {}
            self._generation = self.source.generation  # not again for this skeleton

    def _between_frames(self) -> None:
        # Only the callbacks queued so far (this thread alone takes them, so each get succeeds):
        # one that queues another runs it next turn.
        for _ in range(self._between.qsize()):
            callback = self._between.get_nowait()
            try:
                callback(self)
            except Exception as error:  # a bad control action never stops the loop
                self._problem("control", f"a control action failed: {error}")

    def process(self, frame: LiveFrame) -> None:
        """Retarget one frame onto every avatar and send it out."""
        if frame.generation != self._generation:
            if self.source.generation != self._generation:
                self._rebuild_safely()
            if frame.generation != self._generation:
                return  # a frame of the skeleton before
        # the first frame's step: the source's own period when it has one (a replay), else
        # 60 Hz (a stream's rate is known from its second frame on)
        dt = float(getattr(self.source, "period", None) or 1.0 / 60.0)
        if self._last_seconds is not None:
            step = frame.seconds - self._last_seconds
            if np.isfinite(step) and step > 0:
                dt = min(step, MAX_DT)
        self._last_seconds = frame.seconds
        self._frame = frame
        for character in self._characters.values():
            try:
                rotations, translations = character.retargeter.step(
                    frame.rotations, frame.translations, dt)
            except FootfallError as error:
                self._problem("retarget", f"{character.name}: {error}")
                continue
            if self.grounder is not None:
                rotations, translations = self.grounder.ground(character, rotations,
                                                               translations, dt)
            character.pose = (rotations, translations)
        now = time.perf_counter()
        encoded: dict[str, list[bytes]] = {}
        for name, sender in self.vmc:
            target = self._characters.get(name)
            if target is None or target.pose is None or not sender.due(now):
                continue
            if name not in encoded:
                encoded[name] = target.vmc.datagrams(*target.pose, frame.seconds)
            sender.send(encoded[name])
        self.stats.latency.append(time.perf_counter() - frame.received)
        self.stats.frames += 1
        self.stats.frame_times.append(frame.received)
        for recorder in self.recorders:
            self._guarded(recorder.add, frame)
        for view in self.views:
            self._guarded(view.update, frame)

    def _guarded(self, call: Callable[[LiveLoop, Any], None], *args: Any) -> None:
        """Call an output hook; one that fails is reported (once per kind), never fatal."""
        try:
            call(self, *args)
        except Exception as error:  # an output failing never stops the loop
            owner = type(getattr(call, "__self__", call)).__name__
            self._problem(owner, f"{owner}: {type(error).__name__}: {error}")

    def save_all(self) -> list[Path]:
        """Save every avatar's settings (Ctrl-C does)."""
        return [c.retargeter.save(name, self.settings_folder)
                for name, c in self._characters.items()]
