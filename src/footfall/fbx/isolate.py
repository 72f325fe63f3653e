"""Running the FBX reader in a child process, so that a crash of the native library becomes an
:class:`~footfall.errors.FBXError` naming the file instead of taking footfall down.

The child (``python -m footfall.fbx.worker``, footfall found where this process found it)
writes its arrays to an ``.npz`` in a temporary folder; they are read back without unpickling.
Its exit status says what happened: 0 read, 3 refused (its one stderr line is the reason),
killed by a signal: crashed.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
from os import PathLike
from pathlib import Path

import numpy as np

from footfall.errors import FBXError

PathArg = str | PathLike[str]

#: The child's module, and the folder footfall is imported from (put on the child's path).
WORKER = "footfall.fbx.worker"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: Longest a read may take, seconds (a 60 s take at 120 fps reads in about a second).
TIMEOUT_SECONDS = 300.0
#: Largest FBX file read, bytes.
MAX_FILE_BYTES = 2 << 30
#: Exit status of a child that refused the file (its stderr holds the reason).
REFUSED = 3


def read_arrays(path: PathArg, mode: str, take: str = "") -> dict[str, np.ndarray]:
    """The worker's arrays for ``path`` in ``mode`` (``takes``, ``clip``, ``avatar``).

    Raises :class:`FBXError` naming the file for a missing or oversized file, a file the
    reader refuses (with its reason), a crash or hang of the reader, and when the ``ufbx``
    package is not installed.
    """
    path = Path(path)
    if not path.is_file():
        raise FBXError(f"{path}: no such file")
    size = path.stat().st_size
    if size == 0:
        raise FBXError(f"{path}: empty file")
    if size > MAX_FILE_BYTES:
        raise FBXError(f"{path}: {size} bytes is larger than the {MAX_FILE_BYTES} read")
    if importlib.util.find_spec("ufbx") is None:
        raise FBXError(f"{path}: reading FBX needs the ufbx package (pip install ufbx)")
    with tempfile.TemporaryDirectory(prefix="footfall-fbx-") as folder:
        out = Path(folder) / "read.npz"
        try:
            done = subprocess.run(
                [sys.executable, "-m", WORKER, mode, str(path.resolve()), str(out), take],
                capture_output=True, timeout=TIMEOUT_SECONDS, stdin=subprocess.DEVNULL,
                env=_child_environment(), cwd=folder, check=False)  # -m puts cwd on the path
        except subprocess.TimeoutExpired:
            raise FBXError(f"{path}: the FBX reader took longer than {TIMEOUT_SECONDS:g} s "
                           "(damaged file?)") from None
        if done.returncode != 0:
            raise FBXError(f"{path}: {_failure(done.returncode, done.stderr)}")
        try:
            with np.load(out, allow_pickle=False) as arrays:
                return {name: arrays[name] for name in arrays.files}
        except (OSError, ValueError) as error:  # pragma: no cover - the child wrote it
            raise FBXError(f"{path}: the FBX reader's output is unreadable ({error})") from None


def _child_environment() -> dict[str, str]:
    """This process's environment with footfall's folder first on ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _failure(code: int, stderr: bytes) -> str:
    """One line saying why the child failed."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    last = lines[-1].strip() if lines else ""
    if code == REFUSED and last:
        return last
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the FBX reader (ufbx) crashed on this file ({name}); the file is damaged or " \
               "uses something the reader cannot handle"
    return f"the FBX reader failed (exit status {code}{': ' + last if last else ''})"
