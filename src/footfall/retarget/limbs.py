"""Four-limb IK of the retargeter: where feet and hands go, and how the limbs get there.

Per frame (batched): feet go to the source ankle — horizontally scaled by the size ratio,
vertically keeping its height above the standing ankle height, plus the stance-width shift and
the foot offsets — with the knee copied from the source (``knee_from_source``); hands go to the
source hands relative to the hips, scaled, bending toward the copied elbow. Around that:

- toes: on the floor the foot is pitched so its toes sit as high as the source's; while the
  heel is up the toes stay on the source's toe path (the pivot); in the air they stay no lower
  than the source's (at most ``MAX_TOE_RAISE``);
- reach: where a planted foot cannot be reached the hips are lowered just enough, never raised;
- do no harm: a limb whose tip is already on its target is not touched (identity stays exact);
- detached feet: IK rigs whose feet do not hang below the shin (RobotExpressive) get the foot
  placed where the shin carries it.

All four limbs go through one batched ``footfall.ik.solve_two_bone`` call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from footfall import quat
from footfall.errors import MappingError
from footfall.ik import knee_from_source, solve_two_bone
from footfall.retarget.calibration import Correspondence, Measures
from footfall.retarget.kinematics import Levels, positions_from_world, qmul, qrotate
from footfall.retarget.stance import (
    PLANTED_LIFT,
    PLANTED_SPEED,
    RELEASE_SECONDS,
    PlantedHold,
    hold_while_planted,
)
from footfall.retarget.weights import LimbWeights
from footfall.skeleton import Skeleton

FloatArray = NDArray[np.float64]

DO_NO_HARM = 1e-7  # metres: a tip this close to its target is not touched by IK
REACH = 0.995  # share of a leg's length the hips may ask of it before they are lowered
MAX_TOE_RAISE = 0.03  # metres the ankle may be raised to keep the toes above the source's
_CONJUGATE = np.array([1.0, -1.0, -1.0, -1.0])


@dataclass(frozen=True)
class Sizes:
    """What the limbs need to know of the current settings and calibration.

    Attributes:
        size_ratio: horizontal scale from source to target.
        avatar_scale: uniform target scale.
        source, target: calibration-pose measures (target at scale 1).
        floor_height: world height added to the feet, metres.
        foot_front, foot_out: foot target offsets along the foot and outward, metres.
        capture_floor: how high the capture's planted feet float, metres.
        calibration_world: ``(J, 4)`` target world rotations in the calibration pose.
    """

    size_ratio: float
    avatar_scale: float
    source: Measures
    target: Measures
    floor_height: float
    foot_front: float
    foot_out: float
    capture_floor: float
    calibration_world: FloatArray


class Limbs:
    """The limbs both skeletons have, their chains, and the state of the stance-width hold."""

    def __init__(self, source: Skeleton, target: Skeleton, source_map: dict[str, str],
                 target_map: dict[str, str], correspondence: Correspondence) -> None:
        self.target = target
        self.hips = correspondence.hips
        self._limb_names = list(correspondence.limbs)
        chains = [correspondence.limbs[n] for n in self._limb_names]
        self._t_chain = np.array([c[0] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._s_chain = np.array([c[1] for c in chains], dtype=np.int64).reshape(-1, 3)
        self._is_leg = np.array(["leg" in n for n in self._limb_names])
        self._side = np.array([0 if n.startswith("left") else 1 for n in self._limb_names])
        self._paths = self._limb_paths()
        if not np.array_equal(self._is_leg[:2], [True, True]) or self._is_leg[2:].any():
            raise MappingError(f"limbs must list the two legs first, got {self._limb_names}")
        # Index arrays and constants of the per-frame solve, computed once.
        self._t_flat = np.ascontiguousarray(self._t_chain.T).reshape(-1)  # roots, mids, tips
        self._t_mids = self._t_chain[:, 1].copy()
        self._t_leg_tips = self._t_chain[:2, 2].copy()
        self._s_flat = np.concatenate([self._s_chain[:, 2], self._s_chain[:2, 0],
                                       self._s_chain[:2, 1], [self.hips[1]]])
        self._leg_sides = self._side[:2].copy()
        self._s_leg_tips = self._s_chain[:2, 2].copy()
        self._outward = (np.where(self._leg_sides == 0, 1.0, -1.0)[:, None]
                         * np.array([1.0, 0.0, 0.0]))
        self._any_detached = bool(self._detached.any())
        p = self._paths
        self._turned_joints = np.concatenate([p["upper_joints"], p["lower_joints"]])
        self._turned_rows = np.concatenate([p["upper_limbs"], p["lower_limbs"] + self.count])
        # Limbs sharing a joint (odd mappings) turn it twice: uppers first, then lowers.
        self._turned_once = len(np.unique(self._turned_joints)) == len(self._turned_joints)
        self._detached_rows = [int(k) for k in np.nonzero(self._detached)[0]]
        hips_and_legs = [self.hips[0]] + [
            target.index(target_map[b]) for b in ("LeftUpperLeg", "RightUpperLeg")]
        self.mover = _common_ancestor(target, hips_and_legs)
        self._under_mover = np.array([self.mover in target.chain(j)
                                      for j in range(target.joint_count)])
        toes = [(target.index(target_map[b]), source.index(source_map[b]))
                for b in ("LeftToes", "RightToes") if b in target_map and b in source_map]
        self._toes = np.array(toes, dtype=np.int64).reshape(-1, 2) if len(toes) == 2 else None
        if self._toes is not None:
            self._foot_ends = np.concatenate([self._toes[:, 0], self._t_leg_tips])
        # Joints whose positions the solve reads (limbs, toes, hips, parents), with ancestors.
        needed = {int(j) for j in self._t_chain.ravel()} | {self.hips[0]}
        needed |= {int(target.parents[j]) for j in self._t_chain[:, 2]}
        needed |= {int(target.parents[self.mover])}
        if self._toes is not None:
            needed |= {int(j) for j in self._toes[:, 0]}
        closure = {a for j in needed if j >= 0 for a in target.chain(j)}
        self.position_levels = Levels.of(target.parents, sorted(closure))
        source_needed = {int(j) for j in self._s_chain.ravel()} | {self.hips[1]}
        if self._toes is not None:
            source_needed |= {int(j) for j in self._toes[:, 1]}
        source_needed |= {source.index(source_map[b]) for b in ("Neck", "Head")
                          if b in source_map}
        self.source_position_levels = Levels.of(
            source.parents, sorted({a for j in source_needed for a in source.chain(j)}))
        self._hold = PlantedHold()
        self._last_ankles: FloatArray | None = None

    @property
    def count(self) -> int:
        """Number of limbs (legs first, then arms)."""
        return len(self._limb_names)

    @property
    def leg_count(self) -> int:
        """Number of legs (2)."""
        return int(np.sum(self._is_leg))

    @property
    def arm_rows(self) -> NDArray[np.int64]:
        """Rows of the arms in the limb order."""
        return np.nonzero(~self._is_leg)[0]

    def source_tips(self, spos: FloatArray) -> FloatArray:
        """Source positions ``(..., L, 3)`` of each limb's tip (ankles, wrists)."""
        return spos[..., self._s_chain[:, 2], :]

    def sides(self) -> NDArray[np.int64]:
        """0 for left, 1 for right, per limb."""
        return self._side

    def calibrate(self, source_positions: FloatArray, source_world: FloatArray,
                  standing_world: FloatArray, standing_positions: FloatArray) -> None:
        """Cache what depends on the calibration poses (``(J, ·)`` arrays of each skeleton)."""
        lower, tip = self._t_chain[:, 1], self._t_chain[:, 2]
        self._tip_offsets = quat.inv_rotate(
            standing_world[lower], standing_positions[tip] - standing_positions[lower])
        legs, source_legs = self._t_chain[self._is_leg], self._s_chain[self._is_leg]
        hips_t, hips_s = self.hips
        self._source_hips_world = source_world[hips_s]
        self._source_leg_lengths = (
            np.linalg.norm(source_positions[source_legs[:, 1]]
                           - source_positions[source_legs[:, 0]], axis=-1)
            + np.linalg.norm(source_positions[source_legs[:, 2]]
                             - source_positions[source_legs[:, 1]], axis=-1))
        self._hip_offsets = (standing_positions[legs[:, 0]] - standing_positions[hips_t],
                             source_positions[source_legs[:, 0]] - source_positions[hips_s])
        self._source_hips_inverse = (self._source_hips_world * _CONJUGATE).tolist()
        self._hip_offset_lists = tuple(o.tolist() for o in self._hip_offsets)
        self.reset_live()

    def reset_live(self) -> None:
        """Forget the live stance-width hold."""
        self._hold.reset()
        self._last_ankles = None

    def solve(self, world: FloatArray, lpos: FloatArray, spos: FloatArray, hips_pos: FloatArray,
              weights: LimbWeights, foot_shift: FloatArray, sizes: Sizes) -> FloatArray:
        """World rotations ``(..., J, 4)`` after four-limb IK, updated in place (and returned);
        ``lpos`` (local translations, joint-major view) is updated in place where the hips drop
        or a detached foot moves.

        ``world``: target world rotations before IK; ``spos``: source global positions (the
        joints the limbs read); ``hips_pos``: target hips world position ``(..., 3)``;
        ``foot_shift``: stance-width shift ``(..., 2, 3)``.
        """
        s = sizes.size_ratio
        count = self.count
        gpos = positions_from_world(self.position_levels, world, lpos)
        # One gather for the three joints of every limb: roots, mids, tips.
        chain = gpos[..., self._t_flat, :]
        root, mid, tip = (chain[..., :count, :], chain[..., count:2 * count, :],
                          chain[..., 2 * count:, :])
        if self._any_detached:
            carried = mid + qrotate(world[..., self._t_mids, :],
                                    self._tip_offsets * sizes.avatar_scale)
            tip[...] = np.where(self._detached[:, None], carried, tip)
        # One gather for the source: every tip, the leg roots and knees, the hips.
        source = spos[..., self._s_flat, :]
        source_tip = source[..., :count, :]
        source_feet = source_tip[..., :2, :]  # legs come first
        source_leg_root = source[..., count:count + 2, :]
        source_knee = source[..., count + 2:count + 4, :]
        hips_s = source[..., count + 4, :]
        # Feet: scaled horizontally (plus the stance-width shift), ankle height kept.
        ankle_shift = (sizes.target.ankle_height * sizes.avatar_scale
                       - sizes.source.ankle_height)[self._leg_sides]
        feet = source_feet * np.array([s, 1.0, s]) + foot_shift
        feet[..., 1] += ankle_shift + sizes.floor_height
        front, out = sizes.foot_front, sizes.foot_out
        if front or out:
            turn = quat.mul_inv(world[..., self._t_leg_tips, :],
                                sizes.calibration_world[self._t_leg_tips])
            shift = front * np.array([0.0, 0.0, 1.0]) + out * self._outward
            feet = feet + quat.rotate(turn, shift)
        if self._toes is not None:
            feet, pitch = self._toe_pivot(feet, source_feet, spos, gpos, foot_shift, sizes)
            world[..., self._t_leg_tips, :] = qmul(pitch, world[..., self._t_leg_tips, :])
        bones = chain[..., count:, :] - chain[..., :2 * count, :]  # mid − root, tip − mid
        lengths = np.sqrt(np.add.reduce(bones * bones, axis=-1))
        upper_length, lower_length = lengths[..., :count], lengths[..., count:]
        # Lower (never raise) the hips where a foot on IK could not be reached.
        extension = source_feet - source_leg_root
        source_extension = (np.sqrt(np.add.reduce(extension * extension, axis=-1))
                            / self._source_leg_lengths)
        reach = (np.clip(source_extension, REACH, 1.0)
                 * (upper_length[..., :2] + lower_length[..., :2]))
        thigh = root[..., :2, :]
        apart = thigh - feet
        across = apart[..., 0] ** 2 + apart[..., 2] ** 2
        highest = feet[..., 1] + np.sqrt(np.maximum(reach**2 - across, 0.0))
        drop = np.max(np.maximum(thigh[..., 1] - highest, 0.0) * weights.legs, axis=-1)
        if np.any(drop > 1e-9):
            drop = np.where(drop > 1e-9, drop, 0.0)
            down = np.zeros(drop.shape + (3,))
            down[..., 1] = -drop
            chain += down[..., None, :]  # root, mid and tip are views of it
            gpos = gpos + down[..., None, :] * self._under_mover[:, None]
            hips_pos = hips_pos + down
            parent = int(self.target.parents[self.mover])
            lpos[..., self.mover, :] += (down if parent < 0 else
                                          qrotate(world[..., parent, :] * _CONJUGATE, down))
        # Hands: relative to the hips, scaled.
        target = hips_pos[..., None, :] + s * (source_tip - hips_s[..., None, :])
        target[..., :2, :] = feet
        # Bend goals: legs copy the source knee; arms bend toward the copied elbow.
        pole = mid.copy()
        pole[..., :2, :] = knee_from_source(
            source_leg_root, source_knee, source_feet, thigh, feet,
            upper_length[..., :2], lower_length[..., :2])
        weight = np.empty(root.shape[:-1])
        weight[..., :2] = weights.legs
        weight[..., 2:] = weights.arms
        miss = tip - target
        weight[np.sqrt(np.add.reduce(miss * miss, axis=-1)) < DO_NO_HARM] = 0.0
        result = solve_two_bone(root, mid, tip, target, pole, position_weight=weight)
        # Every joint of every limb turned by its delta in one product (the joints are
        # distinct), joint-major so the gathers of ``world`` copy whole blocks.
        deltas = np.concatenate([result.upper_rotation, result.lower_rotation], axis=-2)
        if world.ndim > 2:
            turned, deltas = np.moveaxis(world, -2, 0), np.moveaxis(deltas, -2, 0)
        else:
            turned = world
        if self._turned_once:
            turned[self._turned_joints] = qmul(deltas[self._turned_rows],
                                               turned[self._turned_joints])
        else:
            p = self._paths
            for joints, rows in ((p["upper_joints"], p["upper_limbs"]),
                                 (p["lower_joints"], p["lower_limbs"] + self.count)):
                turned[joints] = qmul(deltas[rows], turned[joints])
        for k in self._detached_rows:
            joint = int(self._t_chain[k, 2])
            parent = int(self.target.parents[joint])
            place = result.tip[..., k, :]
            if parent >= 0:
                place = qrotate(world[..., parent, :] * _CONJUGATE, place - gpos[..., parent, :])
            lpos[..., joint, :] = place
        return world

    def body_yaw(self, srot: FloatArray) -> FloatArray:
        """Yaw ``(...)`` of the source hips relative to their calibration heading, radians."""
        hips_s = self.hips[1]
        turn = quat.mul_inv(srot[..., hips_s, :], self._source_hips_world)
        forward = qrotate(turn, np.array([0.0, 0.0, 1.0]))
        return np.arctan2(forward[..., 0], forward[..., 2])

    def estimate_capture_floor(self, spos: FloatArray, source: Measures) -> float:
        """How high the capture's feet float when down (5th percentile of the lowest foot
        point above its standing height, ≥ 0), metres. Live frames assume 0."""
        if self._toes is None or len(spos) < 10:
            return 0.0
        ankles = (spos[:, self._s_chain[self._is_leg, 2], 1]
                  - source.ankle_height)
        toes = spos[:, self._toes[:, 1], 1] - source.toe_height
        return float(max(np.percentile(np.minimum(ankles, toes), 5), 0.0))

    def _planted(self, spos: FloatArray, speed: FloatArray | None, source: Measures) -> FloatArray:
        """Whether each source foot is planted ``(..., 2)`` (low and slow, see ``stance``)."""
        ankles = spos[..., self._s_chain[self._is_leg, 2], 1]
        planted = ankles - source.ankle_height < PLANTED_LIFT
        return planted if speed is None else planted & (speed < PLANTED_SPEED)

    def held_shift_series(self, srot: FloatArray, spos: FloatArray, fps: float,
                          sizes: Sizes) -> FloatArray:
        """Stance-width shift per frame ``(F, 2, 3)``, frozen while each foot is planted."""
        ankles = spos[:, self._s_chain[self._is_leg, 2]][..., [0, 2]]
        speed = np.zeros(ankles.shape[:-1])
        if len(ankles) > 1:
            step = np.linalg.norm(np.diff(ankles, axis=0), axis=-1) * fps
            speed = np.concatenate([step[:1], step], axis=0)
        return hold_while_planted(self.foot_shift(self.body_yaw(srot), sizes),
                                  self._planted(spos, speed, sizes.source))

    def held_shift_live(self, srot: FloatArray, spos: FloatArray, dt: float,
                        sizes: Sizes) -> FloatArray:
        """Live stance-width shift ``(..., 2, 3)`` (state kept between calls)."""
        if spos.ndim == 2:
            return self._held_shift_one(srot, spos, dt, sizes)
        ankles = spos[..., self._s_chain[self._is_leg, 2], :][..., [0, 2]]
        speed = None
        if self._last_ankles is not None and self._last_ankles.shape == ankles.shape:
            speed = np.linalg.norm(ankles - self._last_ankles, axis=-1) / dt
        self._last_ankles = ankles
        self._hold.fade = max(round(RELEASE_SECONDS / dt), 1)
        return self._hold(self.foot_shift(self.body_yaw(srot), sizes),
                          self._planted(spos, speed, sizes.source))

    def _held_shift_one(self, srot: FloatArray, spos: FloatArray, dt: float,
                        sizes: Sizes) -> FloatArray:
        """:meth:`held_shift_live` for one frame (``(J, ·)`` arrays) in Python floats: the same
        arithmetic as the batched path (body yaw, turned hip-width delta, planted test, hold)
        without a dozen NumPy calls on two-element arrays."""
        ankles = spos[self._s_leg_tips].tolist()
        xz = [[a[0], a[2]] for a in ankles]
        last = self._last_ankles
        speed = None
        if last is not None and last.shape == (len(xz), 2):
            speed = []
            for (x, z), (lx, lz) in zip(xz, last.tolist(), strict=True):
                dx, dz = x - lx, z - lz
                speed.append(math.sqrt(dx * dx + dz * dz) / dt)
        self._last_ankles = np.array(xz)
        self._hold.fade = max(round(RELEASE_SECONDS / dt), 1)
        # Body yaw: the source hips' turn from calibration applied to +Z (as ``body_yaw``).
        w, x, y, z = _mul_floats(*srot[self.hips[1]].tolist(), *self._source_hips_inverse)
        fx, _, fz = _rotate_floats(w, x, y, z, 0.0, 0.0, 1.0)
        half = 0.5 * math.atan2(fx, fz)
        sin_half = math.sin(half)
        turn = (math.cos(half), sin_half * 0.0, sin_half * 1.0, sin_half * 0.0)
        scale, ratio = sizes.avatar_scale, sizes.size_ratio
        shifts = []
        for t, s in zip(*self._hip_offset_lists, strict=True):
            shifts.append(list(_rotate_floats(*turn, t[0] * scale - ratio * s[0], 0.0,
                                              t[2] * scale - ratio * s[2])))
        rest = sizes.source.ankle_height.tolist()
        slow = [True] * len(ankles) if speed is None else [v < PLANTED_SPEED for v in speed]
        planted = [a[1] - h < PLANTED_LIFT and still
                   for a, h, still in zip(ankles, rest, slow, strict=True)]
        return self._hold.one(shifts, planted)

    def foot_shift(self, yaw: FloatArray, sizes: Sizes) -> FloatArray:
        """Stance-width shift ``(..., 2, 3)`` of the feet for a body ``yaw (...)``.

        Scaling the source's foot paths keeps the source's (scaled) stance width; a rig with
        other hip proportions (RobotExpressive's legs stand 1.3 m apart) then needs each foot
        moved by ``target_hip_offset − size_ratio · source_hip_offset``, turned with the body.
        Callers freeze it while a foot is planted (``stance.py``).
        """
        target_offset, source_offset = self._hip_offsets
        delta = target_offset * sizes.avatar_scale - sizes.size_ratio * source_offset
        delta[:, 1] = 0.0
        turn = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), np.asarray(yaw)[..., None])
        return qrotate(turn, delta)

    def _toe_pivot(self, feet: FloatArray, source_ankle: FloatArray, spos: FloatArray,
                   gpos: FloatArray, foot_shift: FloatArray, sizes: Sizes
                   ) -> tuple[FloatArray, FloatArray]:
        """Ankle targets ``(..., 2, 3)`` and foot pitch corrections ``(..., 2, 4)``.

        On the floor the foot is pitched so its toes sit as high above the floor as the
        source's (calibration poses rarely agree on the foot's pitch: CMU's rest foot points
        down). While the heel is up the toes stay on the source's toe path; in the air they
        never go lower than the source's.

        When the source foot rolls over its toes (heel raised, toes down), the toes are the
        pivot: following the ankle alone would slide the target's toes (its foot has another
        length). The ankle target then becomes the mapped source toe minus the target's own
        ankle→toe vector (the foot's world rotation is already the source's).
        """
        s = sizes.size_ratio
        source_toe = spos[..., self._toes[:, 1], :]
        floor = sizes.capture_floor
        heel_up = source_ankle[..., 1] - sizes.source.ankle_height - floor
        toe_rest = sizes.target.toe_height * sizes.avatar_scale
        toe_height = source_toe[..., 1] - sizes.source.toe_height - floor
        toe_up = _ramp(toe_height, 0.02, 0.06)
        pivot = (_ramp(heel_up, 0.005, 0.03) * (1.0 - toe_up))[..., None]
        toe_target = source_toe * np.array([s, 1.0, s]) + foot_shift
        toe_target[..., 1] += (toe_rest - sizes.source.toe_height
                               + sizes.floor_height)
        ends = gpos[..., self._foot_ends, :]  # target toes, then ankles
        foot_vector = ends[..., :2, :] - ends[..., 2:, :]
        pitch = _pitch_to_height(foot_vector, toe_target[..., 1] - feet[..., 1], 1.0 - toe_up)
        foot_vector = qrotate(pitch, foot_vector)
        feet = feet + pivot * (toe_target - foot_vector - feet)
        # Never let the target's toes dip below the source's (a foot of other proportions
        # pitched toe-down in the swing would otherwise scrape the floor).
        # Only in the air: on the floor the toe may sit where the foot's shape puts it.
        dip = toe_target[..., 1] - (feet[..., 1] + foot_vector[..., 1])
        feet[..., 1] += (np.minimum(np.maximum(dip, 0.0), MAX_TOE_RAISE)
                         * _ramp(toe_height, 0.01, 0.03))
        return feet, pitch

    def _limb_paths(self) -> dict[str, NDArray[np.int64]]:
        """Joints turned by each limb's upper and lower deltas (twist bones included).

        A tip that is not below its lower bone (IK rigs whose feet hang from the root, like
        RobotExpressive) is "detached": it is placed where the lower bone carries it.
        """
        upper_joints, upper_limbs, lower_joints, lower_limbs = [], [], [], []
        detached = []
        for k, (upper, lower, tip) in enumerate(self._t_chain):
            upper_path = self.target.chain(int(lower))
            if int(upper) not in upper_path:
                name = self._limb_names[k]
                raise MappingError(
                    f"target {name}: {self.target.names[lower]!r} is not below "
                    f"{self.target.names[upper]!r}; a limb must be a joint chain"
                )
            tip_path = self.target.chain(int(tip))
            attached = int(lower) in tip_path
            detached.append(not attached)
            spans = [(upper_joints, upper_limbs, upper_path[upper_path.index(int(upper)):-1])]
            spans.append((lower_joints, lower_limbs,
                          tip_path[tip_path.index(int(lower)):-1] if attached else [int(lower)]))
            for joints, limbs, between in spans:
                joints.extend(between)
                limbs.extend([k] * len(between))
        self._detached = np.array(detached, dtype=bool)
        as_array = {"upper_joints": upper_joints, "upper_limbs": upper_limbs,
                    "lower_joints": lower_joints, "lower_limbs": lower_limbs}
        return {k: np.array(v, dtype=np.int64) for k, v in as_array.items()}


