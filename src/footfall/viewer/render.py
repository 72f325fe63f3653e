"""The demo's side-by-side comparison drawn without a browser: PNG, GIF or MP4.

The simulation of ``footfall demo`` (:class:`~footfall.viewer.simulation.DemoSimulation`) seen
from the side with matplotlib: ground profile, bushes, both bunnies (each ellipsoid projected
exactly onto the side plane, far parts first), the left bunny's rays and the right bunny's gap
bars. GIFs are written with Pillow; MP4 needs ffmpeg through ``imageio-ffmpeg``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse
from PIL import Image

from footfall import quat
from footfall.bunny.mesh import FUR, part_table
from footfall.errors import SettingsError
from footfall.viewer.i18n import check_language, text
from footfall.viewer.scene import GAP_COLOR, RAY_COLOR, bush_instances, marker_instances
from footfall.viewer.simulation import DT, DemoFrame, DemoSettings, DemoSimulation

FORMATS = (".png", ".gif", ".mp4")
VIEW_WIDTH = 4.6  # metres of path in the picture
VIEW_BELOW = 0.45  # metres shown below the lower hips' ground
SKY = "#dcecfd"
GROUND = "#a9d49a"
GROUND_EDGE = "#7fb173"
HANGUL_FONTS = ("Noto Sans CJK KR", "Noto Sans KR", "NanumGothic", "Malgun Gothic", "AppleGothic")


@dataclass(frozen=True)
class RenderOptions:
    """What to draw: the demo settings, when (``start`` s, ``seconds`` long at ``fps``), the
    picture size in pixels and the language of its labels."""

    settings: DemoSettings
    start: float = 22.8  # default: both bunnies on the course's stairs
    seconds: float = 4.0
    fps: float = 20.0
    width: int = 800
    height: int = 400
    lang: str = "en"

    def check(self) -> RenderOptions:
        """Raise :class:`SettingsError` naming the first bad field; return self."""
        self.settings.check()
        check_language(self.lang)
        if not (np.isfinite(self.start) and self.start >= 0):
            raise SettingsError(f"start {self.start} s must be ≥ 0")
        if not (np.isfinite(self.seconds) and 0 < self.seconds <= 120):
            raise SettingsError(f"seconds {self.seconds} must be in (0, 120]")
        if not (np.isfinite(self.fps) and 1 <= self.fps <= 60):
            raise SettingsError(f"fps {self.fps} must be in [1, 60]")
        if not (64 <= self.width <= 4096 and 64 <= self.height <= 4096):
            raise SettingsError(f"size {self.width}×{self.height} px must be 64…4096 each way")
        return self


def hangul_font() -> str | None:
    """The name of an installed font with Korean glyphs, or ``None``."""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in HANGUL_FONTS if name in installed), None)


def boldest_weight(family: str) -> int:
    """The heaviest installed weight (100–900) of font ``family``, 400 when unknown: asking for
    exactly that one keeps matplotlib from warning that "bold" is missing (NanumGothic's bold
    face is registered as 600)."""
    weights = [int(font.weight) for font in font_manager.fontManager.ttflist
               if font.name == family and str(font.weight).isdigit()]
    return max(weights, default=400)


def projected_ellipses(wxyz: np.ndarray, centre: np.ndarray, radii: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact side-view (onto x–y) outlines of ellipsoids: ``wxyz`` (N, 4), ``centre`` (N, 3),
    ``radii`` (N, 3) metres → widths (N,), heights (N,) metres and angles (N,) degrees (the
    ellipse's matrix is the x–y block of the ellipsoid's ``M = R diag(r²) Rᵀ``)."""
    rotation = quat.to_matrix(wxyz)  # (N, 3, 3)
    shape = rotation @ (radii[:, :, None] ** 2 * np.swapaxes(rotation, -1, -2))
    block = shape[:, :2, :2]
    values, vectors = np.linalg.eigh(block)  # ascending
    values = np.maximum(values, 0.0)
    major = vectors[:, :, 1]
    angle = np.degrees(np.arctan2(major[:, 1], major[:, 0]))
    return 2 * np.sqrt(values[:, 1]), 2 * np.sqrt(values[:, 0]), angle


def _rgb(color: tuple[int, int, int] | np.ndarray) -> tuple[float, float, float]:
    return float(color[0]) / 255.0, float(color[1]) / 255.0, float(color[2]) / 255.0


