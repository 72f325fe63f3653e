"""What the grounding pipeline's compiled stages read and write: one named bundle per concept.

:class:`~footfall.grounding.pipeline.GroundingPipeline` runs N = T·K rows (frame-major: row
``t·K + k`` is character k at frame t) through the stages of
:mod:`~footfall.grounding.stage_kernels`. Each stage takes these bundles (``NamedTuple``\\ s of
arrays and values, :func:`footfall.jit.bundle_kernel`) and reads every value by its name: the
legs (:class:`LegRig`), the per-character parameters (:class:`StageParams`), the rows' pose and
feet (:class:`PoseRows`), the foot locks (:class:`FootLocks`), the ankle targets and what the
rays found (:class:`FootTargets`), the values an offline caller gives (:class:`Given`), the
smoothing state (:class:`FollowState`) and the legs lifted with the hips (:class:`LiftedLegs`).
Per-character arrays are ``(K,)``, read at ``k = n mod K``. :class:`StageBatch` holds one
call's rows and bundles on the Python side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from footfall.arrays import BoolArray, FloatArray, IntArray, kernel_array
from footfall.errors import SkeletonError
from footfall.grounding.params import ParamArrays

# One-element stand-ins of the same dimensions for absent optional inputs, which come with a
# flag (one compiled version for all calls; writable: read-only arrays compile another).
NONE1 = np.zeros(1)
NONE2 = np.zeros((1, 1))
NONE3 = np.zeros((1, 1, 1))


class LegRig(NamedTuple):
    """The characters' legs and feet (all K share the skeleton), fixed per pipeline.

    ``root``: the joint a lift moves; ``hips``: the joint whose height is the body's.
    ``upper``, ``lower``, ``foot``, ``hip_parent``: ``(2,)`` joints of each leg (left first) and
    the hip's parent; ``leg_length``, ``ankle_height``: ``(2,)`` metres; ``foot_forward``:
    ``(2, 3)`` each foot's toe direction in its joint's frame; ``below_ankle``: ``(2, 3)`` the
    sole point under each ankle in the foot's frame, metres.
    """

    root: int
    hips: int
    upper: IntArray
    lower: IntArray
    foot: IntArray
    hip_parent: IntArray
    leg_length: FloatArray
    ankle_height: FloatArray
    foot_forward: FloatArray
    below_ankle: FloatArray


class StageParams(NamedTuple):
    """Per character ``(K,)``: the :class:`~footfall.grounding.params.GroundingParams` the
    stages read, ``ik_on`` (the ``ik`` switch and this call's ``ik``) and ``lowering`` (IK on
    and the ``hips`` switch); ``dt``: seconds between the rows' frames."""

    ik_on: BoolArray
    lowering: BoolArray
    max_step_ratio: FloatArray
    foot_align: BoolArray
    steep_normal_y: FloatArray
    max_slope: FloatArray
    smoothing: BoolArray
    align_rate: FloatArray
    reach_ratio: FloatArray
    max_reach: FloatArray
    hips_rate: FloatArray
    hips_snap: FloatArray
    dt: float


class PoseRows(NamedTuple):
    """The rows' pose and feet. ``rotations``, ``positions``: ``(N, J, 4)``, ``(N, J, 3)`` the
    local pose (grounded in place); ``grot``, ``gpos``: the legs' global pose before the hips
    moves (other joints' rows unset until the final FK); ``foot_rot (N, 2, 4)``, ``ankle``,
    ``forward (N, 2, 3)``: the feet's world rotations, animated ankles and unit horizontal toe
    headings; ``stance``, ``swing``: ``(N, 2)`` planted and swing progress (the plan's)."""

    rotations: FloatArray
    positions: FloatArray
    grot: FloatArray
    gpos: FloatArray
    foot_rot: FloatArray
    ankle: FloatArray
    forward: FloatArray
    stance: BoolArray
    swing: FloatArray


class FootLocks(NamedTuple):
    """Foot locks (post-processing): where ``has_lock``, each ankle is pulled to ``xz
    (N, 2, 2)`` by ``weight (N, 2)`` (0 = animated, 1 = locked); where ``has_turn``, each foot
    is turned by ``turn (N, 2)`` radians about +Y times that weight. Absent arrays are
    stand-ins (:data:`NONE2`, :data:`NONE3`)."""

    has_lock: bool
    xz: FloatArray
    weight: FloatArray
    has_turn: bool
    turn: FloatArray


