"""Subcommands of the ``footfall`` command line, one module each (see :mod:`footfall.cli`)."""
