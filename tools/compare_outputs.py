"""Hash what ``footfall ground`` and ``footfall walk`` write, to show a refactor changes nothing.

Runs, in one process (the numba kernels compile once), ``footfall ground`` on every BVH in
tests/data/bvh/ over the terrains level, stairs and hills (and once with ``--no-place``), and a
few ``footfall walk`` runs, and writes the SHA-256 of every output file, report and printed text
to a JSON file. With ``--against OLD.json`` it also lists every run whose hashes differ and exits
1 if any do.

    PYTHONPATH=$PWD/src python tools/compare_outputs.py -o /tmp/hashes_main.json
    PYTHONPATH=$PWD/src python tools/compare_outputs.py -o /tmp/hashes_new.json \\
        --against /tmp/hashes_main.json
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from footfall.cli import main as footfall

ROOT = Path(__file__).resolve().parents[1]
CLIPS = sorted((ROOT / "tests" / "data" / "bvh").glob("*.bvh"))
TERRAINS = ("level", "stairs", "hills")


def runs(folder: Path) -> list[tuple[str, list[str], list[Path]]]:
    """``(name, argv, files written)`` of every run compared."""
    out = []
    for clip in CLIPS:
        for terrain in TERRAINS:
            stem = f"{clip.stem}_{terrain}"
            bvh, report = folder / f"{stem}.bvh", folder / f"{stem}.json"
            argv = ["ground", str(clip.relative_to(ROOT)), "--terrain", terrain, "-o", str(bvh),
                    "--report", str(report), "--quiet"]
            out.append((f"ground {clip.name} {terrain}", argv, [bvh, report]))
    clip = CLIPS[0].parent / "cmu_131_01.bvh"
    bvh, report = folder / "noplace.bvh", folder / "noplace.json"
    out.append(("ground cmu_131_01.bvh stairs --no-place",
                ["ground", str(clip.relative_to(ROOT)), "--terrain", "stairs", "--no-place",
                 "-o", str(bvh), "--report", str(report), "--quiet"], [bvh, report]))
    for name, extra in (("walk flat", []), ("walk stairs", ["--terrain", "stairs"]),
                        ("walk hills cmu skeleton", ["--terrain", "hills", "--skeleton",
                                                     "tests/data/bvh/cmu_131_01.bvh"]),
                        ("walk stairs no-grounding", ["--terrain", "stairs", "--no-grounding"])):
        bvh = folder / f"{name.replace(' ', '_')}.bvh"
        out.append((name, ["walk", "-o", str(bvh), "--seconds", "4", *extra], [bvh]))
    return out


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help="JSON of hashes to write")
    parser.add_argument("--against", help="an earlier JSON to compare with")
    args = parser.parse_args()
    hashes: dict[str, dict[str, str | int]] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, argv, files in runs(folder):
            printed, errors = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
                code = footfall(argv)
            text = (printed.getvalue() + errors.getvalue()).replace(tmp, "TMP")
            entry: dict[str, str | int] = {"exit": code, "printed": sha(text.encode())}
            for path in files:
                entry[path.suffix[1:]] = sha(path.read_bytes()) if path.exists() else "missing"
            hashes[name] = entry
            print(f"{name}: exit {code}", file=sys.stderr)
    print(f"{len(hashes)} runs in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    Path(args.output).write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    if not args.against:
        return 0
    old = json.loads(Path(args.against).read_text())
    differ = [name for name in sorted(set(old) | set(hashes)) if old.get(name) != hashes.get(name)]
    for name in differ:
        print(f"DIFFERS: {name}: {old.get(name)} != {hashes.get(name)}")
    print(f"{len(hashes) - len(differ)} of {len(hashes)} runs bit for bit equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
