"""A contact sheet of a retarget: the avatar from the side at a few moments, the floor line,
the source skeleton beside it (``footfall retarget --preview OUT.png``).

A side view shows floating and sinking at once: every panel draws the floor (y = 0) across the
source and the avatar, the avatar's skinned mesh (its bones for a BVH target) and the source's
bones, with the lowest foot point of each written under it. The moments are spread over the
clip, with the source's planted frames preferred.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from footfall import quat
from footfall.arrays import FloatArray
from footfall.batch.atomic import replacing
from footfall.errors import SkeletonError
from footfall.skeleton import Clip, Skeleton


def skin_vertices(rest_vertices: FloatArray, weights: FloatArray, rest_world: FloatArray,
                  rest_positions: FloatArray, world: FloatArray, positions: FloatArray
                  ) -> FloatArray:
    """Linear blend skinning from the rest pose: vertices ``(V, 3)`` at rest with weights
    ``(V, J)``, the joints' world rotations ``(J, 4)`` and positions ``(J, 3)`` at rest and in
    the pose → posed vertices ``(V, 3)``, metres."""
    turn = quat.mul(world, quat.inv(rest_world))  # (J, 4): each joint's turn from rest
    used = np.nonzero(weights.any(axis=0))[0]
    out = np.zeros_like(rest_vertices)
    for j in used:
        w = weights[:, j]
        on = w > 0
        moved = quat.rotate(turn[j], rest_vertices[on] - rest_positions[j]) + positions[j]
        out[on] += w[on, None] * moved
    return out


def _bones(ax: object, skeleton: Skeleton, positions: FloatArray, shift: float,
           colour: str) -> None:
    for j, p in enumerate(skeleton.parents):
        if p >= 0:
            a, b = positions[p], positions[j]
            ax.plot([a[2] + shift, b[2] + shift], [a[1], b[1]], color=colour, lw=1.2)  # type: ignore[attr-defined]


def pick_moments(planted: np.ndarray, count: int) -> list[int]:
    """``count`` frame indices spread over the clip, each moved to the nearest frame where a
    source foot is planted (``planted (F, 2)``) when there is one within a tenth of the clip."""
    frames = len(planted)
    spots = np.linspace(0, frames - 1, count + 2)[1:-1].round().astype(int)
    any_planted = np.nonzero(planted.any(axis=1))[0]
    out = []
    for s in spots:
        if len(any_planted):
            near = any_planted[np.argmin(np.abs(any_planted - s))]
            s = near if abs(near - s) <= max(frames // 10, 1) else s
        out.append(int(s))
    return out


def contact_sheet(source: Clip, target: Clip, path: str | Path, *,
                  mesh: tuple[FloatArray, FloatArray] | None = None,
                  target_rest: FloatArray | None = None,
                  planted: np.ndarray | None = None, count: int = 6,
                  title: str = "") -> list[int]:
    """Draw the sheet to ``path`` (PNG): ``count`` panels, side view (Z → right, Y up).

    ``mesh``: the avatar's rest vertices ``(V, 3)`` and weights ``(V, J)`` (skinned per panel);
    ``target_rest``: ``(J, 4)`` local rotations of the rest pose the mesh was bound in;
    ``planted``: ``(F, 2)`` the source's foot contacts (marked, and preferred as moments).
    Returns the frames drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if source.frame_count == 0 or target.frame_count != source.frame_count:
        raise SkeletonError(f"contact sheet: the source has {source.frame_count} frames and the "
                            f"target {target.frame_count}; both need the same, at least one")
    planted = (np.zeros((source.frame_count, 2), dtype=bool) if planted is None
               else np.asarray(planted, dtype=bool))
    frames = pick_moments(planted, count)
    spos_all = source.global_positions()
    tworld_all, tpos_all = target.global_rotations(), target.global_positions()
    if mesh is not None:
        rest = (np.asarray(target_rest) if target_rest is not None
                else quat.identity((target.skeleton.joint_count,)))
        rest_clip = Clip(target.skeleton, rest[None], target.skeleton.offsets[None], 30.0)
        rest_world, rest_pos = rest_clip.global_rotations()[0], rest_clip.global_positions()[0]
    columns = min(len(frames), 3)
    rows = -(-len(frames) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 4.0 * rows), squeeze=False)
    height = max(float(np.ptp(spos_all[..., 1])), float(np.ptp(tpos_all[..., 1])), 0.5)
    if mesh is not None:
        height = max(height, float(np.ptp(mesh[0][:, 1])))
    gap = 0.45 * height
    for ax in axes.ravel()[len(frames):]:
        ax.axis("off")
    for ax, f in zip(axes.ravel(), frames, strict=False):
        spos, tpos = spos_all[f], tpos_all[f]
        centre_s, centre_t = spos[:, 2].mean(), tpos[:, 2].mean()
        _bones(ax, source.skeleton, spos, -centre_s - gap, "tab:blue")
        if mesh is not None:
            verts = skin_vertices(mesh[0], mesh[1], rest_world, rest_pos, tworld_all[f], tpos)
            ax.scatter(verts[:, 2] - centre_t + gap, verts[:, 1], s=0.15, c="0.45")
            low = float(verts[:, 1].min())
        else:
            low = float(tpos[:, 1].min())
        _bones(ax, target.skeleton, tpos, -centre_t + gap, "tab:orange")
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_xlim(-2.0 * gap, 2.0 * gap)
        ax.set_ylim(-0.15 * height, 1.1 * height)
        ax.set_aspect("equal")
        ax.set_xticks([])
        marks = "".join("LR"[k] for k in range(2) if planted[f, k]) or "-"
        ax.set_title(f"frame {f}  planted {marks}\nlowest {low * 100:+.1f} cm", fontsize=8)
    fig.suptitle(title or "source (blue) → target (orange), floor y = 0", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    try:
        with replacing(path) as partial:  # an earlier sheet is kept whole if this one fails
            fig.savefig(partial, dpi=90, format="png")
    finally:
        plt.close(fig)
    return frames