class SideView:
    """A matplotlib figure of the demo seen from the side, redrawn frame by frame."""

    def __init__(self, simulation: DemoSimulation, options: RenderOptions) -> None:
        self.simulation = simulation
        self.options = options
        self.lang = options.lang
        font = hangul_font()
        if self.lang == "ko" and font is None:
            print("footfall render: no Korean font installed (e.g. Debian fonts-nanum); "
                  "labels in English", file=sys.stderr)
            self.lang = "en"
        # Korean text in the Korean font (it has Latin letters and digits too), English in
        # matplotlib's own: one family each, so no fallback asks for a weight it lacks.
        fonts = [font] if self.lang == "ko" and font is not None else ["DejaVu Sans"]
        scale = options.width / 800.0  # text keeps its size relative to the picture
        dpi = 100
        # The object-oriented Agg canvas: no pyplot state, never a display.
        self.figure = Figure(figsize=(options.width / dpi, options.height / dpi), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_axes((0, 0, 1, 1), facecolor=SKY, aspect="equal")
        self.axes.set_axis_off()
        self.parts = part_table(simulation.skeleton)
        self.part_colors = [self.parts.colors_for([fur]) for fur in (FUR["left"], FUR["right"])]
        self._static()
        outline: dict[str, Any] = {"lw": 0.6, "ec": (0.45, 0.4, 0.5, 0.6), "zorder": 5}
        self.bunny_patches = [[self.axes.add_patch(Ellipse((0, 0), 0, 0, **outline))
                               for _ in range(self.parts.count)] for _ in range(2)]
        rays = [self.axes.plot([], [], color=_rgb(RAY_COLOR), lw=2.5, zorder=8)[0]
                for _ in range(2)]
        self.dots = self.axes.scatter([], [], s=40, color=_rgb(RAY_COLOR), zorder=9)
        # The left bunny's two rays, then the right bunny's two gap bars (marker_instances' order).
        self.bars = rays + [
            self.axes.plot([], [], color=_rgb(GAP_COLOR), lw=5, solid_capstyle="butt", zorder=9)[0]
            for _ in range(2)
        ]
        label_style: dict[str, Any] = {
            "ha": "center", "va": "bottom", "fontsize": 13 * scale, "zorder": 12, "color": "white",
            "fontweight": boldest_weight(fonts[0]), "fontfamily": fonts,
        }
        self.labels = [
            self.axes.text(0, 0, "", **label_style,
                           bbox={"boxstyle": "round,pad=0.35", "fc": colour, "ec": "none"})
            for colour in ("#1e826e", "#be3c50")
        ]
        # The legend (bottom left) and the readout (bottom right) on the same light panels.
        panel: dict[str, Any] = {
            "transform": self.axes.transAxes, "fontfamily": fonts, "color": "#33415c", "zorder": 12,
            "bbox": {"boxstyle": "round,pad=0.4", "fc": (1, 1, 1, 0.8), "ec": "none"},
        }
        self.legend = self.axes.text(0.02, 0.03, text("legend", self.lang), fontsize=11 * scale,
                                     **panel)
        self.readout = self.axes.text(0.98, 0.03, "", ha="right", va="bottom",
                                      fontsize=10 * scale, **panel)

    def _static(self) -> None:
        terrain = self.simulation.terrain
        (x_min, _), (x_max, _) = terrain.bounds
        x = np.linspace(x_min, x_max, int((x_max - x_min) / 0.01) + 1)
        ground = terrain.height(np.stack([x, np.zeros_like(x)], -1))
        self.axes.fill_between(x, ground, ground.min() - 5, color=GROUND, zorder=3, lw=0)
        self.axes.plot(x, ground, color=GROUND_EDGE, lw=1.5, zorder=4)
        centres, scales, colours = bush_instances(terrain)
        for (cx, cy, _), (sx, sy, _), colour in zip(centres, scales, colours, strict=True):
            self.axes.add_patch(Ellipse((cx, cy), 2 * sx, 2 * sy, color=_rgb(colour), zorder=1,
                                        lw=0))

    def draw(self, frame: DemoFrame) -> np.ndarray:
        """Draw ``frame`` and return the picture ``(H, W, 3)`` uint8."""
        sim = self.simulation
        wxyz, centre = self.parts.pose(frame.global_rotations, frame.global_positions)
        radii = np.tile(self.parts.radii, (2, 1))
        widths, heights, angles = projected_ellipses(wxyz.astype(np.float64),
                                                     centre.astype(np.float64), radii)
        count = self.parts.count
        for k in range(2):
            # Far parts first: the camera looks from +z, so a smaller z is further away.
            rows = slice(k * count, (k + 1) * count)
            depth = centre[rows, 2]
            order = np.argsort(np.argsort(depth))
            for i, patch in enumerate(self.bunny_patches[k]):
                j = k * count + i
                patch.set(center=(centre[j, 0], centre[j, 1]), width=widths[j], height=heights[j],
                          angle=angles[j], facecolor=_rgb(self.part_colors[k][i]),
                          zorder=5 + 0.01 * order[i] + 0.001 * k)

        markers = marker_instances(frame, sim.foot_joints)
        for line, base, length in zip(self.bars, markers.bar_pos, markers.bar_scale[:, 1],
                                      strict=True):
            line.set_data([base[0], base[0]], [base[1], base[1] + length])
        shown = markers.dot_scale[:, 0] > 0
        self.dots.set_offsets(markers.dot_pos[shown][:, :2] if shown.any() else np.zeros((0, 2)))

        hips = frame.global_positions[:, 0]
        for k, label in enumerate(self.labels):
            label.set_position((hips[k, 0], hips[k, 1] + 1.0))
            label.set_text(text("label_ik_on" if frame.ik[k] else "label_ik_off", self.lang))
            box = label.get_bbox_patch()
            assert box is not None  # every label is made with a bbox
            box.set_facecolor("#1e826e" if frame.ik[k] else "#be3c50")
        error = sim.stats.mean * 100.0
        self.readout.set_text(f"{text('readout_error', self.lang)}\n" + "\n".join(
            f"{text(side, self.lang)}: {'–' if np.isnan(e) else f'{e:.2f} cm'}"
            for side, e in zip(("readout_left", "readout_right"), error, strict=True)))
        centre_x = float(hips[:, 0].mean())
        bottom = float(np.min(sim.terrain.height(hips[:, [0, 2]]))) - VIEW_BELOW
        self.axes.set_xlim(centre_x - VIEW_WIDTH / 2, centre_x + VIEW_WIDTH / 2)
        aspect = self.options.height / self.options.width
        self.axes.set_ylim(bottom, bottom + VIEW_WIDTH * aspect)
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def close(self) -> None:
        """Free the figure."""
        self.figure.clear()


def frames(options: RenderOptions) -> Iterator[np.ndarray]:
    """The pictures of a render, one per output frame, ``(H, W, 3)`` uint8."""
    options.check()
    simulation = DemoSimulation(options.settings)
    view = SideView(simulation, options)
    try:
        for _ in range(int(round(options.start / DT))):
            simulation.step(DT)
        per_frame = max(1, int(round(1.0 / (options.fps * DT))))
        count = max(1, int(round(options.seconds * options.fps)))
        for index in range(count):
            if index:
                for _ in range(per_frame):
                    simulation.step(DT)
            yield view.draw(simulation.frame)
    finally:
        view.close()


def render(path: str | Path, options: RenderOptions) -> Path:
    """Write the comparison to ``path`` (.png: one picture at ``options.start``; .gif / .mp4:
    ``options.seconds`` of animation); returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise SettingsError(f"output {path}: unknown format {suffix!r}; use one of {FORMATS}")
    if not path.parent.exists():
        raise SettingsError(f"output {path}: folder {path.parent} does not exist")
    options.check()
    if suffix == ".png":
        single = RenderOptions(**{**vars(options), "seconds": 1.0 / options.fps})
        Image.fromarray(next(iter(frames(single)))).save(path)
    elif suffix == ".gif":
        rgb = list(frames(options))
        # One palette for every frame, taken from a sample of them, so frames cannot disagree.
        sample = Image.fromarray(np.concatenate(rgb[:: max(1, len(rgb) // 8)], axis=0))
        palette = sample.quantize(colors=192, dither=Image.Dither.NONE)
        pictures = [Image.fromarray(p).quantize(palette=palette, dither=Image.Dither.NONE)
                    for p in rgb]
        pictures[0].save(path, save_all=True, append_images=pictures[1:], loop=0,
                         duration=int(round(1000 / options.fps)), optimize=True)
    else:
        _write_mp4(path, options)
    return path


def _write_mp4(path: Path, options: RenderOptions) -> None:
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the ffmpeg binary imageio needs)
    except ImportError as error:
        raise SettingsError(f"output {path}: writing MP4 needs ffmpeg (pip install "
                            "imageio-ffmpeg); a .gif needs nothing extra") from error
    writer = imageio.get_writer(path, fps=options.fps, codec="libx264", quality=7)
    with writer:  # (``as`` would type it as imageio's base class, without append_data)
        for picture in frames(options):
            writer.append_data(picture[: picture.shape[0] // 2 * 2, : picture.shape[1] // 2 * 2])
