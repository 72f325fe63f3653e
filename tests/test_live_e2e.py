"""End to end on loopback: natnet-serve → live loop (two avatars) → python-osc VMC receivers.

Every bone must arrive each frame, and the received poses must equal the retargeter's own step
over the frames that arrived (same settings, filter off) to 1 mm.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from pythonosc.osc_packet import OscPacket

from footfall import bvh, quat
from footfall.gltf import load_avatar
from footfall.live.loop import MAX_DT, LiveLoop, load_target
from footfall.live.natnet_client import NatNetClient
from footfall.live.natnet_server import NatNetServer
from footfall.live.sources import LiveFrame, ReplaySource
from footfall.live.vmc import VmcSender, from_unity
from footfall.retarget import Retargeter, RetargetSettings
from footfall.skeleton import Clip
from footfall.skinning import avatar_targets

DATA = Path(__file__).parent / "data"
CLIP = DATA / "bvh" / "games105_walk60.bvh"
AVATARS = [DATA / "avatars" / "CesiumMan.glb", DATA / "avatars" / "RobotExpressive.glb"]


class Receiver:
    """A VMC receiver on 127.0.0.1 (python-osc decodes every datagram)."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.05)
        self.port = self.socket.getsockname()[1]
        self.frames: dict[float, dict[str, tuple]] = {}
        self._time: float | None = None
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, _ = self.socket.recvfrom(65536)
            except TimeoutError:
                continue
            assert len(data) <= 1500
            for timed in OscPacket(data).messages:
                m = timed.message
                if m.address == "/VMC/Ext/T":
                    self._time = round(float(m.params[0]), 6)
                    self.frames.setdefault(self._time, {})
                elif m.address == "/VMC/Ext/Bone/Pos" and self._time is not None:
                    self.frames[self._time][m.params[0]] = tuple(m.params[1:])

    def close(self) -> None:
        self._stop.set()
        self.thread.join(2)
        self.socket.close()


def run_until(loop: LiveLoop, frames: int, timeout: float) -> None:
    """Run the loop until it handled ``frames`` frames (or ``timeout`` seconds: a slow,
    shared machine needs longer to build the avatars, not a different answer)."""

    def check(loop: LiveLoop) -> None:
        if loop.stats.frames >= frames:
            loop.stop()
        else:
            loop.add_between_frames(check)

    loop.add_between_frames(check)
    loop.run(duration=timeout)


def _world_error(received: dict[str, tuple], retargeter: Retargeter, expected: Clip,
                 frame: int) -> float:
    """Max joint position error (m) of the avatar posed with the received local transforms."""
    rot = expected.rotations[frame].copy()
    pos = expected.positions[frame].copy()
    for bone, values in received.items():
        j = retargeter.target.index(retargeter.target_map[bone])
        r, p = from_unity(np.array(values))
        rot[j], pos[j] = r, p
    got = Clip(expected.skeleton, rot[None], pos[None], expected.fps).global_positions()[0]
    want = expected[frame:frame + 1].global_positions()[0]
    return float(np.abs(got - want).max())


class Handled:
    """A loop hook keeping the frames the loop handled: their numbers and clip seconds."""

    def __init__(self) -> None:
        self.numbers: list[int] = []
        self.seconds: list[float] = []

    @property
    def number(self) -> int:
        """The number of the first frame the loop handled."""
        return self.numbers[0]

    def rebuild(self, loop: LiveLoop) -> None:
        pass

    def add(self, loop: LiveLoop, frame: LiveFrame) -> None:
        self.numbers.append(frame.number)
        self.seconds.append(frame.seconds)


def _stepped(clip: Clip, avatar_path: Path, settings: dict, handled: Handled
             ) -> tuple[Retargeter, Clip]:
    """The avatar posed by ``Retargeter.step`` fed the frames the loop handled, one by one, each
    with the time since the one before (the loop's rule; 1/60 s for the first): a foot's turn
    is eased over time, so live output is the step's over the frames that arrived."""
    avatar = load_avatar(avatar_path)
    s = RetargetSettings()
    s.update(settings)
    r = Retargeter(clip.skeleton, avatar.skeleton, settings=s, target_rest=avatar.rest_rotations,
                   **avatar_targets(avatar))
    frames = len(handled.numbers)
    rot = quat.identity((clip.frame_count, r.target.joint_count))  # frames not handled: unused
    pos = np.zeros((clip.frame_count, r.target.joint_count, 3))
    last: float | None = None
    for k in range(frames):
        number, seconds = handled.numbers[k], handled.seconds[k]
        dt = 1.0 / 60.0 if last is None else min(seconds - last, MAX_DT)
        last = seconds
        f = number % clip.frame_count
        rot[f], pos[f] = r.step(clip.rotations[f], clip.positions[f], dt)
    return r, Clip(r.target, rot, pos, clip.fps)


