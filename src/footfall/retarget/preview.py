"""A contact sheet of a retarget: the avatar from the side at a few moments, the floor, the
source skeleton beside it (``footfall retarget --preview OUT.png``).

A side view shows floating, sinking and crouching at once: every panel draws the floor (y = 0)
under the source and the avatar, the avatar's skinned mesh as filled triangles lit by their
face normals (seen from its left side, a little from above, so the floor is a plane; its bones
for a rig without a mesh; a mesh of rigid parts on the bones, as the shared VRM samples have,
with the bones drawn over it) and the source's bones, with the lowest point of the avatar
written above it. The moments are spread over the clip, with the source's planted frames preferred.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


#: Where the light comes from in a mesh panel (world, unit): above, in front, on the seen side.
LIGHT = np.array([0.45, 0.8, 0.4]) / np.linalg.norm([0.45, 0.8, 0.4])
MESH_GREY = np.array([0.78, 0.78, 0.8])  # the avatar's colour under full light
FLOOR_COLOUR = (0.55, 0.7, 0.55, 0.45)


def shade(triangles: FloatArray) -> FloatArray:
    """``(T, 4)`` RGBA of ``triangles (T, 3, 3)`` lit by :data:`LIGHT` by their face normals
    (both sides lit alike: a mirrored part's winding does not darken it), 0.3 ambient."""
    normal = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    length = np.linalg.norm(normal, axis=-1, keepdims=True)
    normal = normal / np.where(length > 0, length, 1.0)
    light = 0.3 + 0.7 * np.abs(normal @ LIGHT)
    return np.concatenate([light[:, None] * MESH_GREY, np.ones((len(triangles), 1))], axis=1)


def _sheet_figure(panels: int, mesh: bool) -> tuple[Any, list[Any]]:
    """A figure of ``panels`` panels in rows of three (3-D axes for a mesh) and its axes."""
    import matplotlib.pyplot as plt

    columns = min(panels, 3)
    rows = -(-panels // columns)
    fig = plt.figure(figsize=(4.2 * columns, 4.0 * rows))
    axes = [fig.add_subplot(rows, columns, i + 1, **({"projection": "3d"} if mesh else {}))
            for i in range(panels)]
    return fig, axes


def _mesh_panel(ax: Any, verts: FloatArray, faces: np.ndarray, bones: list[tuple[
        Skeleton, FloatArray, float, str]], centre: FloatArray, gap: float, height: float,
                over: list[tuple[Skeleton, FloatArray, float, str]] | None = None) -> None:
    """One 3-D panel: the floor, the skeletons ``(skeleton, positions (J, 3), shift along the
    walk, colour)`` and the mesh ``verts (V, 3)`` / ``faces (T, 3)`` shifted by ``gap``, then
    the skeletons ``over`` drawn on top of the mesh; world (x, y, z) is drawn as (z → right, −x
    into the page, y up) around ``centre (3,)``."""
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # type: ignore[import-untyped]

    def plot(points: FloatArray, shift: float) -> FloatArray:
        p = points - centre * np.array([1.0, 0.0, 1.0])
        return np.stack([p[..., 2] + shift, -p[..., 0], p[..., 1]], axis=-1)

    ax.set_proj_type("ortho")
    ax.computed_zorder = False
    ax.view_init(elev=8, azim=-90)
    depth = 0.5 * gap
    triangles = plot(verts, gap)[faces]
    # wide enough for the whole mesh (a kneeling or bowing body reaches far along the walk)
    left = min(-2 * gap, float(triangles[..., 0].min()) - 0.05 * gap)
    right = max(2 * gap, float(triangles[..., 0].max()) + 0.05 * gap)
    floor = np.array([[left, -depth, 0.0], [right, -depth, 0.0], [right, depth, 0.0],
                      [left, depth, 0.0]])
    ax.add_collection3d(Poly3DCollection([floor], facecolors=[FLOOR_COLOUR],
                                         edgecolors="none", zorder=1))
    ax.plot([left, right], [-depth, -depth], [0.0, 0.0], color="k", lw=0.8, zorder=2)
    for layer, zorder in ((bones, 3), (over or [], 5)):
        for skeleton, positions, shift, colour in layer:
            p = plot(positions, shift)
            for j, parent in enumerate(skeleton.parents):
                if parent >= 0:
                    ax.plot(*p[[parent, j]].T, color=colour, lw=1.2, zorder=zorder)
        if zorder == 3:
            ax.add_collection3d(Poly3DCollection(list(triangles),
                                                 facecolors=shade(verts[faces]),
                                                 edgecolors="none", zorder=4))
    ax.set_xlim(left, right)
    ax.set_ylim(-depth, depth)
    ax.set_zlim(-0.15 * height, 1.1 * height)
    ax.set_box_aspect((right - left, 2 * depth, 1.25 * height),
                      zoom=1.3 * 4 * gap / (right - left))
    ax.set_axis_off()


def contact_sheet(source: Clip, target: Clip, path: str | Path, *,
                  mesh: tuple[FloatArray, FloatArray] | None = None,
                  faces: np.ndarray | None = None,
                  target_rest: FloatArray | None = None,
                  planted: np.ndarray | None = None, count: int = 6,
                  title: str = "", bones_over: bool = False) -> list[int]:
    """Draw the sheet to ``path`` (PNG): ``count`` panels, side view (Z → right, Y up).

    ``mesh``: the avatar's rest vertices ``(V, 3)`` and weights ``(V, J)`` (skinned per panel);
    ``faces``: its triangles ``(T, 3)`` (vertex indices) — with them the mesh is drawn filled
    and lit, without them as points; ``target_rest``: ``(J, 4)`` local rotations of the rest
    pose the mesh was bound in; ``planted``: ``(F, 2)`` the source's foot contacts (marked, and
    preferred as moments); ``bones_over``: draw the avatar's bones over its filled mesh too
    (a mesh of rigid parts, such as the shared VRM samples' blocks and planes, does not show
    the body), and write the lowest joint beside the mesh's lowest point. Returns the frames
    drawn."""
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
    filled = mesh is not None and faces is not None and len(faces) > 0
    if mesh is not None:
        rest = (np.asarray(target_rest) if target_rest is not None
                else quat.identity((target.skeleton.joint_count,)))
        rest_clip = Clip(target.skeleton, rest[None], target.skeleton.offsets[None], 30.0)
        rest_world, rest_pos = rest_clip.global_rotations()[0], rest_clip.global_positions()[0]
    height = max(float(np.ptp(spos_all[..., 1])), float(np.ptp(tpos_all[..., 1])), 0.5)
    if mesh is not None:
        height = max(height, float(np.ptp(mesh[0][:, 1])))
    gap = 0.45 * height
    fig, axes = _sheet_figure(len(frames), filled)
    for ax, f in zip(axes, frames, strict=True):
        spos, tpos = spos_all[f], tpos_all[f]
        centre_s, centre_t = spos[:, 2].mean(), tpos[:, 2].mean()
        verts = (None if mesh is None else
                 skin_vertices(mesh[0], mesh[1], rest_world, rest_pos, tworld_all[f], tpos))
        low = float(tpos[:, 1].min() if verts is None else verts[:, 1].min())
        joints = (f", joints {float(tpos[:, 1].min()) * 100:+.1f} cm" if filled and bones_over
                  else "")
        if filled:
            assert verts is not None and faces is not None
            centre = np.array([tpos[:, 0].mean(), 0.0, centre_t])
            source_centre = np.array([spos[:, 0].mean(), 0.0, centre_s])
            _mesh_panel(ax, verts, np.asarray(faces), [
                (source.skeleton, spos - source_centre + centre, -gap, "tab:blue")],
                centre, gap, height,
                [(target.skeleton, tpos, gap, "tab:orange")] if bones_over else None)
        else:
            _bones(ax, source.skeleton, spos, -centre_s - gap, "tab:blue")
            if verts is not None:
                ax.scatter(verts[:, 2] - centre_t + gap, verts[:, 1], s=0.15, c="0.45")
            _bones(ax, target.skeleton, tpos, -centre_t + gap, "tab:orange")
            ax.axhline(0.0, color="k", lw=0.8)
            ax.set_xlim(-2.0 * gap, 2.0 * gap)
            ax.set_ylim(-0.15 * height, 1.1 * height)
            ax.set_aspect("equal")
            ax.set_xticks([])
        marks = "".join("LR"[k] for k in range(2) if planted[f, k]) or "-"
        ax.set_title(f"frame {f}  planted {marks}\nlowest {low * 100:+.1f} cm{joints}",
                     fontsize=8)
    fig.suptitle(title or "source (blue) → target, floor y = 0", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    try:
        with replacing(path) as partial:  # an earlier sheet is kept whole if this one fails
            fig.savefig(partial, dpi=90, format="png")
    finally:
        plt.close(fig)
    return frames
