"""A foot out of contact at a clip's start or end (before its first contact, after its last),
and a foot standing on its heel, keep their source height over the ground under them —
measured on the written output with ``tools/ground_table.py``'s independent pieces only (the
source's own feet and floor, the terrain's ray cast).

cmu_131_01 holds a foot still and low at both ends (its foot joint at its lowest, its lowest
point 65-70 mm up: no contact for the code under test). Those swings used to be held at the
height of the one contact they touch, relative to the ground there: on the stairs, backward,
the left foot stood 0.45 m above the tread under it through frames 0-34 (its first contact
three treads up), and on the hills 0.15 m above the slope (straight, the end; backward, the
start). Blended from the ground under the foot at the clip's edge
(``grounding.clip.plan.blend_to_edges``) they stand within 3 mm; with the rule taken out
(``blend_across_swings`` in its place) this test fails.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from conftest import DATA, ground_table
from conventions import VARIANTS, grounded_on_scene
from footfall import bvh
from footfall.footing.runs import segments

#: How far (metres, mean over the frames) a still foot joint may be from its source height.
STILL_FOOT = 0.010


def _edge_still_errors(made: str, terrain_name: str) -> list[tuple[int, int, int, float]]:
    """(foot, start, stop, mean error m) of every run of frames at the clip's start or end in
    which the source's foot joint is low and still (``ground_table.heel_contacts``): the
    output's foot joint over the ground straight under it − the source's over its floor."""
    tool = ground_table()
    source, out, terrain = grounded_on_scene(
        VARIANTS[made](bvh.load(DATA / "bvh" / "cmu_131_01.bvh")[:600]), terrain_name)
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


def _heel_stances(tool: Any, points: np.ndarray, contacts: np.ndarray, fps: float
                  ) -> np.ndarray:
    """``(F, 2)`` frames a source foot stands on its heel, toes raised, outside the scorer's
    contacts (its lowest point is a raised toe): the foot joint within ``CONTACT_BAND`` of its
    median height over that foot's contacts and slower than ``CONTACT_SPEED``, for 0.1 s or
    more — a foot held low off the floor, its joint far below its standing height, is none."""
    ankle = points[:, :, 0]
    speed = np.zeros(ankle.shape[:2])
    speed[1:] = np.linalg.norm(np.diff(ankle[..., [0, 2]], axis=0), axis=-1) * fps
    speed[0] = speed[1]
    hold = max(1, round(0.1 * fps))
    out = np.zeros(contacts.shape, dtype=bool)
    for foot in range(2):
        level = np.median(ankle[contacts[:, foot], foot, 1])
        still = ((np.abs(ankle[:, foot, 1] - level) < tool.CONTACT_BAND)
                 & (speed[:, foot] < tool.CONTACT_SPEED) & ~contacts[:, foot])
        for start, stop in segments(still):
            out[start:stop, foot] = stop - start >= hold
    return out


@pytest.mark.parametrize("terrain_name", ["stairs", "hills"])
def test_a_heel_stance_stands_on_the_ground_under_it(terrain_name: str) -> None:
    # cmu_131_01's right foot stands on its heel with the toes raised (straight: frames
    # 237-285, 362-390, 500-551; foot joint 3-7 mm from its planted height, 0.05-0.07 m/s, its
    # lowest point a toe 28-44 mm above its stance level). The scorer's contacts (lowest point
    # low and slow) call those frames swing and judge them against the ground blended from the
    # stance before to the one after (on the stairs from tread 150 to tread 300: 33.5 mm for
    # the clip, 44.8 mm for that "swing"); a planted heel belongs on the tread under it, and
    # this holds grounding to that. Blending across them instead (the clip grounded with the
    # scorer's contacts) puts those heels 85 mm off the ground under them on the stairs and
    # 34 mm on the hills, and this test fails — while the scorer then reads 23.2 and 3.2 mm of
    # swing (33.5 and 54.8 mm as grounded).
    tool = ground_table()
    source, out, terrain = grounded_on_scene(bvh.load(DATA / "bvh" / "cmu_131_01.bvh")[:600],
                                     terrain_name)
    src, dst = tool.source_foot_points(source), tool.source_foot_points(out)
    contacts = tool.source_contacts(source)
    floor = tool.source_floor(src, contacts)
    heel = _heel_stances(tool, src, contacts, source.fps)
    assert heel[:, 1].sum() >= 100, heel.sum(axis=0)  # the right foot's three heel stances
    over = tool._gaps(terrain, dst[:, :, 0]) - (src[:, :, 0, 1] - floor)
    assert abs(float(np.nanmean(over[heel]))) <= STILL_FOOT, float(np.nanmean(over[heel]))
