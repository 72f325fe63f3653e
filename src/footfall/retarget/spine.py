"""Spine and neck redistribution between chains of different bone counts (seed 001).

The source chain is split into as many consecutive groups as the target chain has bones; each
target bone follows the world rotation of the *last* bone of its group, so the target's chest
and neck end up oriented like the source's (with fewer source bones, several target bones share
one). Chains come from the hierarchy: the spine is every joint strictly between the hips and the
neck (or head); the neck chain runs from the neck to just below the head.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from footfall.skeleton import Skeleton


@dataclass(frozen=True)
class ChainMatch:
    """One matched chain.

    Attributes:
        name: ``"spine"`` or ``"neck"``.
        target: target joint indices, root side first.
        source: source joint indices, root side first.
        source_for_target: for each target joint, the source joint it follows.
    """

    name: str
    target: list[int]
    source: list[int]
    source_for_target: list[int]


def group_last(source_count: int, target_count: int) -> list[int]:
    """For each of ``target_count`` bones, the index of the last source bone of its group.

    ``group_last(5, 3) == [1, 3, 4]``; ``group_last(3, 5) == [0, 1, 1, 2, 2]``.
    """
    if source_count <= 0 or target_count <= 0:
        return []
    return [math.ceil((k + 1) * source_count / target_count - 1e-9) - 1
            for k in range(target_count)]


def chain_between(skeleton: Skeleton, top: int, bottom: int, include_bottom: bool = False
                  ) -> list[int] | None:
    """Joints strictly below ``top`` down to ``bottom`` (exclusive unless asked), root side
    first; None when ``top`` is not an ancestor of ``bottom``."""
    path = skeleton.chain(bottom)
    if top not in path:
        return None
    below = path[path.index(top) + 1:]
    return below if include_bottom else below[:-1]


def _chains(skeleton: Skeleton, mapping: Mapping[str, str]) -> dict[str, list[int]]:
    if "Head" not in mapping:
        return {}
    hips = skeleton.index(mapping["Hips"])
    head = skeleton.index(mapping["Head"])
    neck = skeleton.index(mapping["Neck"]) if "Neck" in mapping else None
    out = {}
    spine = chain_between(skeleton, hips, neck if neck is not None else head)
    if spine is not None:
        out["spine"] = spine
    if neck is not None:
        above = chain_between(skeleton, neck, head)
        if above is not None:
            out["neck"] = [neck, *above]
    return out


def match_chains(
    source: Skeleton,
    target: Skeleton,
    source_map: Mapping[str, str],
    target_map: Mapping[str, str],
) -> list[ChainMatch]:
    """Spine and neck chains of both skeletons, grouped (empty chains are skipped)."""
    source_chains = _chains(source, source_map)
    target_chains = _chains(target, target_map)
    out = []
    for name in ("spine", "neck"):
        src = source_chains.get(name, [])
        tgt = target_chains.get(name, [])
        if src and tgt:
            out.append(ChainMatch(name, tgt, src, [src[i] for i in group_last(len(src), len(tgt))]))
    return out
