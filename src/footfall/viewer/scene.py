"""The 3D scene of the demo in viser: terrain, bushes, two bunnies, rays, gap bars, labels.

Everything that moves is drawn as a few batched meshes, so a frame costs a handful of array
updates however many parts the bunnies have (notes/viewer.md). The arrays come from pure
functions (:func:`marker_instances`, :func:`camera_target`) that tests check without a browser.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh
import viser
from numpy.typing import ArrayLike

from footfall import quat
from footfall.bunny import PROPORTIONS
from footfall.bunny.mesh import FUR, part_table, unit_sphere
from footfall.terrain import Terrain
from footfall.viewer.i18n import text
from footfall.viewer.simulation import DemoFrame, DemoSimulation

RAY_COLOR = (127, 227, 255)  # seed 000 #7fe3ff
GAP_COLOR = (255, 90, 110)  # seed 000 #ff5a6e
BUSH_COLORS = ((134, 201, 150), (116, 184, 135))  # seed 000 #86c996, #74b887
SKY_TOP = (178, 214, 250)
SKY_BOTTOM = (255, 236, 242)
RAY_RADIUS = 0.008
GAP_RADIUS = 0.016
DOT_RADIUS = 0.035
DOT_THICKNESS = 0.05  # hit dots are short fat cylinders (one mesh with the rays and bars)
RAY_ABOVE_ANKLE = 0.45  # the drawn ray starts this far above the ankle (seed 000: ty + 0.55)
GAP_SHOWN = 0.03  # seed 000 shows a gap bar when the foot floats more than 3 cm
LABEL_ABOVE_HIPS = 1.12
LABEL_STEP = 0.02  # a label moves once its place drifts this far (metres) from where it was sent
#: The group node (bunnies, markers, labels) follows the left hips in steps of this many
#: metres; the arrays under it are relative to it, so only the labels lag by up to this much.
GROUP_STEP = 0.02
LEGEND_ABOVE_TARGET = 0.95  # metres above the look-at point (the view reaches 1.15 m above)
#: Rays and gap bars are cylinders sunk SINK to MAX_SINK metres into the ground (hidden by it),
#: resized only when the sunk part would leave that range (then to its middle) or on show/hide.
SINK = 0.05
MAX_SINK = 0.3
CAMERA_FOV = np.deg2rad(36.0)  # vertical field of view, radians
CAMERA_FOCUS_Y = 1.05 - PROPORTIONS.walk_hips_height  # look-at height above the ground
FRAMED_WIDTH = 4.4  # metres of path shown across the screen (both bunnies, 2 m apart)
FRAMED_HEIGHT = 2.3  # metres shown top to bottom
MOBILE_WIDTH = 576  # px: viser's phone layout (a control sheet over the lower screen) below this
MOBILE_BAND = 0.42  # share of a phone-layout screen left to the scene, from the top


def unit_cylinder(sections: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """A cylinder of radius 1 from y = 0 to y = 1: vertices ``(V, 3)``, faces ``(F, 3)``."""
    mesh = trimesh.creation.cylinder(radius=1.0, height=1.0, sections=sections)
    vertices = np.asarray(mesh.vertices)[:, [0, 2, 1]] * np.array([1.0, 1.0, -1.0])
    vertices[:, 1] += 0.5
    return vertices.astype(np.float32), np.asarray(mesh.faces, np.uint32)[:, ::-1]


def sky_image(height: int = 64) -> np.ndarray:
    """A vertical pastel gradient ``(height, 4, 3)`` uint8 for the background."""
    t = np.linspace(0.0, 1.0, height)[:, None, None]
    top, bottom = np.array(SKY_TOP, float), np.array(SKY_BOTTOM, float)
    return np.broadcast_to(top + (bottom - top) * t, (height, 4, 3)).astype(np.uint8)


def bush_instances(terrain: Terrain, count: int = 46) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bushes behind the path like seed 000: positions ``(N, 3)``, scales ``(N, 3)``, colours
    ``(N, 3)`` uint8, spread along the terrain's x range at z ≈ −1.5."""
    vertices = np.asarray(terrain.vertices)
    x0, x1 = float(vertices[:, 0].min()), float(vertices[:, 0].max())
    i = np.arange(count)
    x = x0 + (i + 0.5) * (x1 - x0) / count
    z = -1.45 - ((i * 13) % 5) / 20.0
    y = np.asarray(terrain.height(np.stack([x, z], -1))) + 0.12
    size = 0.32 * (0.7 + ((i * 37) % 10) / 18.0)
    scales = size[:, None] * np.array([1.0, 0.85, 1.0])
    colors = np.array([BUSH_COLORS[0] if k % 3 else BUSH_COLORS[1] for k in i], np.uint8)
    return np.stack([x, y, z], -1), scales, colors