def test_natnet_serve_to_two_avatars_to_vmc(tmp_path: Path) -> None:
    from footfall import kernels

    kernels.prepare(groups=("retarget",))  # compiled first, as `footfall live` does: the
    # stream below runs on a clock (a stale numba cache stalled its first frame for 10 s)
    clip = bvh.load(CLIP)
    settings = {"ik_mode": "fk", "filter_enabled": False, "plant_feet": False}
    server = NatNetServer(clip, command_port=0, version="4.1", rate=30)
    receivers = [Receiver(), Receiver()]
    client = NatNetClient("127.0.0.1", command_port=server.address[1], data_port=0)
    targets = [load_target(p) for p in AVATARS]
    vmc = [(p.stem, VmcSender(("127.0.0.1", r.port))) for p, r in zip(AVATARS, receivers,
                                                                       strict=True)]
    loop = LiveLoop(client, targets, vmc=vmc, settings=settings, settings_folder=tmp_path)
    loop.recorders.append(first := Handled())
    server.start()
    try:
        run_until(loop, frames=45, timeout=20.0)
    finally:
        server.stop()
        time.sleep(0.1)
        for r in receivers:
            r.close()
    assert loop.stats.frames >= 40, loop.stats
    assert client.status.errors == {}
    for path, receiver in zip(AVATARS, receivers, strict=True):
        retargeter, expected = _stepped(clip, path, settings, first)
        bones = set(loop.characters()[path.stem].target_map)
        complete = [t for t, b in receiver.frames.items() if set(b) == bones]
        assert len(complete) >= loop.stats.frames - 2, (len(complete), loop.stats.frames)
        errors = []
        for t in complete:  # /VMC/Ext/T is relative: 0 at the first frame, 1/30 s a frame
            frame = (first.number + round(t * 30)) % clip.frame_count
            errors.append(_world_error(receiver.frames[t], retargeter, expected, frame))
        assert max(errors) < 1e-3, max(errors)


class EveryFrame(ReplaySource):
    """Every frame of a clip once, as fast as the loop takes them, then stop."""

    def wait(self, timeout: float) -> LiveFrame | None:
        self._last += 1
        if self._last >= self.clip.frame_count:
            self._loop.stop()
            return None
        f = self._last
        return LiveFrame(f, f / self.clip.fps, self.clip.rotations[f], self.clip.positions[f],
                         time.perf_counter(), self.generation)


def test_loop_with_ik_equals_step_frame_by_frame(tmp_path: Path) -> None:
    # With IK on, the Retargeter's live path (step) is the reference: the loop adds nothing.
    clip = bvh.load(CLIP)[:60]
    source = EveryFrame(clip)
    receiver = Receiver()
    target = load_target(AVATARS[1])
    loop = LiveLoop(source, [target], vmc=[(AVATARS[1].stem, VmcSender(("127.0.0.1",
                                                                        receiver.port)))],
                    settings={"filter_enabled": False}, settings_folder=tmp_path)
    source._loop = loop
    loop.run(duration=10)
    time.sleep(0.1)
    receiver.close()
    assert loop.stats.frames == clip.frame_count
    reference = Retargeter(clip.skeleton, target.skeleton, target_rest=target.rest,
                           target_feet=target.feet, target_hands=target.hands,
                           target_body=target.body)
    reference.settings["filter_enabled"] = False
    retargeter = loop.characters()[AVATARS[1].stem]
    times = sorted(receiver.frames)
    assert len(times) >= 40
    for f in range(len(times)):
        rot, pos = reference.step(clip.rotations[f], clip.positions[f], 1 / clip.fps)
        got = receiver.frames[times[f]]
        for bone, values in got.items():
            j = retargeter.target.index(retargeter.target_map[bone])
            r, p = from_unity(np.array(values))
            assert abs(quat.dot(r, rot[j])) > 1 - 1e-6
            np.testing.assert_allclose(p, pos[j], atol=1e-5)


