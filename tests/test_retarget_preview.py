"""``--preview``'s contact sheet draws a skinned avatar as a filled, lit mesh (issue 35 item 5).

Cheap: three frames of CesiumMan's own walk drawn beside themselves as the source (no
retargeting); the sheet is read back as pixels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from footfall.gltf import load_animation, load_avatar
from footfall.retarget.preview import contact_sheet, shade
from footfall.skeleton import Clip
from footfall.skinning import rest_mesh


@pytest.fixture(scope="module")
def walking() -> tuple[Clip, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Three frames of CesiumMan's own walk, its rest rotations and its rest mesh (vertices,
    faces, weights)."""
    avatar = load_avatar(DATA / "avatars" / "CesiumMan.glb")
    mesh = rest_mesh(avatar)
    assert mesh is not None
    clip = load_animation(DATA / "avatars" / "CesiumMan.glb", avatar=avatar)[:3]
    return clip, avatar.rest_rotations, mesh


def _solid(path: Path) -> np.ndarray:
    """Grey levels of the right half of a sheet (a one-panel sheet: the avatar's) at its *solid*
    pixels:
    drawn in a mesh grey (neither the white page nor black text) with all eight neighbours
    drawn too — inside a filled area, not on a point or a line."""
    from PIL import Image

    grey = np.asarray(Image.open(path).convert("L"), dtype=float)
    half = grey[:, grey.shape[1] // 2:]
    drawn = (half < 215) & (half > 40)
    solid = drawn[1:-1, 1:-1].copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            solid &= drawn[1 + dy: drawn.shape[0] - 1 + dy, 1 + dx: drawn.shape[1] - 1 + dx]
    return half[1:-1, 1:-1][solid]


def test_the_sheet_draws_the_mesh_filled_and_lit(walking, tmp_path: Path) -> None:
    clip, rest, (vertices, faces, weights) = walking
    filled, points = tmp_path / "filled.png", tmp_path / "points.png"
    contact_sheet(clip, clip, filled, mesh=(vertices, weights), faces=faces, target_rest=rest,
                  count=1)
    contact_sheet(clip, clip, points, mesh=(vertices, weights), target_rest=rest, count=1)
    body, dotted = _solid(filled), _solid(points)
    # A filled body: thousands of solid pixels, several times what its vertices drawn as grey
    # points leave (only where they crowd, as on CesiumMan's head).
    assert len(body) > 2000
    assert len(body) > 3 * len(dotted)
    # Lit by face normals: many grey levels, from dark to light (measured: 143 levels, 135
    # apart; one flat grey leaves 34 levels, 54 apart, from the edges' antialiasing).
    assert len(np.unique(body.round())) > 80
    assert np.percentile(body, 95) - np.percentile(body, 5) > 90


def test_faces_facing_the_light_are_brighter() -> None:
    up = np.array([[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]])  # normal ±y
    side = np.array([[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])  # normal ±x
    flipped = up[:, ::-1]
    assert shade(up)[0, 0] > shade(side)[0, 0]
    assert shade(up)[0, 0] == pytest.approx(shade(flipped)[0, 0])


def test_footfall_retarget_preview_draws_the_filled_mesh(tmp_path: Path) -> None:
    """Through the command: ``footfall retarget --preview`` of a short walk onto CesiumMan
    passes the mesh's faces, so every panel's avatar is solid."""
    from footfall import bvh
    from footfall.cli import main

    source = tmp_path / "walk.bvh"
    bvh.save(bvh.load(DATA / "bvh" / "games105_walk60.bvh")[:20], source)
    sheet = tmp_path / "sheet.png"
    assert main(["retarget", str(source), "--to", str(DATA / "avatars" / "CesiumMan.glb"),
                 "-o", str(tmp_path / "out.glb"), "--preview", str(sheet), "--quiet"]) == 0
    # Measured: 24,000 solid pixels in the sheet's right half; its vertices as points: 6,000.
    assert len(_solid(sheet)) > 12_000
