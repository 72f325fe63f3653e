"""An independent floor test (issue 34, item 4): ``footfall ground`` keeps each shared clip's
floor, measured here from the *source's* own feet, not from grounding's contacts or floor.

The floor a clip was animated on is read off the source alone: the 2nd percentile of its
lowest foot point — the foot joint, every joint below it and their End Sites — over the frames
the source's foot is planted by this test's own rule (``skinned_feet.source_contacts``: within
2.5 cm of that foot's low level and slower than 0.35 m/s). A grounded clip keeps its floor when
the same measure of the output, over the same source frames, reads the ground's height.

The earlier floor test took its floor and contacts from the code under test, so a clip placed
with a wrong floor but otherwise unchanged passed it; here that clip fails (checked below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import HUMANOID_BVH_FILES
from footfall import bvh
from footfall.cli import main
from footfall.skeleton import Clip
from skinned_feet import source_contacts, source_soles

#: Millimetres the floors may differ by: a percentile of noisy captures (the shared clips'
#: independent floor and grounding's differ by 0.0–3.5 mm).
TOLERANCE = 0.005
PERCENTILE = 2


def floor_of(clip: Clip, contacts: np.ndarray) -> float:
    """The floor under ``clip``'s feet over the source's planted frames ``contacts (F, 2)``."""
    heights, _ = source_soles(clip)
    return float(np.percentile(heights[contacts], PERCENTILE))


def _ground(tmp_path: Path, source: Path, *terrain: str) -> Clip:
    out = tmp_path / f"{source.stem}_{terrain[0]}.bvh"
    assert main(["ground", str(source), "--terrain", *terrain, "-o", str(out), "--quiet"]) == 0
    return bvh.load(out)


@pytest.mark.parametrize("path", HUMANOID_BVH_FILES, ids=lambda p: p.stem)
def test_grounding_keeps_the_floor_the_source_stands_on(tmp_path: Path, path: Path) -> None:
    clip = bvh.load(path)
    contacts = source_contacts(clip)
    assert contacts.any()
    floor = floor_of(clip, contacts)
    # Flat ground at y = 0 laid under the clip where it is: its floor must come down onto it.
    flat = _ground(tmp_path, path, "flat", "--no-place")
    assert flat.frame_count == clip.frame_count
    assert abs(floor_of(flat, contacts)) <= TOLERANCE, (floor, floor_of(flat, contacts))
    # Level ground at the clip's own floor: the floor stays where the source has it.
    level = _ground(tmp_path, path, "level")
    assert abs(floor_of(level, contacts) - floor) <= TOLERANCE
    # The measure can fail: the clip moved onto the ground with its floor 1 cm off, nothing
    # else changed, reads 1 cm.
    wrong = Clip(clip.skeleton, clip.rotations, clip.positions.copy(), clip.fps)
    roots = clip.skeleton.parents < 0
    wrong.positions[:, roots, 1] += 0.01 - floor
    assert abs(floor_of(wrong, contacts)) > TOLERANCE
