"""footfall: grounded character animation — feet that really touch uneven ground.

Conventions (whole package): metres, seconds, radians; right-handed, Y up; a character's local
forward is +Z; quaternions are arrays of shape ``(..., 4)`` in (w, x, y, z) order. Every
kinematics function is batched over leading axes (frames and/or characters).
"""

__version__ = "0.1.0"
