"""Remote control of the retargeting over WebSocket (seed 001), with a browser control panel.

:class:`ControlService` listens on port 64212 (``/retargeting``, the panel at ``/``); the
animation loop implements :class:`ControlTarget` and calls
:meth:`ControlService.process_pending` between frames. :mod:`.protocol` checks messages and
builds replies, :mod:`.actions` runs seed 001's eight actions (the service's own three and the
retargeter's, :data:`footfall.retarget.settings.ACTIONS`), ``panel/`` is the browser control
panel; the ``--control-*`` command-line options are :mod:`footfall.commands._control`'s. The
wire format is in ``docs/remote.md``.
"""

from footfall.remote.protocol import ACTIONS, FieldError, Request, parse_request
from footfall.remote.service import DEFAULT_PORT, PATH, ControlService, ControlServiceError
from footfall.remote.target import ControlTarget

__all__ = [
    "ACTIONS",
    "DEFAULT_PORT",
    "PATH",
    "ControlService",
    "ControlServiceError",
    "ControlTarget",
    "FieldError",
    "Request",
    "parse_request",
]
