"""``footfall render``: the side-view comparison written as PNG and GIF without a browser."""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from footfall import quat
from footfall.bunny.mesh import FUR
from footfall.cli import main
from footfall.errors import SettingsError
from footfall.viewer.render import RenderOptions, hangul_font, projected_ellipses, render
from footfall.viewer.scene import GAP_COLOR, RAY_COLOR, marker_instances
from footfall.viewer.simulation import DT, DemoSettings, DemoSimulation

# On the stairs scene after 6 s the left bunny climbs, the right one comes down the far side.
STAIRS = DemoSettings(terrain="stairs")
MOMENT = 6.0


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-1, 1), min_size=4, max_size=4).filter(lambda q: np.linalg.norm(q) > 0.1),
    st.lists(st.floats(0.01, 0.5), min_size=3, max_size=3),
)
def test_side_outline_of_an_ellipsoid_is_exact(q: list[float], radii: list[float]) -> None:
    wxyz = quat.normalize(np.array(q))[None]
    r = np.array(radii)[None]
    width, height, angle = projected_ellipses(wxyz, np.zeros((1, 3)), r)
    # Points all over the ellipsoid's surface, projected onto x–y…
    rng = np.random.default_rng(0)
    unit = rng.normal(size=(4000, 3))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    surface = quat.rotate(wxyz[0], unit * r[0])[:, :2]
    # …in the outline's own axes.
    a = np.radians(angle[0])
    along = surface @ np.array([np.cos(a), np.sin(a)])
    across = surface @ np.array([-np.sin(a), np.cos(a)])
    level = (along / (width[0] / 2)) ** 2 + (across / (height[0] / 2)) ** 2
    assert level.max() <= 1.0 + 1e-6  # nothing sticks out of the outline…
    assert level.max() >= 0.97  # …and the outline is tight
    assert width[0] >= height[0]


def _count(picture: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> int:
    return int((np.abs(picture.astype(int) - colour).max(axis=-1) <= tolerance).sum())


@pytest.fixture(scope="module")
def png(tmp_path_factory) -> np.ndarray:
    path = tmp_path_factory.mktemp("render") / "demo.png"
    options = RenderOptions(settings=STAIRS, start=MOMENT, width=640, height=320)
    assert render(path, options) == path
    return np.asarray(Image.open(path).convert("RGB"))


def test_png_shows_both_bunnies_rays_and_gap_bars(png: np.ndarray) -> None:
    assert png.shape == (320, 640, 3)
    assert _count(png, FUR["left"], 3) > 500  # the left bunny's fur, flat-shaded
    assert _count(png, FUR["right"], 3) > 500
    assert _count(png, RAY_COLOR, 20) > 40  # light-blue rays and dots
    # Gap bars exactly when the simulation at that moment shows a floating right foot.
    sim = DemoSimulation(STAIRS)
    for _ in range(int(round(MOMENT / DT))):
        sim.step()
    floating = marker_instances(sim.frame, sim.foot_joints).gaps_shown.any()
    assert floating, "pick a moment where the right bunny floats"
    assert _count(png, GAP_COLOR, 20) > 10


def test_gif_is_an_animation_without_ffmpeg(tmp_path) -> None:
    path = tmp_path / "demo.gif"
    options = RenderOptions(settings=STAIRS, start=1.0, seconds=0.5, fps=10, width=240, height=120)
    render(path, options)
    with Image.open(path) as gif:
        assert gif.n_frames == 5
        first = np.asarray(gif.convert("RGB"))
        gif.seek(4)
        last = np.asarray(gif.convert("RGB"))
    assert first.shape == (120, 240, 3)
    assert np.abs(first.astype(int) - last).sum() > 0  # the bunnies moved


def test_mp4_without_ffmpeg_says_what_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # as on a machine without it
    with pytest.raises(SettingsError, match="imageio-ffmpeg"):
        render(tmp_path / "demo.mp4", RenderOptions(settings=STAIRS, seconds=0.1))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"fps": 0.0}, "fps 0.0"),
        ({"seconds": -1.0}, "seconds -1.0"),
        ({"start": float("nan")}, "start nan"),
        ({"width": 10}, "size 10"),
        ({"lang": "de"}, "'de'"),
    ],
)
def test_bad_options_name_the_field(change: dict, named: str, tmp_path) -> None:
    options = RenderOptions(settings=STAIRS, **change)
    with pytest.raises(SettingsError, match=named):
        render(tmp_path / "x.png", options)


def test_bad_output_paths(tmp_path) -> None:
    options = RenderOptions(settings=STAIRS)
    with pytest.raises(SettingsError, match=r"unknown format '\.bmp'"):
        render(tmp_path / "x.bmp", options)
    with pytest.raises(SettingsError, match="does not exist"):
        render(tmp_path / "missing" / "x.png", options)


def test_cli_reports_errors_cleanly(tmp_path, capsys) -> None:
    assert main(["render", "--out", str(tmp_path / "x.bmp")]) == 2
    err = capsys.readouterr().err
    assert "footfall render: error:" in err and ".bmp" in err and "Traceback" not in err
    assert main(["render", "--out", str(tmp_path / "x.png"), "--speed", "9"]) == 2
    assert "speed 9.0" in capsys.readouterr().err


def test_korean_labels_need_a_korean_font(tmp_path, capsys) -> None:
    options = RenderOptions(
        settings=STAIRS, start=0.0, seconds=0.05, width=160, height=80, lang="ko"
    )
    render(tmp_path / "ko.png", options)
    err = capsys.readouterr().err
    if hangul_font() is None:
        assert "no Korean font" in err  # falls back to English, and says so
    else:  # the test command installs fonts-nanum: Hangul labels, drawn without a warning
        assert err == ""
        render(tmp_path / "en.png", replace(options, lang="en"))
        assert capsys.readouterr().err == ""
        korean = np.asarray(Image.open(tmp_path / "ko.png").convert("RGB"), np.int16)
        english = np.asarray(Image.open(tmp_path / "en.png").convert("RGB"), np.int16)
        assert (np.abs(korean - english).sum(axis=-1) > 60).sum() > 50  # other letters
