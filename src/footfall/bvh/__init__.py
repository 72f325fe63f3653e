"""BVH motion files: read any real-world BVH as a clip in metres, Y up, and write one back.

``load(path, scale="auto", up="auto")`` returns a :class:`footfall.skeleton.Clip`;
``save(clip, path, order="ZXY")`` writes a file Blender opens. Modules: :mod:`.reader`,
:mod:`.writer`, :mod:`.units` (guessing the length unit and up axis), :mod:`.motion` (the
MOTION block) and :mod:`.decimals` (its vectorised number parser).
"""

from footfall.bvh.reader import BVHInfo, load
from footfall.bvh.units import UNIT_SCALES
from footfall.bvh.writer import depth_first_order, format_bvh, save
from footfall.errors import BVHError

__all__ = ["BVHError", "BVHInfo", "UNIT_SCALES", "depth_first_order", "format_bvh", "load", "save"]
