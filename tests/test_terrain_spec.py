"""terrain.from_spec: the one door from a --terrain name to a terrain; what placement asks of it."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh, quat
from footfall.errors import TerrainError
from footfall.grounding.clip import animation_floor, ground_clip
from footfall.grounding.clip.placement import (
    centring_shift,
    placement_for,
    terrain_for_clip,
    turned,
)
from footfall.terrain import BoundedRaySource, LevelGround, from_spec, scene


def test_from_spec_builds_scenes_at_their_size_and_level_ground_at_its_height() -> None:
    stairs = from_spec("stairs", (12.0, 3.0))
    assert stairs.bounds == ((-2.0, -1.5), (10.0, 1.5))
    assert stairs.focus_x is not None and stairs.focus_x[0] < stairs.focus_x[1]
    assert from_spec("hills").focus_x is None  # no flight to centre on: the roughest stretch
    level = from_spec("level", level_height=0.25)
    assert isinstance(level, LevelGround) and isinstance(level, BoundedRaySource)
    assert level.height(np.zeros((3, 2))).tolist() == [0.25] * 3


def test_from_spec_names_what_it_cannot_read(tmp_path) -> None:  # noqa: ANN001
    with pytest.raises(TerrainError, match="'moon' is neither a scene"):
        from_spec("moon")
    # Without a clip's floor, "level" is no terrain (footfall live has no clip to take it from).
    with pytest.raises(TerrainError, match="'level' is neither"):
        from_spec("level")
    with pytest.raises(TerrainError, match="no.obj"):
        from_spec(str(tmp_path / "no.obj"))


def test_placement_for_the_command_line() -> None:
    assert placement_for("stairs") is True
    assert placement_for("stairs", no_place=True) == "under"
    assert placement_for("level") is False and placement_for("level", no_place=True) is False
    assert placement_for("ground.obj", no_place=True) is False


def test_laying_a_scene_under_a_clip_keeps_the_clip_where_it_is() -> None:
    clip = bvh.load(DATA / "bvh" / "cmu_131_01.bvh")[:240]
    terrain = terrain_for_clip("stairs", clip, turn=False)
    result = ground_clip(clip, terrain, place="under")
    # The same as moving the clip over the scene's middle, grounding it there and moving it back.
    shift = centring_shift(clip, terrain.bounds)
    moved = ground_clip(turned(clip, quat.identity(), shift), terrain, place=False)
    back = turned(moved.clip, quat.identity(), -shift)
    assert np.array_equal(result.clip.positions, back.positions)
    assert result.report()["scene_offset_xz"] == [-float(shift[0]), -float(shift[2])]
    # Grounded on the scene's uneven part, the clip's path stays where it was horizontally.
    root = np.nonzero(clip.skeleton.parents < 0)[0][0]
    drift = result.clip.positions[:, root, [0, 2]] - clip.positions[:, root, [0, 2]]
    assert np.abs(drift).max() < 1e-9
    assert result.after != result.before  # the stairs under it changed the feet


def test_level_ground_for_a_clip_is_at_its_own_floor() -> None:
    clip = bvh.load(DATA / "bvh" / "games105_walk60.bvh")
    level = terrain_for_clip("level", clip)
    assert isinstance(level, LevelGround)
    assert level.height_value == animation_floor(clip)
    assert scene("flat").focus_x is None
