"""How to start Debian's Chromium headless so it draws viser's WebGL (tests and benchmarks):
software GL through SwiftShader and no background networking (``shared/notes/viewer.md``).
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
