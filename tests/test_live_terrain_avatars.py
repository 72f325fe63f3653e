"""``footfall live --terrain`` grounds the skinned glTF avatars (issue 24, item 4).

CesiumMan's bones do not say where its sole is, RobotExpressive's feet hang from the root (an
IK rig): both used to be left ungrounded. Measured on what a viewer sees: the live poses are
recorded to .glb and skinned from the file with pygltflib alone (``skinned_feet.py``), the
source's contacts found from the source clip, and each foot vertex compared with the terrain
height under it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from footfall import bvh, quat
from footfall.live.ground import LiveGrounder
from footfall.live.loop import LiveLoop, load_target
from footfall.live.record import Recorder
from footfall.live.sources import LiveFrame, ReplaySource
from footfall.skeleton import Clip
from footfall.terrain import Terrain, scene
from skinned_feet import SkinnedClip, skin, source_contacts

DATA = Path(__file__).parent / "data"
CLIP = DATA / "bvh" / "cmu_131_01.bvh"
WALK = DATA / "bvh" / "games105_walk60.bvh"  # 3 s walking straight ahead (+Z), 60 fps
GLB = ["CesiumMan", "RobotExpressive"]
BAND = (-0.01, 0.015)  # metres of the planted sole about the terrain


class EveryFrame(ReplaySource):
    """Every frame of a clip once, as fast as the loop takes them, then stop."""

    loop: LiveLoop

    def wait(self, timeout: float) -> LiveFrame | None:
        self._last += 1
        if self._last >= self.clip.frame_count:
            self.loop.stop()
            return None
        f = self._last
        return LiveFrame(f, f / self.clip.fps, self.clip.rotations[f], self.clip.positions[f],
                         time.perf_counter(), self.generation)


def across_the_stairs(clip: Clip) -> Clip:
    """The clip turned a quarter about +Y so its walk along +Z runs along +X, across the
    stairs scene (up from x = 1, landing 2.2–3.4, down to 4.6): CesiumMan up five steps and
    down two, RobotExpressive (1.7 times the size) up, across and down."""
    turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)
    rotations, positions = clip.rotations.copy(), clip.positions.copy()
    rotations[:, 0] = quat.mul(turn, rotations[:, 0])
    positions[:, 0] = quat.rotate(turn, positions[:, 0])
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def test_live_command_grounds_every_avatar_on_the_stairs(tmp_path: Path) -> None:
    avatars = [DATA / "avatars" / f"{name}.glb" for name in GLB]
    avatars += sorted((DATA / "avatars").glob("*.vrm"))
    cmd = [sys.executable, "-m", "footfall.cli", "live", "--replay", str(CLIP), "--terrain",
           "stairs", "--no-view", "--no-control", "--duration", "1", "--settings-dir",
           str(tmp_path)]
    for avatar in avatars:
        cmd += ["--to", str(avatar)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "not grounded" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_planted_glb_avatars_stand_on_the_stairs(tmp_path: Path) -> None:
    source_clip = bvh.load(WALK)
    planted = source_contacts(source_clip)  # (F, 2) the source's own contacts
    clip = across_the_stairs(source_clip)
    terrain = scene("stairs")
    source = EveryFrame(clip)
    reports: list[str] = []
    loop = LiveLoop(source, [load_target(DATA / "avatars" / f"{n}.glb") for n in GLB],
                    settings={"filter_enabled": False}, settings_folder=tmp_path,
                    report=reports.append)
    source.loop = loop
    loop.grounder = LiveGrounder(terrain)
    recorder = Recorder(tmp_path / "live.glb")
    loop.recorders.append(recorder)
    loop.run(duration=60)
    assert not any("not grounded" in r for r in reports), reports
    assert loop.stats.frames == clip.frame_count
    written = recorder.finish()
    assert len(written) == 2
    for name, path in zip(GLB, written, strict=True):
        bones = loop.characters()[name].target_map
        figures = stance_figures(skin(path, (bones["LeftFoot"], bones["RightFoot"])),
                                 terrain, planted)
        print(name, {key: round(value, 4) for key, value in figures.items()})
        assert figures["frames"] == clip.frame_count
        assert figures["stance_frames"] > 60  # the stance frames exist …
        assert figures["stance_on_treads"] > 20  # … many of them on the stairs
        # The planted foot's closest vertex to the ground under it: on level ground its lowest
        # vertex; on stairs a foot resting on a tread's nose with its heel over the tread below
        # (its lowest vertex, a flat sole's any, may be the one over the lower tread).
        assert figures["contact_in_band"] >= 0.9, (name, figures)
        # No foot vertex ever more than a centimetre inside the terrain (risers included).
        assert figures["deepest"] >= -0.01, (name, figures)


def test_a_resized_avatar_is_grounded_at_its_new_size(tmp_path: Path) -> None:
    clip = across_the_stairs(bvh.load(WALK)[:20])
    source = EveryFrame(clip)
    loop = LiveLoop(source, [load_target(DATA / "avatars" / "CesiumMan.glb")],
                    settings={"filter_enabled": False}, settings_folder=tmp_path)
    source.loop = loop
    grounder = loop.grounder = LiveGrounder(scene("stairs"))

    def resize(loop: LiveLoop) -> None:
        if loop.stats.frames == 10:
            loop.characters()["CesiumMan"].settings["avatar_scale"] = 0.8
        else:
            loop.add_between_frames(resize)

    loop.add_between_frames(resize)
    loop.run(duration=30)
    assert loop.stats.frames == clip.frame_count
    grounded = grounder._avatars["CesiumMan"]
    assert grounded.scale == 0.8
    full = load_target(DATA / "avatars" / "CesiumMan.glb").skeleton.bone_lengths().max()
    assert grounded.pipe.skeleton.bone_lengths().max() == pytest.approx(0.8 * full)


def stance_figures(skinned: SkinnedClip, terrain: Terrain, planted: np.ndarray
                   ) -> dict[str, float]:
    """Figures of the skinned feet on ``terrain`` while the source's feet are ``planted``
    ``(F, 2)``: the share of stance frames whose lowest foot vertex is within :data:`BAND` of
    the terrain under it, the same for the foot's closest vertex to the terrain (the least
    height above the ground under each vertex), their medians, how many stance frames have a
    tread under the foot (ground above 10 cm), and the deepest any foot vertex ever is inside
    the terrain (metres, negative inside)."""
    frames = len(skinned.vertices)
    lowest_gaps, contact_gaps, deepest, on_treads = [], [], np.inf, 0
    for side in range(2):
        feet = skinned.vertices[:, skinned.foot[side]]  # (F, V, 3)
        under = terrain.raycast_down(feet[..., [0, 2]])
        assert under.hit.all(), "a foot left the terrain"
        gap = feet[..., 1] - under.height  # (F, V)
        lowest = feet[..., 1].argmin(axis=1)
        on = planted[:frames, side]
        lowest_gaps.append(gap[np.arange(frames), lowest][on])
        contact_gaps.append(gap.min(axis=1)[on])
        on_treads += int(np.sum(under.height.max(axis=1)[on] > 0.1))
        deepest = min(deepest, float(gap.min()))
    lowest_gap, contact_gap = np.concatenate(lowest_gaps), np.concatenate(contact_gaps)

    def in_band(gaps: np.ndarray) -> float:
        return float(np.mean((gaps >= BAND[0]) & (gaps <= BAND[1])))

    return {"frames": frames, "stance_frames": len(lowest_gap), "stance_on_treads": on_treads,
            "lowest_in_band": in_band(lowest_gap), "lowest_median": float(np.median(lowest_gap)),
            "contact_in_band": in_band(contact_gap),
            "contact_median": float(np.median(contact_gap)), "deepest": deepest}
