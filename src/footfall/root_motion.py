"""Root motion: a clip's ground-plane path kept on the hips, moved to a root bone, or taken out.

Engines play a clip in one of two ways: *root motion* (Unreal, Unity's "apply root motion"),
where a root bone at floor height carries the character's travel — x, z and the heading about
Y — and the hips keep only the rest (height, sway, pitch, roll, the turn relative to the root);
or *in place*, where the character stays on the spot and the game moves it. This module turns a
:class:`~footfall.skeleton.Clip` into either, never moving a joint in world space:

- :func:`root_track` — the hips' ground-plane path ``(F, 3)`` (y = the floor) and heading
  ``(F,)``, radians about +Y, 0 when the hips face +Z as in the rest pose;
- :func:`extract_root_motion` — a root bone added above the old root(s), animated by the
  track; the old roots' local transforms become relative to it (the hips' x and z go to zero);
- :func:`in_place` — the track taken out (optionally without the heading) and returned
  separately: ``apply_track(in_place_clip, track)`` is the original motion again;
- :func:`apply_root_motion` — the ``--root-motion keep|in-place|extract`` front door.

Only the root joints' local transforms change (a root's local transform is its world one), so
every descendant keeps its world pose exactly, and contacts stay planted: world foot slide is
the same before and after (``tests/test_root_motion.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from footfall import quat
from footfall.arrays import FloatArray
from footfall.errors import SkeletonError
from footfall.skeleton import Clip, FKPlan, Skeleton

#: The ``--root-motion`` modes.
MODES = ("keep", "in-place", "extract")
#: Name of the root bone :func:`extract_root_motion` adds (Unreal's and Unity's convention).
ROOT_NAME = "root"
#: Metres a joint's animated translation may differ from its offset and still count as still.
_STILL = 1e-6
_UP = np.array([0.0, 1.0, 0.0])


@dataclass
class RootTrack:
    """A ground-plane path: where the character's root stands and which way it faces.

    Attributes:
        positions: ``(F, 3)`` root positions, metres (y is the floor height, or 0 for an
            in-place clip's track).
        heading: ``(F,)`` turn about +Y, radians, unwrapped (continuous over frames); 0 faces
            +Z.
        fps: frames per second.
    """

    positions: FloatArray
    heading: FloatArray
    fps: float

    @property
    def rotations(self) -> FloatArray:
        """``(F, 4)`` the heading as quaternions (w, x, y, z)."""
        return quat.from_axis_angle(_UP, self.heading)

    @property
    def frame_count(self) -> int:
        """Number of frames F."""
        return int(self.positions.shape[0])


@dataclass
class RootMotion:
    """What :func:`apply_root_motion` returns: the clip, and for ``in-place`` the track taken
    out of it (None otherwise)."""

    clip: Clip
    track: RootTrack | None = None


def motion_joint(clip: Clip, joint: str | int | None = None) -> int:
    """Index of the joint that carries the clip's travel (the hips): ``joint`` when given (a
    name or index), else the first joint whose translation is animated, else the first root."""
    skeleton = clip.skeleton
    if isinstance(joint, str):
        return skeleton.index(joint)
    if joint is not None:
        if not 0 <= int(joint) < skeleton.joint_count:
            raise SkeletonError(f"joint {joint} is out of range for {skeleton.joint_count} "
                                "joints")
        return int(joint)
    if clip.frame_count:
        moved = np.abs(clip.positions - skeleton.offsets).max(axis=(0, 2))
        varied = np.ptp(clip.positions, axis=0).max(axis=-1)
        animated = np.nonzero((moved > _STILL) | (varied > _STILL))[0]
        if animated.size:
            return int(animated[0])
    return int(np.nonzero(skeleton.parents < 0)[0][0])


def ground_track(world_rotation: ArrayLike, world_position: ArrayLike, *, floor: float = 0.0,
                 rest_world: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
    """A joint's ground-plane placement: ``(positions (..., 3), heading (...))`` from its world
    ``world_rotation (..., 4)`` and ``world_position (..., 3)`` (metres): its x and z at height
    ``floor``, and the twist about +Y (radians in (−π, π], 0 facing +Z) of its rotation
    relative to its rest world rotation ``rest_world (4,)`` (default the identity)."""
    rotation = np.asarray(world_rotation, dtype=np.float64)
    if rest_world is not None:
        rotation = quat.mul_inv(rotation, rest_world)
    _, twist = quat.swing_twist(rotation, _UP)
    # A turn of 180° about a horizontal axis has no twist: its w and y are both ~0; atan2 of
    # two zeros gives 0 there, the same as the identity, which is as good as any heading.
    heading = 2.0 * np.arctan2(twist[..., 2], twist[..., 0])
    positions = np.array(world_position, dtype=np.float64)
    positions[..., 1] = floor
    return positions, np.angle(np.exp(1j * heading))


def root_track(clip: Clip, *, floor: float = 0.0, joint: str | int | None = None,
               rest_rotations: ArrayLike | None = None) -> RootTrack:
    """The ground-plane path of the clip's motion joint (:func:`motion_joint`) as
    :func:`ground_track` measures it, the heading unwrapped over frames; the heading is
    relative to the joint's world rotation under ``rest_rotations`` (``(J, 4)`` local rest
    rotations, e.g. a glTF avatar's; default the identity, as in BVH)."""
    index = motion_joint(clip, joint)
    plan = FKPlan(clip.skeleton.parents, [index])
    world_rotation, world_position = plan(clip.rotations, clip.positions)
    rest_world = None
    if rest_rotations is not None:
        rest = np.asarray(rest_rotations, dtype=np.float64)
        if rest.shape != (clip.skeleton.joint_count, 4):
            raise SkeletonError(f"rest rotations have shape {rest.shape}, expected "
                                f"({clip.skeleton.joint_count}, 4)")
        rest_world = plan.rotations(rest)[index]
    positions, heading = ground_track(world_rotation[:, index], world_position[:, index],
                                      floor=floor, rest_world=rest_world)
    return RootTrack(positions, np.unwrap(heading), clip.fps)


