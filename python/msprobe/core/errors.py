"""Exceptions raised to users for invalid input (one line naming the field and what is allowed)."""
from msprobe import _core


class MsprobeException(ValueError):
    """An invalid argument passed to the public API."""


# Raised by the C++ core for config.json and file problems.
ConfigError = _core.ConfigError
MsprobeFileError = _core.MsprobeFileError
