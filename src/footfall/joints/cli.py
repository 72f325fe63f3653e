"""The clip commands' joint options and motion reading/writing now live in
:mod:`footfall.motion_io.cli` (the front door for every motion file); re-exported here."""

from footfall.motion_io.cli import add_joint_arguments, load_motion, npy_path, save_motion

__all__ = ["add_joint_arguments", "load_motion", "npy_path", "save_motion"]
