"""One exception type per domain, all deriving from :class:`FootfallError`.

The command line catches :class:`FootfallError` and prints its message, so every message must
name the file, line, field or value at fault.
"""


class FootfallError(Exception):
    """Base of every error footfall raises on purpose (bad input, not bugs)."""


class BVHError(FootfallError, ValueError):
    """A BVH file could not be read or written; the message names the file and line."""


class TerrainError(FootfallError, ValueError):
    """A terrain could not be built or queried (bad parameters, bad mesh file, NaN rays)."""


class SkeletonError(FootfallError, ValueError):
    """A skeleton or clip is inconsistent (shapes, parents, NaN values)."""


class MappingError(FootfallError, ValueError):
    """A humanoid bone mapping is missing bones or names bones the skeleton lacks."""


class ProtocolError(FootfallError, ValueError):
    """A network message was malformed or named an unknown action or parameter."""


class SettingsError(FootfallError, ValueError):
    """A settings file is corrupt or holds an invalid value."""


class GLTFError(FootfallError, ValueError):
    """A glTF/GLB file could not be read as a skinned avatar or written back."""


class JointsError(FootfallError, ValueError):
    """A joint-position file (.npy, AMASS .npz) or a joint layout is unusable; the message
    names the file and the problem (shape, NaN, joint count, missing field)."""


class MotionFileError(FootfallError, ValueError):
    """A motion file is of no format footfall reads (or writes), or holds what its format's
    reader cannot take (an unsafe pickle, a missing take); the message names the file, the
    format and the reason."""


class FBXError(FootfallError, ValueError):
    """An FBX file could not be read (damaged, truncated, no skeleton, no such take, or the
    native reader crashed on it); the message names the file and the problem in one line."""
