"""What :func:`footfall.motion_io.load_motion` returns: a clip and what the file said about it
(its format, its takes, its unit and up axis, and for joint files the layout and the fit)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from footfall.arrays import FloatArray
from footfall.errors import JointsError
from footfall.joints.from_clip import positions_from_clip
from footfall.joints.io import gmd_ratio
from footfall.joints.layouts import Layout, from_y_up, to_y_up
from footfall.joints.solve import JointsFit, solve_positions
from footfall.skeleton import Clip


@dataclass
class LoadedMotion:
    """A motion read from a file.

    Attributes:
        clip: the motion as a clip (Y up, metres, facing +Z).
        path: the file it came from.
        layout: the joint layout of a joint-position, AMASS or MDM file, else None.
        up: that file's up axis; source: its positions ``(T, J, 3)`` as given (file axes).
        fit: how the clip reproduces ``source`` (joint-position files only).
        avatar: the glTF avatar of a glTF/VRM file (written back with its skin).
        format: the format read (a key of :data:`footfall.motion_io.detect.LABELS`).
        takes: names of the file's takes (glTF animations, FBX takes, MDM samples); one
            entry for single-take formats.
        take: the index of the take read.
        unit: the source's length unit as read ("m", "cm", … or "fitted"/"given" for BVH).
        scale: metres per source unit applied.
    """

    clip: Clip
    path: str
    layout: Layout | None = None
    up: str = "y"
    source: FloatArray | None = None
    fit: JointsFit | None = None
    avatar: Any = None
    format: str = "bvh"
    takes: list[str] = field(default_factory=list)
    take: int = 0
    unit: str = "m"
    scale: float = 1.0

    def positions(self, clip: Clip, layout: Layout | None = None) -> FloatArray:
        """``clip``'s joint positions ``(T, J, 3)`` in ``layout`` (default: the file's) and
        the file's up axis: what a ``.npy`` output holds."""
        layout = layout or self.layout
        if layout is None:
            raise JointsError(f"{self.path}: not a joint-position file; name the layout of "
                              "the positions to write with --layout")
        return from_y_up(positions_from_clip(clip, layout), self.up)

    def annotate(self, report: dict[str, Any], grounded: Clip) -> dict[str, Any]:
        """``report`` (``footfall ground``'s) with what only joint files have: the fit, and
        GMD's foot-skate ratio on the joint positions themselves, before (as given) and after
        (as ``--npy`` writes them) — exactly as GMD's released code computes it: the layout's
        toe joints, the file's own floor (height 0) and frame rate. Other files: unchanged."""
        if self.layout is None or self.source is None:
            return report
        fps = self.clip.fps
        for stage, positions in (("before", self.source), ("after", self.positions(grounded))):
            if stage in report:
                report[stage]["gmd_foot_skate_ratio"] = gmd_ratio(positions, self.layout,
                                                                   fps, self.up)
        report["joints"] = {
            "layout": self.layout.name, "up": self.up, "joint_count": self.layout.joint_count,
            "gmd_floor_m": 0.0,
            "fit_mean_error_mm": self.fit.mean_error_mm if self.fit else 0.0,
            "fit_max_error_mm": self.fit.max_error_mm if self.fit else 0.0,
        }
        return report



def solve_file_positions(positions: FloatArray, layout: Layout, fps: float, up: str,
                         where: str, lengths: Mapping[str, float] | None = None
                         ) -> LoadedMotion:
    """A :class:`LoadedMotion` from checked joint positions ``(T, J, 3)`` in file axes
    ``up`` (:func:`footfall.joints.solve_positions`), End Sites on its leaves
    (:func:`footfall.motion_io.end_sites.leaf_sites`)."""
    from footfall.motion_io.end_sites import leaf_sites, with_end_sites

    fit = solve_positions(to_y_up(positions, up), layout, fps, lengths=lengths, where=where)
    clip = with_end_sites(fit.clip, leaf_sites(fit.clip.skeleton, layout.toes))
    return LoadedMotion(clip, where, layout, up, positions, fit, format="npy")