@dataclass
class MarkerInstances:
    """Rays and gap bars as cylinder instances (4: rays of the left bunny's two feet, then gap
    bars of the right bunny's two feet) and hit dots (2). Hidden instances have scale 0.

    ``bar_pos`` (4, 3), ``bar_scale`` (4, 3), ``dot_pos`` (2, 3), ``dot_scale`` (2, 3) metres;
    ``rays_shown`` (2,) and ``gaps_shown`` (2,) bool.
    """

    bar_pos: np.ndarray
    bar_scale: np.ndarray
    dot_pos: np.ndarray
    dot_scale: np.ndarray
    rays_shown: np.ndarray
    gaps_shown: np.ndarray


def marker_instances(frame: DemoFrame, foot_joints: np.ndarray) -> MarkerInstances:
    """Where to draw the left bunny's rays and hit dots and the right bunny's gap bars, on the
    ground ``frame.ray_hit`` found under each sole; ``foot_joints`` (2,) are the ankles."""
    ankle = frame.global_positions[:, foot_joints]  # (K, 2, 3)
    hit = frame.ray_hit[0]  # (2, 3) where the left bunny's rays met the ground
    rays_shown = np.full(2, bool(frame.ik[0]))
    ray_len = np.maximum(ankle[0, :, 1] + RAY_ABOVE_ANKLE - hit[:, 1], 0.0)
    ray_radius = np.full(2, RAY_RADIUS)
    ray_scale = np.stack([ray_radius, ray_len, ray_radius], -1) * rays_shown[:, None]

    gap = frame.sole_gap[1]
    gaps_shown = gap > GAP_SHOWN
    gap_pos = frame.ray_hit[1]  # (2, 3) the ground under the right bunny's soles
    gap_radius = np.full(2, GAP_RADIUS)
    gap_scale = np.stack([gap_radius, np.maximum(gap, 1e-3), gap_radius], -1) * gaps_shown[:, None]

    dot_pos = hit + np.array([0.0, 0.01, 0.0])
    dot_scale = np.full((2, 3), DOT_RADIUS) * rays_shown[:, None]
    return MarkerInstances(np.concatenate([hit, gap_pos]).astype(np.float32),
                           np.concatenate([ray_scale, gap_scale]).astype(np.float32),
                           dot_pos.astype(np.float32), dot_scale.astype(np.float32),
                           rays_shown, gaps_shown)


