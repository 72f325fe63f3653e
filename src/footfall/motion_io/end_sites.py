"""End Sites for the BVH files footfall writes, so what a reader needs of the feet survives.

A BVH foot's sole reaches to its toe tip: the End Site below the last toe joint. A glTF
avatar has no such marker (its sole is its skin), and a skeleton solved from joint positions
ends at the toe base. Written without End Sites, a BVH of either loses the tip (and some tools
refuse a leaf without one). So:

- :func:`avatar_toe_sites`: an avatar's toe tips from its skinned feet (the foot's most forward
  vertex, at the sole's height), as End Sites of each foot's last joint;
- :func:`leaf_sites`: every other leaf continues its bone by half (a head's top, a hand's
  fingertips); a toe leaf of a joint layout goes half the ankle→toe distance further forward
  at the toe's own height (a toe base is on the floor, so is the tip).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.skeleton import Clip, Skeleton, forward_kinematics

#: How far a leaf's End Site continues its bone (a fraction of the bone).
LEAF_CONTINUATION = 0.5
#: A foot's sole: its vertices within this height (metres) of its lowest one.
SOLE_BAND_M = 0.02


def with_end_sites(clip: Clip, sites: Mapping[int, FloatArray]) -> Clip:
    """``clip`` with ``sites`` added as End Sites where its skeleton has none (the same
    arrays, a new skeleton)."""
    extra = {j: np.asarray(v, dtype=np.float64) for j, v in sites.items()
             if j not in clip.skeleton.end_sites}
    if not extra:
        return clip
    skeleton = clip.skeleton
    merged = {**skeleton.end_sites, **extra}
    return Clip(Skeleton(skeleton.names, skeleton.parents, skeleton.offsets, merged),
                clip.rotations, clip.positions, clip.fps)


def _leaves(skeleton: Skeleton) -> list[int]:
    return [j for j in range(skeleton.joint_count) if not skeleton.children(j)]


def leaf_sites(skeleton: Skeleton, toes: Collection[str] = ()) -> dict[int, FloatArray]:
    """End Sites ``{leaf: (3,) offset}`` for a skeleton whose rest pose has identity
    rotations (a solved joint skeleton): each leaf continues its bone by
    :data:`LEAF_CONTINUATION`; a leaf named in ``toes`` only horizontally (Y up)."""
    sites = {}
    for leaf in _leaves(skeleton):
        if skeleton.parents[leaf] < 0:
            continue
        bone = LEAF_CONTINUATION * np.asarray(skeleton.offsets[leaf], dtype=np.float64)
        if skeleton.names[leaf] in toes:
            bone = bone * np.array([1.0, 0.0, 1.0])
        if np.linalg.norm(bone) > 1e-6:
            sites[leaf] = bone
    return sites


def _below(skeleton: Skeleton, joint: int) -> list[int]:
    """``joint`` and every joint under it."""
    found, stack = [], [joint]
    while stack:
        j = stack.pop()
        found.append(j)
        stack.extend(skeleton.children(j))
    return found


def avatar_toe_sites(avatar: object, scale: float = 1.0) -> dict[int, FloatArray]:
    """End Sites at an avatar's toe tips from its skin: per foot, the most forward (+Z)
    vertex weighted to the foot, at its sole's height, in the frame of the foot's last joint;
    offsets times ``scale`` (a retargeted clip's avatar scale). Empty without a mesh on the
    feet or without two legs found."""
    from footfall.errors import FootfallError
    from footfall.humanoid import map_skeleton
    from footfall.skinning import FOOT_WEIGHT, rest_mesh

    try:
        mesh = rest_mesh(avatar)  # type: ignore[arg-type]
        mapping = map_skeleton(avatar.skeleton,  # type: ignore[attr-defined]
                               avatar.target_mapping()).mapping  # type: ignore[attr-defined]
    except FootfallError:
        return {}
    if mesh is None or not all(b in mapping for b in ("LeftFoot", "RightFoot")):
        return {}
    vertices, _, weights = mesh
    skeleton: Skeleton = avatar.skeleton  # type: ignore[attr-defined]
    world, at = forward_kinematics(skeleton.parents,
                                   avatar.rest_rotations,  # type: ignore[attr-defined]
                                   skeleton.offsets)
    sites = {}
    for bone in ("LeftFoot", "RightFoot"):
        foot = skeleton.index(mapping[bone])
        under = _below(skeleton, foot)
        on_foot = weights[:, under].sum(axis=1) >= FOOT_WEIGHT
        if not on_foot.any():
            continue
        points = vertices[on_foot]
        sole = points[points[:, 1] <= points[:, 1].min() + SOLE_BAND_M]
        tip = sole[np.argmax(sole[:, 2])].copy()
        leaf = max((j for j in under if not skeleton.children(j)),
                   key=lambda j: at[j, 2], default=foot)
        sites[leaf] = scale * quat.inv_rotate(world[leaf], tip - at[leaf])
    return sites
