"""The .vrma footfall writes, opened by an independent reader: pixiv's three-vrm
(``@pixiv/three-vrm`` loads the avatar, ``@pixiv/three-vrm-animation``'s
``VRMAnimationLoaderPlugin`` and ``createVRMAnimationClip`` load and retarget the animation,
three.js's ``AnimationMixer`` plays it) in headless Chromium.

The npm packages are installed by this module into a cache folder (``FOOTFALL_TEST_CACHE`` or
``~/.cache/footfall-tests``) on its first run: ``npm`` must be on the PATH and the npm registry
reachable. Each avatar (both VRM 1.0 samples and their VRM 0.x rewrites) plays CMU 131_01's
retarget; every humanoid bone's world position in three-vrm's scene (the file's own space: a VRM
0.x model still faces −Z there) must be footfall's retargeted pose, to float32 precision.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from footfall import bvh
from footfall.cli import main
from footfall.gltf import load_avatar
from footfall.retarget import Retargeter
from vrm_files import VRM1_FILES, vrm0_from_vrm1

CLIP = DATA / "bvh" / "cmu_131_01.bvh"
PACKAGES = ("three@0.180.0", "@pixiv/three-vrm@3.5.5", "@pixiv/three-vrm-animation@3.5.5")
CACHE = Path(os.environ.get("FOOTFALL_TEST_CACHE", Path.home() / ".cache" / "footfall-tests"))
TOLERANCE = 1e-5  # metres
#: Frames of the 120 fps clip compared (the last one is left out: a finished clip may wrap).
FRAMES = (0, 60, 180, 333, 500, 777, 990)

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="importmap">
{"imports": {
  "three": "./node_modules/three/build/three.module.js",
  "three/addons/": "./node_modules/three/examples/jsm/",
  "@pixiv/three-vrm": "./node_modules/@pixiv/three-vrm/lib/three-vrm.module.js",
  "@pixiv/three-vrm-animation":
    "./node_modules/@pixiv/three-vrm-animation/lib/three-vrm-animation.module.js"
}}
</script>
<script type="module">
import * as THREE from "three";
import { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
import { VRMLoaderPlugin } from "@pixiv/three-vrm";
import { VRMAnimationLoaderPlugin, createVRMAnimationClip } from "@pixiv/three-vrm-animation";

// Load a VRM and a VRM Animation as three-vrm's examples do, play it and read every humanoid
// bone's world position at the given times.
window.play = async (vrmUrl, vrmaUrl, times, bones) => {
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
  const vrm = (await loader.loadAsync(vrmUrl)).userData.vrm;
  const animations = (await loader.loadAsync(vrmaUrl)).userData.vrmAnimations;
  const clip = createVRMAnimationClip(animations[0], vrm);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const at = new THREE.Vector3();
  const positions = [];
  for (const t of times) {
    mixer.setTime(t);
    vrm.update(0);  // the normalized bones onto the model's own bones
    vrm.scene.updateMatrixWorld(true);
    positions.push(bones.map((b) => vrm.humanoid.getRawBoneNode(b).getWorldPosition(at).toArray()));
  }
  return { positions, duration: clip.duration, metaVersion: vrm.meta.metaVersion,
           tracks: clip.tracks.map((track) => track.name), animations: animations.length };
};
window.ready = true;
</script></head><body></body></html>
"""


def _install() -> Path:
    """``node_modules`` with the packages, installed once into the cache."""
    folder = CACHE / ("npm-" + "-".join(p.replace("/", "_").replace("@", "") for p in PACKAGES))
    if (folder / "installed").exists():
        return folder / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: this test installs three-vrm from the npm registry")
    CACHE.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".npm-", dir=CACHE))  # renamed when complete
    try:
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts",
                               "--prefix", str(scratch), *PACKAGES], capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"npm install {' '.join(PACKAGES)} failed: {done.stderr[-500:]}")
        (scratch / "installed").write_text("\n".join(PACKAGES) + "\n")
        shutil.rmtree(folder, ignore_errors=True)  # a half-installed one of an older run
        os.replace(scratch, folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder / "node_modules"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """(folder, URL) of a local web server serving the page, three-vrm and the files."""
    folder = tmp_path_factory.mktemp("three_vrm")
    (folder / "node_modules").symlink_to(_install(), target_is_directory=True)
    (folder / "index.html").write_text(PAGE, encoding="utf-8")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(browser, site: tuple[Path, str]):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(120_000)
    page.goto(site[1])
    page.wait_for_function("window.ready === true")
    yield page
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("version", ["1.0", "0.x"])
@pytest.mark.parametrize("sample", VRM1_FILES, ids=lambda p: p.stem.removeprefix("vrm1_"))
def test_three_vrm_plays_the_vrma_as_footfall_retargeted_it(
        site: tuple[Path, str], page, sample: Path, version: str) -> None:
    folder = site[0]
    avatar_path = (sample if version == "1.0"
                   else vrm0_from_vrm1(sample, folder / f"vrm0_{sample.name}"))
    served = folder / f"{avatar_path.stem}.vrm"
    if not served.exists():
        shutil.copyfile(avatar_path, served)
    motion = folder / f"{avatar_path.stem}.vrma"
    assert main(["retarget", str(CLIP), "--to", str(avatar_path), "-o", str(motion),
                 "--quiet"]) == 0
    avatar = load_avatar(avatar_path)
    source = bvh.load(CLIP)
    retargeter = Retargeter(source.skeleton, avatar.skeleton,
                            target_mapping=avatar.target_mapping(),
                            target_rest=avatar.rest_rotations)
    retargeter.calibrate_for(source)  # as the command does
    clip = retargeter.apply(source)
    bones = [b for b in avatar.humanoid if b not in ("LeftEye", "RightEye")]
    vrm_names = [_vrm1_name(b) for b in bones]
    result = page.evaluate("([vrm, vrma, times, bones]) => window.play(vrm, vrma, times, bones)",
                           [served.name, motion.name, [f / clip.fps for f in FRAMES], vrm_names])
    assert result["animations"] == 1
    assert result["metaVersion"] == version[0]
    assert result["duration"] == pytest.approx((clip.frame_count - 1) / clip.fps, abs=1e-4)
    assert len(result["tracks"]) == len(bones) + 1  # a rotation per bone, the hips' position
    played = np.array(result["positions"])  # (frames, bones, 3), the file's space
    expected = clip.global_positions()[np.array(FRAMES)][
        :, [avatar.skeleton.index(avatar.humanoid[b]) for b in bones]]
    if version == "0.x":
        expected = expected * [-1.0, 1.0, -1.0]  # three-vrm keeps VRM 0.x facing −Z
    error = np.abs(played - expected).max()
    assert error < TOLERANCE, (error, json.dumps(result["tracks"][:3]))


def _vrm1_name(bone: str) -> str:
    """Canonical → VRM 1.0 bone name (the thumb is one segment further in)."""
    for unity, vrm in (("ThumbProximal", "ThumbMetacarpal"), ("ThumbIntermediate",
                                                               "ThumbProximal")):
        if unity in bone:
            bone = bone.replace(unity, vrm)
            break
    return bone[0].lower() + bone[1:]