def sunken_markers(markers: MarkerInstances, lengths: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The six marker cylinders (2 rays, 2 hit dots, 2 gap bars) as positions ``(6, 3)`` and
    scales ``(6, 3)`` float32, plus the bar lengths ``(4,)`` to pass back next frame.

    Each bar keeps last frame's length (``lengths``) while its sunk part stays in
    :data:`SINK`…:data:`MAX_SINK`, so the scales seldom change.
    """
    top = markers.bar_pos[:, 1] + markers.bar_scale[:, 1]  # (4,) where each bar ends
    need = markers.bar_scale[:, 1] + SINK
    fresh = need + (MAX_SINK - SINK) / 2
    if lengths is None:
        lengths = fresh
    else:
        keep = (lengths >= need) & (lengths <= markers.bar_scale[:, 1] + MAX_SINK)
        lengths = np.where(keep, lengths, fresh)
    bars = markers.bar_pos.astype(np.float64).copy()
    bars[:, 1] = top - lengths
    shown = np.concatenate([markers.rays_shown, markers.gaps_shown])
    radius = np.array([RAY_RADIUS] * 2 + [GAP_RADIUS] * 2)
    bar_scale = np.stack([radius, lengths, radius], axis=-1) * shown[:, None]
    dots = markers.dot_pos - np.array([0.0, 0.01 + DOT_THICKNESS / 2, 0.0])
    dot_scale = np.array([DOT_RADIUS, DOT_THICKNESS, DOT_RADIUS]) * markers.rays_shown[:, None]
    positions = np.concatenate([bars[:2], dots, bars[2:]])
    scales = np.concatenate([bar_scale[:2], dot_scale, bar_scale[2:]])
    return positions.astype(np.float32), scales.astype(np.float32), lengths


def camera_pose(target: np.ndarray, width: float, height: float, fov: float = CAMERA_FOV
                ) -> tuple[np.ndarray, np.ndarray]:
    """Follow-camera position and look-at ``(3,)`` metres for a window ``width × height`` px.

    Seed 000's slightly raised side view, moved back until both bunnies fit. On phone-narrow
    windows viser's control sheet covers the lower screen, so the bunnies are framed in the top
    :data:`MOBILE_BAND` instead (the view slides down, keeping its direction).
    """
    band = MOBILE_BAND if width < MOBILE_WIDTH else 1.0
    aspect = max(width, 1.0) / max(height * band, 1.0)
    tan_v = np.tan(fov / 2.0)
    distance = max(FRAMED_HEIGHT / (2.0 * tan_v * band),
                   FRAMED_WIDTH / (2.0 * tan_v * aspect * band))
    direction = np.array([0.5, 1.05, 7.4]) / np.linalg.norm([0.5, 1.05, 7.4])
    # Put the target at the middle of the top band: (1 − band)/2 of the screen above centre.
    drop = np.array([0.0, (1.0 - band) * distance * tan_v, 0.0])
    look_at = np.asarray(target, np.float64) - drop
    return look_at + direction * distance, look_at


def camera_target(frame: DemoFrame) -> np.ndarray:
    """The point the follow camera looks at: between the two bunnies, ``(3,)`` metres."""
    hips = frame.global_positions[:, 0]  # (K, 3)
    return np.array([hips[:, 0].mean(), hips[:, 1].mean() + CAMERA_FOCUS_Y, 0.0])


def linear_rgb(colors: ArrayLike) -> np.ndarray:
    """sRGB colours (0–255) → the linear values viser's batched meshes and glTF vertex colours
    expect, uint8 (three.js reads both as linear, so pastel sRGB would wash out)."""
    srgb = np.asarray(colors, np.float64) / 255.0
    return np.round(np.clip(srgb, 0.0, 1.0) ** 2.2 * 255.0).astype(np.uint8)


class DemoScene:
    """The viser scene of the demo; :meth:`update` draws one :class:`DemoFrame`.

    The ground hangs under ``/world``, which the follow view shifts under still cameras
    (:meth:`shift_world`); the bunnies, markers and labels under ``/walkers``, a node at the left
    bunny's hips moved in :data:`GROUP_STEP` steps. The legend stays put in the view.
    """

    def __init__(self, server: viser.ViserServer, simulation: DemoSimulation, lang: str) -> None:
        self.server = server
        self.simulation = simulation
        self.lang = lang
        self.parts = part_table(simulation.skeleton)
        scene = server.scene
        scene.set_up_direction("+y")
        scene.set_background_image(sky_image())
        scene.configure_fog(18.0, 45.0, color=SKY_BOTTOM)
        scene.configure_default_lights(True, cast_shadow=True)
        scene.configure_environment_map("park", environment_intensity=0.6)

        frame = simulation.frame
        origin = frame.global_positions[0, 0]
        self._origin = np.array(origin, np.float64)  # where the group node was last sent
        self.offset = np.zeros(3)  # the world's shift, metres (see shift_world)
        wxyz, pos = self._relative_parts(frame)
        self.world = scene.add_frame("/world", show_axes=False)
        self.group = scene.add_frame("/walkers", show_axes=False, position=origin)
        self._marker_scales: np.ndarray | None = None  # as last sent
        self._bar_lengths: np.ndarray | None = None
        self._scales = self.parts.scales(2)
        self._hidden = np.zeros(2, bool)
        self.bodies = scene.add_batched_meshes_simple(
            "/walkers/bunnies", *unit_sphere(), batched_wxyzs=wxyz, batched_positions=pos,
            batched_scales=self._scales,
            batched_colors=linear_rgb(self.parts.colors_for([FUR["left"], FUR["right"]])),
            lod="off", cast_shadow=True,
            receive_shadow=False,  # self-shadowed ellipsoids show shadow acne
        )
        # Rays, hit dots (flat discs) and gap bars: one batched cylinder mesh of six instances.
        self.markers = scene.add_batched_meshes_simple(
            "/walkers/markers", *unit_cylinder(), batched_wxyzs=np.tile(quat.identity(), (6, 1)),
            batched_positions=np.zeros((6, 3)), batched_scales=np.zeros((6, 3)),
            batched_colors=linear_rgb([RAY_COLOR] * 4 + [GAP_COLOR] * 2), lod="off",
            cast_shadow=False, receive_shadow=False,
        )
        self._label_at = self._label_positions(frame)
        self.labels = [scene.add_label(f"/walkers/label{k}", "", position=self._label_at[k],
                                       anchor="bottom-center", font_screen_scale=1.3)
                       for k in range(2)]
        self.legend = scene.add_label(
            "/legend", text("legend", lang),
            position=camera_target(frame) + [0.0, LEGEND_ABOVE_TARGET, 0.0],
            anchor="bottom-center", font_screen_scale=0.85,
        )
        self.terrain_handles: list = []
        self.build_terrain()
        self.update(frame)

    def _relative_parts(self, frame: DemoFrame) -> tuple[np.ndarray, np.ndarray]:
        """Both bunnies' part rotations ``(2·P, 4)``, positions ``(2·P, 3)`` from the group node."""
        wxyz, pos = self.parts.pose(frame.global_rotations, frame.global_positions)
        return wxyz, pos - self._base()

    def _base(self) -> np.ndarray:
        """The world point under the group node's origin ``(3,)`` float32."""
        return (self._origin - self.offset).astype(np.float32)

    def place_legend(self, look_at: np.ndarray) -> None:
        """Put the legend above ``look_at`` ``(3,)`` metres, where the cameras were aimed."""
        self.legend.position = np.asarray(look_at, np.float64) + [0.0, LEGEND_ABOVE_TARGET, 0.0]

    def shift_world(self, offset: np.ndarray) -> None:
        """Shift the ground by ``offset (3,)`` m (the follow view); the bunnies follow on update."""
        self.offset = np.array(offset, np.float64)
        self.world.position = self.offset

    @staticmethod
    def _label_positions(frame: DemoFrame) -> np.ndarray:
        """Each label's place ``(2, 3)`` above its bunny, relative to the left hips."""
        hips = frame.global_positions[:, 0]
        return hips - hips[0] + np.array([0.0, LABEL_ABOVE_HIPS, 0.0])

    def show_bunny(self, k: int, shown: bool) -> None:
        """Show or hide bunny ``k`` (0 left, 1 right): its parts get scale 0 when hidden."""
        self._hidden[k] = not shown
        visible = np.repeat(~self._hidden, self.parts.count)[:, None]  # (2·P, 1): scale 0 hides
        self.bodies.batched_scales = self._scales * visible

    def build_terrain(self) -> None:
        """(Re)draw the terrain and bushes of the current simulation."""
        for handle in self.terrain_handles:
            handle.remove()
        terrain = self.simulation.terrain  # a built-in scene: vertex colours 0..1
        colors = np.asarray(terrain.vertex_colors, np.float64) * 255.0
        mesh = trimesh.Trimesh(np.asarray(terrain.vertices, np.float64),
                               np.asarray(terrain.faces), process=False)
        mesh.visual = trimesh.visual.ColorVisuals(mesh, vertex_colors=linear_rgb(colors))
        ground = self.server.scene.add_mesh_trimesh("/world/terrain", mesh, receive_shadow=True)
        bush_pos, bush_scale, bush_colors = bush_instances(terrain)
        bushes = self.server.scene.add_batched_meshes_simple(
            "/world/bushes", *unit_sphere(2),
            batched_wxyzs=np.tile(quat.identity(), (len(bush_pos), 1)),
            batched_positions=bush_pos, batched_scales=bush_scale,
            batched_colors=linear_rgb(bush_colors), lod="off",
        )
        self.terrain_handles = [ground, bushes]

    def update(self, frame: DemoFrame) -> None:
        """Draw ``frame``; the group node and labels are sent only once they moved far enough."""
        hips = frame.global_positions[0, 0] + self.offset  # where the view shows it
        if np.any(np.abs(hips - self._origin) > GROUP_STEP):
            self._origin = np.array(hips, np.float64)
            self.group.position = self._origin
        wxyz, pos = self._relative_parts(frame)
        self.bodies.batched_wxyzs = wxyz
        self.bodies.batched_positions = pos
        label_at = self._label_positions(frame)
        for k in range(2):
            if np.any(np.abs(label_at[k] - self._label_at[k]) > LABEL_STEP):
                self._label_at[k] = label_at[k]
                self.labels[k].position = label_at[k]
            wanted = text("label_ik_on" if frame.ik[k] else "label_ik_off", self.lang)
            if self.labels[k].text != wanted:
                self.labels[k].text = wanted
        markers = marker_instances(frame, self.simulation.foot_joints)
        positions, scales, self._bar_lengths = sunken_markers(markers, self._bar_lengths)
        self.markers.batched_positions = positions - self._base()
        if self._marker_scales is None or not np.array_equal(scales, self._marker_scales):
            self._marker_scales = scales  # resized only on a new length, a show or a hide
            self.markers.batched_scales = scales
