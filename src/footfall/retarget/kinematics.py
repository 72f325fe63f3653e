"""Old names of the retargeter's kinematics, kept for imports; nothing here computes.

Forward kinematics and world→local live in :mod:`footfall.skeleton` (:class:`FKPlan`),
quaternion products in :mod:`footfall.quat`. ``Levels.of(parents, subset)`` is an
:class:`FKPlan` over exactly ``subset`` (no ancestors added).
"""

from __future__ import annotations

from typing import Literal, overload

from numpy.typing import ArrayLike

from footfall import quat
from footfall.skeleton import FKPlan, FloatArray

qmul = quat.mul
qrotate = quat.rotate
qmul_conjugate = quat.inv_mul


class Levels(FKPlan):
    """:class:`FKPlan` under its old name."""

    @classmethod
    def of(cls, parents: ArrayLike, subset: ArrayLike | None = None) -> Levels:
        """The plan of ``parents (J,)`` over ``subset`` as given (all joints by default)."""
        return cls(parents, subset, ancestors=False)


@overload
def fk(levels: FKPlan, rotations: ArrayLike, translations: ArrayLike,
       positions: Literal[True] = True) -> tuple[FloatArray, FloatArray]: ...


@overload
def fk(levels: FKPlan, rotations: ArrayLike, translations: ArrayLike,
       positions: bool) -> tuple[FloatArray, FloatArray | None]: ...


def fk(levels: FKPlan, rotations: ArrayLike, translations: ArrayLike,
       positions: bool = True) -> tuple[FloatArray, FloatArray | None]:
    """``levels(rotations, translations)``, or ``(levels.rotations(rotations), None)``."""
    if positions:
        return levels(rotations, translations)
    return levels.rotations(rotations), None


def positions_from_world(levels: FKPlan, world_rotations: ArrayLike,
                         translations: ArrayLike) -> FloatArray:
    """``levels.positions(world_rotations, translations)``."""
    return levels.positions(world_rotations, translations)


def local_rotations(parents: ArrayLike, world_rotations: ArrayLike) -> FloatArray:
    """``FKPlan(parents).local_rotations(world_rotations)``."""
    return FKPlan(parents).local_rotations(world_rotations)