def _check_track(clip: Clip, track: RootTrack) -> None:
    if track.positions.shape != (clip.frame_count, 3) or track.heading.shape != (
            clip.frame_count,):
        raise SkeletonError(f"root track has {track.positions.shape[0]} frames; the clip has "
                            f"{clip.frame_count}")


def move_roots(parents: ArrayLike, rotations: ArrayLike, translations: ArrayLike,
               turn: ArrayLike, shift: ArrayLike, *, inverse: bool
               ) -> tuple[FloatArray, FloatArray]:
    """Local ``rotations (..., J, 4)`` and ``translations (..., J, 3)`` with every root joint
    of ``parents (J,)`` put under the transform ``turn (..., 4)``, ``shift (..., 3)`` (metres)
    — or, with ``inverse``, taken out from under it. Other joints are copied unchanged."""
    roots = np.nonzero(np.asarray(parents) < 0)[0]
    rotations = np.asarray(rotations, dtype=np.float64)
    translations = np.asarray(translations, dtype=np.float64)
    out_rot = rotations.copy()
    out_pos = translations.copy()
    turn = np.asarray(turn, dtype=np.float64)[..., None, :]
    shift = np.asarray(shift, dtype=np.float64)[..., None, :]
    if inverse:
        out_rot[..., roots, :] = quat.inv_mul(turn, rotations[..., roots, :])
        out_pos[..., roots, :] = quat.inv_rotate(turn, translations[..., roots, :] - shift)
    else:
        out_rot[..., roots, :] = quat.mul(turn, rotations[..., roots, :])
        out_pos[..., roots, :] = quat.rotate(turn, translations[..., roots, :]) + shift
    return out_rot, out_pos


def _move_roots(clip: Clip, rotations: FloatArray, positions: FloatArray, *,
                inverse: bool) -> tuple[FloatArray, FloatArray]:
    """:func:`move_roots` of a clip under a per-frame transform ``(F, 4)``, ``(F, 3)``."""
    return move_roots(clip.skeleton.parents, clip.rotations, clip.positions, rotations,
                      positions, inverse=inverse)


def apply_track(clip: Clip, track: RootTrack) -> Clip:
    """``clip`` carried along ``track``: each frame's root joints turned by its heading and
    moved by its position (the inverse of :func:`in_place`)."""
    _check_track(clip, track)
    rotations, positions = _move_roots(clip, track.rotations, track.positions, inverse=False)
    return Clip(clip.skeleton, rotations, positions, clip.fps)


def in_place(clip: Clip, *, heading: bool = False, joint: str | int | None = None,
             rest_rotations: ArrayLike | None = None) -> tuple[Clip, RootTrack]:
    """The clip with its horizontal path taken out: the motion joint's world x and z stay at 0
    (its height, sway and turn stay); with ``heading`` its heading about Y is taken out too
    (it faces +Z throughout). Returns ``(clip, track)`` with ``track.positions[:, 1] == 0``
    and ``apply_track(clip, track)`` the original motion; the track's heading is 0 unless
    ``heading``."""
    track = root_track(clip, floor=0.0, joint=joint, rest_rotations=rest_rotations)
    if not heading:
        track.heading = np.zeros_like(track.heading)
    rotations, positions = _move_roots(clip, track.rotations, track.positions, inverse=True)
    return Clip(clip.skeleton, rotations, positions, clip.fps), track


