"""How to start Debian's Chromium headless so it draws viser's WebGL (tests and benchmarks).

The flags are the ones measured in ``shared/notes/viewer.md``: software GL through SwiftShader,
and no background networking (the machines have no internet; Chromium would keep retrying).
Playwright drives the system browser; it never downloads one.
"""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]
