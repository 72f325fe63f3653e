"""Hierarchy questions the name mapping asks: ancestry, paths, and legs found by shape alone.

When only joint names are known (no skeleton), list order stands in for the hierarchy: every
common format lists a parent before its children, so within one limb list order is chain order.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from footfall.skeleton import Skeleton


@dataclass(frozen=True)
class Hierarchy:
    """Joint names with their parents and rest positions when a skeleton is known.

    Attributes:
        names: joint names, length J.
        parents: ``(J,)`` parent indices (−1 for roots), or ``None`` for a bare name list.
        rest: ``(J, 3)`` global rest positions in metres, or ``None``.
    """

    names: tuple[str, ...]
    parents: NDArray[np.int64] | None = None
    rest: NDArray[np.float64] | None = None

    @classmethod
    def of(cls, names_or_skeleton: Skeleton | Sequence[str]) -> Hierarchy:
        """A hierarchy from a :class:`Skeleton` (full structure) or a list of names (order only)."""
        if isinstance(names_or_skeleton, Skeleton):
            skeleton = names_or_skeleton
            return cls(tuple(skeleton.names), skeleton.parents, skeleton.rest_positions())
        return cls(tuple(str(name) for name in names_or_skeleton))

    def __len__(self) -> int:
        return len(self.names)

    def depth(self, joint: int) -> int:
        """Number of ancestors of ``joint`` (its list position when the parents are unknown)."""
        return len(self._ancestor_lists[joint])

    @cached_property
    def _ancestor_lists(self) -> tuple[tuple[int, ...], ...]:
        count = len(self.names)
        if self.parents is None:
            return tuple(tuple(range(j - 1, -1, -1)) for j in range(count))
        lists: list[tuple[int, ...]] = []
        for joint in range(count):  # parents precede children, so theirs are already known
            parent = int(self.parents[joint])
            lists.append(() if parent < 0 else (parent, *lists[parent]))
        return tuple(lists)

    @cached_property
    def _ancestor_sets(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(above) for above in self._ancestor_lists)

    def ancestors(self, joint: int) -> list[int]:
        """Ancestors of ``joint``, nearest first (every earlier joint for a bare name list)."""
        return list(self._ancestor_lists[joint])

    def is_ancestor(self, ancestor: int, joint: int) -> bool:
        """True when ``ancestor`` lies above ``joint`` (strictly)."""
        return ancestor in self._ancestor_sets[joint]

    def children(self, joint: int) -> list[int]:
        """Direct children of ``joint`` (empty for a bare name list)."""
        if self.parents is None:
            return []
        return [int(j) for j in np.nonzero(self.parents == joint)[0]]

    def common_ancestor(self, a: int, b: int) -> int | None:
        """Deepest joint above both ``a`` and ``b`` (strictly above each), or ``None``."""
        above_b = self._ancestor_sets[b]
        return next((joint for joint in self._ancestor_lists[a] if joint in above_b), None)

    def path_between(self, top: int, bottom: int) -> list[int]:
        """Joints strictly between ``top`` and its descendant ``bottom``, top first."""
        between: list[int] = []
        for joint in self.ancestors(bottom):
            if joint == top:
                return between[::-1]
            between.append(joint)
        return []

    def longest_chain(self, joints: Sequence[int]) -> list[int]:
        """The longest run of ``joints`` in which each is an ancestor of the next, top first."""
        chosen = set(joints)
        best: list[int] = []
        for joint in sorted(joints, key=self.depth):
            chain = [a for a in self.ancestors(joint)[::-1] if a in chosen] + [joint]
            if len(chain) > len(best):
                best = chain
        return best


class LegChain(NamedTuple):
    """Joint indices of one leg: hip (thigh), knee, ankle and toe (``None`` when absent)."""

    upper: int
    lower: int
    foot: int
    toes: int | None


def legs_by_shape(hierarchy: Hierarchy, exclude: Collection[int] = ()) -> dict[str, LegChain]:
    """Legs of an unnamed rig: the two branches that end lowest in the rest pose.

    Each branch from the joint where the two split must hold at least three joints; the thigh and
    shin are the two consecutive bones of greatest total length, the foot and toes (if any)
    follow. A leg must be long (thigh + shin ≥ a quarter of the rig's height) and hang down (foot
    below thigh by half that length), which rules out fingers and ears. Branches through an
    ``exclude`` joint are skipped; the one with the larger x is the left. ``{}`` when none fit.
    """
    if hierarchy.parents is None or hierarchy.rest is None:
        return {}
    rest = hierarchy.rest
    excluded = set(exclude)
    leaves = [j for j in range(len(hierarchy)) if not hierarchy.children(j)]
    leaves.sort(key=lambda j: (rest[j, 1], j))
    for first_rank, first in enumerate(leaves):
        for second in leaves[first_rank + 1 :]:
            split = hierarchy.common_ancestor(first, second)
            if split is None:
                continue
            branches = [hierarchy.path_between(split, leaf) + [leaf] for leaf in (first, second)]
            if any(joint in excluded for branch in branches for joint in branch):
                continue
            first_leg, second_leg = (_leg_on_branch(hierarchy, branch) for branch in branches)
            if first_leg is None or second_leg is None:
                continue
            left_first = rest[first_leg.foot, 0] >= rest[second_leg.foot, 0]
            order = ("Left", "Right") if left_first else ("Right", "Left")
            return dict(zip(order, (first_leg, second_leg), strict=True))
    return {}


def _leg_on_branch(hierarchy: Hierarchy, branch: list[int]) -> LegChain | None:
    if len(branch) < 3:
        return None
    rest = hierarchy.rest
    assert rest is not None
    bones = np.linalg.norm(np.diff(rest[branch], axis=0), axis=-1)
    pairs = bones[:-1] + bones[1:]
    top = int(np.argmax(pairs))
    height = float(np.ptp(rest[:, 1]))
    drop = rest[branch[top], 1] - rest[branch[top + 2], 1]
    if pairs[top] <= 0.0 or pairs[top] < 0.25 * height or drop < 0.5 * pairs[top]:
        return None
    toes = branch[top + 3] if top + 3 < len(branch) else None
    return LegChain(branch[top], branch[top + 1], branch[top + 2], toes)
