"""A foot out of contact at a clip's start or end (before its first contact, after its last)
keeps its source height over the ground under it — measured on the written output with
``tools/ground_table.py``'s independent pieces only (the source's own feet and floor, the
terrain's ray cast).

cmu_131_01 stands on its heel at both ends (its foot joint low and still, the toes raised:
no contact for the code under test). Those swings used to be held at the height of the one
contact they touch, relative to the ground there: on the stairs, backward, the left foot stood
0.45 m above the tread under it through frames 0-34 (its first contact three treads up), and
on the hills 0.15 m above the slope (straight, the end; backward, the start). Blended from the
ground under the foot at the clip's edge (``grounding.clip.plan.blend_to_edges``) they stand
within 3 mm; with the rule taken out (``blend_across_swings`` in its place) this test fails.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from conftest import DATA
from conventions import VARIANTS
from footfall import bvh
from footfall.footing.runs import segments
from footfall.grounding.clip import ground_clip
from footfall.grounding.clip.placement import place_clip, scene_size
from footfall.grounding.feet import calibration_frames
from footfall.terrain import scene

#: How far (metres, mean over the frames) a still foot joint may be from its source height.
STILL_FOOT = 0.010


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location(
        "ground_table", DATA.parent.parent / "tools" / "ground_table.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def _edge_still_errors(made: str, terrain_name: str) -> list[tuple[int, int, int, float]]:
    """(foot, start, stop, mean error m) of every run of frames at the clip's start or end in
    which the source's foot joint is low and still (``ground_table.heel_contacts``): the
    output's foot joint over the ground straight under it − the source's over its floor."""
    tool = _tool()
    clip = VARIANTS[made](bvh.load(DATA / "bvh" / "cmu_131_01.bvh")[:600])
    motion = clip[~calibration_frames(clip.rotations, clip.skeleton.parents)]
    length, width = scene_size(motion)
    terrain = scene(terrain_name, length=length, width=width)
    source = place_clip(motion, terrain)
    out = ground_clip(source, terrain, place=False).clip
    src, dst = tool.source_foot_points(source), tool.source_foot_points(out)
    floor = tool.source_floor(src, tool.source_contacts(source))
    still = tool.heel_contacts(src, source.fps)
    over = tool._gaps(terrain, dst[:, :, 0]) - (src[:, :, 0, 1] - floor)  # (F, 2)
    found = []
    for foot in range(2):
        for start, stop in segments(still[:, foot]):
            if start == 0 or stop == len(still):
                found.append((foot, start, stop, float(np.nanmean(over[start:stop, foot]))))
    return found


@pytest.mark.parametrize(("made", "terrain_name"),
                         [("backward", "stairs"), ("straight", "hills"), ("backward", "hills")])
def test_a_still_foot_at_the_clip_edge_stands_at_its_height_over_the_ground(
        made: str, terrain_name: str) -> None:
    found = _edge_still_errors(made, terrain_name)
    assert len(found) == 2, found  # the left foot at one end, the right foot at the other
    for foot, start, stop, error in found:
        assert abs(error) <= STILL_FOOT, (foot, start, stop, error)
