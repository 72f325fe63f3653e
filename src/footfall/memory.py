"""Keeping freed memory in the process: big frames allocated again every frame without page
faults.

A crowd of 10,000 characters allocates tens of MB a frame on its worker threads. glibc's
allocator hands large blocks back to the operating system when they are freed (``munmap``, heap
trimming), so every frame faults its pages in again: measured on the shared 2-core machine,
2,400–2,800 minor faults and 12–15 ms of system time a frame, a crowd step of 24–27 ms instead
of 14–16 ms. :func:`keep_freed_memory` asks glibc (``mallopt``) to serve blocks up to
:data:`MMAP_THRESHOLD` from its heaps and to keep up to :data:`TRIM_THRESHOLD` of free memory
there: a process-wide setting, applied where the C library is glibc and ignored elsewhere.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

#: mallopt parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: Blocks up to this many bytes come from the heap (glibc's own ceiling for its dynamic rule).
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory kept in the heaps before it is returned to the system, bytes.
TRIM_THRESHOLD = 256 * 1024 * 1024


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed memory for reuse (see the module docstring); True when it did,
    False where the C library is not glibc or refused."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