def _ramp(value: FloatArray, start: float, end: float) -> FloatArray:
    # minimum/maximum: the same values as np.clip (NaN included) at a fraction of its overhead
    return np.minimum(np.maximum((value - start) / (end - start), 0.0), 1.0)


def _common_ancestor(skeleton: Skeleton, joints: list[int]) -> int:
    """The deepest joint that is an ancestor of (or equal to) every joint in ``joints``."""
    chains = [skeleton.chain(j) for j in joints]
    common = joints[0]
    for depth, candidate in enumerate(chains[0]):
        if all(depth < len(c) and c[depth] == candidate for c in chains):
            common = candidate
        else:
            break
    return common


def _pitch_to_height(vector: FloatArray, height: FloatArray, weight: FloatArray) -> FloatArray:
    """Rotation ``(..., 4)`` about the horizontal axis across ``vector (..., 3)`` that brings
    its vertical component to ``height (...)`` (as near as its length allows), scaled by
    ``weight (...)`` and limited to ±0.6 rad.

    About the unit axis ``a = v × up / |v × up|`` a turn by φ gives
    ``v'.y = v.y cos φ + (a × v).y sin φ`` and ``(a × v).y`` is the horizontal length of ``v``.
    Written with few NumPy calls (one live frame pays per call); the same values as
    ``quat.from_axis_angle(axis, angle)``.
    """
    horizontal = np.hypot(vector[..., 0], vector[..., 2])
    safe = np.maximum(horizontal, 1e-12)
    axis = np.empty(vector.shape)
    axis[..., 0] = -vector[..., 2] / safe
    axis[..., 1] = 0.0
    axis[..., 2] = vector[..., 0] / safe
    axis[~(horizontal > 1e-12)] = (1.0, 0.0, 0.0)
    vertical = vector[..., 1]
    radius = np.maximum(np.hypot(vertical, horizontal), 1e-12)
    centre = np.arctan2(horizontal, vertical)
    spread = np.arccos(np.minimum(np.maximum(height / radius, -1.0), 1.0))
    low = (centre - spread + np.pi) % (2.0 * np.pi) - np.pi
    high = (centre + spread + np.pi) % (2.0 * np.pi) - np.pi
    angle = np.where(np.abs(low) <= np.abs(high), low, high)
    half = 0.5 * (np.minimum(np.maximum(angle, -0.6), 0.6) * weight)
    norm = np.sqrt(np.add.reduce(axis * axis, axis=-1))
    out = np.empty(vector.shape[:-1] + (4,))
    out[..., 0] = np.cos(half)
    out[..., 1:] = np.sin(half)[..., None] * (axis / np.where(norm > 1e-12, norm, 1.0)[..., None])
    return out


def _mul_floats(aw: float, ax: float, ay: float, az: float,
                bw: float, bx: float, by: float, bz: float) -> tuple[float, float, float, float]:
    """Hamilton product ``a * b`` of two quaternions as Python floats (``qmul``'s formula)."""
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def _rotate_floats(w: float, x: float, y: float, z: float,
                   vx: float, vy: float, vz: float) -> tuple[float, float, float]:
    """``q v q⁻¹`` as Python floats (``qrotate``'s formula)."""
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))