class FootTargets(NamedTuple):
    """The ankle targets and what the stages found under them.

    ``ankle (N, 2, 3)``: the ankle targets (heights completed by the sole stage); ``steps
    (N, 2, 2, V)``: the snapped footsteps (current/next: shift xz, ground height, hit, snapped,
    then what the footstep stands on, :mod:`~footfall.grounding.footstep_cache`); the rays
    ``hit (N, 3)``, ``point``, ``normal (N, 3, 3)`` under the body and each target; from the sole
    stage the ground under the body ``body_ground (N,)``, each foot's vertical ``offset``, the
    ``fallback`` feet ``(N, 2)`` and the sole ``angles (N, 2, 2)`` (pitch, roll) as applied;
    ``standing (N, 2, 2 + S)``: the ground each planted foot stands on, from its footstep's rays
    along its sole (pitch, found, the heights under its samples:
    :func:`~footfall.grounding.standing.standing_ground`), those samples ``sole_along
    (N, 2, S)`` metres ahead of its ankle.
    """

    ankle: FloatArray
    steps: FloatArray
    hit: BoolArray
    point: FloatArray
    normal: FloatArray
    body_ground: FloatArray
    offset: FloatArray
    fallback: BoolArray
    angles: FloatArray
    standing: FloatArray
    sole_along: FloatArray


class Given(NamedTuple):
    """Values an offline caller gives instead of the followed ones (each with its flag; absent
    arrays are stand-ins): ``sole_angles (N, 2, 2)`` radians, ``foot_lift (N, 2)`` metres added
    to grounded ankle targets, ``hips_offset (N,)`` metres."""

    has_sole_angles: bool
    sole_angles: FloatArray
    has_foot_lift: bool
    foot_lift: FloatArray
    has_hips_offset: bool
    hips_offset: FloatArray


class FollowState(NamedTuple):
    """What is followed from frame to frame, per character (updated in place): the hips
    offset ``hips (K,)`` (NaN: not yet) and the sole angles ``angles (K, 2, 2)``."""

    hips: FloatArray
    angles: FloatArray


class LiftedLegs(NamedTuple):
    """The hips stage's output: ``hips_offset (N,)``, the legs lifted with it (``hip``,
    ``knee``, ``ankle (N, 2, 3)``) and each leg's longest reach ``max_reach (N, 2)`` in leg
    lengths, for the IK."""

    hips_offset: FloatArray
    hip: FloatArray
    knee: FloatArray
    ankle: FloatArray
    max_reach: FloatArray


class SoleReport(NamedTuple):
    """What a grounded frame reports per row and foot (``GroundedFrame``): the ground ``under``
    each sole, the sole's ``sole_gap`` to it, the ray drawn (``ray_origin``, ``ray_hit``
    ``(N, 2, 3)``) and the sole ``pitch``, ``roll`` applied ``(N, 2)``."""

    under: FloatArray
    sole_gap: FloatArray
    ray_origin: FloatArray
    ray_hit: FloatArray
    pitch: FloatArray
    roll: FloatArray


def lifted_legs(count: int) -> LiftedLegs:
    """:class:`LiftedLegs` for ``count`` rows (written by the hips stage)."""
    return LiftedLegs(hips_offset=np.empty(count), hip=np.empty((count, 2, 3)),
                      knee=np.empty((count, 2, 3)), ankle=np.empty((count, 2, 3)),
                      max_reach=np.empty((count, 2)))


def batch_rows(value: ArrayLike | None, frames: int, k: int, tail: tuple[int, ...], dtype: type,
          name: str = "input") -> Any:
    """``value`` broadcast to ``(T, K, *tail)`` as C-ordered, writable rows ``(T·K, *tail)``
    (None stays None); a :class:`SkeletonError` naming ``name`` if it does not fit (the kernels
    index these rows unchecked)."""
    if value is None:
        return None
    array: np.ndarray = np.asarray(value, dtype=dtype)
    if array.shape == (frames, k, *tail):  # a copy, as below (numpy's broadcast_to: ~5 µs)
        return np.array(array, order="C").reshape(frames * k, *tail)
    try:
        full = np.broadcast_to(array, (frames, k, *tail))
    except ValueError:
        raise SkeletonError(
            f"{name} has shape {array.shape}; expected (T, K{''.join(f', {n}' for n in tail)})"
            f" = {(frames, k, *tail)} or a shape that broadcasts to it") from None
    return kernel_array(full, (frames * k, *tail))


@dataclass
class StageBatch:
    """The N = T·K rows (frame-major; row n is character ``n mod K``) one
    :meth:`~footfall.grounding.pipeline.GroundingPipeline.step_frames` call grounds: their pose
    and feet as the stages read and update them, their parameters (``p``: the characters' own,
    ``params``: as the stages read them), the foot locks and, after the hips stage, the lifted
    legs.
    """

    frames: int
    k: int
    p: ParamArrays
    params: StageParams
    rows: PoseRows
    locks: FootLocks
    lifted: LiftedLegs | None = None

    @property
    def count(self) -> int:
        """N = T·K."""
        return self.frames * self.k

    def rows_of(self, value: ArrayLike | None, tail: tuple[int, ...], dtype: type,
                name: str = "input") -> Any:
        """``value`` as this batch's rows ``(N, *tail)`` (:func:`batch_rows`)."""
        return batch_rows(value, self.frames, self.k, tail, dtype, name)
