"""AMASS-style SMPL-family parameter files (``.npz``: ``poses``, ``trans``,
``mocap_framerate``) as clips — given what the body model would give, since no licensed body
model ships with footfall.

``poses`` holds axis-angle rotations, three numbers a joint in SMPL's joint order: 72 (SMPL,
24 joints), 156 (SMPL-H: 22 body joints, then the hands' fingers) or 165 (SMPL-X). They turn
joints of a rest skeleton that only the body model (with the subject's ``betas``) knows. So
either give

- ``skeleton``: the model's rest joint positions for this subject, a ``.npy`` of shape
  ``(J, 3)`` (``J_regressor @ v_shaped``; at least the layout's joints, in SMPL order): the
  clip is then the file's own rotations on that skeleton, exactly (forward kinematics), or
- ``joints``: the model's joint positions per frame, ``(T, J, 3)`` (what a body-model forward
  pass outputs): they are solved like any joint-position file, at the file's frame rate.

AMASS's world is Z up (``up="z"``, the default here).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from footfall import quat
from footfall.errors import JointsError
from footfall.joints.io import load_numpy, load_positions
from footfall.joints.layouts import LAYOUTS, Layout, from_y_up, get_layout, up_turn
from footfall.motion_io.motion import LoadedMotion, solve_file_positions
from footfall.skeleton import Clip, Skeleton

#: Pose vector lengths of the SMPL family and the body joints each holds first.
POSE_SIZES = {72: 24, 156: 22, 165: 22}
#: AMASS's up axis.
AMASS_UP = "z"


def _field(data: np.lib.npyio.NpzFile, names: tuple[str, ...], where: str) -> np.ndarray:
    for name in names:
        if name in data.files:
            try:
                return np.asarray(data[name])
            except ValueError:  # an object array, refused without allow_pickle
                raise JointsError(f"{where}: field {name!r} holds pickled objects") from None
    raise JointsError(f"{where}: no {' or '.join(repr(n) for n in names)} field (an AMASS-style "
                      f"file has 'poses', 'trans' and 'mocap_framerate'; found "
                      f"{', '.join(data.files) or 'nothing'})")


def _layout(joints_in_poses: int, name: str | None, where: str) -> Layout:
    if name is None or name == "auto":
        return LAYOUTS["smpl24"] if joints_in_poses == 24 else LAYOUTS["humanml3d"]
    layout = get_layout(name)
    if layout.joint_count > joints_in_poses:
        raise JointsError(f"{where}: 'poses' holds {joints_in_poses} body joints, layout "
                          f"{layout.name!r} needs {layout.joint_count}")
    return layout


def load_amass(
    path: str | Path, layout: str | None = None, *, fps: float | None = None,
    up: str | None = None, skeleton: str | Path | None = None, joints: str | Path | None = None,
    lengths: Mapping[str, float] | None = None,
) -> LoadedMotion:
    """An AMASS-style ``.npz`` as a :class:`~footfall.motion_io.LoadedMotion` (see the
    module docstring); raises :class:`JointsError` naming the file and what is missing or
    malformed."""
    where = str(path)
    data = load_numpy(path)
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise JointsError(f"{where}: one array, not an .npz archive of named fields")
    with data:
        poses = _field(data, ("poses",), where)
        trans = _field(data, ("trans",), where)
        rate = _field(data, ("mocap_framerate", "mocap_frame_rate"), where)
    if poses.ndim != 2 or poses.shape[1] not in POSE_SIZES or poses.shape[0] == 0:
        raise JointsError(f"{where}: 'poses' has shape {poses.shape}; expected (T, 72), "
                          "(T, 156) or (T, 165) axis-angle values")
    if trans.shape != (poses.shape[0], 3):
        raise JointsError(f"{where}: 'trans' has shape {trans.shape}; expected "
                          f"({poses.shape[0]}, 3)")
    for name, values in (("poses", poses), ("trans", trans)):
        if not (np.issubdtype(values.dtype, np.number) and np.isfinite(values).all()):
            raise JointsError(f"{where}: '{name}' holds NaN, inf or non-numbers")
    try:
        file_fps = float(rate)
    except (TypeError, ValueError):
        raise JointsError(f"{where}: 'mocap_framerate' is not a number") from None
    rate_used = fps or file_fps
    if not (np.isfinite(rate_used) and 0 < rate_used <= 1000):
        raise JointsError(f"{where}: frame rate {rate_used:g} is not in (0, 1000] fps")
    chosen = _layout(POSE_SIZES[poses.shape[1]], layout, where)
    axis = up or AMASS_UP
    if joints is not None:
        positions = load_positions(joints, chosen.name)
        if positions.shape[0] != poses.shape[0]:
            raise JointsError(f"{joints}: {positions.shape[0]} frames, but {where} has "
                              f"{poses.shape[0]}")
        motion = solve_file_positions(positions, chosen, rate_used, axis, str(joints), lengths)
        motion.format = "npz"
        return motion
    if skeleton is None:
        raise JointsError(
            f"{where}: SMPL parameters need the body model, which footfall does not bundle; "
            "give the model's rest joint positions for this subject (--skeleton REST.npy, "
            "shape (J, 3)) or its joint positions per frame (--joints JOINTS.npy, (T, J, 3))")
    clip = _posed_clip(poses, trans, _rest_joints(skeleton, chosen), chosen, rate_used, axis)
    return LoadedMotion(clip, where, chosen, axis, from_y_up(clip.global_positions(), axis),
                        None, format="npz")


def _rest_joints(path: str | Path, layout: Layout) -> np.ndarray:
    """The rest joint positions ``(J, 3)`` of ``layout``'s joints from a ``(≥J, 3)`` file."""
    where = str(path)
    rest = load_numpy(path)
    if not isinstance(rest, np.ndarray) or rest.ndim != 2 or rest.shape[1] != 3 or (
            rest.shape[0] < layout.joint_count):
        shape = getattr(rest, "shape", "an archive")
        raise JointsError(f"{where}: shape {shape}; expected the body model's rest joint "
                          f"positions (J ≥ {layout.joint_count}, 3) in SMPL order")
    rest = np.asarray(rest[: layout.joint_count], dtype=np.float64)
    if not np.isfinite(rest).all():
        raise JointsError(f"{where}: NaN or inf in the rest joint positions")
    return rest


def _posed_clip(poses: np.ndarray, trans: np.ndarray, rest: np.ndarray, layout: Layout,
                fps: float, up: str) -> Clip:
    """SMPL's kinematics on footfall's clip: each joint turned by its axis-angle about its
    rest position, the root moved by ``trans``; then the file's ``up`` turned to Y up."""
    parents = np.asarray(layout.parents)
    offsets = rest - np.where(parents[:, None] >= 0, rest[np.maximum(parents, 0)], 0.0)
    skeleton = Skeleton(list(layout.joints), parents, offsets)
    frames = poses.shape[0]
    vectors = np.asarray(poses, dtype=np.float64)[:, : 3 * layout.joint_count]
    rotations = quat.from_scaled_angle_axis(vectors.reshape(frames, layout.joint_count, 3))
    translations = np.broadcast_to(offsets, (frames, layout.joint_count, 3)).copy()
    translations[:, 0] = np.asarray(trans, dtype=np.float64) + rest[0]
    turn = up_turn(up)
    rotations[:, 0] = quat.mul(turn, rotations[:, 0])
    translations[:, 0] = quat.rotate(turn, translations[:, 0])
    return Clip(skeleton, rotations, translations, fps)
