"""Writes ``contacts.glb``: a three-joint clip (48 frames, 24 fps) with footfall's contact curves
of a fixed pattern, the file ``blender_contacts.py`` imports in Blender 3.4.

Run from the repository: ``PYTHONPATH=src python tests/data/blender/make_contacts_glb.py OUT``.
``tests/test_contact_curves.py`` calls :func:`contacts` and :func:`write` too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

FRAMES, FPS = 48, 24.0


def contacts() -> np.ndarray:
    """``(48, 2)`` left planted frames 0–14 and 30–47, right 8–37."""
    planted = np.zeros((FRAMES, 2), dtype=bool)
    planted[0:15, 0] = planted[30:48, 0] = True
    planted[8:38, 1] = True
    return planted


def write(path: str | Path) -> None:
    """The clip (hips moving along +Z, two feet) as a skeleton-only GLB with the curves."""
    from footfall.contact_curves import add_to_gltf, contact_curves
    from footfall.motion_io import save_motion
    from footfall.skeleton import Clip, Skeleton

    skeleton = Skeleton(["hips", "foot_l", "foot_r"], [-1, 0, 0],
                        [[0.0, 0.9, 0.0], [0.1, -0.85, 0.0], [-0.1, -0.85, 0.0]])
    clip = Clip.from_rest(skeleton, FRAMES, FPS)
    clip.positions[:, 0, 2] = np.linspace(0.0, 2.0, FRAMES)
    save_motion(clip, path)
    add_to_gltf(path, contact_curves(contacts(), FPS))


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("contacts.glb"))
