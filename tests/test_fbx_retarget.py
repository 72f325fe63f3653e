"""FBX in retargeting (issue 37): an FBX take as the source, an FBX character as the target.

Measured as ``test_retarget_floor`` measures BVH sources: the written GLB is skinned
independently of the retargeter (``skinned_feet``: glTF's skinning with pygltflib alone), and
while the source's foot is planted the avatar's lowest vertex of that foot lies within
−1…+1.5 cm of the floor in at least 90 % of the frames, never more than 1 cm below it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from footfall import bvh
from footfall.fbx import load_fbx, load_fbx_avatar
from footfall.gltf import Avatar, load_avatar, save_motion
from footfall.humanoid import map_skeleton
from footfall.retarget import Retargeter, RetargetSettings
from footfall.skeleton import Clip
from footfall.skinning import avatar_feet, avatar_targets
from skinned_feet import planted_sole, skin, source_contacts

DATA = Path(__file__).parent / "data"
HUMANIK = DATA / "fbx" / "maya_character_7500_binary.fbx"
KENNEY = DATA / "fbx" / "maya_kenney_character_7700_binary.fbx"
CESIUM = DATA / "avatars" / "CesiumMan.glb"


def _retarget(source: Clip, avatar: Avatar, out: Path) -> Retargeter:
    """What ``footfall retarget SOURCE --to AVATAR -o out.glb`` does, as library calls."""
    mapping = avatar.target_mapping()
    retargeter = Retargeter(source.skeleton, avatar.skeleton, None, mapping,
                            settings=RetargetSettings(), target_rest=avatar.rest_rotations,
                            **avatar_targets(avatar, mapping))
    retargeter.calibrate_for(source, None)
    clip = retargeter.apply(source, chunk=1024)
    save_motion(avatar, clip, out, joint_scales=retargeter.joint_scales(),
                root_scale=retargeter.avatar_scale)
    return retargeter


def _feet(avatar: Avatar) -> tuple[str, str]:
    mapping = map_skeleton(avatar.skeleton).mapping
    assert avatar.document is not None
    return tuple(avatar.document.nodes[avatar.nodes[avatar.skeleton.index(mapping[b])]].name
                 for b in ("LeftFoot", "RightFoot"))  # type: ignore[return-value]


def _stands(out: Path, avatar: Avatar, source: Clip) -> dict[str, float]:
    figures = planted_sole(skin(out, _feet(avatar)), source_contacts(source))
    assert figures["share_in_band"] >= 0.9, figures
    for side in ("left", "right"):
        assert figures[f"{side}_p05"] >= -0.01, figures
    assert figures["lowest_foot"] >= -0.01, figures
    return figures


def test_the_humanik_take_onto_cesium_man_stands_on_the_floor(tmp_path: Path) -> None:
    source = load_fbx(HUMANIK)
    avatar = load_avatar(CESIUM)
    out = tmp_path / "humanik-cesium.glb"
    _retarget(source, avatar, out)
    figures = _stands(out, avatar, source)
    assert figures["stance_frames"] >= 2 * 100  # the take's 120 frames, both feet planted


def test_a_bvh_capture_onto_the_fbx_character_stands_on_its_skinned_soles(
        tmp_path: Path) -> None:
    """``--to character.fbx``: the FBX character is the target, its soles measured from its
    skin; written as a GLB of that character, which plays on the floor."""
    source = bvh.load(DATA / "bvh" / "mixamo_stepping.bvh")[:600]
    avatar = load_fbx_avatar(KENNEY)
    out = tmp_path / "stepping-kenney.glb"
    assert avatar_feet(avatar) is not None  # the soles the retargeter gets: from the FBX skin
    _retarget(source, avatar, out)
    figures = _stands(out, avatar, source)
    assert figures["stance_frames"] > 50
    # the written character is the FBX one: its mesh and joints, animated
    written = load_avatar(out)
    assert written.skeleton.names == avatar.skeleton.names


@pytest.mark.parametrize("path", [HUMANIK, KENNEY], ids=lambda p: p.stem)
def test_an_fbx_take_writes_and_reads_back_as_bvh(path: Path, tmp_path: Path) -> None:
    clip = load_fbx(path)
    out = tmp_path / f"{path.stem}.bvh"
    bvh.save(clip, out)
    again = bvh.load(out, scale=1.0, up="y")  # as written (the unit guess is issue 37's item 8)
    order = [again.skeleton.index(name) for name in clip.skeleton.names]  # written depth-first
    error = np.abs(again.global_positions()[:, order] - clip.global_positions()).max()
    assert error < 1e-4, error
