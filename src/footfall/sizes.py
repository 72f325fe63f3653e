"""How big a skeleton may be, and how few frames a clip: one check for every reader and entry.

Work downstream grows with a skeleton's size (grounding samples each sole every centimetre)
and fails on a clip without frames, so both are checked where a clip comes in — when a file is
read (:func:`footfall.bvh.load`, :func:`footfall.gltf.load_avatar`) and at the entries that
need motion — by :func:`check_size`, with a message naming the file and the size.

A skeleton's size is its **reach**: the longest chain of bones from a root to a joint or end
site, summed bone by bone (a person: about 1 m, hips to fingertips). It bounds every pose's
extent whatever the rotations, so it is measured once on the offsets; a clip's reach uses the
longest each bone gets in any frame (position channels may stretch bones). A root's own
translation is where the skeleton is, not how big it is, and is left out.
"""

from __future__ import annotations

import numpy as np

from footfall.arrays import FloatArray
from footfall.errors import FootfallError, SkeletonError
from footfall.skeleton import Clip, Skeleton

#: Largest reach accepted, metres: a hundred times a person's; a skeleton kilometres tall is
#: a file in the wrong unit (or made to hurt: grounding's sole samples grow with it).
MAX_REACH_METRES = 100.0


def reach(item: Skeleton | Clip) -> float:
    """The longest chain of bones from a root to a joint or end site, metres (see the module
    docstring); for a clip, each bone at its longest over the frames (bounded from above:
    each axis of a bone's translation at its extreme)."""
    skeleton = item if isinstance(item, Skeleton) else item.skeleton
    if isinstance(item, Clip) and item.frame_count:
        # Each axis at its extreme over the frames: a bound on the bone's longest, found by two
        # reductions without a temporary the size of the clip.
        extreme = np.maximum(item.positions.max(axis=0), -item.positions.min(axis=0))
        lengths = np.linalg.norm(extreme, axis=-1)
    else:
        lengths = skeleton.bone_lengths()
    return float(_chain_lengths(skeleton, lengths).max())


def _chain_lengths(skeleton: Skeleton, bone_lengths: FloatArray) -> FloatArray:
    """``(J + S,)`` summed bone lengths from the root to each joint, then to each end site."""
    parents = skeleton.parents
    chains = np.zeros(skeleton.joint_count)
    for joint in range(skeleton.joint_count):  # parents come first
        if parents[joint] >= 0:
            chains[joint] = chains[parents[joint]] + bone_lengths[joint]
    tips = [chains[joint] + float(np.linalg.norm(site))
            for joint, site in skeleton.end_sites.items()]
    return np.concatenate([chains, tips])


def check_size(item: Skeleton | Clip, source: str, *, min_frames: int = 0,
               error: type[FootfallError] = SkeletonError) -> None:
    """Refuse a skeleton or clip whose :func:`reach` passes :data:`MAX_REACH_METRES`, and a clip
    of fewer than ``min_frames`` frames.

    Args:
        item: a skeleton, or a clip (its skeleton and the bone lengths it animates).
        source: what the message names: the file, or the entry that was given the clip.
        min_frames: frames the caller needs (1 for anything that plays or changes motion).
        error: the exception type raised (the reader's own: ``BVHError``, ``GLTFError``).
    """
    if isinstance(item, Clip) and item.frame_count < min_frames:
        found = "no frames" if item.frame_count == 0 else f"{item.frame_count} frames"
        raise error(f"{source}: the clip has {found}; at least {min_frames} needed")
    size = reach(item)
    if not size <= MAX_REACH_METRES:
        raise error(f"{source}: the skeleton reaches {size:.4g} m from its root (a person: "
                    f"about 1 m); over {MAX_REACH_METRES:g} m is refused — a wrong unit or scale?")
