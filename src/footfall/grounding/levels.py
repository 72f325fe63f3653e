"""Forward kinematics by tree depth: one quaternion product per depth level, not per joint.

:func:`footfall.skeleton.forward_kinematics` walks the joints one by one, which for a few
characters costs two small NumPy calls per joint (their fixed overhead, not the arithmetic).
Joints at the same depth only need their parents' results, so they can be done together: the
bunny's 22 joints take 4 levels. Every element goes through the same ``quat.mul`` /
``quat.rotate`` arithmetic as in the joint-by-joint walk, so results are bit-identical.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from footfall.quat import mul, rotate

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]


class LevelFK:
    """Forward kinematics for one ``parents (J,)`` array, its depth levels computed once.

    Call with local ``rotations (K, J, 4)`` and ``translations (K, J, 3)`` (one leading batch
    axis); returns ``(global_rotations (K, J, 4), global_positions (K, J, 3))``.

    ``needed``: optional joint indices; then only they and their ancestors are computed (the
    other rows of the result are zeros).
    """

    def __init__(self, parents: ArrayLike, needed: ArrayLike | None = None) -> None:
        parents = np.asarray(parents, dtype=np.intp)
        depth = np.zeros(len(parents), dtype=np.intp)
        for j, p in enumerate(parents):  # parents come before children
            depth[j] = 0 if p < 0 else depth[p] + 1
        wanted = np.ones(len(parents), dtype=bool)
        if needed is not None:
            wanted[:] = False
            for k in np.asarray(needed, dtype=np.intp).reshape(-1):
                while k >= 0 and not wanted[k]:
                    wanted[k] = True
                    k = parents[k]
        self.complete = bool(wanted.all())
        self.roots: IntArray = np.nonzero((parents < 0) & wanted)[0]
        #: (joints, their parents) per depth level 1, 2, …
        self.levels: list[tuple[IntArray, IntArray]] = []
        for level in range(1, int(depth.max(initial=0)) + 1):
            joints = np.nonzero((depth == level) & wanted)[0]
            if len(joints):
                self.levels.append((joints, parents[joints]))

    def __call__(
        self, rotations: FloatArray, translations: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        make = np.empty_like if self.complete else np.zeros_like
        global_rot = make(rotations)
        global_pos = make(translations)
        roots = self.roots
        global_rot[:, roots] = rotations[:, roots]
        global_pos[:, roots] = translations[:, roots]
        for joints, parents in self.levels:
            parent_rot = global_rot[:, parents]
            global_rot[:, joints] = mul(parent_rot, rotations[:, joints])
            global_pos[:, joints] = global_pos[:, parents] + rotate(
                parent_rot, translations[:, joints]
            )
        return global_rot, global_pos
