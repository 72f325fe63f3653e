"""The array type names used in footfall's type hints (one definition for every module)."""

import numpy as np
from numpy.typing import NDArray

#: float64 arrays: positions (metres), quaternions (w, x, y, z), angles (radians), …
FloatArray = NDArray[np.float64]
#: index arrays (joints, rows)
IntArray = NDArray[np.intp]
#: masks
BoolArray = NDArray[np.bool_]