def test_live_command_replay_records_and_sends(tmp_path: Path) -> None:
    receiver = Receiver()
    out = tmp_path / "take.bvh"
    cmd = [sys.executable, "-m", "footfall.cli", "live", "--replay", str(CLIP),
           "--to", str(AVATARS[0]), "--vmc", f"127.0.0.1:{receiver.port}", "--no-view",
           "--no-control", "--record", str(out), "--settings-dir", str(tmp_path / "s"),
           "--duration", "1.0"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    receiver.close()
    assert done.returncode == 0, done.stderr
    assert out.is_file()
    recorded = bvh.load(out)
    assert recorded.frame_count >= 30
    assert (tmp_path / "s" / "CesiumMan_settings.json").is_file()
    assert len(receiver.frames) >= 30
    assert "frames" in done.stdout


@pytest.mark.parametrize("option", [["--vmc", "127.0.0.1:notaport"], ["--vmc-rate", "-1"],
                                    ["--vmc", "nobody=127.0.0.1:9"]])
def test_live_command_bad_options_are_one_line_errors(option: list[str]) -> None:
    cmd = [sys.executable, "-m", "footfall.cli", "live", "--replay", str(CLIP), "--to",
           str(AVATARS[0]), "--no-view", "--no-control", "--duration", "0.2", *option]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--vmc" in done.stderr and "Traceback" not in done.stderr


def test_terrain_grounds_the_avatars_live(tmp_path: Path) -> None:
    from footfall.live.ground import LiveGrounder
    from footfall.terrain.heightfield import HeightfieldTerrain

    clip = bvh.load(CLIP)[:90]
    # A gentle 6° rise along the walk (+Z), wide enough for the whole clip.
    rise = np.tan(np.radians(6.0))
    terrain = HeightfieldTerrain(
        lambda x, z: rise * np.asarray(z, float) + 0 * np.asarray(x, float),
        lambda x, z: (0 * np.asarray(x, float), rise + 0 * np.asarray(z, float)),
        ((-5.0, -5.0), (5.0, 5.0)))
    results = {}
    for grounded in (False, True):
        source = EveryFrame(clip)
        # A BVH rig as the avatar (both sample GLBs have feet the grounding pipeline
        # cannot model: an IK rig whose feet are not leg children, a Z-up foot).
        rig = load_target(DATA / "bvh" / "mixamo_stepping.bvh")
        loop = LiveLoop(source, [rig], settings={"filter_enabled": False},
                        settings_folder=tmp_path)
        if grounded:
            loop.grounder = LiveGrounder(terrain)
        source._loop = loop
        feet = []

        def keep(loop: LiveLoop, feet: list = feet) -> None:
            character = next(iter(loop._characters.values()), None)
            if character is not None and character.pose is not None:
                target = character.retargeter.target
                _, pos = Clip(target, character.pose[0][None], character.pose[1][None],
                              30).forward_kinematics()
                foot = [target.index(character.retargeter.target_map[b])
                        for b in ("LeftFoot", "RightFoot")]
                feet.append(pos[0, foot])
            loop.add_between_frames(keep)

        loop.add_between_frames(keep)
        loop.run(duration=20)
        results[grounded] = np.array(feet)
    flat, on_ground = results[False], results[True]
    assert len(on_ground) >= 80
    ground = terrain.raycast_down(on_ground[..., [0, 2]].reshape(-1, 2)).height.reshape(-1, 2)
    lowest_flat = (flat[..., 1]).min(axis=1)
    lowest = (on_ground[..., 1] - ground).min(axis=1)
    # Grounded, the lower foot follows the terrain as it followed y = 0 (within 3 cm) …
    assert np.median(np.abs(lowest - lowest_flat[:len(lowest)])) < 0.03
    # … and the terrain actually moved the feet.
    assert np.abs(on_ground[..., 1] - flat[:len(on_ground), :, 1]).max() > 0.05


def test_natnet_serve_command_and_help() -> None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = subprocess.Popen([sys.executable, "-m", "footfall.cli", "natnet-serve", str(CLIP),
                               "--command-port", str(port), "--rate", "60", "--version", "4.2",
                               "--duration", "30"], stdout=subprocess.PIPE, text=True)
    client = NatNetClient("127.0.0.1", command_port=port, data_port=0)
    try:
        assert "NatNet 4.2" in server.stdout.readline()  # printed once it listens
        client.start()
        deadline = time.monotonic() + 10
        frame = None
        while frame is None and time.monotonic() < deadline:
            frame = client.wait(0.1)
        assert frame is not None and client.status.version == "4.2"
        assert client.skeleton.joint_count == bvh.load(CLIP).skeleton.joint_count
    finally:
        client.stop()
        server.terminate()
        server.wait(10)
    done = subprocess.run([sys.executable, "-m", "footfall.cli", "live", "--help"],
                          capture_output=True, text=True, timeout=60)
    for option in ("--natnet", "--multicast", "--local-ip", "--skeleton", "--replay", "--to",
                   "--terrain", "--vmc", "--vmc-rate", "--no-view", "--record", "--duration",
                   "--control-port", "--control-host", "--no-control", "--control-origin"):
        assert option in done.stdout


def test_a_failing_output_or_control_action_never_stops_the_loop(tmp_path: Path) -> None:
    clip = bvh.load(CLIP)[:20]
    source = EveryFrame(clip)
    loop = LiveLoop(source, [load_target(AVATARS[0])], settings_folder=tmp_path,
                    report=lambda message: None)
    source._loop = loop

    class Broken:
        def rebuild(self, loop: LiveLoop) -> None:
            raise RuntimeError("no view today")

        def update(self, loop: LiveLoop, frame: object) -> None:
            raise RuntimeError("no view today")

    loop.views.append(Broken())
    loop.add_between_frames(lambda loop: 1 / 0)
    loop.run(duration=20)
    assert loop.stats.frames == clip.frame_count
    assert loop.stats.errors["Broken"] >= clip.frame_count
    assert loop.stats.errors["control"] == 1
    assert set(loop.characters()) == {AVATARS[0].stem}
    assert loop.source_pose()[0].shape == (clip.skeleton.joint_count, 4)
    loop.save_settings(AVATARS[0].stem)
    assert (tmp_path / f"{AVATARS[0].stem}_settings.json").is_file()


def test_a_replayed_clip_retargets_live_as_offline(tmp_path: Path) -> None:
    """``footfall live --replay`` knows the clip ahead, so the loop calibrates every avatar on it
    as ``footfall retarget`` does (the pose the motion stands in): the recorded frames are the
    offline ones. Calibrated on the file's rest pose instead (the loop before), games105 on
    CesiumMan differed by up to 4.7 cm at the feet, cmu_01_01 by 12 cm."""
    from footfall.live.record import Recorder

    clip = bvh.load(DATA / "bvh" / "cmu_01_01_fairmotion.bvh")[:90]
    source = EveryFrame(clip)
    target = load_target(AVATARS[0])
    loop = LiveLoop(source, [target], settings_folder=tmp_path, calibrate_on=clip)
    loop.recorders.append(recorder := Recorder(tmp_path / "take.glb"))
    source._loop = loop
    loop.run(duration=30)
    assert loop.stats.frames == clip.frame_count
    offline = Retargeter(clip.skeleton, target.skeleton, target_rest=target.rest,
                         target_feet=target.feet, target_hands=target.hands,
                         target_body=target.body)
    offline.calibrate_for(clip)
    expected = offline.apply(clip).forward_kinematics()[1]
    poses = recorder.frames[AVATARS[0].stem]
    got = Clip(offline.output_skeleton(), np.stack([p[0] for p in poses]),
               np.stack([p[1] for p in poses]), clip.fps).forward_kinematics()[1]
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() < 1e-3


def test_the_live_command_calibrates_a_replay_on_the_clip(tmp_path: Path) -> None:
    """The command hands the replayed clip to the loop: the avatar's saved calibration is the
    clip's standing pose, not the BVH's rest pose."""
    from footfall.retarget.saved_calibration import Calibration
    from footfall.retarget.settings import load_settings

    clip = bvh.load(DATA / "bvh" / "cmu_01_01_fairmotion.bvh")
    cmd = [sys.executable, "-m", "footfall.cli", "live", "--replay",
           str(DATA / "bvh" / "cmu_01_01_fairmotion.bvh"), "--to", str(AVATARS[0]),
           "--no-view", "--no-control", "--settings-dir", str(tmp_path), "--duration", "0.5"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    saved = Calibration.of_settings(load_settings("CesiumMan", tmp_path)).source_pose
    target = load_target(AVATARS[0])
    reference = Retargeter(clip.skeleton, target.skeleton, target_rest=target.rest,
                           target_feet=target.feet, target_hands=target.hands,
                           target_body=target.body)
    rest = reference.calibration.source_pose
    reference.calibrate_for(clip)
    assert saved is not None and rest is not None
    np.testing.assert_allclose(np.abs(np.sum(saved * reference.calibration.source_pose, -1)),
                               1.0, atol=1e-6)
    assert np.abs(np.sum(saved * rest, -1)).min() < 0.99  # the rest pose is another pose