def root_name(skeleton: Skeleton, name: str = ROOT_NAME) -> str:
    """``name``, or ``name_1``, ``name_2`` … when the skeleton already has a joint called so."""
    taken = set(skeleton.names)
    candidate, k = name, 0
    while candidate in taken:
        k += 1
        candidate = f"{name}_{k}"
    return candidate


def extract_root_motion(clip: Clip, *, floor: float = 0.0, heading: bool = True,
                        joint: str | int | None = None, name: str = ROOT_NAME,
                        rest_rotations: ArrayLike | None = None) -> Clip:
    """The clip with a root bone added at index 0, above every old root, that carries the
    motion joint's ground-plane motion: x and z at height ``floor`` (metres) and, with
    ``heading``, the turn about Y. The old roots keep the rest (height, sway, the turn relative
    to the root). The root's rest offset is ``(0, floor, 0)``; world poses are unchanged."""
    track = root_track(clip, floor=floor, joint=joint, rest_rotations=rest_rotations)
    if not heading:
        track.heading = np.zeros_like(track.heading)
    turn = track.rotations
    rotations, positions = _move_roots(clip, turn, track.positions, inverse=True)
    skeleton = clip.skeleton
    parents = np.where(skeleton.parents < 0, 0, skeleton.parents + 1)
    base = np.array([0.0, floor, 0.0])
    offsets = skeleton.offsets.copy()
    offsets[skeleton.parents < 0] -= base
    new_skeleton = Skeleton(
        [root_name(skeleton, name), *skeleton.names], np.concatenate([[-1], parents]),
        np.concatenate([base[None], offsets]),
        {j + 1: offset for j, offset in skeleton.end_sites.items()})
    return Clip(new_skeleton, np.concatenate([turn[:, None], rotations], axis=1),
                np.concatenate([track.positions[:, None], positions], axis=1), clip.fps)


def apply_root_motion(clip: Clip, mode: str, *, floor: float = 0.0, heading: bool = False,
                      rest_rotations: ArrayLike | None = None) -> RootMotion:
    """``--root-motion``: ``keep`` (the clip as it is), ``in-place`` (:func:`in_place`, the
    heading taken out too when ``heading``; the track returned) or ``extract``
    (:func:`extract_root_motion` with the heading, its root at ``floor`` metres)."""
    if mode == "keep":
        return RootMotion(clip)
    if mode == "in-place":
        still, track = in_place(clip, heading=heading, rest_rotations=rest_rotations)
        return RootMotion(still, track)
    if mode == "extract":
        return RootMotion(extract_root_motion(clip, floor=floor,
                                              rest_rotations=rest_rotations))
    raise SkeletonError(f"root motion {mode!r}: expected one of {', '.join(MODES)}")


def track_path(output: str | Path) -> Path:
    """Where an in-place clip's track goes beside ``output``: ``OUT.root.csv``."""
    output = Path(output)
    return output.with_name(output.stem + ".root.csv")


def write_track_csv(track: RootTrack, path: str | Path) -> None:
    """``frame,time,x,y,z,heading`` rows (metres, seconds, radians about +Y), atomically."""
    from footfall.batch.atomic import replacing

    path = Path(path)
    lines = ["frame,time,x,y,z,heading"]
    for frame in range(track.frame_count):
        x, y, z = track.positions[frame]
        lines.append(f"{frame},{frame / track.fps:.6f},{x:.6f},{y:.6f},{z:.6f},"
                     f"{track.heading[frame]:.6f}")
    try:
        with replacing(path) as partial:
            partial.write_text("\n".join(lines) + "\n")
    except OSError as error:
        raise SkeletonError(f"{path}: cannot write ({error.strerror or error})") from None


def read_track_csv(path: str | Path) -> RootTrack:
    """The track :func:`write_track_csv` wrote; :class:`SkeletonError` naming the file for
    anything else."""
    path = Path(path)
    try:
        rows = [line.split(",") for line in path.read_text(encoding="utf-8").splitlines()]
        if not rows or rows[0] != ["frame", "time", "x", "y", "z", "heading"]:
            raise ValueError("expected the header frame,time,x,y,z,heading")
        table = np.array([[float(v) for v in row] for row in rows[1:]], dtype=np.float64)
        if table.ndim != 2 or table.shape[1] != 6 or not np.all(np.isfinite(table)):
            raise ValueError("expected 6 finite numbers per row")
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SkeletonError(f"{path}: cannot read the root track ({error})") from None
    step = float(np.median(np.diff(table[:, 1]))) if len(table) > 1 else 0.0
    return RootTrack(table[:, 2:5], table[:, 5], round(1.0 / step, 3) if step > 0 else 30.0)
