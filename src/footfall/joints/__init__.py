"""Joint-position motion (HumanML3D, SMPL, AMASS): solved into clips, measured, written back.

>>> from footfall.joints import LAYOUTS
>>> LAYOUTS["humanml3d"].joint_count
22
"""

from footfall.joints.layouts import LAYOUTS, Layout, get_layout, layout_for
from footfall.joints.solve import JointsFit, solve_positions

__all__ = ["LAYOUTS", "JointsFit", "Layout", "get_layout", "layout_for", "solve_positions"]
